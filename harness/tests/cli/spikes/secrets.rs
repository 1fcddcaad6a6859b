//! Planted secrets: a target that prints every secret format of
//! `protocol/redact-rules.toml` (plain, JSON-escaped, URL-encoded, inside a line that is
//! not UTF-8, on stdout and stderr) leaves none of them in any artefact of a spikes run:
//! the recorded trace, the JSON and Markdown reports, the terminal report, the webhook
//! payload.

use super::support::{fake_agy, TIME_SCALE};
use agy_protocol::env::FAKE_AGY_SCRIPT;
use agy_protocol::redact::percent_encode;
use agy_protocol::redact::rules::builtin_rules;
use assert_cmd::Command;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn planting_script() -> String {
    let mut steps = Vec::new();
    for example in builtin_rules().iter().filter_map(|r| r.example.as_ref()) {
        let text = &example.text;
        let json = serde_json::to_string(text).expect("json");
        let lit = |s: &str| toml::Value::String(s.to_string()).to_string();
        steps.push(format!("{{ stdout = {} }}", lit(&format!("plain: {text}"))));
        steps.push(format!(
            "{{ stderr = {} }}",
            lit(&format!("{{\"msg\":{json}}}"))
        ));
        steps.push(format!(
            "{{ stdout = {} }}",
            lit(&format!("url: {}", percent_encode(text, false)))
        ));
        let mut raw = b"\xff\xfe raw ".to_vec();
        raw.extend_from_slice(text.as_bytes());
        raw.push(b'\n');
        steps.push(format!("{{ stdout_hex = \"{}\" }}", hex(&raw)));
    }
    steps.push("{ exit = 0 }".into());
    format!(
        "[[invocation]]\ntimes = \"always\"\nsteps = [\n  {}\n]\n",
        steps.join(",\n  ")
    )
}

const SPIKE: &str = r#"
[spike]
id = "S1"
title = "t"
question = "q"

[[probe]]
name = "leaky"
argv = ["-p", "{prompt}", "--output-format", "text"]
prompt = "say something"

[[fact]]
id = "S1.lines"
claim = "prints one line"
probe = "leaky"
measure = "stdout.lines"

[[fact.recorded]]
agy = "1.2.6"
date = "2026-09-20"
source = "test"
equals = ["one line"]
"#;

#[tokio::test(flavor = "multi_thread")]
async fn no_planted_secret_reaches_a_trace_report_or_webhook() {
    let dir = tempfile::tempdir().expect("dir");
    let spikes = dir.path().join("spikes");
    std::fs::create_dir_all(&spikes).expect("spikes");
    std::fs::write(spikes.join("S1.toml"), SPIKE).expect("spike");
    let script = dir.path().join("leaky.toml");
    std::fs::write(&script, planting_script()).expect("script");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    let traces = dir.path().join("traces");
    let json = dir.path().join("report.json");
    let md = dir.path().join("report.md");
    let mut cmd = Command::cargo_bin("agy-harness").expect("bin");
    cmd.args([
        "spikes",
        "--color",
        "never",
        "--time-scale",
        &TIME_SCALE.to_string(),
    ])
    .arg("--spikes")
    .arg(&spikes)
    .arg("--fake-agy")
    .arg(fake_agy())
    .arg("--fake-env")
    .arg(format!("{FAKE_AGY_SCRIPT}={}", script.display()))
    .arg("--record")
    .arg(&traces)
    .arg("--report")
    .arg(format!("json={}", json.display()))
    .arg("--report")
    .arg(format!("markdown={}", md.display()))
    .arg("--notify")
    .arg(server.uri());
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .expect("join")
        .expect("run");
    let posted = server.received_requests().await.expect("recorded");
    let mut artefacts = vec![
        ("terminal report", out.stdout.clone()),
        ("json report", std::fs::read(&json).expect("json written")),
        (
            "markdown report",
            std::fs::read(&md).expect("markdown written"),
        ),
        (
            "trace",
            std::fs::read(traces.join("S1-leaky-1.jsonl")).expect("trace written"),
        ),
    ];
    artefacts.extend(posted.iter().map(|r| ("webhook payload", r.body.clone())));
    assert_eq!(
        artefacts.len(),
        5,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The drifted fact shows what was observed: the run really carried the lines.
    let report = String::from_utf8_lossy(&artefacts[1].1).to_string();
    assert!(report.contains("plain: "), "{report}");
    let mut found = Vec::new();
    for (name, bytes) in &artefacts {
        // Traces keep bytes that are not UTF-8 as hex: look for the secret there too.
        let haystack = format!(
            "{}\n{}",
            String::from_utf8_lossy(bytes),
            hex(bytes).replace(' ', "")
        );
        for rule in builtin_rules() {
            let Some(example) = &rule.example else {
                continue;
            };
            let secret = &example.secret;
            for form in [
                secret.clone(),
                percent_encode(secret, false),
                hex(secret.as_bytes()).replace(' ', ""),
            ] {
                if haystack.contains(&form) {
                    found.push(format!("{name}: rule `{}` ({form})", rule.id));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} secrets found in artefacts:\n{}",
        found.len(),
        found.join("\n")
    );
    assert!(report.contains("[TOKEN]"), "{report}");
}
