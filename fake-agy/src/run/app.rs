//! One invocation from start to end: knobs, command line, script, rule, then the
//! scripted or default behaviour; the journal record is written on every way out.

use crate::cli::{find_flag_value, parse_args, Args, CliError};
use crate::error::FakeError;
use crate::exit_code;
use crate::io::clock::Clock;
use crate::io::ending::exit_with;
use crate::io::recorder::Recorder;
use crate::io::signals::{SignalControl, INT, TERM};
use crate::model::resolve::{resolve, Source};
use crate::run::actor::{run_steps, Place};
use crate::run::knobs::Knobs;
use crate::run::persistent::serve_lines;
use crate::run::print_run::{
    classify, default_run, flag_error_answer, load_schema, pre_turn_checks, Request,
};
use crate::script::rules::{
    choose_invocation, invocation_label, targets_flag_errors, InvocationFacts, TurnContext,
};
use crate::session::{ProcessIo, Session, SetupParts};
use crate::store::brain::AppDir;
use crate::store::state::{claim_invocation, release_turn};
use agy_protocol::calibration::Calibration;
use agy_protocol::command_line::InvocationKind;
use agy_protocol::env::FAKE_AGY_JOURNAL;
use agy_protocol::script::{
    parse_script_file, DefaultSpec, Exhausted, InitAt, InvocationRule, MalformedLines, RunMode,
    Script, Step, Times,
};
use agy_protocol::AgyVersion;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Arc;

/// Runs fake-agy with `argv` (`argv[0]` first) and the process environment; never
/// returns.
pub fn main_with(argv: Vec<String>) -> ! {
    main_checked(argv, None)
}

/// [`main_with`] for the process's own argv, which may hold any bytes: an argument
/// that is not UTF-8 is reported (position and bytes, exit 70) and journalled lossily,
/// since fake-agy acts on text only.
pub fn main_with_os(argv: Vec<OsString>) -> ! {
    let bad = argv.iter().position(|a| a.to_str().is_none()).map(|i| {
        let hex: Vec<String> = argv[i]
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        FakeError::Unsupported(format!(
            "argument {i} is not valid UTF-8 (bytes {}); fake-agy acts on text arguments only",
            hex.join(" ")
        ))
    });
    let text = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    main_checked(text, bad)
}

fn main_checked(argv: Vec<String>, bad: Option<FakeError>) -> ! {
    let env = |k: &str| std::env::var(k).ok();
    let recorder = Arc::new(Recorder::start(
        env(FAKE_AGY_JOURNAL)
            .filter(|v| !v.is_empty())
            .map(Into::into),
        argv.clone(),
        env,
    ));
    let outcome = match bad {
        Some(e) => Err(e),
        None => run(&argv, recorder.clone()),
    };
    let code = match outcome {
        Ok(code) => code,
        Err(e) => {
            let mut text = e.to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            eprint!("fake-agy: {text}");
            exit_code::BROKEN
        }
    };
    exit_with(&recorder, code)
}

/// The command line as agy's flag parser reads it: the flags, or for one it does not run
/// (`-h`, an undefined flag) the parser's error and no flag but the `--log-file` a rule
/// serving it may still write.
fn read_command_line(rest: &[String]) -> (Args, Option<CliError>) {
    match parse_args(rest) {
        Ok(a) => (a, None),
        Err(e) => {
            let log_file = find_flag_value(rest, "log-file");
            (
                Args {
                    log_file,
                    ..Args::default()
                },
                Some(e),
            )
        }
    }
}

/// agy's flag parser answers a command line it does not run before anything else
/// (usage on stderr; the exit code is returned), unless a rule of the script names the
/// command line (`argv_has`) and may serve it.
fn parser_answer(
    e: Option<&CliError>,
    script: &Script,
    version: AgyVersion,
) -> Option<(String, i32)> {
    let e = e?;
    if script.invocations.iter().any(targets_flag_errors) {
        return None;
    }
    Some(flag_error_answer(e, version))
}

