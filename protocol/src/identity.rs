//! The identity handshake: how agy-harness makes sure a binary given as "the fake" is
//! fake-agy (or fake-agy-acp) before it runs any scenario with it, so a real agy can
//! only ever run through `--agy … --live`.
//!
//! The harness starts the binary once with `--version`, stdin closed, a `HOME` of its
//! own and [`ENV_IDENTIFY`] set to a fresh nonce. The fakes answer before anything
//! else with [`identity_line`] and exit 0; a real agy prints its version (spending no
//! quota) and a stand-in prints whatever it prints — neither echoes the nonce in the
//! fake's words.

/// The variable carrying the handshake's nonce; a fake that sees it answers and exits.
pub const ENV_IDENTIFY: &str = crate::env::FAKE_AGY_IDENTIFY;

/// The argument the handshake passes, harmless to a real agy.
pub const IDENTIFY_ARG: &str = "--version";

/// The line a fake answers with: `<binary> identity <nonce> version <version>`.
pub fn identity_line(binary: &str, nonce: &str, version: &str) -> String {
    format!("{binary} identity {nonce} version {version}")
}

/// The version in `stdout` when it holds `binary`'s answer to `nonce`.
pub fn read_identity(stdout: &str, binary: &str, nonce: &str) -> Option<String> {
    let prefix = format!("{binary} identity {nonce} version ");
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(str::trim)
        .filter(|v| !v.is_empty() && !v.contains(char::is_whitespace))
        .map(str::to_string)
}

/// The answer to give when [`ENV_IDENTIFY`] is set: the line to print, else `None`.
/// A fake's `main` calls this first.
pub fn answer_identity(binary: &str, version: &str) -> Option<String> {
    let nonce = std::env::var(ENV_IDENTIFY).ok()?;
    Some(identity_line(binary, &nonce, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fakes_answer_is_read_back_with_its_version() {
        let line = identity_line("fake-agy", "n-42", "0.1.0");
        assert_eq!(
            read_identity(&format!("{line}\n"), "fake-agy", "n-42").as_deref(),
            Some("0.1.0")
        );
    }

    #[test]
    fn another_nonce_another_binary_or_a_version_banner_is_no_answer() {
        let line = identity_line("fake-agy", "n-42", "0.1.0");
        assert_eq!(read_identity(&line, "fake-agy", "n-43"), None);
        assert_eq!(read_identity(&line, "fake-agy-acp", "n-42"), None);
        assert_eq!(
            read_identity("agy version 1.3.2\n", "fake-agy", "n-42"),
            None
        );
        assert_eq!(read_identity("", "fake-agy", "n-42"), None);
    }
}
