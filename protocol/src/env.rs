//! Every environment variable the binaries pass one another, spelled once. Each constant
//! is named after its variable, so a reader sees the name a user types; renaming one
//! here fails to compile everywhere it is read or set.
//!
//! - `FAKE_AGY_*`: fake-agy's and fake-agy-acp's out-of-band knobs (docs/fake-agy.md,
//!   docs/acp-fake-agent.md §3).
//! - `AGY_DRIVER_*`, [`AGY_BIN`], [`AGY_HARNESS_TIME_SCALE`], [`AGY_HARNESS_SANDBOX`]: what
//!   the harness gives a driver (docs/driver-protocol.md).
//! - `AGY_ACP_*`: what an ACP client reads to find and sign in to its agent.
//! - `AGY_HARNESS_*`: agy-harness's own overrides and the live wrapper's settings
//!   (docs/harness.md).
//! - Test overrides: binaries the test suites use instead of building their own.

/// fake-agy's script file (docs/script-format.md).
pub const FAKE_AGY_SCRIPT: &str = "FAKE_AGY_SCRIPT";
/// The table of [`FAKE_AGY_SCRIPT`]'s file that holds the script (a scenario's `agy`).
pub const FAKE_AGY_SCRIPT_TABLE: &str = "FAKE_AGY_SCRIPT_TABLE";
/// fake-agy's journal file, one JSON record per invocation.
pub const FAKE_AGY_JOURNAL: &str = "FAKE_AGY_JOURNAL";
/// The agy version fake-agy models.
pub const FAKE_AGY_VERSION: &str = "FAKE_AGY_VERSION";
/// A calibration file (docs/calibration-format.md): what fake-agy presents as agy,
/// taken before a script's `[script] calibration` and the version's built-in one.
pub const FAKE_AGY_CALIBRATION: &str = "FAKE_AGY_CALIBRATION";
/// `before` or `after`: the side fake-agy takes on every edge of its version model that
/// the record leaves open at its version (`version_evidence`).
pub const FAKE_AGY_UNCERTAIN: &str = "FAKE_AGY_UNCERTAIN";
/// fake-agy's state across invocations (invocation counter, conversations).
pub const FAKE_AGY_STATE_DIR: &str = "FAKE_AGY_STATE_DIR";
/// Multiplier for every scripted delay, read by fake-agy and fake-agy-acp.
pub const FAKE_AGY_TIME_SCALE: &str = "FAKE_AGY_TIME_SCALE";
/// How long fake-agy's default text turn takes (a Go duration).
pub const FAKE_AGY_TURN_DURATION: &str = "FAKE_AGY_TURN_DURATION";
/// How long fake-agy's default image turn takes (a Go duration).
pub const FAKE_AGY_IMAGE_DURATION: &str = "FAKE_AGY_IMAGE_DURATION";
/// A folder where fake-agy keeps each picture it encodes, named by its size, seed and
/// format, and reads it back instead of encoding the same picture again (set by
/// `agy-harness fuzz` for its run).
pub const FAKE_AGY_IMAGE_CACHE: &str = "FAKE_AGY_IMAGE_CACHE";
/// `1`: fake-agy plays an agy without credentials.
pub const FAKE_AGY_SIGNED_OUT: &str = "FAKE_AGY_SIGNED_OUT";
/// `1`: fake-agy plays an account whose quota is used up (every turn fails at once).
pub const FAKE_AGY_QUOTA_EXHAUSTED: &str = "FAKE_AGY_QUOTA_EXHAUSTED";
/// Set in a child fake-agy starts for a scripted tool run (`tool_child` step): the
/// process then stands for the tool (a shell command, an MCP server) and only waits,
/// at most the given number of milliseconds, until it is killed.
pub const FAKE_AGY_TOOL_CHILD: &str = "FAKE_AGY_TOOL_CHILD";
/// When agy writes `init` in persistent mode: `first_line` (once the first stdin line
/// arrived) or `start` (before reading stdin); docs/agy-reference.md, "When `init` is
/// written".
pub const FAKE_AGY_INIT_AT: &str = "FAKE_AGY_INIT_AT";
/// The identity handshake's nonce (`agy_protocol::identity`): a fake that sees it
/// answers with its identity and exits.
pub const FAKE_AGY_IDENTIFY: &str = "FAKE_AGY_IDENTIFY";
/// The prefix of every fake-agy and fake-agy-acp knob, for filters that drop them all.
pub const FAKE_AGY_PREFIX: &str = "FAKE_AGY_";