/// Answers a command line the flag parser refuses or asks help of (`--help`): its text
/// on stderr, journalled like any probe's output, under the invocation number a probe
/// gets, so a help request is neither "invocation 0" nor a run that wrote nothing.
fn answer_as_parser(
    knobs: &Knobs,
    script: &Script,
    rest: &[String],
    recorder: &Recorder,
    (text, code): (String, i32),
) -> Result<i32, FakeError> {
    let facts = InvocationFacts {
        n: 0,
        kind: InvocationKind::Probe,
        argv: rest,
        prompt: None,
        mode: RunMode::Command,
        flag_error: true,
    };
    let (n, _) = choose_rule(knobs, script, facts)?;
    eprint!("{text}");
    recorder.update(true, |r| {
        r.invocation = n;
        r.mode = Some(RunMode::Command);
        r.stderr_bytes += text.len() as u64;
        agy_protocol::journal::append_head(&mut r.stderr_head, text.as_bytes());
    });
    Ok(code)
}

/// The version the session presents and its calibration, resolved once.
fn present(knobs: &Knobs, script: &Script) -> Result<(AgyVersion, Calibration), FakeError> {
    let script_file = script.script.calibration.as_ref().map(|c| {
        let folder = knobs.script.as_deref().and_then(|p| p.parent());
        folder.map_or_else(|| PathBuf::from(c), |f| f.join(c))
    });
    resolve(Source {
        file: knobs.calibration.as_deref(),
        script_file: script_file.as_deref(),
        version: script.script.agy.unwrap_or(knobs.version),
        side: knobs.uncertain,
    })
}

fn run(argv: &[String], recorder: Arc<Recorder>) -> Result<i32, FakeError> {
    let knobs = Knobs::read(|k| std::env::var(k).ok())?;
    let rest: &[String] = argv.get(1..).unwrap_or(&[]);
    let (args, flag_error) = read_command_line(rest);
    let script = match &knobs.script {
        Some(path) => Some(
            parse_script_file(path, knobs.script_table.as_deref()).map_err(FakeError::Script)?,
        ),
        None => None,
    };
    let script = script.unwrap_or_default();
    let presented = present(&knobs, &script)?;
    if let Some(answer) = parser_answer(flag_error.as_ref(), &script, presented.0) {
        return answer_as_parser(&knobs, &script, rest, &recorder, answer);
    }
    let clock = Clock {
        scale: knobs.time_scale,
    };
    // A command line the flag parser answers only asks agy something: a probe.
    let (mode, kind) = match flag_error {
        Some(_) => (RunMode::Command, InvocationKind::Probe),
        None => (args.run_mode(), args.kind()),
    };
    if flag_error.is_none() {
        recorder.update(false, |r| r.mode = Some(mode));
    }
    let facts = InvocationFacts {
        n: 0,
        kind,
        argv: rest,
        prompt: args.prompt.as_deref(),
        mode,
        flag_error: flag_error.is_some(),
    };
    let (n, rule_index) = choose_rule(&knobs, &script, facts)?;
    let rule = rule_index.map(|i| (i, &script.invocations[i]));
    let signals = SignalControl::new(recorder.clone(), clock);
    if knobs.journal.is_some() {
        // Signals are journalled the moment they arrive.
        signals.ensure_started();
    }
    arm_signals(rule.map(|(_, r)| r), &signals);
    let label = match rule {
        Some((i, r)) => invocation_label(r, i),
        None => "default".to_string(),
    };
    recorder.update(true, |r| {
        r.invocation = n;
        r.rule = Some(label);
    });
    let signed_out = script.script.signed_out.unwrap_or(knobs.signed_out);
    let read_stdin = knobs.journal.is_some() || mode == RunMode::Persistent;
    let io = ProcessIo::new(recorder, signals, read_stdin);
    let mut s = start_session(&knobs, &script, presented, args, flag_error, io)?;
    let code = act(&mut s, &script, rule.map(|(_, r)| r), n, signed_out)?;
    release_idle_start(&s, &knobs, n, rule_index)?;
    Ok(code)
}

