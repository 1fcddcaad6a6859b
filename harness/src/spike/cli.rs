//! `agy-harness spikes`: the command line of a spikes run.

use super::error::SpikeError;
use super::model::Spike;
use super::notify::{post_report, NotifyError};
use super::parse::load_spikes;
use super::record::Recorder;
use super::report::SpikeReport;
use super::run::{probe_version, run_spikes, SpikeRun};
use super::target::{Budget, Target};
use crate::exit_code::{ALL_CONFORM, BAD_INPUT, COULD_NOT_RUN, SCENARIO_FAILED};
use crate::live::{Credentials, CredentialsArg, SignIn};
use crate::locate::{default_spikes, locate_binary, FAKE_AGY_BIN};
use agy_protocol::env::AGY_HARNESS_FAKE_AGY;
use agy_protocol::redact::Redactor;
use agy_protocol::{AgyVersion, TimeScale};
use anstream::{AutoStream, ColorChoice};
use clap::Args;
use std::path::PathBuf;

// Exit codes (crate::exit_code): 0 every fact holds (or is unverified without
// `--strict`), 1 a fact drifted, 2 bad input (a spike file, a flag), 3 the run could
// not be made.
const EXIT_HOLDS: i32 = ALL_CONFORM;
const EXIT_DRIFTED: i32 = SCENARIO_FAILED;
const EXIT_BAD_INPUT: i32 = BAD_INPUT;
const EXIT_COULD_NOT_RUN: i32 = COULD_NOT_RUN;

/// Re-run spikes S1–S8 against fake-agy (default) or a live agy, and judge every fact.
#[derive(Debug, Clone, Args)]
pub struct SpikesArgs {
    /// Run only these spikes, e.g. `S3,S6`.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub only: Vec<String>,
    /// The folder of spike files.
    #[arg(long, value_name = "DIR")]
    pub spikes: Option<PathBuf>,
    /// Probe this agy binary instead of fake-agy (needs `--live`).
    #[arg(long, value_name = "PATH")]
    pub agy: Option<PathBuf>,
    /// Allow running a real agy: it spends your quota.
    #[arg(long)]
    pub live: bool,
    /// At most this many live agy invocations; later runs are skipped for budget.
    #[arg(long, value_name = "N", default_value_t = 40)]
    pub budget: u32,
    /// How a live run gets your credentials (every choice but `none` is an opt-in).
    #[arg(long, value_enum, default_value_t = CredentialsArg::None)]
    pub credentials: CredentialsArg,
    /// The fake-agy binary to probe when not live (default: next to agy-harness, or
    /// `AGY_HARNESS_FAKE_AGY`).
    #[arg(long, value_name = "PATH")]
    pub fake_agy: Option<PathBuf>,
    /// Extra environment for fake-agy, `KEY=VALUE` (e.g. `FAKE_AGY_VERSION=1.1.24`).
    #[arg(long = "fake-env", value_name = "KEY=VALUE")]
    pub fake_env: Vec<String>,
    /// Multiply fake-agy's delays (and the probes' timeouts) by this.
    #[arg(long, value_name = "FACTOR", default_value = "0.01", value_parser = TimeScale::parse_positive)]
    pub time_scale: TimeScale,
    /// Judge against the facts recorded on this agy version.
    #[arg(long, value_name = "VERSION", default_value_t = AgyVersion::DEFAULT.to_string())]
    pub baseline: String,
    /// Write every probe run as a trace into this folder (redacted).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Replace traces an earlier `--record` wrote into the folder (by default that is
    /// refused before any probe runs).
    #[arg(long)]
    pub force: bool,
    /// Post the JSON report to this webhook.
    #[arg(long, value_name = "URL")]
    pub notify: Option<String>,
    /// Also write the report: `json=PATH`, `junit=PATH` or `markdown=PATH` (repeatable).
    #[arg(long, value_name = "KIND=PATH")]
    pub report: Vec<String>,
    /// Count unverified facts as failures.
    #[arg(long)]
    pub strict: bool,
}

/// Runs `agy-harness spikes`; returns the exit code.
pub async fn spikes_command(args: SpikesArgs, color: ColorChoice) -> i32 {
    match run(args, color).await {
        Ok(code) => code,
        Err((code, msg)) => {
            eprintln!("{msg}");
            code
        }
    }
}

