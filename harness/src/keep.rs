//! Files a user keeps (reports, the fidelity baseline, `repro` scenarios, recorded
//! traces): written whole or not at all, so a full disk never leaves an earlier one
//! cut, and an earlier one is never replaced unless `--force` says so.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` whole or not at all: see [`write_kept_with`].
pub fn write_kept(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    write_kept_with(path, |w| w.write_all(bytes.as_ref()))
}

/// Writes to `path` what `fill` writes, whole or not at all: into a temporary file in
/// the same folder (`tempfile`'s `NamedTempFile`), synced, then renamed over `path`.
/// When `fill`, the sync or the rename fails (a full disk), the earlier file is left
/// as it was and the temporary one is removed. A new file gets the usual mode (0666
/// less the umask); a replaced one keeps its own.
pub fn write_kept_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mode = std::fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
    let mut part = tempfile::Builder::new()
        .prefix(".")
        .suffix(".part")
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    {
        let mut w = io::BufWriter::new(part.as_file_mut());
        fill(&mut w)?;
        w.flush()?;
    }
    part.as_file().sync_all()?;
    part.persist(path).map_err(|e| e.error)?;
    // The rename is durable once the folder is synced; a folder that cannot be opened
    // for it (some file systems) still holds the whole file.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A kept file that is there already: what to say, and what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// What is wrong, naming the file.
    pub message: String,
    /// What to do next, naming `--force`.
    pub hint: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error: {}\nhelp: {}", self.message, self.hint)
    }
}

/// Refuses to replace `path` when it exists and `force` is off: the error names the
/// file and the flag. `flag` is the option that chose the file (`--out`, `--record`).
pub fn refuse_overwrite(path: &Path, force: bool, flag: &str) -> Result<(), Refused> {
    if force || std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    Err(Refused {
        message: format!(
            "`{}` already exists (from an earlier `{flag}`); nothing was run or replaced",
            path.display()
        ),
        hint: format!("move it away, choose another `{flag}`, or give `--force` to replace it"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_midway_leaves_the_earlier_file_whole() {
        // A full disk mid-write: the earlier baseline or report must survive intact.
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("baseline.toml");
        std::fs::write(&path, "the accepted baseline\n").expect("write");
        let e = write_kept_with(&path, |w| {
            w.write_all(b"half of the new")?;
            Err(io::Error::from_raw_os_error(
                nix::errno::Errno::ENOSPC as i32,
            ))
        })
        .expect_err("the failure is returned");
        assert_eq!(e.raw_os_error(), Some(nix::errno::Errno::ENOSPC as i32));
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "the accepted baseline\n"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            left,
            [std::ffi::OsString::from("baseline.toml")],
            "no part file is left"
        );
        write_kept(&path, "the new baseline\n").expect("write");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "the new baseline\n"
        );
    }

    #[test]
    fn an_existing_file_is_refused_with_its_name_and_the_flag() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("a.toml");
        assert!(refuse_overwrite(&path, false, "--out").is_ok());
        std::fs::write(&path, "kept").expect("write");
        let e = refuse_overwrite(&path, false, "--out").expect_err("refused");
        let shown = e.to_string();
        assert!(shown.contains(&path.display().to_string()), "{shown}");
        assert!(shown.contains("`--force`"), "{shown}");
        assert!(refuse_overwrite(&path, true, "--out").is_ok());
    }
}