/// The invocation's number and the index of the rule that serves it. The state file
/// counts invocations for rules and the journal; a run with neither skips it (the
/// benchmark's canned path stays a few syscalls long). A script whose rules all serve
/// without limit and ignore `nth` chooses the same way every time, so it needs no state
/// either.
fn choose_rule(
    knobs: &Knobs,
    script: &Script,
    facts: InvocationFacts<'_>,
) -> Result<(u32, Option<usize>), FakeError> {
    let stateful_script = script.invocations.iter().any(|r| {
        Times::limit(r.times, r.when.is_some()).is_some()
            || r.when.as_ref().is_some_and(|w| w.nth.is_some())
    });
    if !stateful_script && knobs.journal.is_none() {
        return Ok((0, choose_invocation(script, &facts, &Default::default())));
    }
    claim_invocation(&knobs.state_dir()?, facts.kind, |n, counts| {
        choose_invocation(script, &InvocationFacts { n, ..facts }, counts)
    })
}

/// A persistent process plays its scripted invocation once its first stdin line has
/// come: agy reads a line before it runs a turn, so a process whose stdin ends first (a
/// client that starts agy to see it start, or to read `init`) runs no turn and is an
/// idle start (`init` at EOF, exit 0: KA's agy 1.2.14 probe, docs/agy-reference.md,
/// "When `init` is written"). Returns false for an idle start.
fn first_line_comes(s: &mut Session) -> Result<bool, FakeError> {
    if s.setup().init_at() == InitAt::Start {
        s.ensure_init()?;
    }
    if s.stdin().wait_for_input() {
        return Ok(true);
    }
    s.mark_idle_start();
    s.ensure_init()?;
    Ok(false)
}

/// An idle start ran no turn: its claim on a turn number and on its rule is given back,
/// so the next process is served as the first turn invocation was meant to be.
fn release_idle_start(
    s: &Session,
    knobs: &Knobs,
    claimed: u32,
    rule: Option<usize>,
) -> Result<(), FakeError> {
    if !s.was_idle_start() || claimed == 0 {
        return Ok(());
    }
    release_turn(&knobs.state_dir()?, rule)?;
    s.recorder()
        .update(true, |r| r.rule = Some("none: idle start".to_string()));
    Ok(())
}

/// Signal words at the head of the rule's steps are in force before the journal shows
/// the rule, so a harness that waits for the rule can signal without a race.
fn arm_signals(rule: Option<&InvocationRule>, signals: &Arc<SignalControl>) {
    for step in rule.map(|r| r.steps.as_slice()).unwrap_or_default() {
        match step {
            Step::OnSigterm(a) => signals.set(TERM, a.clone()),
            Step::OnSigint(a) => signals.set(INT, a.clone()),
            _ => break,
        }
    }
}

/// The session of this invocation: the script header's settings over the knobs'.
fn start_session(
    knobs: &Knobs,
    script: &Script,
    (version, calibration): (AgyVersion, Calibration),
    args: Args,
    flag_error: Option<CliError>,
    io: ProcessIo,
) -> Result<Session, FakeError> {
    let header = &script.script;
    let setup = SetupParts {
        args,
        flag_error,
        version,
        calibration,
        clock: Clock {
            scale: knobs.time_scale,
        },
        turn_duration: header
            .turn_duration
            .map(|d| d.0)
            .unwrap_or(knobs.turn_duration),
        image_duration: header
            .image_duration
            .map(|d| d.0)
            .unwrap_or(knobs.image_duration),
        script: knobs.script.clone(),
        model: script.model.clone(),
        init_at: header.init_at.or(knobs.init_at).unwrap_or_default(),
        quota_exhausted: knobs.quota_exhausted,
    };
    let app = AppDir {
        root: knobs.app_dir()?,
    };
    Ok(Session::new(setup, io, app))
}

