//! The lines of agy's internal log (docs/agy-reference.md §1.2, §5) and its file's
//! name, spelled once for the fake that writes a run's log and the harness that lays
//! the log of an earlier run in a signed-in sandbox. glog lines:
//! `Lmmdd hh:mm:ss.uuuuuu <thread> <file>:<line>] <message>`, in the file `--log-file`
//! names, else in `<app dir>/log/cli-<timestamp>.log` with `cli.log` linking to the
//! newest.
//!
//! The lines clients read the conversation id from: `Created conversation <id>` for a
//! new conversation, and in print mode `Print mode: resuming conversation <id>` for a
//! continued one and `Print mode: conversation=<id>, sending message` (the 1.1.8 capture
//! `jd-1.1.8-delegate-log-fresh`; IkariKr/CodeConductor's log parser and its tests,
//! lpleahy/obelus.nvim read them). A signed-in turn starts with the lines clients take
//! as proof of a sign-in: `applyAuthResult: email=…`, `OAuth: authenticated successfully
//! as <email>`, and in print mode `Print mode: silent auth succeeded` (agy-mcp 0.1.9
//! refuses to run agy without one of them in `log/*.log`; the 1.1.8 captures
//! `jd-1.1.8-delegate-log-fresh` and `jd-1.1.8-delegate-log-unknown-conversation` show
//! them, docs/agy-reference.md §5). The storage-specific lines (`keyringAuth: loaded
//! token`, `ChainedAuth: authenticated via keyring`) are not written: the fake keeps its
//! token in a file, and what agy logs for file storage is not recorded.
//! The source line numbers are those of the quoted lines (which versions print them is
//! not recorded). Times are UTC (glog writes local time).

use crate::sign_in::FAKE_ACCOUNT;
use time::OffsetDateTime;

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

/// The lines a signed-in turn starts with, as [`FAKE_ACCOUNT`]; `print`: a print run's,
/// which adds the silent sign-in.
pub fn sign_in_events(print: bool) -> Vec<LogEvent<'static>> {
    let mut events = vec![
        LogEvent::AuthApplied(FAKE_ACCOUNT),
        LogEvent::AuthSucceeded(FAKE_ACCOUNT),
    ];
    if print {
        events.push(LogEvent::SilentAuthSucceeded);
    }
    events
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

/// The name of the log a run started at `started` by process `pid` writes in
/// [`crate::app_files::LOG_DIR`]: `cli-<yyyymmdd-hhmmss>-<pid>.log` (the name's shape is
/// **unverified**; the pid keeps concurrent runs apart).
pub fn log_file_name(started: OffsetDateTime, pid: u32) -> String {
    format!(
        "cli-{:04}{:02}{:02}-{:02}{:02}{:02}-{pid}.log",
        started.year(),
        u8::from(started.month()),
        started.day(),
        started.hour(),
        started.minute(),
        started.second(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_in_lines_name_the_account_as_clients_match_them() {
        let at = time::macros::datetime!(2026-09-14 23:14:17.918219 UTC);
        let text: String = sign_in_events(true)
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
    fn only_a_print_run_logs_the_silent_sign_in() {
        assert!(!sign_in_events(false).contains(&LogEvent::SilentAuthSucceeded));
        assert!(sign_in_events(true).contains(&LogEvent::SilentAuthSucceeded));
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

    #[test]
    fn a_log_file_is_named_for_its_start_and_process() {
        let at = time::macros::datetime!(2026-07-04 01:05:07.5 UTC);
        assert_eq!(log_file_name(at, 42), "cli-20260704-010507-42.log");
    }
}