/// fake-agy-acp's script file (docs/acp-fake-agent.md §4).
pub const FAKE_AGY_ACP_SCRIPT: &str = "FAKE_AGY_ACP_SCRIPT";
/// The table of [`FAKE_AGY_ACP_SCRIPT`]'s file that holds the ACP script (a scenario's `acp`).
pub const FAKE_AGY_ACP_SCRIPT_TABLE: &str = "FAKE_AGY_ACP_SCRIPT_TABLE";
/// fake-agy-acp's journal of ACP traffic (docs/acp-fake-agent.md §3).
pub const FAKE_AGY_ACP_JOURNAL: &str = "FAKE_AGY_ACP_JOURNAL";
/// The `agentInfo.version` fake-agy-acp models, in any recorded format.
pub const FAKE_AGY_ACP_VERSION: &str = "FAKE_AGY_ACP_VERSION";

/// A folder the driver may keep state in; the same folder is passed again when the
/// harness restarts the driver.
pub const AGY_DRIVER_STATE_DIR: &str = "AGY_DRIVER_STATE_DIR";
/// A scratch workspace for the adapter (`--add-dir` target).
pub const AGY_DRIVER_WORK_DIR: &str = "AGY_DRIVER_WORK_DIR";
/// The `agy` binary the adapter should run (default `agy` on `PATH`).
pub const AGY_BIN: &str = "AGY_BIN";
/// Multiplies every timeout and grace period of the harness and the driver.
pub const AGY_HARNESS_TIME_SCALE: &str = "AGY_HARNESS_TIME_SCALE";
/// Marks every process of a sandbox; its value is the sandbox path, so the harness can
/// find and stop strays of exactly that sandbox.
pub const AGY_HARNESS_SANDBOX: &str = "AGY_HARNESS_SANDBOX";

/// The ACP agent an ACP client spawns (default `agy_acp_server` on `PATH`).
pub const AGY_ACP_BIN: &str = "AGY_ACP_BIN";
/// The auth method an ACP client `authenticate`s with when the agent answers
/// `-32000 Authentication required` (e.g. `gemini-api-key`).
pub const AGY_ACP_AUTH_METHOD: &str = "AGY_ACP_AUTH_METHOD";

/// agy-harness: the fake-agy binary to use.
pub const AGY_HARNESS_FAKE_AGY: &str = "AGY_HARNESS_FAKE_AGY";
/// agy-harness: the fake-agy-acp binary to use.
pub const AGY_HARNESS_FAKE_AGY_ACP: &str = "AGY_HARNESS_FAKE_AGY_ACP";
/// agy-harness: the reference adapter binary to use.
pub const AGY_HARNESS_REFERENCE_ADAPTER: &str = "AGY_HARNESS_REFERENCE_ADAPTER";
/// agy-harness: the catalogue folder.
pub const AGY_HARNESS_SCENARIOS: &str = "AGY_HARNESS_SCENARIOS";
/// agy-harness: the spike folder.
pub const AGY_HARNESS_SPIKES: &str = "AGY_HARNESS_SPIKES";
/// agy-harness: the folder sandboxes are made in (default: the system temp folder).
/// A RAM-backed folder (tmpfs, e.g. `/dev/shm`) spares the disk file system the work
/// of creating and removing each sandbox's files.
pub const AGY_HARNESS_SANDBOX_DIR: &str = "AGY_HARNESS_SANDBOX_DIR";
/// The pid of the launcher that started agy-harness when that launcher cannot make
/// its death reach agy-harness itself (the npm package's `bin` script: Node has no
/// `PR_SET_PDEATHSIG`): agy-harness asks for SIGTERM at its parent's death when its
/// parent is that pid, and exits at once when it is not.
pub const AGY_HARNESS_LAUNCHER_PID: &str = "AGY_HARNESS_LAUNCHER_PID";
/// agy-harness: `1` allows a live run when `CI` is set.
pub const AGY_HARNESS_ALLOW_LIVE: &str = "AGY_HARNESS_ALLOW_LIVE";
/// The live wrapper: the real agy binary.
pub const AGY_HARNESS_LIVE_AGY: &str = "AGY_HARNESS_LIVE_AGY";
/// The live wrapper: the run's budget of agy invocations.
pub const AGY_HARNESS_LIVE_BUDGET: &str = "AGY_HARNESS_LIVE_BUDGET";
/// The live wrapper: the file counting invocations.
pub const AGY_HARNESS_LIVE_BUDGET_FILE: &str = "AGY_HARNESS_LIVE_BUDGET_FILE";
/// The live wrapper: the folder where it records each invocation of the scenario
/// (`agy-harness run --live --record`).
pub const AGY_HARNESS_LIVE_RECORD: &str = "AGY_HARNESS_LIVE_RECORD";
/// The prefix of every agy-harness variable: its overrides, the sandbox marker, the time
/// scale and the live wrapper's settings.
pub const AGY_HARNESS_PREFIX: &str = "AGY_HARNESS_";
/// The prefix of the live wrapper's settings, for filters that drop them all.
pub const AGY_HARNESS_LIVE_PREFIX: &str = "AGY_HARNESS_LIVE_";

