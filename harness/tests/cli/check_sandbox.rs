//! `agy-harness check --adapter` starts a driverless adapter (an MCP server, an ACP
//! agent) the way a run does: in a sandbox, with a cleared environment, the fakes
//! first on `PATH`, under the reaper, bounded by the start-up timeout, and nothing it
//! started outlives the check.

use crate::support::{run, text, TestDir};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// An adapter that records what it sees, leaves two children behind (one in its
/// group, one in a session of its own with an empty environment, which only the
/// reaper can find) and never answers.
const RECORDER: &str = r#"#!/bin/sh
rec="$1"
{
  echo "HOME=$HOME"
  echo "PATH=$PATH"
  echo "AGY=$(command -v agy)"
  echo "ACP=$(command -v agy_acp_server)"
  echo "KEY=${GEMINI_API_KEY-unset}"
} > "$rec.tmp"
sleep 300 </dev/null >/dev/null 2>&1 &
echo "CHILD=$!" >> "$rec.tmp"
env -i setsid sleep 301 </dev/null >/dev/null 2>&1 &
echo "ORPHAN=$!" >> "$rec.tmp"
mv "$rec.tmp" "$rec"
exec sleep 302
"#;

/// What the recorder wrote.
fn record(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("no record: {e}"));
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Runs `check --adapter` on a config of `profile` whose command is the recorder,
/// with a real-looking `agy` and `agy_acp_server` first on the harness's own `PATH`
/// and a credential in its environment; returns check's output and the record.
fn check_recorder(profile: &str) -> (std::process::Output, BTreeMap<String, String>, TestDir) {
    let t = TestDir::new();
    let real = t.path().join("real-bin");
    std::fs::create_dir_all(&real).expect("real-bin");
    let ran = t.path().join("real-agy-ran");
    for name in ["agy", "agy_acp_server"] {
        let p = t.write(
            &format!("real-bin/{name}"),
            &format!(
                "#!/bin/sh\necho {name} >> {:?}\n",
                ran.display().to_string()
            ),
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let adapter = t.write("adapter.sh", RECORDER);
    let rec = t.path().join("record");
    let mcp = if profile == "mcp" {
        "[mcp]\ntool = \"ask\"\n"
    } else {
        ""
    };
    t.write(
        "adapter.toml",
        &format!(
            "[adapter]\nname = \"recorder\"\ncommand = [\"/bin/sh\", {:?}, {:?}]\nprofiles = [{profile:?}]\n\n{mcp}\n[timeouts]\nstartup = \"3s\"\n",
            adapter.display().to_string(),
            rec.display().to_string()
        ),
    );
    let sandboxes = t.path().join("sandboxes");
    std::fs::create_dir_all(&sandboxes).expect("sandboxes");
    let mut cmd = t.harness();
    let path = format!(
        "{}:{}",
        real.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("GEMINI_API_KEY", "a-real-key")
        .env(agy_protocol::env::AGY_HARNESS_SANDBOX_DIR, &sandboxes)
        .args(["check", "--adapter", "adapter.toml"]);
    let out = run(cmd, Duration::from_secs(60));
    assert!(
        !ran.exists(),
        "a real agy ran: {}",
        std::fs::read_to_string(&ran).unwrap_or_default()
    );
    let seen = record(&rec);
    let home = seen.get("HOME").cloned().unwrap_or_default();
    assert!(
        home.starts_with(&sandboxes.display().to_string()),
        "HOME is the sandbox's: {seen:?}"
    );
    let first = seen
        .get("PATH")
        .and_then(|p| p.split(':').next().map(str::to_string))
        .unwrap_or_default();
    assert!(
        first.starts_with(&sandboxes.display().to_string()),
        "{seen:?}"
    );
    assert_eq!(seen.get("AGY"), Some(&format!("{first}/agy")), "{seen:?}");
    assert_eq!(
        seen.get("ACP"),
        Some(&format!("{first}/agy_acp_server")),
        "{seen:?}"
    );
    assert_eq!(
        seen.get("KEY").map(String::as_str),
        Some("unset"),
        "{seen:?}"
    );
    let left: Vec<u32> = ["CHILD", "ORPHAN"]
        .iter()
        .filter_map(|k| seen.get(*k).and_then(|p| p.parse().ok()))
        .collect();
    assert_eq!(left.len(), 2, "{seen:?}");
    let running = agy_process::wait_gone(&left, Duration::from_secs(10));
    assert!(
        running.is_empty(),
        "processes the adapter left still run: {running:?}"
    );
    (out, seen, t)
}

#[test]
fn check_starts_an_mcp_server_in_a_sandbox_and_leaves_nothing_running() {
    let (out, _, _t) = check_recorder("mcp");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("did not start and list its tools within"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_starts_an_acp_agent_in_a_sandbox_and_bounds_initialize() {
    // Regression: an agent that never answered `initialize` held `check` forever.
    let (out, _, _t) = check_recorder("acp-agent");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("did not answer `initialize` within 3.0 s"),
        "{}",
        text(&out.stderr)
    );
}
