//! Running a probe: each run in a sandbox of its own (the one sandbox of scenario runs,
//! [`crate::sandbox::Sandbox`], with the environment cleared the same way), its output,
//! files and timing observed from outside.

use super::error::ProbeError;
use super::model::{Fixture, Probe};
use super::observation::{ImageInfo, Observation};
use super::record::{Recorder, RunCapture};
use super::target::Target;
use crate::check::{has_image_extension, inspect_image};
use crate::launch::Launch;
use crate::recording::{relative, walk, CapturedChunk};
use crate::sandbox::Sandbox;
use agy_process::{stop_group, sweep_marked};
use agy_protocol::env::{FAKE_AGY_STATE_DIR, FAKE_AGY_TIME_SCALE};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Default time a live run may take.
const LIVE_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Default time a fake run may take, before the time scale.
const FAKE_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs every repetition of `probe`, `concurrency` at a time.
pub async fn run_probe(
    spike: &str,
    probe: &Probe,
    target: &Target,
    recorder: Option<&Recorder>,
) -> Vec<Observation> {
    let clock = Instant::now();
    let mut out = Vec::new();
    let mut next = 1;
    while next <= probe.repeat {
        let batch_end = (next + probe.concurrency - 1).min(probe.repeat);
        let mut tasks = Vec::new();
        for run in next..=batch_end {
            if target.budget_spent() {
                out.push(Observation {
                    run,
                    not_run: Some("skipped for budget".into()),
                    ..Default::default()
                });
                continue;
            }
            tasks.push(run_once(spike, probe, target, run, clock, recorder));
        }
        for obs in futures_join(tasks).await {
            out.push(obs);
        }
        next = batch_end + 1;
    }
    out.sort_by_key(|o| o.run);
    out
}

