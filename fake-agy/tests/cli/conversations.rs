//! Conversations on disk: layout, resume, unknown ids by version, `--continue`.

use crate::support::{json_lines, Sandbox};
use agy_protocol::env::FAKE_AGY_VERSION;

fn run_json(sb: &Sandbox, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["-p", "reply ok", "--output-format", "json"];
    args.extend_from_slice(extra);
    let out = sb.cmd().args(&args).assert().success();
    (
        json_lines(&out.get_output().stdout).remove(0),
        String::from_utf8_lossy(&out.get_output().stderr).to_string(),
    )
}

#[test]
fn brain_dir_has_the_four_subfolders_and_the_cache_names_the_workspace() {
    let sb = Sandbox::new();
    let (env, _) = run_json(&sb, &["--add-dir", "/srv/space"]);
    let id = env["conversation_id"].as_str().expect("id").to_string();
    let brain = sb.app_dir().join("brain").join(&id);
    for sub in [
        ".system_generated/logs",
        ".tempmediaStorage",
        ".user_uploaded",
        "scratch",
    ] {
        assert!(brain.join(sub).is_dir(), "{sub}");
    }
    let cache: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(sb.app_dir().join("cache/last_conversations.json"))
            .expect("cache"),
    )
    .expect("json");
    assert_eq!(cache["/srv/space"], id);
}

#[test]
fn known_conversation_continues_turns_and_usage() {
    let sb = Sandbox::new();
    let (first, _) = run_json(&sb, &[]);
    let id = first["conversation_id"].as_str().expect("id").to_string();
    let (second, stderr) = run_json(&sb, &["--conversation", &id]);
    assert_eq!(stderr, "");
    assert_eq!(second["conversation_id"], id.as_str());
    assert_eq!(second["num_turns"], 2);
    let u1 = first["usage"]["input_tokens"].as_u64().expect("u");
    assert_eq!(
        second["usage"]["input_tokens"].as_u64(),
        Some(2 * u1),
        "cumulative (CL resume-turn)"
    );
}

#[test]
fn step_index_continues_across_processes() {
    let sb = Sandbox::new();
    let a = sb
        .cmd()
        .args(["-p", "reply ok", "--output-format", "stream-json"])
        .assert()
        .success();
    let ev = json_lines(&a.get_output().stdout);
    let id = ev[0]["conversation_id"].as_str().expect("id").to_string();
    let last = ev
        .iter()
        .filter_map(|e| e["step_update"]["step_index"].as_u64())
        .max()
        .expect("steps");
    let b = sb
        .cmd()
        .args([
            "-p",
            "reply ok",
            "--output-format",
            "stream-json",
            "--conversation",
            &id,
        ])
        .assert()
        .success();
    let ev2 = json_lines(&b.get_output().stdout);
    assert_eq!(ev2[1]["step_update"]["step_type"], "user_input");
    assert_eq!(ev2[1]["step_update"]["step_index"].as_u64(), Some(last + 1));
}

#[test]
fn unknown_conversation_on_1_2_warns_and_mints_a_new_id() {
    let sb = Sandbox::new();
    let wanted = "11111111-2222-3333-4444-555555555555";
    let (env, stderr) = run_json(&sb, &["--conversation", wanted]);
    assert_eq!(
        stderr,
        format!("warning: conversation \"{wanted}\" not found\n")
    );
    assert_ne!(env["conversation_id"], wanted);
    assert_eq!(env["num_turns"], 1);
}

#[test]
fn client_minted_conversation_id_is_accepted_on_1_1() {
    let sb = Sandbox::new();
    let wanted = "11111111-2222-3333-4444-555555555555";
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.1.13")
        .args([
            "-p",
            "reply ok",
            "--output-format",
            "json",
            "--conversation",
            wanted,
        ])
        .assert()
        .success()
        .stderr("");
    assert_eq!(
        json_lines(&out.get_output().stdout)[0]["conversation_id"],
        wanted
    );
}

#[test]
fn continue_takes_the_most_recent_conversation_of_the_workspace() {
    let sb = Sandbox::new();
    let (_, _) = run_json(&sb, &["--add-dir", "/a"]);
    let (b, _) = run_json(&sb, &["--add-dir", "/b"]);
    let (c, _) = run_json(&sb, &["--add-dir", "/b", "-c"]);
    assert_eq!(c["conversation_id"], b["conversation_id"]);
    assert_eq!(c["num_turns"], 2);
}

#[test]
fn app_data_dir_variable_moves_the_brain() {
    let sb = Sandbox::new();
    let data = sb.path().join("data");
    let out = sb
        .cmd()
        .env("ANTIGRAVITY_APP_DATA_DIR", &data)
        .args(["-p", "reply ok", "--output-format", "json"])
        .assert()
        .success();
    let id = json_lines(&out.get_output().stdout)[0]["conversation_id"]
        .as_str()
        .expect("id")
        .to_string();
    assert!(data.join("brain").join(id).is_dir());
    assert!(!sb.app_dir().exists());
}

/// A process-per-turn client: each turn is its own `agy -p … --conversation ID`.
const TWO_DECISIONS: &str = r#"
[[model]]
[[model.response]]
text = "first answer"

[[model]]
[[model.response]]
text = "second answer"
"#;

fn decided_turn(sb: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["-p", "go on", "--output-format", "json"];
    args.extend_from_slice(extra);
    let out = sb.scripted(TWO_DECISIONS).args(&args).assert().success();
    json_lines(&out.get_output().stdout).remove(0)
}

#[test]
fn the_second_process_of_a_conversation_is_served_the_second_decision() {
    let sb = Sandbox::new();
    let first = decided_turn(&sb, &[]);
    let id = first["conversation_id"].as_str().expect("id").to_string();
    assert_eq!(first["response"], "first answer");
    let second = decided_turn(&sb, &["--conversation", &id]);
    assert_eq!(second["response"], "second answer");
    assert_eq!(second["num_turns"], 2);
    // A new conversation starts at the first decision again.
    let fresh = decided_turn(&sb, &[]);
    assert_eq!(fresh["response"], "first answer");
}

#[test]
fn continue_flag_takes_the_next_decision_of_the_workspaces_conversation() {
    let sb = Sandbox::new();
    let first = decided_turn(&sb, &[]);
    let second = decided_turn(&sb, &["-c"]);
    assert_eq!(second["conversation_id"], first["conversation_id"]);
    assert_eq!(second["response"], "second answer");
}

#[test]
fn the_journal_names_the_conversation_a_run_continued_and_its_turn_number() {
    let sb = Sandbox::new();
    let first = decided_turn(&sb, &[]);
    let id = first["conversation_id"].as_str().expect("id").to_string();
    decided_turn(&sb, &["--conversation", &id]);
    let journal = sb.journal();
    assert_eq!(journal.len(), 2);
    assert_eq!(journal[0].continued_conversation, None);
    assert_eq!(journal[0].conversation_turn, Some(1));
    assert_eq!(
        journal[1].continued_conversation.as_deref(),
        Some(id.as_str())
    );
    assert_eq!(journal[1].conversation_turn, Some(2));
}
