//! docs/ci.md's CI job runs as written: every `run:` command of its YAML, in a temporary
//! adapter repository, with the kit of this build on `PATH`; the report it uploads
//! exists. The install step is checked for the packages it names (`.ci/run` installs the
//! kit for real).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The first ```yaml block of docs/ci.md.
fn ci_job() -> String {
    let doc = std::fs::read_to_string(repo_root().join("docs/ci.md")).expect("docs/ci.md");
    let start = doc.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let len = doc[start..].find("```").expect("the block ends");
    doc[start..start + len].to_string()
}

/// The value of every `KEY: value` line whose key is `key` (leading `- ` allowed); a
/// `|` value is the more-indented block below it.
fn values_of(yaml: &str, key: &str) -> Vec<String> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start().trim_start_matches("- ");
        let Some(value) = trimmed.strip_prefix(&format!("{key}:")) else {
            continue;
        };
        let value = value.trim();
        if value != "|" {
            out.push(value.to_string());
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let block: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .map(|l| l.trim())
            .collect();
        out.push(block.join("\n"));
    }
    out
}

/// The package names of a `cargo install` command (flags and their values left out).
fn installed_packages(command: &str) -> Vec<String> {
    let with_value = ["--git", "--tag", "--rev", "--branch", "--root", "--path"];
    let words: Vec<&str> = command.split_whitespace().skip(2).collect();
    let mut out = Vec::new();
    let mut skip = false;
    for w in words {
        if std::mem::take(&mut skip) {
            continue;
        }
        if with_value.contains(&w) {
            skip = true;
        } else if !w.starts_with('-') {
            out.push(w.to_string());
        }
    }
    out
}

fn workspace_packages() -> Vec<String> {
    let root = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&root).expect("workspace manifest");
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("members");
    members
        .iter()
        .filter_map(|m| m.as_str())
        .map(|m| {
            let text = std::fs::read_to_string(repo_root().join(m).join("Cargo.toml"))
                .expect("member manifest");
            let member: toml::Table = toml::from_str(&text).expect("member manifest");
            member["package"]["name"]
                .as_str()
                .expect("name")
                .to_string()
        })
        .collect()
}

/// A bin folder holding only the binaries of the packages `cargo install` names, copied
/// out of this build's folder (agy-harness finds its fakes next to itself, so a link
/// back into the build folder would find every binary of the workspace).
fn installed_bin(t: &TestDir, packages: &[String]) -> PathBuf {
    let built = Path::new(env!("CARGO_BIN_EXE_agy-harness"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let bin = t.path().join("installed-bin");
    std::fs::create_dir_all(&bin).expect("bin dir");
    for p in packages {
        std::fs::copy(built.join(p), bin.join(p)).expect("copies the installed binary");
    }
    bin
}

/// Runs every `run:` command of the job in an adapter repository whose config is
/// `profile`'s, with only what the install step installs on `PATH`; returns the
/// uploaded report.
fn run_the_job(profile: &str) -> String {
    let job = ci_job();
    let commands = values_of(&job, "run");
    assert!(commands.len() >= 3, "run steps: {commands:?}");
    let t = TestDir::new();
    let harness = Path::new(env!("CARGO_BIN_EXE_agy-harness"));
    let install = commands
        .iter()
        .find(|c| c.starts_with("cargo install"))
        .expect("an install step");
    let named = installed_packages(install);
    assert!(named.contains(&"agy-harness".to_string()), "{install}");
    let packages = workspace_packages();
    for p in &named {
        assert!(
            packages.contains(p),
            "`{install}` installs `{p}`, which is not a package of the workspace ({packages:?})"
        );
    }
    let bin = installed_bin(&t, &named);
    // The adapter repository: the reference adapter as an adapter of `profile`.
    let repo = t.path().join("repo");
    t.write(
        "repo/agy-adapter.toml",
        &format!(
            "[adapter]\nname = \"a {profile} adapter\"\ncommand = [{:?}]\nprofiles = [\"{profile}\"]\n",
            harness
                .with_file_name("agy-reference-adapter")
                .display()
                .to_string()
        ),
    );
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    for command in commands.iter().filter(|c| !c.starts_with("cargo install")) {
        let mut cmd = std::process::Command::new("bash");
        cmd.args(["-euo", "pipefail", "-c", command])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("HOME", t.path());
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AGY_HARNESS_") {
                cmd.env_remove(k);
            }
        }
        let out = run(cmd, Duration::from_secs(300));
        assert!(
            out.status.success(),
            "`{command}` in {}: {}\nstdout:\n{}\nstderr:\n{}",
            repo.display(),
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    let uploaded = values_of(&job, "path");
    assert_eq!(uploaded.len(), 1, "{uploaded:?}");
    std::fs::read_to_string(repo.join(&uploaded[0])).expect("the uploaded report")
}

#[test]
fn the_ci_job_in_docs_ci_runs_a_session_adapter_with_only_what_it_installs() {
    let report = run_the_job("session");
    assert!(report.contains("<testsuites"), "{report}");
    assert!(
        report.contains("session/three-turns-on-one-process"),
        "{report}"
    );
}

#[test]
fn the_ci_job_in_docs_ci_runs_a_oneshot_adapter_with_only_what_it_installs() {
    let report = run_the_job("oneshot");
    assert!(report.contains("<testsuites"), "{report}");
    assert!(
        report.contains("oneshot/success-delivers-one-decodable-image"),
        "{report}"
    );
}

#[test]
fn run_values_are_read_inline_and_as_blocks() {
    let yaml =
        "steps:\n  - run: one\n  - name: x\n    run: |\n      two\n      three\n  - run: four\n";
    assert_eq!(values_of(yaml, "run"), ["one", "two\nthree", "four"]);
    assert_eq!(
        installed_packages("cargo install --locked --git \"$URL\" --tag v1 agy-harness fake-agy"),
        ["agy-harness", "fake-agy"]
    );
}
