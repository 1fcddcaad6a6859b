//! Benchmark of fake-agy (not a test): run `scripts/bench-fake-agy`, which builds in
//! release mode and runs this with the release binary. Prints, side by side:
//! process start to exit of `/bin/true` vs fake-agy printing a canned envelope (and a
//! default json run), 1376×768 image generation (in process and end to end), peak RSS
//! of the fake-agy processes, and persistent-mode turn latency over 10,000 turns in one
//! process with its RSS at the start and the end. With `--journal-lines N`
//! (`scripts/bench-journal`): one journalled persistent session of N stdin lines.

use agy_protocol::env::{
    FAKE_AGY_IMAGE_DURATION, FAKE_AGY_JOURNAL, FAKE_AGY_SCRIPT, FAKE_AGY_TURN_DURATION,
};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_runs(n: usize, mut f: impl FnMut()) -> Duration {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f();
        v.push(t.elapsed());
    }
    median(v)
}

/// CPU time (user + system) of every child waited for so far.
fn children_cpu() -> Duration {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map(|u| {
            let us = |t: nix::sys::time::TimeVal| {
                Duration::from_secs(t.tv_sec().max(0) as u64)
                    + Duration::from_micros(t.tv_usec().max(0) as u64)
            };
            us(u.user_time()) + us(u.system_time())
        })
        .unwrap_or_default()
}

/// `b` against `a`, run in `n` interleaved pairs so both meet the same load: the median
/// of the pairs' wall-time ratios and of their CPU-time ratios.
fn paired_ratios(n: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let mut wall = Vec::with_capacity(n);
    let mut cpu = Vec::with_capacity(n);
    for _ in 0..n {
        let measure = |f: &mut dyn FnMut()| {
            let (t, c) = (Instant::now(), children_cpu());
            f();
            (t.elapsed(), children_cpu().saturating_sub(c))
        };
        let (wall_a, cpu_a) = measure(&mut a);
        let (wall_b, cpu_b) = measure(&mut b);
        wall.push(wall_b.as_secs_f64() / wall_a.as_secs_f64().max(1e-9));
        cpu.push(cpu_b.as_secs_f64() / cpu_a.as_secs_f64().max(1e-6));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(wall), median(cpu))
}

fn run(cmd: &mut Command) {
    let st = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("runs");
    assert!(st.success(), "{cmd:?} failed: {st}");
}

fn fake(bin: &Path, home: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env_clear()
        .env("HOME", home)
        .env(FAKE_AGY_IMAGE_DURATION, "0s")
        .env(FAKE_AGY_TURN_DURATION, "0s");
    c
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(0)
            })
        })
        .unwrap_or(0)
}

