//! Subcommands clients run at start-up besides `models`: `update`, `changelog`,
//! `agent`/`agents`, `plugin`/`plugins`, `mcp` and `help`. Each answers briefly and exits 0
//! so a client that probes agy keeps working (docs/agy-versions.md, "Subcommands").
//!
//! Recorded: `agy update` on 1.2.13 prints `Checking for updates... (current version …)`
//! and `You are already on the latest version.`, exit 0; `agy mcp list` on 1.1.18 prints
//! the `NAME TYPE STATUS COMMAND/URL` header. The other texts are unverified (no capture):
//! a script replaces them with a rule targeting the probe (`argv_has = ["changelog"]`).

use crate::cli::OutputFormat;
use crate::model::help::root_usage;
use crate::session::Session;
use agy_protocol::stream::StreamEvent;
use agy_protocol::{Envelope, Status};
use serde_json::json;

/// The subcommands answered here (agy 1.2.13 `--help`, "Available subcommands").
pub const ANSWERED: &[&str] = &[
    "update",
    "changelog",
    "agent",
    "agents",
    "plugin",
    "plugins",
    "mcp",
    "help",
];

/// Answers subcommand `name` with `rest` its arguments; exit 0.
pub fn answer(s: &mut Session, name: &str, rest: &[String]) {
    let version = s.setup().version().to_string();
    match name {
        "update" => {
            s.out().stdout_line(&format!(
                "Checking for updates... (current version {version})"
            ));
            s.out()
                .stdout_line("You are already on the latest version.");
        }
        "changelog" => s.out().stdout_line(&format!(
            "Antigravity CLI {version}\n  See https://antigravity.google for the release notes."
        )),
        "agent" | "agents" => list(s, "agents", "No custom agents found."),
        "plugin" | "plugins" => match rest.first().map(String::as_str) {
            None | Some("list") => list(s, "plugins", "No plugins installed."),
            Some(other) => s
                .out()
                .stdout_line(&format!("plugin {other}: nothing to do")),
        },
        "mcp" => match rest.first().map(String::as_str) {
            None | Some("list") => s.out().stdout_line("NAME   TYPE   STATUS   COMMAND/URL"),
            Some(other) => s.out().stdout_line(&format!("mcp {other}: nothing to do")),
        },
        _ => s.out().stderr(root_usage(s.setup().version()).as_bytes()),
    }
}

/// An empty list: a sentence in text mode, the command envelope otherwise (the
/// `agents` json form dates from 1.1.12, its payload shape is unverified).
fn list(s: &mut Session, what: &str, sentence: &str) {
    if s.setup().format() == OutputFormat::Text {
        s.out().stdout_line(sentence);
        return;
    }
    let env = Envelope {
        command: Some(json!({ "name": what, "data": { what: [] } })),
        ..Envelope::empty("", Status::Success)
    };
    let line = if s.is_stream() {
        StreamEvent::Result(env).to_line()
    } else {
        env.to_line()
    };
    s.out().stdout(line.as_bytes());
}
