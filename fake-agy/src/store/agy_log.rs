//! agy's internal log (docs/agy-reference.md §1.2, §5): glog lines
//! `Lmmdd hh:mm:ss.uuuuuu <thread> <file>:<line>] <message>`, in the file `--log-file`
//! names, else in `<app dir>/log/cli-<timestamp>.log` with `cli.log` linking to the
//! newest. The fake writes the lines clients read the conversation id from: `Created
//! conversation <id>` for a new conversation, and in print mode `Print mode: resuming
//! conversation <id>` for a continued one and `Print mode: conversation=<id>, sending
//! message` (the 1.1.8 capture `jd-1.1.8-delegate-log-fresh`; IkariKr/CodeConductor's log
//! parser and its tests, lpleahy/obelus.nvim read them). agy's other lines are not written.
//! The source line numbers are those of the quoted lines (which versions print them is
//! not recorded). Times are UTC (glog writes local time).

use crate::error::FakeError;
use crate::store::brain::AppDir;
use agy_protocol::app_files::{LOG_DIR, LOG_LINK};
use std::io::Write;
use std::path::{Path, PathBuf};
use time::OffsetDateTime;

/// What the log says about the conversation a run works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConversationEvent<'a> {
    /// A new conversation (`server.go:861`).
    Created(&'a str),
    /// Print mode continues a stored one (`printmode.go:181`).
    Resuming(&'a str),
    /// Print mode sends the prompt into it (`printmode.go:191`).
    Sending(&'a str),
}

impl ConversationEvent<'_> {
    /// The source position and message agy logs.
    fn text(&self) -> (&'static str, String) {
        match self {
            ConversationEvent::Created(id) => {
                ("server.go:861", format!("Created conversation {id}"))
            }
            ConversationEvent::Resuming(id) => (
                "printmode.go:181",
                format!("Print mode: resuming conversation {id}"),
            ),
            ConversationEvent::Sending(id) => (
                "printmode.go:191",
                format!("Print mode: conversation={id}, sending message"),
            ),
        }
    }
}

/// One glog line at `now` from process `pid`, severity INFO.
pub fn glog_line(event: ConversationEvent<'_>, now: OffsetDateTime, pid: u32) -> String {
    let (at, message) = event.text();
    format!(
        "I{:02}{:02} {:02}:{:02}:{:02}.{:06} {pid} {at}] {message}\n",
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.microsecond(),
    )
}

/// Appends `events` to the log: the `--log-file` (relative to the working directory,
/// created when missing) or this process's file in `<app dir>/log/`. Returns the file.
pub fn append_events(
    app: &AppDir,
    log_file: Option<&str>,
    events: &[ConversationEvent<'_>],
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

/// `<app dir>/log/cli-<yyyymmdd-hhmmss>-<pid>.log`, and `cli.log` pointing at it (the
/// name's shape is **unverified**; the pid keeps concurrent runs apart).
fn default_log(app: &AppDir, now: OffsetDateTime, pid: u32) -> Result<PathBuf, FakeError> {
    let dir = app.root.join(LOG_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| FakeError::io("create dir", &dir, e))?;
    let name = format!(
        "cli-{:04}{:02}{:02}-{:02}{:02}{:02}-{pid}.log",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
    );
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
    fn a_line_has_glog_shape() {
        let at = time::macros::datetime!(2026-07-14 01:25:07.072209 UTC);
        let id = "cd8df5e8-9bf8-4d16-bd25-dc199521dbc8";
        assert_eq!(
            glog_line(ConversationEvent::Created(id), at, 56800),
            format!("I0714 01:25:07.072209 56800 server.go:861] Created conversation {id}\n")
        );
        assert_eq!(
            glog_line(ConversationEvent::Sending(id), at, 56800),
            format!("I0714 01:25:07.072209 56800 printmode.go:191] Print mode: conversation={id}, sending message\n")
        );
    }
}