fn main() {
    let bin: PathBuf = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .expect("usage: bench <path to release fake-agy>");
    if std::env::args().nth(2).as_deref() == Some("--journal-lines") {
        let lines: usize = std::env::args()
            .nth(3)
            .and_then(|n| n.parse().ok())
            .unwrap_or(100_000);
        journal_session(&bin, lines);
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("--probe-rss") {
        let home = PathBuf::from(std::env::args().nth(3).expect("home"));
        let script = PathBuf::from(std::env::args().nth(4).expect("script"));
        run(fake(&bin, &home).env(FAKE_AGY_SCRIPT, &script).args([
            "-p",
            "reply PONG",
            "--output-format",
            "json",
        ]));
        run(fake(&bin, &home).args([
            "-p",
            "an image of a hexagon, 16:9 widescreen",
            "--output-format",
            "json",
        ]));
        let rss = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
            .map(|u| u.max_rss())
            .unwrap_or(0);
        println!("{rss}");
        return;
    }
    let n: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().expect("temp");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let script = dir.path().join("canned.toml");
    std::fs::write(
        &script,
        "[[invocation]]\ntimes = \"always\"\nsteps = [{ envelope = { conversation_id = \"e1fea50a-738b-40bd-beb4-249481d6ab1e\", response = \"PONG\\n\", duration_seconds = 2.696430565, num_turns = 1, usage = { input = 12555, output = 214, thinking = 212 } } }]\n",
    )
    .expect("script");

    let t_true = time_runs(n, || run(&mut Command::new("/bin/true")));
    let t_canned = time_runs(n, || {
        run(fake(&bin, &home).env(FAKE_AGY_SCRIPT, &script).args([
            "-p",
            "reply PONG",
            "--output-format",
            "json",
        ]))
    });
    let (pair_wall, pair_cpu) = paired_ratios(
        n,
        || run(&mut Command::new("/bin/true")),
        || {
            run(fake(&bin, &home).env(FAKE_AGY_SCRIPT, &script).args([
                "-p",
                "reply PONG",
                "--output-format",
                "json",
            ]))
        },
    );
    let t_default = time_runs(n, || {
        run(fake(&bin, &home).args(["-p", "reply PONG", "--output-format", "json"]))
    });
    let t_encode = time_runs(50, || {
        fake_agy::encode_image(1376, 768, agy_protocol::script::ImageFormat::Jpeg, 1)
            .expect("encodes");
    });
    let t_image = time_runs(50, || {
        run(fake(&bin, &home).args([
            "-p",
            "an image of a hexagon, 16:9 widescreen",
            "--output-format",
            "json",
        ]))
    });
    let t_journal = time_runs(n, || {
        run(fake(&bin, &home)
            .env(FAKE_AGY_SCRIPT, &script)
            .env(FAKE_AGY_JOURNAL, dir.path().join("journal.jsonl"))
            .args(["-p", "reply PONG", "--output-format", "json"]))
    });
    // Peak RSS from a fresh child process: RUSAGE_CHILDREN of this process would also
    // count whatever its parent waited for before exec (the cargo build).
    let probe = Command::new(std::env::current_exe().expect("self"))
        .args([
            bin.as_os_str(),
            std::ffi::OsStr::new("--probe-rss"),
            home.as_os_str(),
            script.as_os_str(),
        ])
        .output()
        .expect("probe");
    let rss: u64 = String::from_utf8_lossy(&probe.stdout)
        .trim()
        .parse()
        .unwrap_or(0);

    let turns: usize = std::env::var("BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let (lat_median, p99, rss_early, rss_late) = persistent(&bin, &home, turns, None);
    let journal_turns = 2_000.min(turns);
    let (jlat_median, _, _, _) = persistent(
        &bin,
        &home,
        journal_turns,
        Some(&dir.path().join("session.jsonl")),
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("fake-agy benchmark ({n} runs each, medians)");
    println!("  /bin/true                         {:8.3} ms", ms(t_true));
    println!(
        "  fake-agy canned envelope (script) {:8.3} ms  ({:.2}× /bin/true, target ≤ 3×)",
        ms(t_canned),
        ms(t_canned) / ms(t_true)
    );
    println!(
        "  … in {n} interleaved pairs with /bin/true: median ratio {pair_wall:.2}× wall, {pair_cpu:.2}× CPU (target ≤ 2×)"
    );
    println!(
        "  … the same with a journal         {:8.3} ms  ({:.2}× /bin/true)",
        ms(t_journal),
        ms(t_journal) / ms(t_true)
    );
    println!(
        "  fake-agy default json turn        {:8.3} ms  ({:.2}× /bin/true)",
        ms(t_default),
        ms(t_default) / ms(t_true)
    );
    println!(
        "  JPEG 1376×768 encode (in process) {:8.3} ms  (target ≤ 25 ms)",
        ms(t_encode)
    );
    println!(
        "  fake-agy image run 1376×768       {:8.3} ms  (process, brain dir, JPEG, envelope)",
        ms(t_image)
    );
    println!(
        "  peak RSS of fake-agy (canned, image){:7.1} MB  (target ≤ 10 MB)",
        rss as f64 / 1024.0
    );
    println!("persistent mode, {turns} turns in one process (turn duration 0)");
    println!(
        "  stdin line → result, median       {:8.3} ms  (p99 {:.3} ms, target ≤ 1 ms)",
        ms(lat_median),
        ms(p99)
    );
    println!(
        "  RSS after 100 turns / at the end  {:8.1} MB / {:.1} MB",
        rss_early as f64 / 1024.0,
        rss_late as f64 / 1024.0
    );
    println!(
        "  the same with a journal, {journal_turns} turns, median {:.3} ms",
        ms(jlat_median)
    );
}

/// One journalled persistent session of `lines` stdin lines, each a default turn
/// (turn duration 0): time per line from writing it to reading its `result`, and the
/// journal's size at the end (`scripts/bench-journal`).
fn journal_session(bin: &Path, lines: usize) {
    let dir = tempfile::tempdir().expect("temp");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let journal = dir.path().join("journal.jsonl");
    let started = Instant::now();
    let (median, p99, rss_early, rss_late) = persistent(bin, &home, lines, Some(&journal));
    let total = started.elapsed();
    let size = std::fs::metadata(&journal).map(|m| m.len()).unwrap_or(0);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("journalled persistent session, {lines} stdin lines in one fake-agy process");
    println!(
        "  total                             {:8.1} s",
        total.as_secs_f64()
    );
    println!(
        "  per line, mean                    {:8.3} ms  (target ≤ 1 ms)",
        ms(total) / lines as f64
    );
    println!(
        "  per line, median / p99            {:8.3} ms / {:.3} ms",
        ms(median),
        ms(p99)
    );
    println!(
        "  RSS after 100 lines / at the end  {:8.1} MB / {:.1} MB",
        rss_early as f64 / 1024.0,
        rss_late as f64 / 1024.0
    );
    println!(
        "  journal at the end                {:8.1} MB",
        size as f64 / 1e6
    );
}

/// Runs `turns` default turns in one persistent process: median and p99 latency from
/// writing the line to reading its `result`, RSS after 100 turns and at the end.
fn persistent(
    bin: &Path,
    home: &Path,
    turns: usize,
    journal: Option<&Path>,
) -> (Duration, Duration, u64, u64) {
    let mut cmd = fake(bin, home);
    if let Some(j) = journal {
        cmd.env(FAKE_AGY_JOURNAL, j);
    }
    let mut child = cmd
        .args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn persistent");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lat = Vec::with_capacity(turns);
    let mut rss_early = 0;
    let mut line = String::new();
    for i in 0..turns {
        let t = Instant::now();
        stdin.write_all(b"{\"event\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"reply PONG\"}}\n").expect("write");
        loop {
            line.clear();
            if out.read_line(&mut line).expect("read") == 0 {
                panic!("persistent fake-agy ended early");
            }
            if line.starts_with("{\"event\":\"result\"") {
                break;
            }
        }
        lat.push(t.elapsed());
        if i == 100 {
            rss_early = rss_kb(pid);
        }
    }
    let rss_late = rss_kb(pid);
    drop(stdin);
    let _ = child.wait();
    let med = median(lat.clone());
    lat.sort();
    let p99 = lat[lat.len() * 99 / 100];
    (med, p99, rss_early, rss_late)
}
