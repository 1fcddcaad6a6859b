//! The `repro` command: read the report, write the scenario, run it, minimise it, and
//! say what happened. Exit 0: the bug reproduced (the adapter fails the scenario); 1:
//! not reproduced (the adapter passes it); 2: the report or an option is bad; 3: the
//! harness could not run.

use crate::adapter_config::AdapterConfig;
use crate::binaries::{adapter_config, fake_agy, reference_adapter};
use crate::check::Failure;
use crate::exit_code;
use crate::fatal::HarnessError;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::evidence::Evidence;
use crate::profile::{unit, AgyRun};
use crate::repro::acp_convert::acp_case;
use crate::repro::acp_transcript::{is_acp_transcript, read_transcript, Direction};
use crate::repro::args::ReproArgs;
use crate::repro::build::build_case;
use crate::repro::build::{Built, CaseOptions};
use crate::repro::judge::{signature, Bounds, Judge, Verdict};
use crate::repro::minimise::{minimise, step_count, unit_count, Budget, Shrunk};
use crate::repro::paste::{read_paste, MAX_PASTE_BYTES};
use crate::repro::plan::plan;
use crate::repro::record::read_folder;
use crate::repro::render::{render, Provenance};
use crate::runner::RunSettings;
use crate::scenario::{parse_scenario, Profile};
use agy_protocol::diag::{Diagnostics, SourceFile};
use agy_protocol::GoDuration;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs `agy-harness repro`; returns the exit code.
pub async fn repro_command(args: ReproArgs) -> i32 {
    match repro(args).await {
        Ok(code) => code,
        Err(f) => f.report(),
    }
}

fn bad(message: impl Into<String>) -> HarnessError {
    HarnessError::bad_input(message.into())
}

fn cannot(message: impl Into<String>) -> HarnessError {
    HarnessError::could_not_run(message.into())
}

fn located(d: Diagnostics, what: &str) -> HarnessError {
    eprint!("{d}");
    bad(format!(
        "{} problem(s) in {what}; nothing was written",
        d.len()
    ))
}

/// What a report is read into: agy's own output, or an ACP transcript.
enum Report {
    Agy(Evidence),
    Acp(SourceFile, Vec<crate::repro::acp_transcript::Line>),
}

/// The report: a folder, stdin (`-`), or a file.
fn read_report(capture: &Path) -> Result<Report, HarnessError> {
    if capture.is_dir() {
        return read_folder(capture)
            .map(Report::Agy)
            .map_err(|d| located(d, "the recorded run"));
    }
    let (name, text) = if capture == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(MAX_PASTE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| cannot(format!("failed to read the report from stdin: {e}")))?;
        if bytes.len() as u64 > MAX_PASTE_BYTES {
            return Err(bad(format!(
                "the report on stdin is larger than {MAX_PASTE_BYTES} bytes"
            )));
        }
        (
            "<stdin>".to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        )
    } else {
        let text =
            agy_protocol::file::read_file_bounded(capture, MAX_PASTE_BYTES).map_err(|e| {
                bad(format!(
                    "failed to read the report `{}`: {e}",
                    capture.display()
                ))
            })?;
        (capture.display().to_string(), text)
    };
    let src = SourceFile::new(name, text);
    if is_acp_transcript(src.text()) {
        return read_transcript(&src)
            .map(|lines| Report::Acp(src.clone(), lines))
            .map_err(|d| located(d, "the ACP transcript"));
    }
    read_paste(&src)
        .map(Report::Agy)
        .map_err(|d| located(d, "the report"))
}

