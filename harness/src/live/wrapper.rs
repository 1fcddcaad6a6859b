//! The live wrapper: agy-harness installed as `agy` in a live run's sandbox. Each time
//! the adapter runs `agy`, it takes one invocation from the run's budget (or refuses,
//! exit 2, once it is spent), then runs the real binary with the same argv, passing
//! stdin through byte for byte and forwarding SIGTERM, SIGINT and SIGHUP, and keeps the
//! same journal record fake-agy keeps (argv, cwd, pid, times, stdin lines and close,
//! signals, exit). So journal expectations judge a live run as they judge a fake one.

use super::capture::{InvocationCapture, StdinSink, Stream};
use agy_process::lines::{LineItem, LineSplitter, DEFAULT_LINE_CAP};
use agy_protocol::env::{
    AGY_HARNESS_LIVE_AGY, AGY_HARNESS_LIVE_BUDGET, AGY_HARNESS_LIVE_BUDGET_FILE,
    AGY_HARNESS_LIVE_PREFIX, FAKE_AGY_JOURNAL, FAKE_AGY_PREFIX, FAKE_AGY_STATE_DIR,
};
use agy_protocol::journal::{
    append_final, now_us, write_live, ExitRecord, JournalRecord, SignalRecord, StdinLine,
    JOURNALED_ENV, JOURNAL_VERSION,
};
use agy_protocol::redact::{Identity, Redactor};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::signal::unix::{signal, SignalKind};

/// True when this process was started as the live wrapper (`argv[0]` is `agy` and the
/// wrapper's environment is set).
pub fn is_wrapper_invocation() -> bool {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    Path::new(&argv0).file_name().and_then(|n| n.to_str()) == Some("agy")
        && std::env::var_os(AGY_HARNESS_LIVE_AGY).is_some()
}

/// Reads the number of invocations spent (0 when the file is missing or unreadable).
pub fn read_used(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// Takes one invocation under an exclusive lock; false when the budget is spent.
pub(crate) fn take_invocation(file: &Path, budget: u32) -> std::io::Result<bool> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(file)?;
    f.lock()?;
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    let used: u32 = text.trim().parse().unwrap_or(0);
    let granted = used < budget;
    if granted {
        f.set_len(0)?;
        f.seek(SeekFrom::Start(0))?;
        f.write_all((used + 1).to_string().as_bytes())?;
    }
    let _ = f.unlock();
    Ok(granted)
}

/// Runs the wrapper; returns the exit code. Everything that can fail before agy runs
/// is checked before an invocation is taken from the budget.
pub fn wrap_agy() -> i32 {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let (Some(agy), Some(budget), Some(file)) = (
        env(AGY_HARNESS_LIVE_AGY).map(PathBuf::from),
        env(AGY_HARNESS_LIVE_BUDGET),
        env(AGY_HARNESS_LIVE_BUDGET_FILE).map(PathBuf::from),
    ) else {
        eprintln!("agy-harness: this `agy` is the live wrapper; run it through `agy-harness run --agy PATH --live`");
        return 2;
    };
    let Some(budget) = budget.to_str().and_then(|b| b.parse::<u32>().ok()) else {
        eprintln!(
            "agy-harness: `{AGY_HARNESS_LIVE_BUDGET}` is {budget:?}, not a number of invocations; this run of agy was refused"
        );
        return 2;
    };
    if !agy.is_file() {
        eprintln!(
            "agy-harness: the real agy `{}` is not a file; this run of agy was refused",
            agy.display()
        );
        return 2;
    }
    // Arguments pass to the real agy as bytes; only the journal's copy is text.
    let argv: Vec<OsString> = std::env::args_os().collect();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("agy-harness: failed to start the runtime: {e}");
            return 2;
        }
    };
    match take_invocation(&file, budget) {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("agy-harness: the live budget of {budget} agy invocations is spent; this run of agy was refused");
            return 2;
        }
        Err(e) => {
            eprintln!(
                "agy-harness: failed to count a live agy invocation in `{}`: {e}",
                file.display()
            );
            return 2;
        }
    }
    // The invocation's index within its scenario, as fake-agy counts it (1-based, in the
    // scenario's state dir).
    let invocation = std::env::var_os(FAKE_AGY_STATE_DIR)
        .map(|d| PathBuf::from(d).join("live-invocations"))
        .and_then(|f| take_invocation(&f, u32::MAX).ok().map(|_| read_used(&f)))
        .unwrap_or(0);
    runtime.block_on(run_real(agy, invocation, argv))
}

