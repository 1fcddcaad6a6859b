//! The identity handshake: how agy-harness makes sure a binary given as "the fake" is
//! fake-agy (or fake-agy-acp) before it runs any scenario with it, so a real agy can
//! only ever run through `--agy … --live`.
//!
//! The harness starts the binary once with `--version`, stdin closed, a `HOME` of its
//! own and [`ENV_IDENTIFY`] set to a fresh nonce. The fakes answer before anything
//! else with [`identity_line`] and exit 0; a real agy prints its version (spending no
//! quota) and a stand-in prints whatever it prints — neither echoes the nonce in the
//! fake's words.
//!
//! Words alone prove nothing: a wrapper script can let the real fake answer and run a
//! real agy otherwise. So the answer carries content: the SHA-256 of the file the
//! kernel is executing (`/proc/self/exe`, [`file_sha256`]). The harness hashes the
//! file it was given and accepts only a native executable ([`NATIVE_MAGIC`], not a
//! `#!` script) whose running image reports that same digest. A wrapper that execs the
//! fake reports the fake's digest, not its own; a script that computes its own digest
//! is not a native executable.

use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// The first bytes of the only executables accepted as a fake: ELF images. A `#!`
/// script (a wrapper) starts otherwise.
pub const NATIVE_MAGIC: &[u8] = b"\x7fELF";

/// The most of a file [`file_sha256`] hashes: far above a debug build of a fake.
pub const HASH_CAP: u64 = 1 << 30;

/// The variable carrying the handshake's nonce; a fake that sees it answers and exits.
pub const ENV_IDENTIFY: &str = crate::env::FAKE_AGY_IDENTIFY;

/// The argument the handshake passes, harmless to a real agy.
pub const IDENTIFY_ARG: &str = "--version";

/// What a fake answered: its version and the digest of its running image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The fake's crate version.
    pub version: String,
    /// [`file_sha256`] of the file the kernel ran, in lowercase hex.
    pub sha256: String,
}

/// The line a fake answers with:
/// `<binary> identity <nonce> version <version> sha256 <digest>`.
pub fn identity_line(binary: &str, nonce: &str, version: &str, sha256: &str) -> String {
    format!("{binary} identity {nonce} version {version} sha256 {sha256}")
}

/// The answer in `stdout` when it holds `binary`'s answer to `nonce`.
pub fn read_identity(stdout: &str, binary: &str, nonce: &str) -> Option<Answer> {
    let prefix = format!("{binary} identity {nonce} version ");
    let rest = stdout.lines().find_map(|l| l.strip_prefix(&prefix))?;
    let mut words = rest.split_whitespace();
    let (version, key, sha256) = (words.next()?, words.next()?, words.next()?);
    let hex = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
    (key == "sha256" && hex && words.next().is_none()).then(|| Answer {
        version: version.to_string(),
        sha256: sha256.to_ascii_lowercase(),
    })
}

/// The answer to give when [`ENV_IDENTIFY`] is set: the line to print, else `None`.
/// A fake's `main` calls this first. The digest is that of `/proc/self/exe`, the file
/// the kernel is running, whatever path started it.
pub fn answer_identity(binary: &str, version: &str) -> Option<String> {
    let nonce = std::env::var(ENV_IDENTIFY).ok()?;
    let sha256 = file_sha256(Path::new("/proc/self/exe")).unwrap_or_else(|_| "unreadable".into());
    Some(identity_line(binary, &nonce, version, &sha256))
}

/// The SHA-256 of the file at `path` (at most [`HASH_CAP`] bytes), in lowercase hex.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?.take(HASH_CAP);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn the_fakes_answer_is_read_back_with_its_version_and_digest() {
        let line = identity_line("fake-agy", "n-42", "0.1.0", DIGEST);
        let answer = read_identity(&format!("{line}\n"), "fake-agy", "n-42").expect("answer");
        assert_eq!(answer.version, "0.1.0");
        assert_eq!(answer.sha256, DIGEST);
    }

    #[test]
    fn an_answer_without_a_digest_is_no_answer() {
        let text = "fake-agy identity n-42 version 0.1.0\n";
        assert_eq!(read_identity(text, "fake-agy", "n-42"), None);
        let short = identity_line("fake-agy", "n-42", "0.1.0", "abc");
        assert_eq!(read_identity(&short, "fake-agy", "n-42"), None);
    }

    #[test]
    fn the_digest_is_the_sha256_of_the_files_bytes() {
        let dir = std::env::temp_dir().join(format!("agy-identity-{}", std::process::id()));
        std::fs::write(&dir, b"abc").expect("write");
        let digest = file_sha256(&dir).expect("hash");
        let _ = std::fs::remove_file(&dir);
        // FIPS 180-2, appendix B.1: SHA-256("abc").
        assert_eq!(
            digest,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn another_nonce_another_binary_or_a_version_banner_is_no_answer() {
        let line = identity_line("fake-agy", "n-42", "0.1.0", DIGEST);
        assert_eq!(read_identity(&line, "fake-agy", "n-43"), None);
        assert_eq!(read_identity(&line, "fake-agy-acp", "n-42"), None);
        assert_eq!(
            read_identity("agy version 1.3.2\n", "fake-agy", "n-42"),
            None
        );
        assert_eq!(read_identity("", "fake-agy", "n-42"), None);
    }
}