async fn run(args: SpikesArgs, color: ColorChoice) -> Result<i32, (i32, String)> {
    let (baseline, spikes) = inputs(&args)?;
    let target = target(&args)?;
    let redactor = redactor_for(&target);
    let recorder = recorder_for(&args, &redactor)?;
    if let Some(r) = &recorder {
        keep_earlier_traces(r, &spikes, args.force)?;
    }
    let progress = target.live.then(|| progress_bar(&spikes));
    let tick = |n: u64| {
        if let Some(b) = &progress {
            b.inc(n);
        }
    };
    // A live binary must answer `--version` like agy before any budget goes on probes.
    let known_version = if target.live {
        Some(probe_version(&target).await.map_err(|why| {
            (
                EXIT_COULD_NOT_RUN,
                format!(
                    "error: `{} --version` did not answer like agy: {why}; no probe was run\nhelp: give the path of a real agy binary to `--agy`",
                    target.bin.display()
                ),
            )
        })?)
    } else {
        None
    };
    let sign_in = if target.live {
        Some(check_sign_in(&target, &redactor).await?)
    } else {
        None
    };
    let mut report = run_spikes(&SpikeRun {
        spikes: &spikes,
        target: &target,
        baseline,
        recorder: recorder.as_ref(),
        on_run: Some(&tick),
        known_version,
        sign_in,
    })
    .await;
    if let Some(b) = &progress {
        b.finish_and_clear();
    }
    if let Some(url) = args.notify.clone() {
        report.notify_error = notify(url, &report, &redactor)
            .await
            .err()
            .map(|e| e.to_string());
    }
    for spec in &args.report {
        write_report_file(spec, &report, &redactor)?;
    }
    let color = match color {
        ColorChoice::Auto => AutoStream::choice(&std::io::stdout()) != ColorChoice::Never,
        other => other != ColorChoice::Never,
    };
    print!("{}", redactor.redact(&report.to_terminal(color)));
    if report.notify_error.is_some() {
        eprintln!("warning: {}", report.notify_error.as_deref().unwrap_or(""));
    }
    if let Some(r) = &recorder {
        all_recorded(r)?;
    }
    Ok(
        if report.summary.drifted > 0 || (args.strict && report.summary.unverified > 0) {
            EXIT_DRIFTED
        } else {
            EXIT_HOLDS
        },
    )
}

/// The baseline and the spikes to run; the `--report` specs checked first, so a bad one
/// stops the run before anything runs.
fn inputs(args: &SpikesArgs) -> Result<(AgyVersion, Vec<Spike>), (i32, String)> {
    let baseline: AgyVersion = args
        .baseline
        .parse()
        .map_err(|e| (EXIT_BAD_INPUT, format!("error: --baseline: {e}")))?;
    let refused = |e: SpikeError| (EXIT_BAD_INPUT, e.shown());
    for spec in &args.report {
        check_report_spec(spec).map_err(refused)?;
    }
    let spikes = selected_spikes(args).map_err(refused)?;
    Ok((baseline, spikes))
}

/// The sign-in check of a live run (`crate::live::probe_with`, charged to the budget),
/// before any probe: signed in under `--credentials none` stops the run; a note (signed
/// out under `copy` or `home`, not known) is said first.
async fn check_sign_in(target: &Target, redactor: &Redactor) -> Result<SignIn, (i32, String)> {
    let t = target.clone();
    let seen = tokio::task::spawn_blocking(move || {
        crate::live::probe_with(&t.bin, &t.credentials, || t.take_invocation())
    })
    .await
    .unwrap_or_else(|e| SignIn::Unknown(format!("the sign-in check failed: {e}")));
    match crate::live::judge(&target.credentials, &seen) {
        Err(why) => Err((
            EXIT_COULD_NOT_RUN,
            redactor.redact(&format!("error: no probe was run: {why}")),
        )),
        Ok(note) => {
            if let Some(note) = note {
                eprintln!("{}", redactor.redact(&note));
            }
            Ok(seen)
        }
    }
}

/// The spike files `--spikes` (or the default folder) holds, narrowed to `--only`; says
/// so when the default is a folder of the current directory.
fn selected_spikes(args: &SpikesArgs) -> Result<Vec<Spike>, SpikeError> {
    let dir = args.spikes.clone().unwrap_or_else(default_spikes);
    if args.spikes.is_none() && dir.is_relative() {
        // A cloned repository's `spikes/` would otherwise run unannounced.
        eprintln!(
            "note: running the spike files of `{}` in the current folder; give `--spikes DIR` to choose another",
            dir.display()
        );
    }
    let spikes = load_spikes(&dir).map_err(SpikeError::Files)?;
    select_spikes(spikes, &args.only)
}