/// The live journal of one invocation: the record, where it goes, and the redactor it
/// passes through (a live run's journal is an artefact: the sandbox's identity and the
/// account of copied credentials never reach it).
#[derive(Clone)]
struct LiveJournal {
    path: Option<PathBuf>,
    record: Arc<Mutex<JournalRecord>>,
    redactor: Redactor,
}

impl LiveJournal {
    /// Changes the record and writes it.
    fn update(&self, change: impl FnOnce(&mut JournalRecord)) {
        if let Ok(mut r) = self.record.lock() {
            change(&mut r);
            if let Some(j) = &self.path {
                let _ = write_live(j, &redacted(&r, &self.redactor));
            }
        }
    }

    /// Writes the final record with how agy ended.
    fn finish(&self, exit: ExitRecord) {
        let record = self.record.lock().map(|mut r| {
            r.complete = true;
            r.ended_us = Some(now_us());
            r.exit = Some(exit);
            r.clone()
        });
        if let (Some(j), Ok(r)) = (&self.path, record) {
            let _ = append_final(j, &redacted(&r, &self.redactor));
        }
    }
}

/// The record of an invocation as it starts.
fn started_record(invocation: u32, argv: &[String]) -> JournalRecord {
    JournalRecord {
        v: JOURNAL_VERSION,
        complete: false,
        invocation,
        pid: std::process::id(),
        ppid: std::os::unix::process::parent_id(),
        argv: argv.to_vec(),
        cwd: std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        env: agy_protocol::redact::redact_env_by_name(
            &JOURNALED_ENV
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
                .collect::<BTreeMap<_, _>>(),
        ),
        mode: agy_protocol::command_line::parse_args(argv.get(1..).unwrap_or_default())
            .ok()
            .map(|a| a.run_mode()),
        rule: Some("live".into()),
        conversation_id: None,
        continued_conversation: None,
        conversation_turn: None,
        children: Vec::new(),
        started_us: now_us(),
        ended_us: None,
        stdin: Default::default(),
        signals: Vec::new(),
        exit: None,
        files: Vec::new(),
        stdout_bytes: 0,
        stderr_bytes: 0,
        stdout_head: String::new(),
        stderr_head: String::new(),
    }
}

async fn run_real(agy: PathBuf, invocation: u32, argv_os: Vec<OsString>) -> i32 {
    let argv: Vec<String> = argv_os
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let journal = LiveJournal {
        path: std::env::var_os(FAKE_AGY_JOURNAL).map(PathBuf::from),
        record: Arc::new(Mutex::new(started_record(invocation, &argv))),
        redactor: live_redactor(),
    };
    journal.update(|_| {});
    let capture = InvocationCapture::from_env(invocation, &argv);
    let mut cmd = tokio::process::Command::new(&agy);
    cmd.args(argv_os.get(1..).unwrap_or_default())
        .stdin(Stdio::piped());
    if capture.is_some() {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    }
    // The real agy sees neither the fake's knobs nor the wrapper's own settings: the
    // journal is the wrapper's to keep.
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with(FAKE_AGY_PREFIX) || k.starts_with(AGY_HARNESS_LIVE_PREFIX) {
            cmd.env_remove(k.as_ref());
        }
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "agy-harness: failed to start the real agy `{}`: {e}",
                agy.display()
            );
            return 2;
        }
    };
    let tees = capture.as_ref().map(|c| {
        [
            child.stdout.take().map(|o| c.tee(o, Stream::Stdout)),
            child.stderr.take().map(|e| c.tee(e, Stream::Stderr)),
        ]
    });
    if let Some(to_agy) = child.stdin.take() {
        let sink = capture.as_ref().map(InvocationCapture::stdin_sink);
        tokio::spawn(pass_stdin(to_agy, journal.clone(), sink));
    }
    let Some(status) = wait_forwarding_signals(&mut child, &journal).await else {
        return 2;
    };
    use std::os::unix::process::ExitStatusExt;
    let (code, sig) = match &status {
        Ok(s) => (s.code(), s.signal()),
        Err(_) => (Some(2), None),
    };
    let exit = ExitRecord {
        code,
        signal: sig
            .and_then(|s| nix::sys::signal::Signal::try_from(s).ok())
            .map(|s| s.as_str().to_string()),
    };
    journal.finish(exit.clone());
    if let (Some(capture), Some(tees)) = (capture, tees) {
        for tee in tees {
            drained(tee).await;
        }
        // A recording that cannot be written is missing from the scenario's trace (the
        // harness says so); agy's own stderr is the adapter's and stays clean.
        let _ = capture.finish(exit, &journal.redactor);
    }
    code.unwrap_or_else(|| 128 + sig.unwrap_or(0))
}

