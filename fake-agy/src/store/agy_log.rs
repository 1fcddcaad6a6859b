//! agy's internal log (docs/agy-reference.md §1.2, §5): glog lines
//! `Lmmdd hh:mm:ss.uuuuuu <thread> <file>:<line>] <message>`, in the file `--log-file`
//! names, else in `<app dir>/log/cli-<timestamp>.log` with `cli.log` linking to the
//! newest. The fake writes the lines clients read the conversation id from: `Created
//! conversation <id>` for a new conversation, and in print mode `Print mode: resuming
//! conversation <id>` for a continued one and `Print mode: conversation=<id>, sending
//! message` (the 1.1.8 capture `jd-1.1.8-delegate-log-fresh`; IkariKr/CodeConductor's log
//! parser and its tests, lpleahy/obelus.nvim read them). agy's other lines are not written.
//! A signed-in turn starts with the lines clients take as proof of a sign-in:
//! `applyAuthResult: email=…`, `OAuth: authenticated successfully as <email>`, and in
//! print mode `Print mode: silent auth succeeded` (agy-mcp 0.1.9 refuses to run agy
//! without one of them in `log/*.log`; the 1.1.8 captures `jd-1.1.8-delegate-log-fresh`
//! and `jd-1.1.8-delegate-log-unknown-conversation` show them, docs/agy-reference.md §5).
//! The storage-specific lines (`keyringAuth: loaded token`, `ChainedAuth: authenticated
//! via keyring`) are not written: the fake keeps its token in a file, and what agy logs
//! for file storage is not recorded.
//! The source line numbers are those of the quoted lines (which versions print them is
//! not recorded). Times are UTC (glog writes local time).

use crate::error::FakeError;
use crate::store::brain::AppDir;
use agy_protocol::app_files::{LOG_DIR, LOG_LINK};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use time::OffsetDateTime;

/// The account a signed-in fake names in its log: plainly fake.
pub const FAKE_ACCOUNT: &str = "fake-agy@example.com";

/// What the log says about the sign-in and the conversation a run works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogEvent<'a> {
    /// The sign-in's result is applied (`server_oauth.go:192`).
    AuthApplied(&'a str),
    /// The sign-in succeeded as the account (`server_oauth.go:197`).
    AuthSucceeded(&'a str),
    /// Print mode signed in without asking (`printmode.go:346`).
    SilentAuthSucceeded,
    /// A new conversation (`server.go:861`).
    Created(&'a str),
    /// Print mode continues a stored one (`printmode.go:181`).
    Resuming(&'a str),
    /// Print mode sends the prompt into it (`printmode.go:191`).
    Sending(&'a str),
}

impl LogEvent<'_> {
    /// The source position and message agy logs.
    fn text(&self) -> (&'static str, String) {
        match self {
            LogEvent::AuthApplied(email) => (
                "server_oauth.go:192",
                format!("applyAuthResult: email={email}, authMethod=consumer, quotaProject="),
            ),
            LogEvent::AuthSucceeded(email) => (
                "server_oauth.go:197",
                format!("OAuth: authenticated successfully as {email}"),
            ),
            LogEvent::SilentAuthSucceeded => (
                "printmode.go:346",
                "Print mode: silent auth succeeded".to_string(),
            ),
            LogEvent::Created(id) => ("server.go:861", format!("Created conversation {id}")),
            LogEvent::Resuming(id) => (
                "printmode.go:181",
                format!("Print mode: resuming conversation {id}"),
            ),
            LogEvent::Sending(id) => (
                "printmode.go:191",
                format!("Print mode: conversation={id}, sending message"),
            ),
        }
    }
}

/// One glog line at `now` from process `pid`, severity INFO.
pub fn glog_line(event: LogEvent<'_>, now: OffsetDateTime, pid: u32) -> String {
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

/// `<app dir>/log/cli-<yyyymmdd-hhmmss>-<pid>.log`, and `cli.log` pointing at it (the
/// name's shape is **unverified**; the pid keeps concurrent runs apart), timed by the
/// process's first write.
fn default_log(app: &AppDir, now: OffsetDateTime, pid: u32) -> Result<PathBuf, FakeError> {
    let now = *FIRST_WRITE.get_or_init(|| now);
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
    fn the_sign_in_lines_name_the_account_as_clients_match_them() {
        let at = time::macros::datetime!(2026-09-14 23:14:17.918219 UTC);
        let text: String = [
            LogEvent::AuthApplied(FAKE_ACCOUNT),
            LogEvent::AuthSucceeded(FAKE_ACCOUNT),
            LogEvent::SilentAuthSucceeded,
        ]
        .iter()
        .map(|e| glog_line(*e, at, 1))
        .collect();
        assert_eq!(
            text,
            "I0914 23:14:17.918219 1 server_oauth.go:192] applyAuthResult: email=fake-agy@example.com, authMethod=consumer, quotaProject=\n\
             I0914 23:14:17.918219 1 server_oauth.go:197] OAuth: authenticated successfully as fake-agy@example.com\n\
             I0914 23:14:17.918219 1 printmode.go:346] Print mode: silent auth succeeded\n"
        );
    }

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

    #[test]
    fn a_line_has_glog_shape() {
        let at = time::macros::datetime!(2026-07-14 01:25:07.072209 UTC);
        let id = "cd8df5e8-9bf8-4d16-bd25-dc199521dbc8";
        assert_eq!(
            glog_line(LogEvent::Created(id), at, 56800),
            format!("I0714 01:25:07.072209 56800 server.go:861] Created conversation {id}\n")
        );
        assert_eq!(
            glog_line(LogEvent::Sending(id), at, 56800),
            format!("I0714 01:25:07.072209 56800 printmode.go:191] Print mode: conversation={id}, sending message\n")
        );
    }
}
