//! `[opening]` and `[[reply]]`: lines written byte for byte (key order and spacing as
//! given), typed error answers, a rule without steps that leaves its request
//! unanswered, and the agent's own answers for requests no rule matches.

use crate::support::{Sandbox, WAIT};
use agy_protocol::acp::AcpKind;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const SCRIPT: &str = r#"
[agent]
stderr_noise = false

[opening]
steps = [{ line = '{"direction": "agent",  "x": [1, 2]}' }]

[[reply]]
name = "handshake"
when = { method = "initialize" }
steps = [
  { line = '{"jsonrpc":"2.0","id":0,"result":{"z":1,"a":2}}' },
  { line = '{"jsonrpc":"2.0","method":"session/update","params":{"b":1, "a":2}}' },
]

[[reply]]
when = { method = "session/cancel", id = 3 }
steps = [{ error = { code = -32000, message = "gone", data = { reason = "x" } } }]

[[reply]]
when = { nth = 4 }
"#;

#[tokio::test]
async fn replies_write_their_lines_verbatim_and_unmatched_requests_get_the_agents_answer() {
    let sb = Sandbox::new().with_script(SCRIPT);
    let mut child = sb.command().spawn().expect("spawn fake-agy-acp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let requests = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"session/cancel","params":{"sessionId":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"session/list","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}"#,
    ];
    for r in requests {
        stdin
            .write_all(format!("{r}\n").as_bytes())
            .await
            .expect("write");
    }
    drop(stdin);
    let mut lines = Vec::new();
    while let Some(l) = tokio::time::timeout(WAIT, out.next_line())
        .await
        .expect("stdout in time")
        .expect("read stdout")
    {
        lines.push(l);
    }
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("exit in time")
        .expect("wait");
    assert!(status.success(), "{status:?}");
    // Request 4 (id 4) is answered by nothing; id 1 and id 5 by the agent itself.
    assert_eq!(
        lines,
        [
            r#"{"direction": "agent",  "x": [1, 2]}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":{"z":1,"a":2}}"#,
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"b":1, "a":2}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"sessions":[]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"gone","data":{"reason":"x"}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{"sessions":[]}}"#,
        ],
        "{lines:#?}"
    );
    let rules: Vec<String> = sb
        .journal()
        .into_iter()
        .filter(|e| e.kind == AcpKind::Rule)
        .filter_map(|e| e.text)
        .collect();
    assert_eq!(rules, ["handshake", "reply 2", "reply 3"]);
}

#[tokio::test]
async fn a_broken_reply_script_is_the_fakes_own_error_with_every_problem_located() {
    let sb = Sandbox::new().with_script(
        "[opening]\nsteps = [{ line = 'not json' }]\n[[reply]]\nsteps = [{ error = { code = 1 } }]\n",
    );
    let out = tokio::time::timeout(WAIT, sb.command().output())
        .await
        .expect("exit in time")
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(agy_protocol::script::FAKE_BROKEN_EXIT)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("fake-agy-acp: "), "{stderr}");
    for at in ["acp.toml:2:10", "acp.toml:4:20"] {
        assert!(stderr.contains(at), "{at} missing:\n{stderr}");
    }
    assert!(stderr.contains("not one JSON value"), "{stderr}");
}