/// The recorder `--record DIR` asks for, its folder created.
fn recorder_for(args: &SpikesArgs, redactor: &Redactor) -> Result<Option<Recorder>, (i32, String)> {
    let Some(d) = &args.record else {
        return Ok(None);
    };
    Recorder::new(d.clone(), redactor.clone(), String::new())
        .map(Some)
        .map_err(|e| {
            (
                EXIT_COULD_NOT_RUN,
                format!("error: failed to create `{}`: {e}", d.display()),
            )
        })
}

/// Fails the run when a trace could not be written (a full disk): the recording is
/// what a live run was for.
fn all_recorded(r: &Recorder) -> Result<(), (i32, String)> {
    let unrecorded = r.failures();
    if unrecorded.is_empty() {
        return Ok(());
    }
    Err((
        EXIT_COULD_NOT_RUN,
        format!(
            "error: failed to record {} trace(s): {}\nhelp: free space in the `--record` folder and run again with `--force`",
            unrecorded.len(),
            unrecorded.join("; ")
        ),
    ))
}

/// Refuses a `--record` folder holding a trace this run would write, unless `force`:
/// a live recording costs quota, so nothing runs before the refusal.
fn keep_earlier_traces(r: &Recorder, spikes: &[Spike], force: bool) -> Result<(), (i32, String)> {
    for s in spikes {
        for p in &s.probes {
            for run in 1..=p.repeat {
                crate::keep::refuse_overwrite(
                    &r.trace_path(&s.id, &p.name, run),
                    force,
                    "--record",
                )
                .map_err(|e| (EXIT_BAD_INPUT, e.to_string()))?;
            }
        }
    }
    Ok(())
}

/// The spikes `--only` names (all when it names none); an unknown id is an error that
/// lists the known ones.
fn select_spikes(mut spikes: Vec<Spike>, only: &[String]) -> Result<Vec<Spike>, SpikeError> {
    if only.is_empty() {
        return Ok(spikes);
    }
    let unknown: Vec<String> = only
        .iter()
        .filter(|id| !spikes.iter().any(|s| &s.id == *id))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        let known = spikes.iter().map(|s| s.id.clone()).collect();
        return Err(SpikeError::UnknownSpikes { unknown, known });
    }
    spikes.retain(|s| only.contains(&s.id));
    Ok(spikes)
}