async fn futures_join<F: std::future::Future<Output = Observation>>(
    tasks: Vec<F>,
) -> Vec<Observation> {
    // Runs the batch concurrently on this task; the futures borrow the probe, so they
    // are polled together rather than spawned.
    let mut pinned: Vec<std::pin::Pin<Box<F>>> = tasks.into_iter().map(Box::pin).collect();
    let mut results: Vec<Option<Observation>> = (0..pinned.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in pinned.iter_mut().enumerate() {
            if results[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(o) => results[i] = Some(o),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    results.into_iter().flatten().collect()
}

/// One run: its sandbox prepared, the budget charged only once it is about to start,
/// run, observed from outside, recorded.
async fn run_once(
    spike: &str,
    probe: &Probe,
    target: &Target,
    run: u32,
    clock: Instant,
    recorder: Option<&Recorder>,
) -> Observation {
    let mut obs = Observation {
        run,
        ..Default::default()
    };
    let setup = match prepare(probe, target) {
        Ok(s) => s,
        Err(e) => {
            obs.not_run = Some(e.to_string());
            return obs;
        }
    };
    if !target.take_invocation() {
        obs.not_run = Some("skipped for budget".into());
        return obs;
    }
    obs.started = clock.elapsed().as_secs_f64();
    let output = match execute(&setup, target).await {
        Ok(o) => o,
        Err(e) => {
            // It never ran: the invocation is not spent.
            target.give_back_invocation();
            obs.not_run = Some(e.to_string());
            return obs;
        }
    };
    observe(&mut obs, &setup, &output);
    if let Some(rec) = recorder {
        record(rec, spike, probe, run, &setup, &obs, &output);
    }
    obs
}

/// A run's sandbox and what the probe asks of it.
struct RunSetup {
    sandbox: Sandbox,
    /// The folder agy runs in.
    workdir: PathBuf,
    /// The `HOME` agy sees (the user's own only with `--credentials home`).
    home: PathBuf,
    /// agy's profile folder under that `HOME`.
    app_data: PathBuf,
    argv: Vec<String>,
    /// The whole environment: the sandbox's, as scenario runs get it, nothing else of
    /// the user's.
    env: Vec<(String, String)>,
    timeout: Duration,
    /// The lines written to stdin.
    stdin: Vec<String>,
}

/// Writes the probe's stdin lines, then closes stdin; a run that stops reading ends it.
async fn write_stdin(mut pipe: tokio::process::ChildStdin, lines: Vec<String>) {
    use tokio::io::AsyncWriteExt;
    for line in lines {
        if pipe
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
    }
    let _ = pipe.shutdown().await;
}

/// What a run left: its output, exit status and duration.
struct RunOutput {
    stdout: Vec<CapturedChunk>,
    stderr: Vec<CapturedChunk>,
    status: Option<std::process::ExitStatus>,
    timed_out: bool,
    /// Seconds from start to end.
    elapsed: f64,
}

/// Creates the run's sandbox, writes the fixtures, and fills in argv and environment.
fn prepare(probe: &Probe, target: &Target) -> Result<RunSetup, ProbeError> {
    let sandbox = Sandbox::create(None).map_err(ProbeError::Sandbox)?;
    let fixtures = sandbox.root().join("fixtures");
    std::fs::create_dir_all(&fixtures).map_err(|source| ProbeError::FixtureFolder {
        path: fixtures.clone(),
        source,
    })?;
    write_fixtures(&fixtures, &probe.fixtures).map_err(ProbeError::Fixtures)?;
    let workdir = sandbox.work();
    let home = if target.live && !probe.isolated_profile {
        target.credentials.home_for(&sandbox.home())
    } else {
        sandbox.home()
    };
    let sub = |s: &str| {
        s.replace("{prompt}", &probe.prompt)
            .replace("{workdir}", &workdir.display().to_string())
            .replace("{fixtures}", &fixtures.display().to_string())
    };
    let argv = probe.argv.iter().map(|a| sub(a)).collect();
    let mut env = sandbox.base_env();
    let mut set = |k: &str, v: String| {
        env.retain(|(key, _)| key != k);
        env.push((k.to_string(), v));
    };
    set("HOME", home.display().to_string());
    set("USERPROFILE", home.display().to_string());
    if !target.live {
        set(FAKE_AGY_TIME_SCALE, target.time_scale.to_string());
        set(
            FAKE_AGY_STATE_DIR,
            sandbox.fake_state().display().to_string(),
        );
    }
    for (k, v) in target
        .env
        .iter()
        .map(|(k, v)| (k, v))
        .chain(probe.env.iter())
    {
        set(k, sub(v));
    }
    Ok(RunSetup {
        app_data: home.join(".gemini").join("antigravity-cli"),
        timeout: run_timeout(probe, target),
        stdin: probe.stdin.clone(),
        sandbox,
        workdir,
        home,
        argv,
        env,
    })
}

/// The probe's timeout, or the default; fake runs scale it and add a margin.
fn run_timeout(probe: &Probe, target: &Target) -> Duration {
    let timeout = probe.timeout.map(|d| d.0).unwrap_or(if target.live {
        LIVE_TIMEOUT
    } else {
        FAKE_TIMEOUT
    });
    if target.live {
        timeout
    } else {
        target.time_scale.scale(timeout) + Duration::from_secs(10)
    }
}

/// Runs the binary with exactly the setup's environment, in its own process group,
/// until it exits or the timeout; then ends everything the run started.
async fn execute(setup: &RunSetup, target: &Target) -> Result<RunOutput, ProbeError> {
    let mut command = vec![target.bin.display().to_string()];
    command.extend(setup.argv.iter().cloned());
    let (mut cmd, _) = Launch::in_sandbox(&setup.sandbox, &command)
        .map(|l| l.sandbox_env(&setup.env).cwd(&setup.workdir).unreaped())
        .and_then(|l| l.command())
        .map_err(ProbeError::Launch)?;
    let stdin = if setup.stdin.is_empty() {
        Stdio::null()
    } else {
        Stdio::piped()
    };
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| ProbeError::Start {
        bin: target.bin.clone(),
        source,
    })?;
    if let Some(pipe) = child.stdin.take() {
        tokio::spawn(write_stdin(pipe, setup.stdin.clone()));
    }
    let pid = child.id();
    let out_task = child
        .stdout
        .take()
        .map(|s| tokio::spawn(read_chunks(s, start)));
    let err_task = child
        .stderr
        .take()
        .map(|s| tokio::spawn(read_chunks(s, start)));
    let mut timed_out = false;
    let status = match tokio::time::timeout(setup.timeout, child.wait()).await {
        Ok(s) => s.ok(),
        Err(_) => {
            timed_out = true;
            stop_group(&mut child, pid, Duration::from_secs(2), false).await;
            child.try_wait().ok().flatten()
        }
    };
    // No process outlives its run: whatever agy left behind in its group, or started
    // in a session of its own, goes now.
    if let Some(pid) = pid {
        agy_process::signal_group(pid, nix::sys::signal::Signal::SIGKILL);
    }
    let marker = setup.sandbox.marker().to_string();
    tokio::task::spawn_blocking(move || sweep_marked(&marker, Duration::from_secs(5)))
        .await
        .ok();
    let elapsed = start.elapsed().as_secs_f64();
    Ok(RunOutput {
        stdout: join_chunks(out_task).await,
        stderr: join_chunks(err_task).await,
        status,
        timed_out,
        elapsed,
    })
}

/// Fills the observation from the run's output and the files it left.
fn observe(obs: &mut Observation, setup: &RunSetup, output: &RunOutput) {
    obs.ended = obs.started + output.elapsed;
    obs.timed_out = output.timed_out;
    if let Some(status) = output.status {
        use std::os::unix::process::ExitStatusExt;
        obs.exit_code = status.code();
        obs.signal = status.signal().map(signal_name);
    }
    obs.stdout = String::from_utf8_lossy(&concat(&output.stdout)).into_owned();
    obs.stderr = String::from_utf8_lossy(&concat(&output.stderr)).into_owned();
    parse_output(obs, &setup.argv);
    observe_files(obs, &setup.app_data, &setup.workdir);
}

/// Records the run as a trace; a failure is a warning, not the run's failure.
fn record(
    rec: &Recorder,
    spike: &str,
    probe: &Probe,
    run: u32,
    setup: &RunSetup,
    obs: &Observation,
    output: &RunOutput,
) {
    let capture = RunCapture {
        spike,
        probe: &probe.name,
        run,
        argv: &setup.argv,
        cwd: &setup.workdir,
        home: &setup.home,
        stdout: &output.stdout,
        stderr: &output.stderr,
        stdin: &setup.stdin,
        exit: obs.exit_code,
        signal: obs.signal.clone(),
        ended: output.elapsed,
        images: &obs.images,
    };
    if let Err(e) = rec.record(&capture) {
        eprintln!(
            "warning: failed to record a trace of {spike} {} run {run}: {e}",
            probe.name
        );
    }
}

/// Reads a stream as lines with their times, keeping at most
/// [`crate::live::RECORD_CAP`] bytes of it, the cap `run --live` records with:
/// the rest is read and dropped, so an agy printing gigabytes without a newline
/// neither blocks on a full pipe nor fills the harness's memory.
async fn read_chunks<R: AsyncRead + Unpin>(r: R, start: Instant) -> Vec<CapturedChunk> {
    use tokio::io::AsyncReadExt;
    let mut reader = BufReader::new(r);
    let mut chunks = Vec::new();
    let mut room = crate::live::RECORD_CAP as u64;
    while room > 0 {
        let mut buf = Vec::new();
        match (&mut reader).take(room).read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => return chunks,
            Ok(n) => {
                room -= n as u64;
                chunks.push(CapturedChunk {
                    t: start.elapsed().as_secs_f64(),
                    bytes: buf,
                });
            }
        }
    }
    let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
    chunks
}

async fn join_chunks(
    task: Option<tokio::task::JoinHandle<Vec<CapturedChunk>>>,
) -> Vec<CapturedChunk> {
    match task {
        Some(t) => t.await.unwrap_or_default(),
        None => Vec::new(),
    }
}

fn concat(chunks: &[CapturedChunk]) -> Vec<u8> {
    chunks
        .iter()
        .flat_map(|c| c.bytes.iter().copied())
        .collect()
}

fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {sig}"))
}

