//! Building a reproduction from the evidence of a bug report (agy's own output: print
//! runs or a stream-json process): the turns it shows, the profile, and each agy process
//! as a script.

use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::evidence::{Evidence, Invocation, ItemKind};
use crate::profile::{reproduced_as, unit, units, AgyRun};
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
    /// The profiles of the adapter under test: the report is reproduced under the one
    /// of them whose adapter runs agy as the report shows (any, when empty).
    pub implemented: Vec<Profile>,
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Every agy invocation the report shows is a probe, none a turn.
    #[error("the report shows no agy turn: paste agy's output for the run that misbehaved")]
    NoTurn,
    /// Nothing in the report tells print runs from a stream-json process.
    #[error("the report does not show how agy ran (no stdin lines, no envelope, no `$ agy -p …` line): pass `--profile` with the adapter's profile, or `--argv` with agy's command line")]
    NoProfile,
    /// The profile asked for is ACP's, and the report is agy's own output.
    #[error("agy's own output shows print runs or a stream-json process; for `--profile {0}` paste the ACP JSON-RPC transcript of `agy_acp_server` (docs/reproduce-a-bug.md)")]
    NotAnAcpTranscript(Profile),
    /// The ACP transcript shows no prompt turn and no restore.
    #[error("the transcript shows no `session/prompt` and no restore: paste the prompt turns the client ran")]
    NoAcpTurn,
    /// The report shows agy run in a way no profile of the adapter runs it.
    #[error("the report shows {} ({reason}), as adapters of {} run agy, and the adapter implements {}: pass `--profile` to reproduce it under one of the adapter's profiles anyway, or `--adapter` with the config of the adapter that ran agy so", run_words(*run), profile_list(&profiles_of(*run)), profile_list(implemented))]
    NoProfileOfTheAdapter {
        /// How the report shows agy run.
        run: AgyRun,
        /// What in the report shows it.
        reason: String,
        /// The adapter's profiles.
        implemented: Vec<Profile>,
    },
}

/// How an adapter of a profile that runs agy as `run` runs it, in words.
fn run_words(run: AgyRun) -> &'static str {
    match run {
        AgyRun::PrintPerRequest => "one agy print run per request",
        AgyRun::StreamJsonSession => "one persistent stream-json agy process",
        AgyRun::AcpServer => "Antigravity's ACP server",
    }
}

/// The profiles whose adapters run agy as `run`, in catalogue order.
fn profiles_of(run: AgyRun) -> Vec<Profile> {
    units()
        .filter(|u| u.agy() == run)
        .map(|u| u.profile)
        .collect()
}

/// `` `a`, `b` `` (or `none`).
fn profile_list(profiles: &[Profile]) -> String {
    if profiles.is_empty() {
        return "none".into();
    }
    let names: Vec<String> = profiles.iter().map(|p| format!("`{p}`")).collect();
    names.join(", ")
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
        None => {
            let (run, reason) = infer_run(&turns)?;
            choose_profile(run, reason, &opts.implemented)?
        }
    };
    let processes = match unit(profile).agy() {
        AgyRun::PrintPerRequest => turns
            .iter()
            .enumerate()
            .map(|(i, inv)| oneshot_process(i, inv, &mut notes))
            .collect(),
        AgyRun::StreamJsonSession => session_processes(&turns, &mut notes),
        AgyRun::AcpServer => return Err(BuildError::NotAnAcpTranscript(profile)),
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

/// How the evidence shows agy run: stdin user lines or `--input-format stream-json`
/// make one stream-json process; a json envelope or `-p` print runs.
fn infer_run(invs: &[Invocation]) -> Result<(AgyRun, String), BuildError> {
    let session = AgyRun::StreamJsonSession;
    let oneshot = AgyRun::PrintPerRequest;
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

/// The profile a report of agy run as `run` is reproduced under: the first of the
/// adapter's profiles (`implemented`) whose adapter runs agy so, in catalogue order;
/// the registry's choice when the adapter's profiles are not known.
fn choose_profile(
    run: AgyRun,
    reason: String,
    implemented: &[Profile],
) -> Result<(Profile, String), BuildError> {
    if implemented.is_empty() {
        return Ok((reproduced_as(run), reason));
    }
    match profiles_of(run)
        .into_iter()
        .find(|p| implemented.contains(p))
    {
        Some(p) => Ok((
            p,
            format!("{reason}, and `{p}` is the adapter's profile that runs agy so"),
        )),
        None => Err(BuildError::NoProfileOfTheAdapter {
            run,
            reason,
            implemented: implemented.to_vec(),
        }),
    }
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
            Some(BuildError::NotAnAcpTranscript(Profile::Acp))
        );
    }

    #[test]
    fn a_print_run_report_is_reproduced_under_the_adapters_print_run_profile() {
        let turn =
            "$ agy -p hi --output-format json\n{\"status\":\"SUCCESS\",\"response\":\"hi\"}\n";
        let e = read_paste(&SourceFile::new("report.txt", turn)).expect("reads");
        let for_adapter = |implemented: Vec<Profile>| {
            build_case(
                &e,
                &CaseOptions {
                    implemented,
                    ..CaseOptions::default()
                },
            )
        };
        let text = for_adapter(vec![Profile::Session, Profile::Text]).expect("builds");
        assert_eq!(text.case.profile, Profile::Text);
        assert!(
            text.profile_reason.contains("`text`"),
            "{}",
            text.profile_reason
        );
        let all = for_adapter(Profile::ALL.to_vec()).expect("builds");
        assert_eq!(all.case.profile, Profile::Oneshot, "catalogue order");
        let e = for_adapter(vec![Profile::Session]).expect_err("no print-run profile");
        let said = e.to_string();
        assert!(said.contains("one agy print run per request"), "{said}");
        assert!(
            said.contains("`oneshot`, `text`, `mcp`, `acp-agent`"),
            "{said}"
        );
        assert!(said.contains("implements `session`"), "{said}");
        assert!(said.contains("--profile"), "{said}");
    }
}
