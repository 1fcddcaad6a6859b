//! Writes agy's internal log (docs/agy-reference.md §1.2, §5): the lines and the file's
//! name are `agy_protocol::agy_log`'s; this file appends them to the file `--log-file`
//! names, else to `<app dir>/log/cli-<timestamp>-<pid>.log`, with `cli.log` linking to
//! the newest.

use crate::error::FakeError;
use crate::store::brain::AppDir;
pub use agy_protocol::agy_log::LogEvent;
use agy_protocol::agy_log::{glog_line, log_file_name};
use agy_protocol::app_files::{LOG_DIR, LOG_LINK};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use time::OffsetDateTime;

/// Appends `events` to the log: the `--log-file` (relative to the working directory,
/// created when missing) or this process's file in `<app dir>/log/`. Returns the file.
pub fn append_events(
    app: &AppDir,
    log_file: Option<&str>,
    events: &[LogEvent<'_>],
) -> Result<PathBuf, FakeError> {
    let now = OffsetDateTime::now_utc();
    let pid = std::process::id();
    let path = match log_file {
        Some(p) => PathBuf::from(p),
        None => default_log(app, now, pid)?,
    };
    let text: String = events.iter().map(|e| glog_line(*e, now, pid)).collect();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| FakeError::io("open the log", &path, e))?;
    file.write_all(text.as_bytes())
        .map_err(|e| FakeError::io("append to the log", &path, e))?;
    Ok(path)
}

/// When this process first wrote its log: the time in the file's name, so every line of
/// one run goes to one file.
static FIRST_WRITE: OnceLock<OffsetDateTime> = OnceLock::new();

/// `<app dir>/log/cli-<yyyymmdd-hhmmss>-<pid>.log`, and `cli.log` pointing at it, timed
/// by the process's first write.
fn default_log(app: &AppDir, now: OffsetDateTime, pid: u32) -> Result<PathBuf, FakeError> {
    let now = *FIRST_WRITE.get_or_init(|| now);
    let dir = app.root.join(LOG_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| FakeError::io("create dir", &dir, e))?;
    let name = log_file_name(now, pid);
    relink(&dir.join(LOG_LINK), Path::new(&name));
    Ok(dir.join(name))
}

/// Points `link` at `target`; a concurrent run relinking at the same moment may win.
fn relink(link: &Path, target: &Path) {
    let _ = std::fs::remove_file(link);
    let _ = std::os::unix::fs::symlink(target, link);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_writes_one_log_file_however_long_it_runs() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let app = AppDir {
            root: dir.path().to_path_buf(),
        };
        let start = time::macros::datetime!(2026-09-14 23:14:17 UTC);
        let first = default_log(&app, start, 7).expect("the log");
        let later = default_log(&app, start + time::Duration::minutes(3), 7).expect("the log");
        assert_eq!(first, later);
    }
}
