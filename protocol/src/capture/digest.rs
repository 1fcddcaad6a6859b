//! SHA-256 of bytes, as lowercase hex: how a capture file's bytes are pinned in
//! corpus.toml (`sha256`) and how the fidelity baseline keys a divergence.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_of_known_bytes_is_the_published_one() {
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
