//! Driver protocol v1 (docs/driver-protocol.md) for an adapter of the __PROFILE__ profile.
//!
//! Written by `agy-harness init`. agy-harness starts this program with the command of
//! __CONFIG__ and sends one JSON request per line on stdin; each `op_*` function below
//! answers one op by calling your adapter. Until you fill one in, it fails its op with
//! the error `NotImplemented`.
//!
//! The environment (docs/driver-protocol.md, "Process and environment"): `HOME` is a
//! sandbox, `PATH` starts with fake-agy installed as `agy` (`AGY_BIN` overrides it),
//! `AGY_DRIVER_WORK_DIR` is the adapter's workspace and the cwd, `AGY_DRIVER_STATE_DIR`
//! survives a restart, and `AGY_HARNESS_TIME_SCALE` multiplies the adapter's own waits.

use serde_json::{json, Value};
use std::io::{BufRead, Write};

const PROFILES: &[&str] = &["__PROFILE__"];

/// A failed op: `name` is your adapter's error name, mapped to an outcome class by
/// `[errors]` in the adapter config unless `outcome` is given.
struct OpError {
    name: String,
    message: String,
    outcome: Option<&'static str>,
    retryable: Option<bool>,
}

impl OpError {
    fn new(name: &str, message: String) -> OpError {
        OpError { name: name.into(), message, outcome: None, retryable: None }
    }

    fn not_implemented(op: &str, function: &str) -> OpError {
        OpError::new(
            "NotImplemented",
            format!("op `{op}` is not implemented yet: fill in {function} in src/main.rs"),
        )
    }
}
__STUBS__
fn answer(req: &Value) -> Result<Value, OpError> {
    let op = req["op"].as_str().unwrap_or_default();
    match op {
        "hello" => Ok(json!({ "driver": "__NAME__", "profiles": PROFILES })),
        "shutdown" => Ok(json!({})),
__DISPATCH__        _ => Err(OpError {
            outcome: Some("permanent"),
            ..OpError::new("Unsupported", format!("op `{op}` is not one this driver implements"))
        }),
    }
}

fn main() -> std::io::Result<()> {
    // Replies go to stdout; log to stderr (`eprintln!`), never to stdout.
    let mut out = std::io::stdout().lock();
    // One request at a time: the next line is read once this one is answered. The
    // harness may send requests together (oneshot's two-concurrent-generations): to
    // serve them at once, answer each on its own thread (replies go by `id`, in any
    // order, one whole line per write).
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let req: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("agy-driver: a request that is not JSON: {e}");
                continue;
            }
        };
        let mut reply = json!({ "id": req["id"] });
        match answer(&req) {
            Ok(result) => {
                reply["ok"] = json!(true);
                reply["result"] = result;
            }
            Err(e) => {
                reply["ok"] = json!(false);
                reply["error"] = json!({ "name": e.name, "message": e.message });
                if let Some(outcome) = e.outcome {
                    reply["outcome"] = json!(outcome);
                }
                if let Some(retryable) = e.retryable {
                    reply["retryable"] = json!(retryable);
                }
            }
        }
        writeln!(out, "{reply}")?;
        out.flush()?;
        if req["op"] == "shutdown" {
            break;
        }
    }
    Ok(())
}