/// Test override: the fake-agy binary a test suite runs instead of building one.
pub const FAKE_AGY_BIN: &str = "FAKE_AGY_BIN";
/// Test override: the fake-agy-acp binary a test suite runs instead of building one.
pub const FAKE_AGY_ACP_BIN: &str = "FAKE_AGY_ACP_BIN";
/// Test switch: `1` rewrites the converted traces instead of comparing them.
pub const FAKE_AGY_WRITE_TRACES: &str = "FAKE_AGY_WRITE_TRACES";

/// Every variable above (the prefixes are not variables): what a script or document
/// that cannot import this module may spell.
pub const ALL: &[&str] = &[
    FAKE_AGY_SCRIPT,
    FAKE_AGY_SCRIPT_TABLE,
    FAKE_AGY_JOURNAL,
    FAKE_AGY_VERSION,
    FAKE_AGY_CALIBRATION,
    FAKE_AGY_UNCERTAIN,
    FAKE_AGY_STATE_DIR,
    FAKE_AGY_TIME_SCALE,
    FAKE_AGY_TURN_DURATION,
    FAKE_AGY_IMAGE_DURATION,
    FAKE_AGY_IMAGE_CACHE,
    FAKE_AGY_SIGNED_OUT,
    FAKE_AGY_QUOTA_EXHAUSTED,
    FAKE_AGY_TOOL_CHILD,
    FAKE_AGY_INIT_AT,
    FAKE_AGY_IDENTIFY,
    FAKE_AGY_ACP_SCRIPT,
    FAKE_AGY_ACP_SCRIPT_TABLE,
    FAKE_AGY_ACP_JOURNAL,
    FAKE_AGY_ACP_VERSION,
    AGY_DRIVER_STATE_DIR,
    AGY_DRIVER_WORK_DIR,
    AGY_BIN,
    AGY_HARNESS_TIME_SCALE,
    AGY_HARNESS_SANDBOX,
    AGY_ACP_BIN,
    AGY_ACP_AUTH_METHOD,
    AGY_HARNESS_FAKE_AGY,
    AGY_HARNESS_FAKE_AGY_ACP,
    AGY_HARNESS_REFERENCE_ADAPTER,
    AGY_HARNESS_SCENARIOS,
    AGY_HARNESS_SPIKES,
    AGY_HARNESS_SANDBOX_DIR,
    AGY_HARNESS_LAUNCHER_PID,
    AGY_HARNESS_ALLOW_LIVE,
    AGY_HARNESS_LIVE_AGY,
    AGY_HARNESS_LIVE_BUDGET,
    AGY_HARNESS_LIVE_BUDGET_FILE,
    AGY_HARNESS_LIVE_RECORD,
    FAKE_AGY_BIN,
    FAKE_AGY_ACP_BIN,
    FAKE_AGY_WRITE_TRACES,
];

/// Variables of the operating system the harness sets for every process of a sandbox
/// (`HOME` and its kin, `PATH` with the sandbox's `bin/` first, `TMPDIR`).
pub const SANDBOX_SYSTEM: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "PATH",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
];

/// True for a variable the sandbox owns, which nothing a user configures (an adapter
/// config's `env`) may replace: [`SANDBOX_SYSTEM`], the agy the adapter runs
/// ([`AGY_BIN`], [`AGY_ACP_BIN`]), what the harness gives a driver, the sandbox marker,
/// and every fake's knob and harness setting (`FAKE_AGY_*`, `AGY_HARNESS_*`). Replacing
/// one would point the adapter at a real agy or at the user's profile without `--live`.
pub fn is_sandbox_owned(name: &str) -> bool {
    SANDBOX_SYSTEM.contains(&name)
        || [
            AGY_BIN,
            AGY_ACP_BIN,
            AGY_DRIVER_STATE_DIR,
            AGY_DRIVER_WORK_DIR,
        ]
        .contains(&name)
        || name.starts_with(FAKE_AGY_PREFIX)
        || name.starts_with(AGY_HARNESS_PREFIX)
}

