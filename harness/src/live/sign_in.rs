//! The sign-in check of a live run (`run --live` and `spikes --live`): before any turn
//! spends the budget, one `agy models` run (charged to the budget) in a sandbox like a
//! scenario's tells whether agy is signed in, and that is compared with what
//! `--credentials` promised. A probe that needs a signed-out agy (S6a) is judged only
//! when the check showed it signed out.
//!
//! What agy prints is recorded in docs/agy-reference.md ("`agy models`, text"): signed
//! in, one model per stdout line (*measured* FM, UX); signed out, `Please sign in to view
//! available models` (*measured* HP); with a flaky keyring it spins about 12 s first
//! (*measured* HP). Which stream the sign-in line goes to and the exit code of a
//! signed-out `models` run are not recorded (**unverified**): both streams are read and
//! the exit code is not relied on.

use super::credentials::Credentials;
use super::run::LiveRun;
use crate::fatal::HarnessError;
use crate::launch::Launch;
use crate::sandbox::Sandbox;
use agy_process::wait_gone;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// How long the probe may take: the recorded keyring spin is about 12 s.
const PROBE_LIMIT: Duration = Duration::from_secs(45);
/// The most of each stream the probe reads.
const PROBE_CAP: u64 = 64 * 1024;
/// The recorded signed-out answer of `agy models`.
const SIGNED_OUT: &str = "Please sign in";

/// What the probe showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignIn {
    /// `models` listed models.
    SignedIn,
    /// `models` asked for a sign-in.
    SignedOut,
    /// Neither (why).
    Unknown(String),
}

/// Reads a finished `models` run.
pub fn classify(exit_ok: bool, stdout: &str, stderr: &str) -> SignIn {
    if stdout.contains(SIGNED_OUT) || stderr.contains(SIGNED_OUT) {
        SignIn::SignedOut
    } else if exit_ok && stdout.lines().any(|l| !l.trim().is_empty()) {
        SignIn::SignedIn
    } else {
        SignIn::Unknown("`agy models` neither listed models nor asked for a sign-in".into())
    }
}

/// Why the sign-in check stops a live run before any turn. Shown as the message, then
/// `help:` and the hint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInRefused {
    /// agy is signed in although `--credentials none` promised it no account: its token
    /// comes from the OS keyring, and the run would spend that account's quota.
    #[error("{}\nhelp: {}", self.message(), self.hint())]
    SignedInUnderNone,
}

impl SignInRefused {
    /// What the check found.
    pub fn message(&self) -> &'static str {
        match self {
            SignInRefused::SignedInUnderNone => {
                "agy is signed in although `--credentials none` gave it an empty HOME: it \
                 reads its token from the OS keyring when one is reachable, so the run would \
                 spend the signed-in account's quota"
            }
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            SignInRefused::SignedInUnderNone => {
                "run where no keyring is reachable (or sign out), or pass `--credentials copy` \
                 or `home` to use the account on purpose"
            }
        }
    }
}

/// A refused sign-in ends the command: the harness could not run, with its hint.
impl From<SignInRefused> for HarnessError {
    fn from(e: SignInRefused) -> HarnessError {
        HarnessError::could_not_run(e.message()).with_hint(e.hint())
    }
}

/// The check's verdict: `Err` stops the run (signed in though `--credentials none`
/// promised no account); `Ok(Some(note))` is said before any turn.
pub fn judge(credentials: &Credentials, seen: &SignIn) -> Result<Option<String>, SignInRefused> {
    match (credentials, seen) {
        (Credentials::None, SignIn::SignedIn) => Err(SignInRefused::SignedInUnderNone),
        (Credentials::Copy(_), SignIn::SignedOut) => Ok(Some(
            "note: agy is signed out under `--credentials copy` (a keyring-only sign-in has \
             no token file to copy; `--credentials home` uses it): every turn will fail"
                .into(),
        )),
        (Credentials::Home(_), SignIn::SignedOut) => Ok(Some(
            "note: agy is signed out under `--credentials home`: every turn will fail".into(),
        )),
        (_, SignIn::Unknown(why)) => Ok(Some(format!("note: sign-in not known: {why}"))),
        _ => Ok(None),
    }
}

