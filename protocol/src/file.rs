//! Whole files (scripts, traces, scenarios, spikes, configs) read under a cap: a file
//! larger than the cap, or a device that never ends (`/dev/zero`), is refused with an
//! error naming the cap, before its content is held.

use std::io::{self, Read};
use std::path::Path;

/// The cap of a file read whole: 64 MiB.
pub const FILE_CAP: u64 = 64 * 1024 * 1024;

/// Reads `path` as UTF-8, refusing more than `cap` bytes.
pub fn read_file_bounded(path: &Path, cap: u64) -> io::Result<String> {
    read_file_located(path, cap).map_err(|e| match e {
        FileError::Io(e) => e,
        FileError::NotUtf8 { line, column } => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not valid UTF-8 at line {line}, column {column}"),
        ),
        e => io::Error::new(io::ErrorKind::InvalidData, e.to_string()),
    })
}

/// Why a whole file could not be read; [`FileError::location`] says where, for a
/// diagnostic that prints it once.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Opening or reading failed.
    #[error("{0}")]
    Io(io::Error),
    /// The file is larger than its cap.
    #[error("larger than the cap of {cap} bytes")]
    TooLarge {
        /// The cap.
        cap: u64,
    },
    /// A byte sequence is not UTF-8.
    #[error("not valid UTF-8")]
    NotUtf8 {
        /// 1-based line of the first bad byte.
        line: usize,
        /// 1-based column (in characters) of the first bad byte.
        column: usize,
    },
}

impl FileError {
    /// Line and column of the problem (1:1 when it is the whole file's).
    pub fn location(&self) -> (usize, usize) {
        match self {
            FileError::NotUtf8 { line, column } => (*line, *column),
            _ => (1, 1),
        }
    }
}

/// Reads `path` as UTF-8, refusing more than `cap` bytes, with the problem located.
pub fn read_file_located(path: &Path, cap: u64) -> Result<String, FileError> {
    let bytes = read_bytes_bounded(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = &e.as_bytes()[..at];
        let start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        FileError::NotUtf8 {
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
            // `valid` is UTF-8 up to `at`, so its last line counts in characters.
            column: String::from_utf8_lossy(&valid[start..]).chars().count() + 1,
        }
    })
}

/// The bytes of `path`, a regular file of at most `cap` bytes: a FIFO, a device
/// (`/dev/zero`) or a folder is refused without waiting and without reading, and a file
/// over the cap before more than `cap + 1` bytes are held.
pub fn read_bytes_bounded(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking, so that opening a FIFO returns instead of waiting for a writer; a
    // regular file reads the same either way.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(FileError::Io)?;
    if !file.metadata().map_err(FileError::Io)?.is_file() {
        return Err(FileError::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, a device or a folder)",
        )));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(FileError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge { cap });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_cap_is_refused_naming_the_cap() {
        let dir = tempfile::tempdir().expect("dir");
        let p = dir.path().join("big");
        std::fs::write(&p, vec![b'a'; 2048]).expect("write");
        let err = read_file_bounded(&p, 1024).expect_err("refused");
        assert!(err.to_string().contains("cap of 1024 bytes"), "{err}");
    }

    #[test]
    fn fifos_and_devices_are_refused_without_waiting() {
        // Regression: a scenario's `script` naming a FIFO hung `check` for ever.
        let dir = tempfile::tempdir().expect("dir");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        for p in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            let err = read_file_bounded(p, 1024).expect_err("refused");
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let dir = std::env::temp_dir().join(format!("bounded-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = dir.join("f");
        std::fs::write(&p, b"ok\nab\xffc\n").expect("write");
        let err = read_file_located(&p, 1024).expect_err("refused");
        assert_eq!(err.location(), (2, 3), "{err}");
        let d = err.diagnostic("f", "read trace").to_string();
        assert!(d.contains("--> f:2:3"), "{d}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