/// The case of the report for an adapter of `implemented`, and its evidence when it
/// is agy's own output.
fn build(
    report: Report,
    args: &ReproArgs,
    implemented: &[Profile],
) -> Result<(Built, Option<Evidence>), HarnessError> {
    match report {
        Report::Agy(e) => {
            let built =
                build_case(&e, &options(args, implemented)?).map_err(|e| bad(e.to_string()))?;
            summary(&e, &built);
            Ok((built, Some(e)))
        }
        Report::Acp(src, lines) => {
            if args
                .profile
                .is_some_and(|p| unit(p).agy() != AgyRun::AcpServer)
            {
                return Err(bad(format!(
                    "the report is an ACP transcript, not a `{}` report",
                    args.profile.map(|p| p.to_string()).unwrap_or_default()
                )));
            }
            let built = acp_case(&lines).map_err(|e| bad(e.to_string()))?;
            let count = |d| lines.iter().filter(|l| l.dir == d).count();
            println!(
                "read {}: {} ACP message(s), {} from the client, {} from the agent",
                src.path(),
                lines.len(),
                count(Direction::ToAgent),
                count(Direction::ToClient)
            );
            println!("profile {}: {}", built.case.profile, built.profile_reason);
            for n in &built.notes {
                println!("  note: {n}");
            }
            Ok((built, None))
        }
    }
}

fn run_settings(
    config: AdapterConfig,
    fake: &Path,
    fake_acp: Option<PathBuf>,
    scale: agy_protocol::TimeScale,
) -> Arc<RunSettings> {
    Arc::new(RunSettings {
        config,
        fake_agy: fake.to_path_buf(),
        fake_agy_acp: fake_acp,
        time_scale: scale,
        keep_sandboxes: false,
        live: None,
        agy_version: None,
        uncertain: None,
        calibration: None,
    })
}

/// The adapter under test, the correct reference adapter when it is another one,
/// and the profile's other correct readings of agy's output (the reference adapter with
/// the arguments of each).
fn adapters(
    args: &ReproArgs,
    config: AdapterConfig,
    profile: Profile,
) -> Result<Bounds, HarnessError> {
    let runner = &args.runner;
    let fake = fake_agy(runner)?;
    let fake_acp = crate::binaries::fake_agy_acp_if(runner, unit(profile).needs_fake_acp())?;
    let is_correct_reference = args.target.adapter.is_none() && args.target.fault.is_empty();
    let scale = args.runner.time_scale;
    let bin = reference_adapter(runner).ok();
    let reading = |extra: &[String]| {
        bin.as_ref().map(|bin| {
            run_settings(
                AdapterConfig::reference(bin, extra),
                &fake,
                fake_acp.clone(),
                scale,
            )
        })
    };
    let reference = if is_correct_reference {
        None
    } else {
        reading(&[])
    };
    let readings = unit(profile)
        .readings
        .iter()
        .filter_map(|extra| reading(&extra.iter().map(|a| a.to_string()).collect::<Vec<_>>()))
        .collect();
    Ok((
        run_settings(config, &fake, fake_acp.clone(), scale),
        reference,
        readings,
    ))
}

fn options(args: &ReproArgs, implemented: &[Profile]) -> Result<CaseOptions, HarnessError> {
    let argv = match &args.argv {
        Some(cmd) => {
            let mut argv = shlex::split(cmd).filter(|a| !a.is_empty()).ok_or_else(|| {
                bad(format!(
                    "--argv `{cmd}` does not split into words (an unclosed quote?)"
                ))
            })?;
            if argv[0] != "agy" && !argv[0].ends_with("/agy") {
                argv.insert(0, "agy".into());
            }
            argv[0] = "agy".into();
            Some(argv)
        }
        None => None,
    };
    Ok(CaseOptions {
        profile: args.profile,
        version: args.agy_version,
        argv,
        implemented: implemented.to_vec(),
    })
}

/// Writes a scenario once it reads back as the catalogue reads it: one that would not
/// (a huge paste grown past the cap a scenario file is read with) is refused, and
/// nothing is written.
fn write_scenario(path: &Path, text: &str) -> Result<(), HarnessError> {
    let cap = agy_protocol::file::FILE_CAP;
    if text.len() as u64 > cap {
        return Err(bad(format!(
            "the scenario would be {} bytes, over the {cap} bytes a scenario file is read with; `{}` is not written",
            text.len(),
            path.display()
        ))
        .with_hint("paste only the part of the report around what went wrong: the failing invocation, its stderr and its envelope"));
    }
    let shown = path.display().to_string();
    parse_scenario(&SourceFile::new(shown, text), path).map_err(|d| {
        eprint!("{d}");
        cannot(format!(
            "the scenario for `{}` does not read back (a repro bug); it is not written",
            path.display()
        ))
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| cannot(format!("failed to create `{}`: {e}", dir.display())))?;
    }
    crate::keep::write_kept(path, text)
        .map_err(|e| cannot(format!("failed to write `{}`: {e}", path.display())))
}