/// A progress bar over every probe run of `spikes` (live runs take a while).
fn progress_bar(spikes: &[Spike]) -> indicatif::ProgressBar {
    let total_runs: u64 = spikes
        .iter()
        .flat_map(|s| &s.probes)
        .map(|p| u64::from(p.repeat))
        .sum();
    let bar = indicatif::ProgressBar::new(total_runs);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} live agy runs {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// Posts the report to the `--notify` webhook.
async fn notify(url: String, report: &SpikeReport, redactor: &Redactor) -> Result<(), NotifyError> {
    // ureq is blocking: post from a blocking thread, not the runtime's.
    let (posted, r) = (report.clone(), redactor.clone());
    tokio::task::spawn_blocking(move || post_report(&url, &posted, &r))
        .await
        .unwrap_or_else(|e| Err(NotifyError::Task(e)))
}

/// Writes one `--report KIND=PATH`, redacted.
fn write_report_file(
    spec: &str,
    report: &SpikeReport,
    redactor: &Redactor,
) -> Result<(), (i32, String)> {
    let bad = |e: SpikeError| (EXIT_BAD_INPUT, e.shown());
    let (kind, path) = spec
        .split_once('=')
        .ok_or_else(|| bad(SpikeError::ReportSpec(spec.to_string())))?;
    let text = match kind {
        "json" => redactor.redact(&report.to_redacted_json(redactor)),
        "junit" => redactor.redact(
            &super::junit::render_junit(report)
                .map_err(|e| (EXIT_COULD_NOT_RUN, format!("error: JUnit report: {e}")))?,
        ),
        "markdown" | "md" => redactor.redact(&report.to_markdown()),
        other => return Err(bad(SpikeError::ReportKind(other.to_string()))),
    };
    crate::keep::write_kept(std::path::Path::new(path), text).map_err(|e| {
        (
            EXIT_COULD_NOT_RUN,
            format!("error: failed to write `{path}`: {e}"),
        )
    })
}

/// Refuses a `--report` that could not be written, before anything runs.
fn check_report_spec(spec: &str) -> Result<(), SpikeError> {
    match spec.split_once('=') {
        Some(("json" | "junit" | "markdown" | "md", path)) if !path.is_empty() => Ok(()),
        Some((kind, _)) if !matches!(kind, "json" | "junit" | "markdown" | "md") => {
            Err(SpikeError::ReportKind(kind.to_string()))
        }
        _ => Err(SpikeError::ReportSpec(spec.to_string())),
    }
}

/// The redactor of every artefact of this run: the user's own facts, and the account's
/// when the run can see the user's credentials.
fn redactor_for(target: &Target) -> Redactor {
    target.credentials.redactor()
}

fn target(args: &SpikesArgs) -> Result<Target, (i32, String)> {
    let bad = |m: String| (EXIT_BAD_INPUT, m);
    if let Some(agy) = &args.agy {
        crate::live::check_live_allowed(agy, args.live).map_err(|e| bad(format!("error: {e}")))?;
        let credentials =
            Credentials::from_arg(args.credentials).map_err(|e| bad(format!("error: {e}")))?;
        return Ok(Target {
            // Absolute: each probe runs agy in its own sandbox folder.
            bin: crate::locate::absolute(agy),
            live: true,
            env: Vec::new(),
            time_scale: TimeScale::ONE,
            credentials,
            budget: Some(Budget::new(args.budget)),
            budget_start: args.budget,
        });
    }
    if args.live {
        return Err(bad(
            "error: --live needs --agy PATH, the real binary to probe".into(),
        ));
    }
    let bin = match &args.fake_agy {
        Some(p) => crate::locate::absolute(p),
        None => locate_binary(FAKE_AGY_BIN, AGY_HARNESS_FAKE_AGY, "fake-agy")
            .map_err(|e| (EXIT_COULD_NOT_RUN, format!("error: {e}")))?,
    };
    if !bin.is_file() {
        return Err((
            EXIT_COULD_NOT_RUN,
            format!("error: fake-agy not found at `{}`\nhelp: build it with `cargo build -p fake-agy`, or set {AGY_HARNESS_FAKE_AGY}", bin.display()),
        ));
    }
    crate::fake_identity::verify_fake(&bin, FAKE_AGY_BIN)
        .map_err(|e| (EXIT_COULD_NOT_RUN, format!("error: {e}")))?;
    let mut target = Target::fake(bin, args.time_scale);
    for kv in &args.fake_env {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| bad(format!("error: --fake-env `{kv}`: write KEY=VALUE")))?;
        target.env.push((k.to_string(), v.to_string()));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::diag::SourceFile;

    fn spike(id: &str) -> Spike {
        let text = format!("[spike]\nid = \"{id}\"\ntitle = \"t\"\nquestion = \"q\"\n");
        super::super::parse::parse_spike(&SourceFile::new(format!("{id}.toml"), text))
            .unwrap_or_else(|d| panic!("{d}"))
    }

    #[test]
    fn only_naming_an_unknown_spike_names_it_and_the_known_ones() {
        let only = ["S2".to_string(), "S9".to_string()];
        match select_spikes(vec![spike("S1"), spike("S2")], &only) {
            Err(SpikeError::UnknownSpikes { unknown, known }) => {
                assert_eq!(unknown, ["S9"]);
                assert_eq!(known, ["S1", "S2"]);
            }
            other => panic!("{other:?}"),
        }
        let picked = select_spikes(vec![spike("S1"), spike("S2")], &only[..1]).expect("known");
        assert_eq!(picked.len(), 1);
    }

    #[test]
    fn a_report_spec_is_refused_for_its_kind_or_its_shape() {
        assert_eq!(check_report_spec("md=out.md"), Ok(()));
        assert_eq!(
            check_report_spec("xml=out.xml"),
            Err(SpikeError::ReportKind("xml".into()))
        );
        for spec in ["json", "json="] {
            assert_eq!(
                check_report_spec(spec),
                Err(SpikeError::ReportSpec(spec.into()))
            );
        }
    }
}