/// Reads the envelope or the stream-json events from stdout, by the output format the
/// argv asked for.
fn parse_output(obs: &mut Observation, argv: &[String]) {
    let format = output_format(argv);
    match format.as_deref() {
        Some("json") => {
            obs.envelope = serde_json::from_str(obs.stdout.trim()).ok();
        }
        Some("stream-json") => {
            obs.events = obs
                .stdout
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            obs.envelope = obs
                .events
                .iter()
                .rev()
                .find(|e| e.get("event").and_then(|v| v.as_str()) == Some("result"))
                .and_then(|e| e.get("result"))
                .cloned();
        }
        _ => {}
    }
}

fn output_format(argv: &[String]) -> Option<String> {
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let flag = a.trim_start_matches('-');
        if let Some(v) = flag.strip_prefix("output-format=") {
            return Some(v.to_string());
        }
        if flag == "output-format" && a.starts_with('-') {
            return it.next().cloned();
        }
    }
    None
}

fn observe_files(obs: &mut Observation, app_data: &Path, workdir: &Path) {
    let mut images = Vec::new();
    for path in walk(app_data) {
        let rel = relative(app_data, &path);
        if !has_image_extension(&rel) || rel.split('/').any(|c| c.starts_with('.')) {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        let check = inspect_image(&bytes);
        images.push(ImageInfo {
            path: rel,
            format: check.format,
            size: check.size,
            decodes: check.decodes,
        });
    }
    images.sort_by(|a, b| a.path.cmp(&b.path));
    obs.images = images;
    if let Some(id) = obs.conversation_id().map(str::to_string) {
        let brain = app_data.join("brain").join(&id);
        let mut entries: Vec<String> = std::fs::read_dir(&brain)
            .map(|rd| {
                rd.flatten()
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if e.path().is_dir() {
                            format!("{name}/")
                        } else {
                            name
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        obs.brain_entries = entries;
        obs.scratch_files.extend(
            walk(&brain.join("scratch"))
                .iter()
                .map(|p| relative(app_data, p)),
        );
    }
    obs.scratch_files.extend(
        walk(&app_data.join("scratch"))
            .iter()
            .map(|p| relative(app_data, p)),
    );
    obs.scratch_files.sort();
    obs.workdir_files = walk(workdir).iter().map(|p| relative(workdir, p)).collect();
    obs.workdir_files.sort();
}

fn write_fixtures(dir: &Path, fixtures: &[Fixture]) -> std::io::Result<()> {
    for f in fixtures {
        let path = dir.join(&f.name);
        if let Some([w, h]) = f.png {
            let rgb = f
                .color
                .as_deref()
                .and_then(parse_color)
                .unwrap_or([255, 255, 0]);
            let file = std::fs::File::create(&path)?;
            let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
            enc.set_color(png::ColorType::Rgb);
            let mut writer = enc.write_header().map_err(std::io::Error::other)?;
            let data: Vec<u8> = (0..(w * h)).flat_map(|_| rgb).collect();
            writer
                .write_image_data(&data)
                .map_err(std::io::Error::other)?;
        } else {
            std::fs::write(&path, f.text.as_deref().unwrap_or(""))?;
        }
    }
    Ok(())
}

/// `#rrggbb` → RGB; `None` for anything else.
pub(crate) fn parse_color(s: &str) -> Option<[u8; 3]> {
    let hex = s.strip_prefix('#')?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stream_without_newlines_is_kept_up_to_the_cap_and_drained() {
        // Regression: each stream of `spikes --live` was read whole; 2 GiB without a
        // newline took the harness to 8–10 GB.
        use tokio::io::AsyncReadExt;
        let cap = crate::live::RECORD_CAP;
        let flood = tokio::io::repeat(b'x').take(cap as u64 * 3);
        let chunks = read_chunks(flood, Instant::now()).await;
        let kept: usize = chunks.iter().map(|c| c.bytes.len()).sum();
        assert_eq!(kept, cap);
        let lines = tokio::io::repeat(b'\n').take(10);
        assert_eq!(read_chunks(lines, Instant::now()).await.len(), 10);
    }

    #[test]
    fn output_format_is_read_in_both_flag_spellings() {
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            output_format(&argv(&["-p", "x", "--output-format", "json"])).as_deref(),
            Some("json")
        );
        assert_eq!(
            output_format(&argv(&["--output-format=stream-json"])).as_deref(),
            Some("stream-json")
        );
        assert_eq!(output_format(&argv(&["-p", "x"])), None);
    }

    /// Runs that could not start never ran: they cost no live budget.
    #[tokio::test]
    async fn runs_that_could_not_start_are_not_charged_to_the_budget() {
        let mut target = Target::fake(
            PathBuf::from("/nonexistent/agy"),
            agy_protocol::TimeScale::default(),
        );
        target.live = true;
        target.budget = Some(super::super::target::Budget::new(3));
        let probe: Probe = toml::from_str(
            "name = \"p\"\nargv = [\"-p\", \"{prompt}\"]\nprompt = \"x\"\nrepeat = 2",
        )
        .expect("probe");
        let observations = run_probe("S0", &probe, &target, None).await;
        assert_eq!(observations.len(), 2);
        for o in &observations {
            let why = o.not_run.as_deref().unwrap_or_default();
            assert!(why.starts_with("failed to start"), "{why}");
        }
        assert_eq!(target.budget.as_ref().map(|b| b.left()), Some(3));
    }

    #[tokio::test]
    async fn a_binary_that_cannot_be_started_is_a_start_error_naming_it() {
        let bin = PathBuf::from("/nonexistent/agy");
        let target = Target::fake(bin.clone(), agy_protocol::TimeScale::default());
        let probe: Probe = toml::from_str("name = \"p\"\nargv = [\"-p\", \"x\"]").expect("probe");
        let setup = prepare(&probe, &target).expect("a sandbox");
        match execute(&setup, &target).await {
            Err(ProbeError::Start { bin: named, .. }) => assert_eq!(named, bin),
            Err(other) => panic!("not a start error: {other}"),
            Ok(_) => panic!("a missing binary ran"),
        }
    }

    #[test]
    fn colours_parse_from_hex() {
        assert_eq!(parse_color("#ffff00"), Some([255, 255, 0]));
        assert_eq!(parse_color("bad"), None);
        assert_eq!(parse_color("#ffff0"), None);
    }
}