/// True for a name a process environment can carry unambiguously:
/// `[A-Za-z_][A-Za-z0-9_]*`. Any other name is refused wherever the kit takes one (an
/// adapter config's `env`, the launcher): a name holding `=` (`AGY_BIN=/x/agy`) would
/// become an entry `AGY_BIN=/x/agy=…` that a process reads as a second `AGY_BIN`, and a
/// NUL or an empty name cannot be passed at all.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables that give agy the user's credentials or point it at the user's
/// profile, which no sandbox passes through from the user's environment
/// (docs/agy-reference.md, "5.1 Credentials and the profile in the environment"):
/// `ANTIGRAVITY_APP_DATA_DIR` moves the profile folder and `GEMINI_API_KEY` signs agy
/// in (both documented for agy); the others are the Google SDKs' and Gemini CLI's
/// names, unverified for agy and dropped all the same.
pub const AGY_USER_VARS: &[&str] = &[
    "ANTIGRAVITY_APP_DATA_DIR",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "CLOUDSDK_CONFIG",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_letters_digits_and_underscores_not_starting_with_a_digit() {
        for good in ["PATH", "_x", "a1", "GEMINI_API_KEY", "Z"] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in [
            "",
            "AGY_BIN=/x/agy",
            "1A",
            "A-B",
            "A B",
            "A\0",
            "\u{e9}",
            "A.B",
            "=",
        ] {
            assert!(!is_valid_name(bad), "{bad:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn a_name_is_valid_exactly_when_it_matches_the_pattern(
            name in "[A-Za-z0-9_=. \\-]{0,8}|\\PC{0,8}"
        ) {
            let pattern = regex::Regex::new("^[A-Za-z_][A-Za-z0-9_]*$").expect("pattern");
            proptest::prop_assert_eq!(is_valid_name(&name), pattern.is_match(&name));
        }
    }

    #[test]
    fn every_variable_is_listed_and_named_after_itself() {
        let source = include_str!("env.rs");
        let declared: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("pub const "))
            .filter_map(|l| l.split_once(": &str = \""))
            .filter(|(name, _)| !name.ends_with("_PREFIX"))
            .map(|(name, rest)| {
                assert_eq!(rest, format!("{name}\";"), "`{name}` is spelled otherwise");
                name
            })
            .collect();
        assert_eq!(declared, ALL, "ALL lists every variable, in order");
    }

    #[test]
    fn the_sandbox_owns_home_path_the_agy_and_every_knob() {
        for name in [
            "HOME",
            "PATH",
            "USERPROFILE",
            AGY_BIN,
            AGY_ACP_BIN,
            AGY_HARNESS_SANDBOX,
            AGY_HARNESS_TIME_SCALE,
            AGY_HARNESS_LIVE_AGY,
            FAKE_AGY_SCRIPT,
            FAKE_AGY_SIGNED_OUT,
            FAKE_AGY_ACP_SCRIPT,
        ] {
            assert!(is_sandbox_owned(name), "{name}");
        }
        for name in [
            "PROVIDER_LOG",
            AGY_ACP_AUTH_METHOD,
            "home",
            "GEMINI_API_KEY",
        ] {
            assert!(!is_sandbox_owned(name), "{name}");
        }
    }

    #[test]
    fn prefixes_cover_their_families() {
        let with = |prefix: &str| -> Vec<&str> {
            ALL.iter()
                .copied()
                .filter(|n| n.starts_with(prefix))
                .collect()
        };
        // The fakes' knobs are declared first, up to the driver's variables.
        let knobs: Vec<&str> = ALL
            .iter()
            .copied()
            .take_while(|n| *n != AGY_DRIVER_STATE_DIR)
            .collect();
        assert_eq!(knobs.len(), 20, "{knobs:?}");
        assert!(
            knobs.iter().all(|n| n.starts_with(FAKE_AGY_PREFIX)),
            "{knobs:?}"
        );
        assert_eq!(
            with(AGY_HARNESS_LIVE_PREFIX),
            [
                AGY_HARNESS_LIVE_AGY,
                AGY_HARNESS_LIVE_BUDGET,
                AGY_HARNESS_LIVE_BUDGET_FILE,
                AGY_HARNESS_LIVE_RECORD,
            ]
        );
    }
}