/// Passes stdin through to agy byte for byte as it arrives (a live agy gets exactly what
/// the client wrote), recording each chunk with its time. The journal's copy is split by
/// the shared bounded splitter: a UTF-8 line is journalled with its arrival time; a line
/// that is not UTF-8 or is over the cap is counted in `bytes` but not journalled (the
/// one line policy: never converted; the recording keeps its bytes). EOF closes agy's
/// stdin too.
async fn pass_stdin(
    mut to_agy: tokio::process::ChildStdin,
    journal: LiveJournal,
    sink: Option<StdinSink>,
) {
    let mut from_client = tokio::io::stdin();
    let mut splitter = LineSplitter::new(DEFAULT_LINE_CAP);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match from_client.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let bytes = &chunk[..n];
        if let Some(sink) = &sink {
            sink.line(bytes);
        }
        journal_stdin(&journal, n, splitter.push(bytes));
        if to_agy.write_all(bytes).await.is_err() {
            break;
        }
    }
    journal_stdin(&journal, 0, splitter.finish().into_iter().collect());
    journal.update(|r| r.stdin.closed_us = Some(now_us()));
}

/// Journals `bytes` more stdin bytes and the UTF-8 lines among `items`.
fn journal_stdin(journal: &LiveJournal, bytes: usize, items: Vec<LineItem>) {
    journal.update(|r| {
        r.stdin.bytes += bytes as u64;
        for item in items {
            if let Ok(text) = item.into_text("stdin") {
                r.stdin.lines.push(StdinLine {
                    at_us: now_us(),
                    text,
                    rule: None,
                });
            }
        }
    });
}

/// Waits for agy, passing SIGTERM, SIGINT and SIGHUP on (each journalled); `None` when
/// the handlers cannot be installed (agy is killed then).
async fn wait_forwarding_signals(
    child: &mut tokio::process::Child,
    journal: &LiveJournal,
) -> Option<std::io::Result<std::process::ExitStatus>> {
    let child_pid = child.id().and_then(|p| i32::try_from(p).ok());
    let (mut term, mut int, mut hup) = match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        _ => {
            eprintln!("agy-harness: failed to install signal handlers");
            let _ = child.kill().await;
            return None;
        }
    };
    loop {
        let sig = tokio::select! {
            s = child.wait() => return Some(s),
            _ = term.recv() => nix::sys::signal::Signal::SIGTERM,
            _ = int.recv() => nix::sys::signal::Signal::SIGINT,
            _ = hup.recv() => nix::sys::signal::Signal::SIGHUP,
        };
        journal.update(|r| {
            r.signals.push(SignalRecord {
                signal: sig.as_str().to_string(),
                at_us: now_us(),
            })
        });
        if let Some(pid) = child_pid {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig);
        }
    }
}

/// Waits for a tee to pass on the rest of agy's output; a child of agy that keeps the
/// pipe open is given a moment, not the whole scenario (what arrived is kept either way).
async fn drained(task: Option<tokio::task::JoinHandle<()>>) {
    if let Some(mut task) = task {
        if tokio::time::timeout(std::time::Duration::from_secs(2), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

/// The redactor of a live journal: the sandbox's `HOME` and user, and the account
/// named in the profile under `HOME` (credentials copied into the sandbox).
fn live_redactor() -> Redactor {
    let identity = Identity::from_env();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home {
        Some(h) => Redactor::new(&identity.with_profile_of(&h)),
        None => Redactor::new(&identity),
    }
}

fn redacted(record: &JournalRecord, redactor: &Redactor) -> JournalRecord {
    let mut r = record.clone();
    r.redact(redactor);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_taken_one_invocation_at_a_time_and_then_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("n");
        assert!(take_invocation(&file, 2).expect("take"));
        assert!(take_invocation(&file, 2).expect("take"));
        assert!(!take_invocation(&file, 2).expect("take"));
        assert_eq!(read_used(&file), 2);
    }
}
