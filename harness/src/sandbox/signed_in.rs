//! What a machine where agy is signed in and has run holds before an adapter's first
//! call: the token file agy keeps when no OS keyring is reachable and the log of an
//! earlier signed-in print run, its sign-in lines timed [`EARLIER_RUN`] before now, with
//! `cli.log` linking to it (docs/agy-reference.md §5: the 1.1.8 captures
//! `jd-1.1.8-delegate-log-fresh` and `jd-1.1.8-delegate-log-unknown-conversation` show
//! those lines). Clients check for one or the other before they run agy (agy-mcp 0.1.9
//! reads `log/*.log`). The content is `agy_protocol`'s, the same fake-agy writes.

use super::profile_dir;
use agy_protocol::agy_log::{glog_line, log_file_name, sign_in_events};
use agy_protocol::app_files::{LOG_DIR, LOG_LINK, TOKEN_FILE};
use agy_protocol::sign_in::fake_token;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use time::OffsetDateTime;

/// How long before the sandbox is made the earlier run signed in.
pub(crate) const EARLIER_RUN: time::Duration = time::Duration::minutes(5);

/// The process id the earlier run's log names (the process is long gone).
const EARLIER_PID: u32 = 4242;

/// Lays the token file (mode 600) and the earlier run's log under `home`'s agy profile,
/// as they were at `now`.
pub(crate) fn lay_signed_in(home: &Path, now: OffsetDateTime) -> io::Result<()> {
    let profile = profile_dir(home);
    let log_dir = profile.join(LOG_DIR);
    std::fs::create_dir_all(&log_dir)?;
    let mut token = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(profile.join(TOKEN_FILE))?;
    token.write_all(fake_token(now).as_bytes())?;
    let started = now - EARLIER_RUN;
    let name = log_file_name(started, EARLIER_PID);
    let text: String = sign_in_events(true)
        .iter()
        .map(|e| glog_line(*e, started, EARLIER_PID))
        .collect();
    let mut log = std::fs::File::create(log_dir.join(&name))?;
    log.write_all(text.as_bytes())?;
    log.set_modified(started.into())?;
    std::os::unix::fs::symlink(&name, log_dir.join(LOG_LINK))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_log_signs_in_before_now_and_cli_log_links_to_it() {
        let home = tempfile::tempdir().expect("home");
        let now = OffsetDateTime::now_utc();
        lay_signed_in(home.path(), now).expect("laid");
        let log_dir = profile_dir(home.path()).join(LOG_DIR);
        let text = std::fs::read_to_string(log_dir.join(LOG_LINK)).expect("cli.log");
        assert!(text.contains("OAuth: authenticated successfully as fake-agy@example.com"));
        let modified =
            std::fs::metadata(std::fs::canonicalize(log_dir.join(LOG_LINK)).expect("target"))
                .and_then(|m| m.modified())
                .expect("mtime");
        assert!(
            OffsetDateTime::from(modified) < now,
            "the log is older than now"
        );
        use std::os::unix::fs::PermissionsExt;
        let token = profile_dir(home.path()).join(TOKEN_FILE);
        let mode = std::fs::metadata(&token)
            .expect("token")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