/// Why a probe that needs a signed-out agy (S6a's, `isolated_profile`) is not judged
/// after the check saw `seen`; `None` when the check saw agy signed out.
pub fn not_signed_out(seen: &SignIn) -> Option<String> {
    match seen {
        SignIn::SignedOut => None,
        SignIn::SignedIn => Some(
            "not judged: the sign-in check found agy signed in (through the OS keyring or \
             the credentials given), so an empty HOME does not sign it out"
                .into(),
        ),
        SignIn::Unknown(why) => Some(format!("not judged: sign-in not known: {why}")),
    }
}

/// Runs `agy models` once, charged to the budget, with the credentials of a scenario.
pub fn probe(run: &LiveRun) -> SignIn {
    probe_with(&run.agy, &run.credentials, || run.charge_one())
}

/// Runs `agy` `models` once with `credentials`, in a sandbox (the copied token is
/// removed with it); `charge` takes the invocation from the budget, false when spent.
pub fn probe_with(agy: &Path, credentials: &Credentials, charge: impl FnOnce() -> bool) -> SignIn {
    if !charge() {
        return SignIn::Unknown("the budget allows no `agy models` run".into());
    }
    let Ok(sandbox) = Sandbox::create(None) else {
        return SignIn::Unknown("no folder for the probe".into());
    };
    let home = credentials.home_for(&sandbox.home());
    // The credentials' HOME (the user's, with `--credentials home`) is the only thing
    // of the user's this live run sees.
    let home = home.display().to_string();
    let command = [agy.display().to_string(), "models".to_string()];
    let Ok(mut cmd) = Launch::in_sandbox(&sandbox, &command)
        .map(|l| l.envs([("HOME", home.clone()), ("USERPROFILE", home)]))
        .and_then(|l| l.std_command())
    else {
        return SignIn::Unknown("`agy models` could not be started".into());
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let Ok(mut child) = cmd.spawn() else {
        return SignIn::Unknown("`agy models` could not be started".into());
    };
    let read = |s: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(s) = s {
                let _ = s.take(PROBE_CAP).read_to_end(&mut out);
            }
            String::from_utf8_lossy(&out).into_owned()
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let finished = wait_gone(&[child.id()], PROBE_LIMIT).is_empty();
    agy_process::signal_group(child.id(), nix::sys::signal::Signal::SIGKILL);
    let status = child.wait().ok();
    sandbox.kill_all();
    let (stdout, stderr) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    if !finished {
        return SignIn::Unknown(format!(
            "`agy models` did not finish within {} s",
            PROBE_LIMIT.as_secs()
        ));
    }
    classify(status.is_some_and(|s| s.success()), &stdout, &stderr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_answers_are_told_apart() {
        let listed = "gemini-3.8-flash-low\tGemini 3.8 Flash (Low)\n";
        assert_eq!(
            classify(true, listed, "Fetching available models...\n"),
            SignIn::SignedIn
        );
        let asked = "Please sign in to view available models\n";
        assert_eq!(classify(false, "", asked), SignIn::SignedOut);
        assert_eq!(classify(true, asked, ""), SignIn::SignedOut);
        assert!(matches!(classify(false, "", "boom"), SignIn::Unknown(_)));
    }

    #[test]
    fn signed_in_under_none_stops_and_signed_out_under_copy_is_said() {
        let home = std::path::PathBuf::from("/home/u");
        assert_eq!(
            judge(&Credentials::None, &SignIn::SignedIn),
            Err(SignInRefused::SignedInUnderNone)
        );
        assert_eq!(judge(&Credentials::None, &SignIn::SignedOut), Ok(None));
        let note = judge(&Credentials::Copy(home.clone()), &SignIn::SignedOut);
        assert!(note.expect("ok").expect("note").contains("signed out"));
        assert_eq!(judge(&Credentials::Home(home), &SignIn::SignedIn), Ok(None));
    }

    #[test]
    fn only_a_signed_out_check_lets_the_signed_out_probe_be_judged() {
        assert_eq!(not_signed_out(&SignIn::SignedOut), None);
        let signed_in = not_signed_out(&SignIn::SignedIn).expect("not judged");
        assert!(signed_in.contains("signed in"), "{signed_in}");
        let unknown = not_signed_out(&SignIn::Unknown("no answer".into())).expect("not judged");
        assert!(unknown.contains("no answer"), "{unknown}");
    }
}
