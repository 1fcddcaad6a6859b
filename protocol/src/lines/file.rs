//! Whole files (scripts, traces, scenarios, spikes, configs) read under a cap: a file
//! larger than the cap, or a device that never ends (`/dev/zero`), is refused with an
//! error naming the cap, before its content is held.

use std::io::{self, Read};
use std::path::Path;

/// The cap of a file read whole: 64 MiB.
pub const FILE_CAP: u64 = 64 * 1024 * 1024;

/// Reads `path` as UTF-8, refusing more than `cap` bytes.
pub fn read_file_bounded(path: &Path, cap: u64) -> io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than the cap of {cap} bytes"),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = &e.as_bytes()[..at];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not valid UTF-8 at line {line}, column {column}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_zero_is_refused_naming_the_cap() {
        let err = read_file_bounded(Path::new("/dev/zero"), 1024).expect_err("refused");
        assert!(err.to_string().contains("cap of 1024 bytes"), "{err}");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let dir = std::env::temp_dir().join(format!("bounded-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join("f");
        std::fs::write(&p, b"ok\nab\xffc\n").expect("write");
        let err = read_file_bounded(&p, 1024).expect_err("refused");
        assert!(err.to_string().contains("line 2, column 3"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