fn source_name(args: &ReproArgs) -> String {
    if args.capture == Path::new("-") {
        return "a report pasted on stdin".into();
    }
    args.capture.file_name().map_or_else(
        || args.capture.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn summary(e: &Evidence, built: &Built) {
    let (mut i, mut o, mut r) = (0, 0, 0);
    for inv in &e.invocations {
        let c = inv.counts();
        (i, o, r) = (i + c.0, o + c.1, r + c.2);
    }
    println!(
        "read {}: {} invocation(s), {i} stdin line(s), {o} stdout line(s), {r} stderr line(s){}",
        e.source,
        e.invocations.len(),
        e.version
            .as_ref()
            .map(|(v, at)| format!(", agy {v} ({at})"))
            .unwrap_or_default()
    );
    println!("profile {}: {}", built.case.profile, built.profile_reason);
    for n in &built.notes {
        println!("  note: {n}");
    }
}

/// What the report lacks that could trigger the bug, when the adapter passes.
fn missing_evidence(e: &Evidence, case: &ReproCase) -> Vec<String> {
    let mut out = Vec::new();
    if e.version.is_none() && case.version.is_none() {
        out.push("the agy version (`agy 1.2.6` in the report, or --agy-version)".into());
    }
    if e.invocations.iter().all(|i| i.argv.is_none()) {
        out.push("agy's command line (a `$ agy …` line, or --argv)".into());
    }
    if e.invocations.iter().all(|i| i.exit.is_none()) {
        out.push("agy's exit status (`exit status N`)".into());
    }
    if let Some(wanted) = unit(case.profile).oracle.missing_evidence(e, case) {
        out.push(wanted.into());
    }
    out
}

/// Broken expectations printed in full; the rest are counted.
const SHOWN: usize = 8;

fn show_failure(f: &Failure) {
    println!(
        "  {}: expected {}, observed {}",
        f.headline(),
        f.expected,
        f.observed
    );
}

/// Says that the adapter passes, and what the report may lack.
fn not_reproduced(adapter: &str, evidence: Option<&Evidence>, case: &ReproCase) {
    println!("not reproduced: `{adapter}` passes the scenario");
    let missing = evidence
        .map(|e| missing_evidence(e, case))
        .unwrap_or_default();
    if missing.is_empty() {
        println!("  the adapter handles this behaviour correctly, or the bug needs more than the report shows");
    } else {
        println!("  the adapter is correct for what the report shows, or the report lacks what triggers the bug:");
        missing.iter().for_each(|m| println!("  - {m}"));
    }
}

/// The minimiser's budget: `--max-runs` and `--time-budget` from now.
fn budget(args: &ReproArgs) -> Result<Budget, HarnessError> {
    let deadline = match &args.time_budget {
        Some(t) => Some(
            Instant::now()
                + GoDuration::parse(t)
                    .map_err(|_| {
                        bad(format!(
                            "--time-budget `{t}` is not a Go duration (e.g. `30s`)"
                        ))
                    })?
                    .0,
        ),
        None => None,
    };
    Ok(Budget {
        runs: args.max_runs,
        deadline,
    })
}

/// Refuses a reproduction under a profile the adapter does not implement, before a
/// scenario is written: its runs would skip it.
fn ensure_implemented(config: &AdapterConfig, profile: Profile) -> Result<(), HarnessError> {
    let implemented = &config.adapter.profiles;
    if implemented.contains(&profile) {
        return Ok(());
    }
    let names: Vec<String> = implemented.iter().map(|p| format!("`{p}`")).collect();
    Err(bad(format!(
        "the adapter `{}` does not implement the `{profile}` profile; it implements {}; nothing was written",
        config.adapter.name,
        names.join(", ")
    ))
    .with_hint("pass `--profile` with one of the adapter's profiles, or `--adapter` with the config of an adapter of this one"))
}

/// The adapter config, and the report's reproduction under one of its profiles.
fn config_and_case(
    args: &ReproArgs,
) -> Result<(AdapterConfig, Built, Option<Evidence>), HarnessError> {
    let config = adapter_config(
        args.target.adapter.as_deref(),
        &args.target.fault,
        &args.runner,
    )?;
    let (built, evidence) = build(read_report(&args.capture)?, args, &config.adapter.profiles)?;
    ensure_implemented(&config, built.case.profile)?;
    Ok((config, built, evidence))
}

async fn repro(args: ReproArgs) -> Result<i32, HarnessError> {
    let (config, built, evidence) = config_and_case(&args)?;
    let case = built.case.clone();
    let the_plan = plan(&case);
    let slug = format!("repro-{}", the_plan.slug);
    let dir = args.out.join(case.profile.as_str());
    let path = dir.join(format!("{slug}.toml"));
    for kept in [&path, &path.with_file_name(format!("{slug}-original.toml"))] {
        crate::keep::refuse_overwrite(kept, args.force, "--out")
            .map_err(|r| bad(r.message).with_hint(r.hint))?;
    }
    let mut prov = Provenance {
        source: source_name(&args),
        profile_reason: built.profile_reason.clone(),
        notes: built.notes.clone(),
        header: Vec::new(),
        timeout: None,
    };
    write_scenario(&path, &render(&case, &the_plan, &slug, &prov))?;
    println!("wrote {}", path.display());
    let (target, reference, readings) = adapters(&args, config, case.profile)?;
    let jobs = args.runner.jobs();
    let work = tempfile::tempdir().map_err(|e| cannot(format!("no temporary folder: {e}")))?;
    let mut judge = Judge::new(target, reference, jobs, work.path());
    let verdict = judge.judge(std::slice::from_ref(&case)).await.remove(0);
    let original_took = judge.slowest;
    let failures = match verdict {
        Verdict::Unjudged(why) => {
            return Err(cannot(format!("the scenario could not be run: {why}")))
        }
        Verdict::Passed => {
            not_reproduced(
                &judge.settings.config.adapter.name,
                evidence.as_ref(),
                &case,
            );
            return Ok(exit_code::SCENARIO_FAILED);
        }
        Verdict::Failed(fs) => fs,
    };
    let reference_failures = match judge.reference_verdict(&case).await {
        Some(Verdict::Failed(fs)) => fs.iter().map(signature).collect(),
        _ => Vec::new(),
    };
    let Some(chosen) = failures
        .iter()
        .find(|f| !reference_failures.contains(&signature(f)))
    else {
        println!("the correct reference adapter fails the scenario too: the report shows no bug of the adapter's");
        failures.iter().for_each(show_failure);
        return Ok(exit_code::SCENARIO_FAILED);
    };
    println!(
        "reproduced: `{}` fails the scenario",
        judge.settings.config.adapter.name
    );
    failures.iter().take(SHOWN).for_each(show_failure);
    if failures.len() > SHOWN {
        println!("  … and {} more", failures.len() - SHOWN);
    }
    if args.no_minimise {
        return Ok(exit_code::ALL_CONFORM);
    }
    let sig = signature(chosen);
    judge.keep_readings_passing(&case, readings).await;
    // Six times the original's run, at least 1 s: room for a loaded machine.
    judge.candidate_timeout = Some((original_took * 6).max(std::time::Duration::from_secs(1)));
    let budget = budget(&args)?;
    let started = Instant::now();
    let shrunk = search(&case, &sig, &mut judge, budget, original_took).await;
    write_minimal(
        &args, &case, &shrunk, &slug, &path, &mut prov, &sig, started,
    )?;
    Ok(exit_code::ALL_CONFORM)
}

/// The slack a candidate gets beyond each time-scaled bound while the minimiser
/// searches. A candidate that fails mostly waits out a bound (a reply or an exit that
/// never comes), and the adapter config's slack, room for a loaded machine, is most of
/// that wait; the smallest case found is confirmed with the config's own slack.
const SEARCH_SLACK: Duration = Duration::from_secs(1);

/// Minimises `case`: with [`SEARCH_SLACK`] when the candidates it saves time on
/// outweigh the run that confirms the result with the config's slack (about as long
/// as the reproduction's own run, `confirm_cost`), otherwise with the config's slack.
/// A result the confirmation refutes is searched for again with the config's slack.
async fn search(
    case: &ReproCase,
    sig: &str,
    judge: &mut Judge,
    budget: Budget,
    confirm_cost: Duration,
) -> Shrunk {
    let first_run = judge.runs;
    let saved = judge
        .settings
        .config
        .timeouts
        .slack
        .0
        .saturating_sub(SEARCH_SLACK);
    if saved.saturating_mul(u32::try_from(unit_count(case)).unwrap_or(u32::MAX)) <= confirm_cost {
        return minimise(case, sig, judge, budget).await;
    }
    let full = judge.tighten(SEARCH_SLACK);
    let mut shrunk = minimise(case, sig, judge, budget).await;
    judge.restore(full);
    let found = shrunk.case.clone();
    let holds = match &found {
        Some(min) if min != case => judge.confirms(min, sig).await,
        _ => true,
    };
    if !holds {
        println!("the smallest case found with {SEARCH_SLACK:?} of slack does not fail `{sig}` with the adapter config's slack: searching again with it");
        shrunk = minimise(case, sig, judge, budget).await;
    }
    shrunk.runs = judge.runs - first_run;
    shrunk
}

#[allow(clippy::too_many_arguments)]
fn write_minimal(
    args: &ReproArgs,
    original: &ReproCase,
    shrunk: &Shrunk,
    slug: &str,
    path: &Path,
    prov: &mut Provenance,
    sig: &str,
    started: Instant,
) -> Result<(), HarnessError> {
    let Some(min) = &shrunk.case else {
        return Ok(());
    };
    let original_stem = format!("{slug}-original");
    let original_path: PathBuf = path.with_file_name(format!("{original_stem}.toml"));
    write_scenario(
        &original_path,
        &render(original, &plan(original), &original_stem, prov),
    )?;
    let (before, after) = (step_count(original), step_count(min));
    prov.header = vec![
        format!(
            "Minimised from {original_stem}.toml in {} run(s): it still fails `{sig}`; {before} script step(s) → {after}.",
            shrunk.runs
        ),
        format!("Removed: {}", removed_summary(&shrunk.removed)),
    ];
    write_scenario(path, &render(min, &plan(min), slug, prov))?;
    println!(
        "minimised in {} run(s), {:.1}s{}: {before} script step(s) → {after}; it still fails `{sig}`",
        shrunk.runs,
        started.elapsed().as_secs_f64(),
        if shrunk.cut_short { " (budget spent: the result is smaller, not minimal)" } else { "" }
    );
    println!("  removed {}", removed_summary(&shrunk.removed));
    for r in &shrunk.removed {
        println!("  - {r}");
    }
    println!(
        "wrote {} (minimal) and {} (original)",
        path.display(),
        original_path.display()
    );
    println!(
        "next: agy-harness check {}  then commit it beside your scenarios",
        args.out.display()
    );
    Ok(())
}

/// `2 turn(s), 5 step(s), 1 delay(s), 7 field(s)`.
fn removed_summary(removed: &[String]) -> String {
    let count = |prefix: &str| removed.iter().filter(|r| r.starts_with(prefix)).count();
    format!(
        "{} invocation(s), {} turn(s), {} step(s), {} delay(s), {} field(s)",
        count("invocation:"),
        count("turn:"),
        count("step:"),
        count("delay:"),
        count("field:")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 13 MB paste once became a 69 MB scenario that `run` and `check` refuse to
    /// read: such a scenario is refused before it is written.
    #[test]
    fn a_scenario_too_large_to_read_back_is_not_written() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("oneshot/repro-x.toml");
        let cap = agy_protocol::file::FILE_CAP as usize;
        let text = format!("[scenario]\n{}", "# a pasted line\n".repeat(cap / 16 + 1));
        let err = write_scenario(&path, &text).expect_err("refused");
        assert!(
            err.message.contains(&format!("over the {cap} bytes")),
            "{}",
            err.message
        );
        assert!(err.hint.is_some());
        assert!(!path.exists());
    }
}
