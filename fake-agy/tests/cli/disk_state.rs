//! What a run leaves in agy's data directory for clients that read it: the
//! conversation database (a chat library's resume flow), the older `.pb`, the catalogue,
//! the `--log-file` lines clients take the conversation id from, and the traces of a
//! signed-in agy (none signed out).

use crate::support::{json_lines, Sandbox};
use agy_protocol::env::{FAKE_AGY_SIGNED_OUT, FAKE_AGY_VERSION};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

fn print_json(sb: &Sandbox, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["-p", "say hello", "--output-format", "json"];
    args.extend_from_slice(extra);
    let out = sb.cmd().args(&args).assert().success();
    json_lines(&out.get_output().stdout).remove(0)
}

fn open_read_only(path: &Path) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("a SQLite file")
}

/// `(idx, step_type)` of every row of `steps`, as chat readers query them.
fn steps(db: &Path) -> Vec<(i64, i64)> {
    let conn = open_read_only(db);
    let mut q = conn
        .prepare("SELECT idx, step_type FROM steps ORDER BY idx ASC")
        .expect("the `steps` table");
    q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

#[test]
fn a_chat_library_finds_the_conversation_database_by_id_and_resumes_it() {
    let sb = Sandbox::new();
    let first = print_json(&sb, &[]);
    let id = first["conversation_id"].as_str().expect("id");
    let db = sb.app_dir().join(format!("conversations/{id}.db"));
    let conn = open_read_only(&db);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
    for table in [
        "steps",
        "trajectory_meta",
        "gen_metadata",
        "executor_metadata",
        "parent_references",
        "trajectory_metadata_blob",
        "battle_mode_infos",
    ] {
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .expect("schema");
        assert_eq!(n, 1, "table `{table}`");
    }
    let cascade: String = conn
        .query_row("SELECT cascade_id FROM trajectory_meta", [], |r| r.get(0))
        .expect("the trajectory row");
    assert_eq!(cascade, id);
    // The user's line (14) and the answer (15), AX's codes.
    assert_eq!(steps(&db), vec![(0, 14), (1, 15)]);
    drop(conn);
    let second = print_json(&sb, &["--conversation", id]);
    assert_eq!(
        second["conversation_id"], id,
        "resumed, not a new conversation"
    );
    assert_eq!(second["num_turns"], 2);
    let rows = steps(&db);
    assert_eq!(rows.first(), Some(&(0, 14)));
    assert!(
        rows.len() > 2,
        "the second turn's steps join the first's: {rows:?}"
    );
}

#[test]
fn the_answer_is_in_its_steps_payload_where_a_bridge_reads_it() {
    let sb = Sandbox::new();
    let env = print_json(&sb, &[]);
    let id = env["conversation_id"].as_str().expect("id");
    let conn = open_read_only(&sb.app_dir().join(format!("conversations/{id}.db")));
    let payload: Vec<u8> = conn
        .query_row(
            "SELECT step_payload FROM steps WHERE step_type = 15 ORDER BY idx DESC",
            [],
            |r| r.get(0),
        )
        .expect("the answer's payload");
    // Field 20 (tag a2 01) holding field 1 (tag 0a): the text the envelope returned.
    let text = env["response"].as_str().expect("response").as_bytes();
    assert_eq!(&payload[..2], &[0xa2, 0x01]);
    assert_eq!(payload[2] as usize, text.len() + 2);
    assert_eq!(&payload[3..5], &[0x0a, text.len() as u8]);
    assert_eq!(&payload[5..], text);
}

#[test]
fn the_catalogue_lists_the_conversation_with_its_workspace() {
    let sb = Sandbox::new();
    let env = print_json(&sb, &["--add-dir", "/srv/space"]);
    let id = env["conversation_id"].as_str().expect("id");
    let conn = open_read_only(&sb.app_dir().join("conversation_summaries.db"));
    let (uris, count, last_input): (String, i64, i64) = conn
        .query_row(
            "SELECT workspace_uris, step_count, last_user_input_step_index FROM conversation_summaries WHERE conversation_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("the conversation's row");
    assert_eq!(uris, r#"["file:///srv/space"]"#);
    assert_eq!((count, last_input), (2, 0));
}

#[test]
fn before_1_0_4_a_conversation_is_a_pb_file_and_no_database() {
    let sb = Sandbox::new();
    let env = print_json(&sb, &[]);
    let id = env["conversation_id"].as_str().expect("id");
    assert!(sb
        .app_dir()
        .join(format!("conversations/{id}.db"))
        .is_file());
    let out = sb
        .cmd()
        .env(FAKE_AGY_VERSION, "1.0.2")
        .args(["-p", "hi", "--output-format", "json"])
        .assert()
        .success();
    let old = json_lines(&out.get_output().stdout).remove(0);
    let old_id = old["conversation_id"].as_str().expect("id");
    let dir = sb.app_dir().join("conversations");
    assert!(dir.join(format!("{old_id}.pb")).is_file());
    assert!(!dir.join(format!("{old_id}.db")).exists());
}

#[test]
fn the_log_file_names_the_conversation_on_the_lines_clients_read() {
    let sb = Sandbox::new();
    let env = print_json(&sb, &["--log-file", "agy.log"]);
    let id = env["conversation_id"].as_str().expect("id");
    let log = std::fs::read_to_string(sb.path().join("agy.log")).expect("the log");
    // IkariKr/CodeConductor and lpleahy/obelus.nvim read `Print mode: conversation=`;
    // a stricter reader matches the whole glog line.
    let sending = regex::Regex::new(
        r"(?m)^[IWEF]\d{4}\s+\S+\s+\d+\s+printmode\.go:\d+\] Print mode: conversation=([0-9A-Za-z_-]+), sending message$",
    )
    .expect("regex");
    assert_eq!(&sending.captures(&log).expect("the line")[1], id, "{log}");
    assert!(
        log.contains(&format!("] Created conversation {id}\n")),
        "{log}"
    );
    print_json(&sb, &["--log-file", "again.log", "--conversation", id]);
    let again = std::fs::read_to_string(sb.path().join("again.log")).expect("the log");
    assert!(
        again.contains(&format!("] Print mode: resuming conversation {id}\n")),
        "{again}"
    );
    assert!(!again.contains("Created conversation"), "{again}");
}

#[test]
fn a_script_that_writes_the_log_gets_no_lines_of_the_fakes() {
    let sb = Sandbox::new();
    sb.scripted("[[invocation]]\nsteps = [{ log = \"recorded line\\n\" }, { default = true }]\n")
        .args([
            "-p",
            "x",
            "--output-format",
            "json",
            "--log-file",
            "agy.log",
        ])
        .assert()
        .success();
    let log = std::fs::read_to_string(sb.path().join("agy.log")).expect("the log");
    assert_eq!(log, "recorded line\n");
}

#[test]
fn a_signed_in_run_leaves_its_token_file_and_its_log() {
    let sb = Sandbox::new();
    print_json(&sb, &[]);
    let token = sb.app_dir().join("antigravity-oauth-token");
    let meta = std::fs::metadata(&token).expect("the token file");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let value: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&token).expect("read")).expect("JSON");
    assert!(value["token"]["access_token"].is_string(), "{value}");
    assert!(value["token"]["refresh_token"].is_string(), "{value}");
    let link = sb.app_dir().join("log/cli.log");
    let log = std::fs::read_to_string(&link).expect("the log behind log/cli.log");
    assert!(log.contains("] Created conversation "), "{log}");
}

/// agy-mcp 0.1.9 (`agy_mcp/adapters/agy.py`, `detect_agy_auth_source`) runs agy only when
/// a recent `log/*.log` shows `authenticated successfully as <account>` or
/// `authenticated via keyring`; agy writes the first at sign-in (docs/agy-reference.md §5).
#[test]
fn a_signed_in_print_run_logs_its_sign_in_before_the_conversation() {
    let sb = Sandbox::new();
    print_json(&sb, &[]);
    let log = std::fs::read_to_string(sb.app_dir().join("log/cli.log")).expect("the log");
    let signed_in = regex::Regex::new(r"(?i)authenticated successfully as\s+\S+").expect("re");
    let at = signed_in.find(&log).expect("a sign-in line").start();
    let created = log
        .find("] Created conversation ")
        .expect("the conversation line");
    assert!(at < created, "{log}");
    assert!(
        log.contains("] Print mode: silent auth succeeded\n"),
        "{log}"
    );
    let files = std::fs::read_dir(sb.app_dir().join("log"))
        .expect("log/")
        .count();
    assert_eq!(files, 2, "one log file and its cli.log link");
}

#[test]
fn a_signed_out_run_leaves_no_trace_of_a_sign_in() {
    let sb = Sandbox::new();
    sb.cmd()
        .env(FAKE_AGY_SIGNED_OUT, "1")
        .args([
            "-p",
            "hi",
            "--output-format",
            "json",
            "--log-file",
            "agy.log",
        ])
        .assert()
        .code(1);
    let app = sb.app_dir();
    assert!(!app.join("antigravity-oauth-token").exists());
    assert!(!app.join("log").exists());
    assert!(!app.join("conversations").exists());
    assert!(!sb.path().join("agy.log").exists());
}

#[test]
fn a_token_file_already_there_is_left_alone() {
    let sb = Sandbox::new();
    let token = sb.app_dir().join("antigravity-oauth-token");
    std::fs::create_dir_all(sb.app_dir()).expect("dir");
    std::fs::write(&token, "the user's").expect("write");
    print_json(&sb, &[]);
    assert_eq!(std::fs::read_to_string(&token).expect("read"), "the user's");
}

// agy logs every step of a headless run in the brain folder's transcript.jsonl
// (docs/agy-reference.md §5, measured: FM, specstory PR #222); ai-hats-agy 0.2.0 reads
// it after each run (clients/ai-hats-agy) and found none.
#[test]
fn each_turn_is_logged_in_the_conversations_transcript() {
    let sb = Sandbox::new();
    let first = print_json(&sb, &[]);
    let id = first["conversation_id"].as_str().expect("id");
    print_json(&sb, &["--conversation", id]);
    let logs = sb
        .app_dir()
        .join(format!("brain/{id}/.system_generated/logs"));
    for name in ["transcript.jsonl", "transcript_full.jsonl"] {
        let text = std::fs::read_to_string(logs.join(name)).expect(name);
        let lines = json_lines(text.as_bytes());
        let kinds: Vec<_> = lines
            .iter()
            .map(|l| (l["type"].clone(), l["content"].clone()))
            .collect();
        assert_eq!(
            kinds,
            [
                (
                    serde_json::json!("USER_INPUT"),
                    serde_json::json!("<USER_REQUEST>\nsay hello\n</USER_REQUEST>")
                ),
                (
                    serde_json::json!("PLANNER_RESPONSE"),
                    first["response"].clone()
                ),
                (
                    serde_json::json!("USER_INPUT"),
                    serde_json::json!("<USER_REQUEST>\nsay hello\n</USER_REQUEST>")
                ),
                (
                    serde_json::json!("PLANNER_RESPONSE"),
                    first["response"].clone()
                ),
            ],
            "{name}"
        );
        let keys: Vec<_> = lines[1]
            .as_object()
            .expect("a line")
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            keys,
            [
                "step_index",
                "source",
                "type",
                "status",
                "created_at",
                "content"
            ],
            "{name}"
        );
        assert_eq!(
            (&lines[0]["source"], &lines[1]["source"]),
            (
                &serde_json::json!("USER_EXPLICIT"),
                &serde_json::json!("MODEL")
            ),
            "{name}"
        );
        let at = lines[0]["created_at"].as_str().expect("created_at");
        assert!(at.ends_with('Z') && at.len() == 20, "{name}: {at}");
        let indexes: Vec<_> = lines.iter().map(|l| l["step_index"].as_u64()).collect();
        assert!(
            indexes.windows(2).all(|w| w[0] < w[1]),
            "{name}: {indexes:?}"
        );
    }
}
