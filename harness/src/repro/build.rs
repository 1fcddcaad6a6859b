//! Building a reproduction from the evidence of a bug report (oneshot or session): the
//! turns it shows, the profile, and each agy process as a script.

use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::evidence::{Evidence, Invocation, ItemKind};
use crate::profile::{reproduced_as, unit, AgyRun};
use crate::repro::convert::{oneshot_process, session_processes};
use crate::scenario::Profile;
use agy_protocol::command_line::{invocation_kind, InvocationKind};
use agy_protocol::AgyVersion;

/// What the command line adds to the evidence.
#[derive(Debug, Clone, Default)]
pub struct CaseOptions {
    /// `--profile`.
    pub profile: Option<Profile>,
    /// `--agy-version`.
    pub version: Option<AgyVersion>,
    /// `--argv`: for invocations whose argv the report does not give.
    pub argv: Option<Vec<String>>,
}

/// The reproduction and what was decided on the way (shown to the user).
#[derive(Debug, Clone)]
pub struct Built {
    /// The case.
    pub case: ReproCase,
    /// How the profile was chosen.
    pub profile_reason: String,
    /// Conversions and assumptions worth knowing.
    pub notes: Vec<String>,
}

/// Which evidence a report lacks for a reproduction to be built from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Every agy invocation the report shows is a probe, none a turn.
    #[error("the report shows no agy turn: paste agy's output for the run that misbehaved")]
    NoTurn,
    /// Nothing in the report tells a oneshot adapter's run from a session's.
    #[error("the report does not show which profile it is (no stdin lines, no envelope, no `$ agy -p …` line): pass `--profile oneshot` or `--profile session`")]
    NoProfile,
    /// The profile asked for is ACP's, and the report is agy's own output.
    #[error("agy's own output is a oneshot or session report; for `--profile acp` paste the ACP JSON-RPC transcript of `agy_acp_server` (docs/reproduce-a-bug.md)")]
    NotAnAcpTranscript,
    /// The ACP transcript shows no prompt turn and no restore.
    #[error("the transcript shows no `session/prompt` and no restore: paste the prompt turns the client ran")]
    NoAcpTurn,
}

/// Builds the reproduction; `Err` says which evidence is missing.
pub fn build_case(e: &Evidence, opts: &CaseOptions) -> Result<Built, BuildError> {
    let mut notes = Vec::new();
    let mut turns: Vec<Invocation> = Vec::new();
    for (i, inv) in e.invocations.iter().enumerate() {
        let mut inv = inv.clone();
        if inv.argv.is_none() {
            inv.argv.clone_from(&opts.argv);
        }
        let kind = inv.argv.as_deref().map(invocation_kind);
        if matches!(kind, Some(k) if k != InvocationKind::Turn) {
            notes.push(format!(
                "invocation {} is a probe (`{}`), not a turn: left to fake-agy's modelled agy",
                i + 1,
                inv.argv.as_deref().unwrap_or_default().join(" ")
            ));
            continue;
        }
        turns.push(inv);
    }
    if turns.is_empty() {
        return Err(BuildError::NoTurn);
    }
    let (profile, profile_reason) = match opts.profile {
        Some(p) => (p, "given with --profile".to_string()),
        None => infer_profile(&turns)?,
    };
    let processes = match unit(profile).agy() {
        AgyRun::PrintPerRequest => turns
            .iter()
            .enumerate()
            .map(|(i, inv)| oneshot_process(i, inv, &mut notes))
            .collect(),
        AgyRun::StreamJsonSession => session_processes(&turns, &mut notes),
        AgyRun::AcpServer => return Err(BuildError::NotAnAcpTranscript),
    };
    Ok(Built {
        case: ReproCase {
            profile,
            version: opts.version.or_else(|| e.version.as_ref().map(|v| v.0)),
            processes,
            permission: None,
        },
        profile_reason,
        notes,
    })
}

/// The profile the evidence shows: stdin user lines or `--input-format stream-json`
/// make a session; a json envelope or `-p` a oneshot.
fn infer_profile(invs: &[Invocation]) -> Result<(Profile, String), BuildError> {
    let session = reproduced_as(AgyRun::StreamJsonSession);
    let oneshot = reproduced_as(AgyRun::PrintPerRequest);
    let stdin = invs
        .iter()
        .any(|i| i.items.iter().any(|x| matches!(x.kind, ItemKind::Stdin(_))));
    if stdin {
        return Ok((session, "the report shows stdin user lines".into()));
    }
    if invs
        .iter()
        .any(|i| i.flag("--input-format") == Some("stream-json"))
    {
        return Ok((session, "agy ran with --input-format stream-json".into()));
    }
    let results = |i: &Invocation| {
        i.items
            .iter()
            .filter(|x| matches!(&x.kind, ItemKind::Stdout(l) if l.starts_with("{\"event\":\"result\"")))
            .count()
    };
    if invs.iter().any(|i| results(i) > 1) {
        return Ok((session, "one agy process printed several results".into()));
    }
    if invs
        .iter()
        .any(|i| i.flag("--output-format") == Some("json"))
    {
        return Ok((oneshot, "agy ran with --output-format json".into()));
    }
    let envelope = invs.iter().any(|i| {
        i.items
            .iter()
            .any(|x| matches!(&x.kind, ItemKind::Stdout(l) if l.starts_with('{') && !l.contains("\"event\"")))
    });
    if envelope {
        return Ok((oneshot, "agy printed a json envelope".into()));
    }
    if invs
        .iter()
        .any(|i| i.flag("-p").is_some() || i.flag("--print").is_some())
    {
        return Ok((oneshot, "agy ran in print mode (-p)".into()));
    }
    Err(BuildError::NoProfile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::paste::read_paste;
    use agy_protocol::diag::SourceFile;

    fn built(report: &str, profile: Option<Profile>) -> Result<Built, BuildError> {
        let src = SourceFile::new("report.txt", report);
        let e = read_paste(&src).expect("the report reads");
        let opts = CaseOptions {
            profile,
            ..CaseOptions::default()
        };
        build_case(&e, &opts)
    }

    #[test]
    fn each_missing_piece_of_evidence_is_its_own_error() {
        let turn =
            "$ agy -p hi --output-format json\n{\"status\":\"SUCCESS\",\"response\":\"hi\"}\n";
        assert!(built(turn, None).is_ok());
        assert_eq!(
            built("$ agy --version\n1.2.3\n", None).err(),
            Some(BuildError::NoTurn)
        );
        assert_eq!(
            built("stderr: boom\n", None).err(),
            Some(BuildError::NoProfile)
        );
        assert_eq!(
            built(turn, Some(Profile::Acp)).err(),
            Some(BuildError::NotAnAcpTranscript)
        );
    }
}