/// Acts out invocation `n`: its rule's steps, or the default behaviour of the modelled
/// agy (signed out or not); in persistent mode, then every stdin line. Returns the exit
/// code.
fn act(
    s: &mut Session,
    script: &Script,
    rule: Option<&InvocationRule>,
    n: u32,
    signed_out: bool,
) -> Result<i32, FakeError> {
    let header = &script.script;
    // A probe no rule targets answers as the modelled agy, exhausted script or not.
    if rule.is_none()
        && s.setup().flag_error().is_none()
        && s.setup().args().kind() == InvocationKind::Turn
        && header.when_exhausted == Some(Exhausted::Fail)
        && !script.invocations.is_empty()
    {
        return Err(FakeError::Step(format!(
            "invocation {n} matches no rule of the script (`when_exhausted = \"fail\"`)"
        )));
    }
    // Signed out: a scripted invocation still decides for itself, and the flag parser
    // answers before any sign-in matters.
    if rule.is_none()
        && s.setup().flag_error().is_none()
        && signed_out
        && crate::run::signed_out::answer(s)
    {
        return Ok(s.exit_code());
    }
    let mut ctx = TurnContext {
        rules: match rule {
            Some(r) if !r.turns.is_empty() => r.turns.clone(),
            _ => script.turns.clone(),
        },
        fail_when_exhausted: header.when_exhausted == Some(Exhausted::Fail),
        skip_malformed: header.malformed_lines == Some(MalformedLines::Skip),
        ..TurnContext::default()
    };
    let steps = rule.map(|r| r.steps.as_slice()).unwrap_or_default();
    if steps
        .iter()
        .chain(ctx.rules.iter().flat_map(|t| t.steps.iter()))
        .any(writes_log)
    {
        s.leave_log_to_script();
    }
    leave_the_sandbox_signed_in(s, signed_out)?;
    if s.setup().mode() == RunMode::Persistent && classify(s) == Request::Persistent {
        // A scripted invocation decides for itself; the default one validates
        // --model/--effort before reading stdin (PB error-model-effort-conflict).
        if steps.is_empty() && !pre_turn_checks(s) {
            return Ok(s.exit_code());
        }
        if !steps.is_empty() {
            // A scripted invocation's default turns answer under the schema too; a bad
            // one leaves them without (the script decides what happens instead).
            let _ = load_schema(s);
            if !first_line_comes(s)? {
                return Ok(s.exit_code());
            }
        }
        let written = s.out().stdout_bytes();
        run_steps(s, steps, Place::Invocation(serve_lines), &mut ctx)?;
        if s.out().stdout_bytes() > written {
            // Steps that wrote a turn's output and served no line (no `default` among
            // them) answered the first one; steps that only set things up leave it to
            // the turn rules.
            s.stdin().take_waiting_line();
        }
        serve_lines(s, &mut ctx)?;
        // stdin EOF: the last turn has finished (turns are sequential); agy exits 0
        // ([I], docs/agy-reference.md §4.4).
        return Ok(s.exit_code());
    }
    if steps.is_empty() {
        default_run(s, &DefaultSpec::default())?;
    } else {
        run_steps(s, steps, Place::Invocation(serve_lines), &mut ctx)?;
    }
    Ok(s.exit_code())
}

/// A signed-in turn invocation leaves the sign-in token agy keeps in its data directory
/// when none is there, and logs its sign-in (docs/fake-agy.md, "Files on disk");
/// signed out, nothing.
fn leave_the_sandbox_signed_in(s: &mut Session, signed_out: bool) -> Result<(), FakeError> {
    if signed_out
        || s.setup().flag_error().is_some()
        || s.setup().args().kind() != InvocationKind::Turn
    {
        return Ok(());
    }
    if let Some(path) = crate::store::sign_in::lay_token(s.app())? {
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        s.record_file(&path, bytes);
    }
    s.log_sign_in()
}

/// A script step that writes the `--log-file` (which the script then owns).
fn writes_log(step: &Step) -> bool {
    matches!(step, Step::Log(_))
}
