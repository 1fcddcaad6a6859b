//! Running a probe: each run in a sandbox of its own, its output, files and timing
//! observed from outside.

use super::model::{Fixture, Probe};
use super::observation::{ImageInfo, Observation};
use super::record::{CapturedChunk, Recorder, RunCapture};
use super::target::Target;
use crate::check::{has_image_extension, inspect_image};
use agy_protocol::env::{FAKE_AGY_STATE_DIR, FAKE_AGY_TIME_SCALE};
use agy_protocol::process::{in_own_group, stop_group, sweep_marked, ParentDeath, MARKER_ENV};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;

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
            if !target.take_invocation() {
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
    let sandbox = match tempfile::Builder::new().prefix("agy-spike-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            obs.not_run = Some(format!("failed to create a sandbox: {e}"));
            return obs;
        }
    };
    let root = sandbox.path();
    let workdir = root.join("work");
    let fixtures = root.join("fixtures");
    let sandbox_home = root.join("home");
    for d in [&workdir, &fixtures, &sandbox_home] {
        if let Err(e) = std::fs::create_dir_all(d) {
            obs.not_run = Some(format!("failed to create `{}`: {e}", d.display()));
            return obs;
        }
    }
    if let Err(e) = write_fixtures(&fixtures, &probe.fixtures) {
        obs.not_run = Some(format!("failed to write fixtures: {e}"));
        return obs;
    }
    let home = if target.live && !probe.isolated_profile {
        target.credentials.home_for(&sandbox_home)
    } else {
        sandbox_home.clone()
    };
    let app_data = home.join(".gemini").join("antigravity-cli");
    let sub = |s: &str| {
        s.replace("{prompt}", &probe.prompt)
            .replace("{workdir}", &workdir.display().to_string())
            .replace("{fixtures}", &fixtures.display().to_string())
    };
    let argv: Vec<String> = probe.argv.iter().map(|a| sub(a)).collect();
    let mut cmd = Command::new(&target.bin);
    cmd.args(&argv)
        .current_dir(&workdir)
        .env("HOME", &home)
        .env_remove("ANTIGRAVITY_APP_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Every process the run starts carries the run's sandbox as a marker, so the
        // sweep below finds the ones that left the group too.
        .env(MARKER_ENV, root);
    in_own_group(&mut cmd, ParentDeath::Kill).kill_on_drop(true);
    if !target.live {
        cmd.env(FAKE_AGY_TIME_SCALE, target.time_scale.to_string())
            .env(FAKE_AGY_STATE_DIR, root.join("fake-state"));
    }
    for (k, v) in target
        .env
        .iter()
        .map(|(k, v)| (k, v))
        .chain(probe.env.iter())
    {
        cmd.env(k, sub(v));
    }
    let timeout = probe.timeout.map(|d| d.0).unwrap_or(if target.live {
        LIVE_TIMEOUT
    } else {
        FAKE_TIMEOUT
    });
    let timeout = if target.live {
        timeout
    } else {
        target.time_scale.scale(timeout) + Duration::from_secs(10)
    };

    obs.started = clock.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            obs.not_run = Some(format!("failed to start `{}`: {e}", target.bin.display()));
            return obs;
        }
    };
    let pid = child.id();
    let out_task = child
        .stdout
        .take()
        .map(|s| tokio::spawn(read_chunks(s, start)));
    let err_task = child
        .stderr
        .take()
        .map(|s| tokio::spawn(read_chunks(s, start)));
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(s) => s.ok(),
        Err(_) => {
            obs.timed_out = true;
            stop_group(&mut child, pid, Duration::from_secs(2), false).await;
            child.try_wait().ok().flatten()
        }
    };
    // No process outlives its run: whatever agy left behind in its group, or started
    // in a session of its own, goes now.
    if let Some(pid) = pid {
        agy_protocol::process::signal_group(pid, nix::sys::signal::Signal::SIGKILL);
    }
    let marker = root.display().to_string();
    tokio::task::spawn_blocking(move || sweep_marked(&marker, Duration::from_secs(5)))
        .await
        .ok();
    let ended = start.elapsed().as_secs_f64();
    obs.ended = obs.started + ended;
    let stdout = join_chunks(out_task).await;
    let stderr = join_chunks(err_task).await;
    if let Some(status) = status {
        use std::os::unix::process::ExitStatusExt;
        obs.exit_code = status.code();
        obs.signal = status.signal().map(signal_name);
    }
    obs.stdout = String::from_utf8_lossy(&concat(&stdout)).into_owned();
    obs.stderr = String::from_utf8_lossy(&concat(&stderr)).into_owned();
    parse_output(&mut obs, &argv);
    observe_files(&mut obs, &app_data, &workdir);
    if let Some(rec) = recorder {
        let capture = RunCapture {
            spike,
            probe: &probe.name,
            run,
            argv: &argv,
            cwd: &workdir,
            home: &home,
            stdout: &stdout,
            stderr: &stderr,
            exit: obs.exit_code,
            signal: obs.signal.clone(),
            ended,
            images: &obs.images,
        };
        if let Err(e) = rec.record(&capture) {
            eprintln!(
                "warning: failed to record a trace of {spike} {} run {run}: {e}",
                probe.name
            );
        }
    }
    obs
}

async fn read_chunks<R: AsyncRead + Unpin>(r: R, start: Instant) -> Vec<CapturedChunk> {
    let mut reader = BufReader::new(r);
    let mut chunks = Vec::new();
    loop {
        let mut buf = Vec::new();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => chunks.push(CapturedChunk {
                t: start.elapsed().as_secs_f64(),
                bytes: buf,
            }),
        }
    }
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

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out
}

fn relative(base: &Path, p: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
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

    #[test]
    fn colours_parse_from_hex() {
        assert_eq!(parse_color("#ffff00"), Some([255, 255, 0]));
        assert_eq!(parse_color("bad"), None);
        assert_eq!(parse_color("#ffff0"), None);
    }
}
