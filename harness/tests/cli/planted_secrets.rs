//! Every secret class of `protocol/tests/data/secret-classes.toml` planted in a live
//! run (the "real agy" is a shell script that execs fake-agy): on agy's stdout (the
//! envelope's response), its stderr, a file it writes, its argv (the prompt) and its
//! environment (`GEMINI_API_KEY`). None may reach an artefact the run keeps: the
//! recorded trace, the JSON, Markdown and HTML reports, the terminal, or the kept
//! sandbox (its live journal among them).

use crate::support::*;
use agy_protocol::env::AGY_HARNESS_ALLOW_LIVE;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Deserialize)]
struct Class {
    name: String,
    text: String,
    secret: String,
}

#[derive(Deserialize)]
struct ClassFile {
    class: Vec<Class>,
}

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn classes() -> Vec<Class> {
    let path = workspace().join("protocol/tests/data/secret-classes.toml");
    let text = std::fs::read_to_string(&path).expect("secret-classes.toml");
    toml::from_str::<ClassFile>(&text).expect("classes").class
}

const API_KEY: &str = "AQ.Zr7mK2pQ9vX4tL8wN3yB6cD1";

/// The stand-in: every class on stderr and in a file of the brain folder, then
/// fake-agy acting out `script` (whose response holds every class).
fn real_agy(t: &TestDir, script: &Path, planted: &Path) -> PathBuf {
    let fake = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("fake-agy");
    let bin = t.write(
        "real-agy",
        &format!(
            "#!/bin/sh\n\
             if [ \"$1\" = models ]; then\n\
             echo 'Please sign in to view available models' >&2; exit 1\n\
             fi\n\
             if [ \"$1\" != --version ]; then\n\
             cat '{p}' >&2\n\
             mkdir -p \"$HOME/.gemini/antigravity-cli/brain/c1\"\n\
             cp '{p}' \"$HOME/.gemini/antigravity-cli/brain/c1/notes.txt\"\n\
             fi\n\
             FAKE_AGY_SCRIPT='{s}' exec '{f}' \"$@\"\n",
            p = planted.display(),
            s = script.display(),
            f = fake.display()
        ),
    );
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    bin
}

/// Every file under `dir`, with its text.
fn files_under(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let (path, kind) = (e.path(), e.file_type());
        if kind.as_ref().is_ok_and(|k| k.is_dir()) {
            files_under(&path, out);
        } else if kind.is_ok_and(|k| k.is_file()) {
            let bytes = std::fs::read(&path).unwrap_or_default();
            out.push((path.display().to_string(), text(&bytes)));
        }
    }
}

/// What the run leaves: terminal, reports, trace, kept sandbox.
fn artefacts(out: &std::process::Output, t: &TestDir) -> Vec<(String, String)> {
    let terminal = format!("{}\n{}", text(&out.stdout), text(&out.stderr));
    let mut all = vec![("terminal".to_string(), terminal.clone())];
    files_under(&t.path().join("reports"), &mut all);
    files_under(&t.path().join("rec"), &mut all);
    let report = std::fs::read_to_string(t.path().join("reports/r.json")).unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(&report).unwrap_or_default();
    let kept: Vec<PathBuf> = report["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["sandbox"].as_str().map(PathBuf::from))
        .collect();
    for dir in kept {
        {
            // The brain folder is agy's raw output, kept unredacted on purpose
            // (docs/harness.md, `--keep-sandboxes`): everything else is looked at.
            let mut kept = Vec::new();
            files_under(&dir, &mut kept);
            all.extend(kept.into_iter().filter(|(p, _)| !p.contains("/.gemini/")));
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    all
}

#[test]
fn no_planted_secret_class_reaches_any_artefact_of_a_live_run() {
    let t = TestDir::new();
    let all = classes();
    let planted_text: String = all.iter().map(|c| format!("{}\n", c.text)).collect();
    let planted = t.write("planted.txt", &planted_text);
    let lit = |s: &str| toml::Value::String(s.to_string()).to_string();
    let script = t.write(
        "agy-script.toml",
        &format!(
            "[[invocation]]\ntimes = \"always\"\nsteps = [\n  {{ envelope = {{ status = \"SUCCESS\", response = {} }} }},\n  {{ exit = 0 }},\n]\n",
            lit(&planted_text)
        ),
    );
    let prompt: Vec<&str> = all
        .iter()
        .map(|c| c.text.as_str())
        .filter(|s| !s.contains('\n'))
        .take(12)
        .collect();
    let scenario = t.write(
        "scenarios/oneshot/planted.toml",
        &format!(
            "[scenario]\nname = \"oneshot/planted\"\nprofile = \"oneshot\"\ncovers = [\"harness self-test\"]\ntags = [\"live\"]\n\n[[op]]\ngenerate = {{ prompt = {} }}\n",
            lit(&prompt.join(" "))
        ),
    );
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agy-harness"));
    cmd.current_dir(workspace())
        .args([
            "--color",
            "never",
            "run",
            "--live",
            "--budget",
            "3",
            "--keep-sandboxes",
        ])
        .arg("--agy")
        .arg(real_agy(&t, &script, &planted))
        .arg("--record")
        .arg(t.path().join("rec"))
        .env("CI", "true")
        .env("GEMINI_API_KEY", API_KEY)
        .env(AGY_HARNESS_ALLOW_LIVE, "1");
    for f in ["json", "markdown", "html"] {
        let path = t.path().join("reports").join(format!("r.{f}"));
        cmd.arg("--report").arg(format!("{f}={}", path.display()));
    }
    cmd.arg(&scenario);
    let out = run(cmd, Duration::from_secs(180));
    let found = artefacts(&out, &t);
    let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    // The planted text is there to find: the trace holds agy's stdout and stderr.
    let trace = found
        .iter()
        .find(|(p, _)| p.ends_with(".jsonl"))
        .unwrap_or_else(|| panic!("no trace among {names:?}\n{}", found[0].1));
    assert!(trace.1.contains("x-goog-api-key: [TOKEN]"), "{}", trace.1);
    assert!(
        names.iter().any(|p| p.ends_with("journal.jsonl")),
        "no kept journal among {names:?}"
    );
    let mut leaks = Vec::new();
    for c in &all {
        for (path, body) in &found {
            if body.contains(&c.secret) {
                leaks.push(format!("{}: {path}", c.name));
            }
        }
    }
    if found.iter().any(|(_, body)| body.contains(API_KEY)) {
        leaks.push("GEMINI_API_KEY from the environment".into());
    }
    assert!(
        leaks.is_empty(),
        "{} leaks of {} classes:\n{}",
        leaks.len(),
        all.len(),
        leaks.join("\n")
    );
}
