//! Reading a scenario file with every problem located (file:line:col and a hint), and
//! rendering a scenario back to TOML.

use super::model::{AcpWait, OpAction, OpExpect, OpSpec, Scenario, ScenarioExpect, ScenarioMeta};
use agy_protocol::acp::script::{parse_acp_script_value, render_acp_script};
use agy_protocol::diag::{
    kind, parse_toml_document, Diagnostic, Diagnostics, SourceFile, TableWalker,
};
use agy_protocol::driver::{op_doc, ops_hint, RequestOp, COMMON_OPS, OPS};
use agy_protocol::profile::AgyRun;
use agy_protocol::script::{parse_script_file, parse_script_value, render_script};
use agy_protocol::GoDuration;
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const TOP_KEYS: &[&str] = &["scenario", "agy", "acp", "op", "expect"];

/// Every op action: the common ones, then each profile's ops as driver protocol v1
/// lists them, in catalogue order.
fn actions() -> &'static [&'static str] {
    static ACTIONS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ACTIONS.get_or_init(|| {
        let ops = OPS.iter().map(|o| o.name);
        COMMON_OPS.iter().copied().chain(ops).collect()
    })
}
/// Keys an op may carry besides its action.
const OP_MODIFIERS: &[&str] = &[
    "expect",
    "concurrent",
    "reply_within",
    "wait_for_acp",
    "wait_for_agy",
];
/// Whether `action` works on a session handle (then an op that names none gets
/// [`DEFAULT_SESSION`]): its shape has a `session` it cannot leave out.
fn names_a_session(action: &str) -> bool {
    op_doc(action).is_some_and(|o| o.names_a_session())
}
/// The most ops a scenario may hold.
pub const MAX_OPS: usize = 1000;
/// The session handle used when an op names none.
pub const DEFAULT_SESSION: &str = "s1";

/// Reads and parses a scenario file.
pub fn parse_scenario_file(path: &Path) -> Result<Scenario, Diagnostics> {
    let display = path.display().to_string();
    let text =
        agy_protocol::file::read_file_bounded(path, agy_protocol::file::FILE_CAP).map_err(|e| {
            Diagnostics(vec![Diagnostic::at_line(
                display.clone(),
                1,
                1,
                format!("failed to read scenario: {e}"),
            )
            .with_hint("check the path; scenario files end in `.toml`")])
        })?;
    parse_scenario(&SourceFile::new(display, text), path)
}

/// Parses a scenario from its text; `path` is remembered for the runner.
pub fn parse_scenario(src: &SourceFile, path: &Path) -> Result<Scenario, Diagnostics> {
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(src, &mut diags) else {
        return Err(diags);
    };
    let mut root = TableWalker::new(src, doc.get_ref(), 0, "the scenario file");
    let meta: Option<ScenarioMeta> = root.required(
        "scenario",
        "start the file with `[scenario]` holding `name` and `profile`; see docs/scenario-format.md",
        &mut diags,
    );
    let script = root
        .raw("agy")
        .map(|v| parse_script_value(src, v, "`[agy]`", &mut diags));
    let acp_script = root
        .raw("acp")
        .map(|v| parse_acp_script_value(src, v, "`[acp]`", &mut diags));
    let op_values = root.elements("op", &mut diags);
    if let Some(extra) = op_values.get(MAX_OPS) {
        // A small file must not ask for unbounded work.
        diags.push(
            Diagnostic::at(src, extra.span().start, format!("more than {MAX_OPS} ops"))
                .with_hint("a scenario is one behaviour: split it into several files"),
        );
    }
    let ops: Vec<OpSpec> = op_values
        .into_iter()
        .take(MAX_OPS)
        .enumerate()
        .filter_map(|(i, v)| parse_op(src, v, i + 1, &mut diags))
        .collect();
    let expect: ScenarioExpect = root.get("expect", &mut diags).unwrap_or_default();
    root.finish(TOP_KEYS, &mut diags);
    if let Some(meta) = &meta {
        check_meta(src, &doc, meta, &ops, &expect, &mut diags);
        check_profile_tables(src, &doc, meta, &expect, &mut diags);
    }
    let mut script = script;
    let mut script_file = None;
    if let Some(name) = meta.as_ref().and_then(|m| m.script.clone()) {
        let at = scenario_key_offset(&doc, "script");
        if script.is_some() {
            diags.push(
                Diagnostic::at(src, at, "both `[agy]` and `script` give the agy script")
                    .with_hint("keep one: embed the script as `[agy]`, or name a script file"),
            );
        }
        if let Some((parsed, file)) = read_script_file(src, at, path, &name, &mut diags) {
            script = Some(parsed);
            script_file = Some(file);
        }
    }
    let scenario = meta.map(|meta| Scenario {
        path: path.to_path_buf(),
        meta,
        script,
        script_file,
        acp_script,
        ops,
        expect,
    });
    match scenario {
        Some(s) => diags.into_result(s),
        None => {
            if diags.is_empty() {
                diags.push(Diagnostic::at(src, 0, "no `[scenario]` table"));
            }
            Err(diags)
        }
    }
}

/// Reads the script file `name` of the scenario at `path` (its `script` written at
/// `at`), confined to the scenario's repository (`agy_protocol::confine`): a path
/// outside it, such as `/proc/self/environ` or a private key, is refused unread.
fn read_script_file(
    src: &SourceFile,
    at: usize,
    path: &Path,
    name: &str,
    diags: &mut Diagnostics,
) -> Option<(agy_protocol::script::Script, std::path::PathBuf)> {
    let file = path.parent().unwrap_or(Path::new(".")).join(name);
    let root = agy_protocol::confine::repository_root(path);
    if agy_protocol::confine::confined(&root, &file).is_none() {
        let message = format!(
            "script file `{name}` is outside the scenario's repository `{}`",
            root.display()
        );
        diags.push(Diagnostic::at(src, at, message).with_hint(
            "name a script inside the repository (the nearest folder above the scenario \
             holding `.git`, else the scenario's folder), relative to the scenario",
        ));
        return None;
    }
    match parse_script_file(&file, None) {
        Ok(parsed) => Some((parsed, std::fs::canonicalize(&file).unwrap_or(file))),
        Err(d) => {
            if file.is_file() {
                diags.0.extend(d.0);
            } else {
                diags.push(
                    Diagnostic::at(
                        src,
                        at,
                        format!("script file `{}` does not exist", file.display()),
                    )
                    .with_hint("the path is relative to this scenario file"),
                );
            }
            None
        }
    }
}

fn scenario_key_offset(doc: &Spanned<toml::de::DeTable<'_>>, key: &str) -> usize {
    doc.get_ref()
        .get("scenario")
        .and_then(|s| match s.get_ref() {
            DeValue::Table(t) => t.get(key).map(|v| v.span().start),
            _ => None,
        })
        .unwrap_or(0)
}

fn parse_op(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    diags: &mut Diagnostics,
) -> Option<OpSpec> {
    let what = format!("op {n}");
    let mut w = TableWalker::from_value(src, value, what.clone(), diags)?;
    let present: Vec<&str> = actions().iter().copied().filter(|a| w.has(a)).collect();
    let line = src.location(value.span().start).0;
    let expect: OpExpect = w.get("expect", diags).unwrap_or_default();
    let concurrent: bool = w.get("concurrent", diags).unwrap_or(false);
    let reply_within: Option<GoDuration> = w.get("reply_within", diags);
    let wait_for_acp: Option<AcpWait> = w.get("wait_for_acp", diags);
    let wait_for_agy: Option<u32> = w.get("wait_for_agy", diags);
    let action = match present.as_slice() {
        [one] => {
            let raw = w.raw(one);
            raw.and_then(|v| parse_action(src, one, v, &what, diags))
        }
        [] => {
            diags.push(
                Diagnostic::at(src, value.span().start, format!("{what} has no action")).with_hint(
                    format!(
                        "give exactly one of {}",
                        actions()
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            );
            None
        }
        many => {
            for a in many {
                w.raw(a);
            }
            diags.push(
                Diagnostic::at(
                    src,
                    value.span().start,
                    format!(
                        "{what} has {} actions ({}); an op has exactly one",
                        many.len(),
                        many.iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .with_hint("split it into one `[[op]]` per action"),
            );
            None
        }
    };
    let op_keys: Vec<&str> = actions().iter().chain(OP_MODIFIERS).copied().collect();
    w.finish(&op_keys, diags);
    Some(OpSpec {
        line,
        action: action?,
        concurrent,
        reply_within,
        wait_for_acp,
        wait_for_agy,
        expect,
    })
}

/// Keys each action takes (the request fields of driver protocol v1, read from the
/// op's shape).
fn action_keys(action: &str) -> Vec<&'static str> {
    op_doc(action).map_or_else(Vec::new, |o| o.fields().map(|(name, _)| name).collect())
}

/// A located error when request field `key` has the wrong kind of TOML value, said in
/// the scenario's terms ("`timeout_s` must be a number of seconds").
fn mistyped_field(src: &SourceFile, key: &str, value: &Spanned<DeValue<'_>>) -> Option<Diagnostic> {
    let v = value.get_ref();
    let (fits, wanted, example) = match key {
        "timeout_s" => (
            matches!(v, DeValue::Integer(_) | DeValue::Float(_)),
            "a number of seconds",
            "timeout_s = 300",
        ),
        "references" => (
            matches!(v, DeValue::Array(items) if items.iter().all(|i| matches!(i.get_ref(), DeValue::String(_)))),
            "a list of file paths",
            "references = [\"ref.png\"]",
        ),
        "settings" => (
            matches!(v, DeValue::Table(_)),
            "a table",
            "settings = { model = \"gemini-3-pro\" }",
        ),
        _ => (matches!(v, DeValue::String(_)), "a string", ""),
    };
    if fits {
        return None;
    }
    let hint = if example.is_empty() {
        format!("quote it: `{key} = \"…\"`")
    } else {
        format!("write it like `{example}`")
    };
    Some(
        Diagnostic::at(
            src,
            value.span().start,
            format!("`{key}` must be {wanted}, not {}", kind(v)),
        )
        .with_hint(hint),
    )
}

/// A located error when `cwd` names a folder outside the work directory (absolute, or
/// climbing out with `..`): the bridge makes the session's folder inside it.
fn folder_outside(src: &SourceFile, key: &str, text: &str, at: usize) -> Option<Diagnostic> {
    let path = std::path::Path::new(text);
    let outside = path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    (key == "cwd" && outside).then(|| {
        Diagnostic::at(
            src,
            at,
            format!("`cwd` must be a folder inside the work directory, not `{text}`"),
        )
        .with_hint("write a relative folder, e.g. `cwd = \"projects/alpha\"`")
    })
}

fn parse_action(
    src: &SourceFile,
    action: &str,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<OpAction> {
    let what = format!("`{action}` of {what}");
    let mut w = TableWalker::from_value(src, value, what.clone(), diags)?;
    let keys = action_keys(action);
    let mut map = serde_json::Map::new();
    let mut mistyped = false;
    // Where each string field's value is, to locate a value the op does not take.
    let mut strings: Vec<(String, usize)> = Vec::new();
    for key in keys.iter().copied() {
        if let Some(raw) = w.raw(key) {
            if let Some(d) = mistyped_field(src, key, raw) {
                diags.push(d);
                mistyped = true;
                continue;
            }
            if let DeValue::String(text) = raw.get_ref() {
                if let Some(d) = folder_outside(src, key, text, raw.span().start) {
                    diags.push(d);
                    mistyped = true;
                    continue;
                }
                strings.push((text.to_string(), raw.span().start));
            }
        }
        if let Some(v) = w.get::<serde_json::Value>(key, diags) {
            map.insert((*key).to_string(), v);
        }
    }
    w.finish(&keys, diags);
    if mistyped {
        return None;
    }
    if action == "restart" {
        return Some(OpAction::Restart);
    }
    if names_a_session(action) && !map.contains_key("session") {
        map.insert("session".into(), DEFAULT_SESSION.into());
    }
    map.insert("op".into(), action.into());
    match serde_json::from_value::<RequestOp>(serde_json::Value::Object(map)) {
        Ok(op) => Some(OpAction::Request(op)),
        Err(e) => {
            let message = e.to_string();
            // A closed set's value (`permission = "alow"`) is located at the value, with
            // the values the op takes.
            let at = strings
                .iter()
                .find(|(text, _)| message.contains(&format!("unknown variant `{text}`")))
                .map_or(value.span().start, |(_, at)| *at);
            let hint = agy_protocol::diag::hint_for_serde_message(&message)
                .unwrap_or_else(|| "see docs/driver-protocol.md for the fields of each op".into());
            diags.push(Diagnostic::at(src, at, format!("{message} in {what}")).with_hint(hint));
            None
        }
    }
}

fn check_meta(
    src: &SourceFile,
    doc: &Spanned<toml::de::DeTable<'_>>,
    meta: &ScenarioMeta,
    ops: &[OpSpec],
    expect: &ScenarioExpect,
    diags: &mut Diagnostics,
) {
    let at = |key: &str| -> usize {
        doc.get_ref()
            .get("scenario")
            .and_then(|s| match s.get_ref() {
                DeValue::Table(t) => t.get(key).map(|v| v.span().start),
                _ => None,
            })
            .unwrap_or(0)
    };
    if meta.name.trim().is_empty() || meta.name.chars().any(char::is_whitespace) {
        diags.push(
            Diagnostic::at(
                src,
                at("name"),
                format!("scenario name `{}` is not usable", meta.name),
            )
            .with_hint("use `profile/behaviour-in-kebab-case`, without spaces"),
        );
    }
    // Ops that are written but broken are reported on their own; this is for none at all.
    if ops.is_empty() && doc.get_ref().get("op").is_none() {
        diags.push(
            Diagnostic::at(src, at("name"), "the scenario has no `[[op]]`").with_hint(
                "add at least one op, e.g. `[[op]]` with `generate = { prompt = \"…\" }`",
            ),
        );
    }
    check_ops_profile(src, doc, meta, ops, diags);
    for inv in &expect.invocations {
        if inv.nth == 0 {
            diags.push(
                Diagnostic::at(src, 0, "`nth = 0` in `[[expect.invocation]]`")
                    .with_hint("invocations are counted from 1"),
            );
        }
    }
}

/// Each op belongs to the scenario's profile, and waits for ACP traffic only where
/// there is some.
fn check_ops_profile(
    src: &SourceFile,
    doc: &Spanned<toml::de::DeTable<'_>>,
    meta: &ScenarioMeta,
    ops: &[OpSpec],
    diags: &mut Diagnostics,
) {
    let ops_at = doc
        .get_ref()
        .get("op")
        .map(|v| match v.get_ref() {
            DeValue::Array(items) => items.iter().map(|i| i.span().start).collect(),
            _ => vec![v.span().start],
        })
        .unwrap_or_default();
    for (i, op) in ops.iter().enumerate() {
        let offset = ops_at.get(i).copied().unwrap_or(0);
        let name = op.action.name();
        if op_doc(name).is_some_and(|owner| owner.profile != meta.profile) {
            diags.push(
                Diagnostic::at(
                    src,
                    offset,
                    format!(
                        "op {} `{name}` is not part of the `{}` profile",
                        i + 1,
                        meta.profile
                    ),
                )
                .with_hint(ops_hint(meta.profile)),
            );
        }
    }
    for (i, op) in ops.iter().enumerate() {
        if op.wait_for_acp.is_some() && meta.profile.agy_run() != AgyRun::AcpServer {
            diags.push(
                Diagnostic::at(
                    src,
                    ops_at.get(i).copied().unwrap_or(0),
                    format!(
                        "op {} waits for ACP traffic in a `{}` scenario",
                        i + 1,
                        meta.profile
                    ),
                )
                .with_hint("`wait_for_acp` is for `profile = \"acp\"`"),
            );
        }
    }
}

/// `[acp]` and `[expect.acp]` belong to `acp` scenarios; `[agy]`, a script file and
/// the agy journal checks to the others.
fn check_profile_tables(
    src: &SourceFile,
    doc: &Spanned<toml::de::DeTable<'_>>,
    meta: &ScenarioMeta,
    expect: &ScenarioExpect,
    diags: &mut Diagnostics,
) {
    let top = |key: &str| doc.get_ref().get(key).map(|v| v.span().start);
    let expect_at = |key: &str| -> Option<usize> {
        doc.get_ref().get("expect").and_then(|e| match e.get_ref() {
            DeValue::Table(t) => t.get(key).map(|v| v.span().start),
            _ => None,
        })
    };
    let acp = meta.profile.agy_run() == AgyRun::AcpServer;
    if !acp {
        if let Some(at) = top("acp") {
            diags.push(
                Diagnostic::at(src, at, format!("`[acp]` in a `{}` scenario", meta.profile))
                    .with_hint(
                        "the ACP script is for `profile = \"acp\"`; agy scripts go in `[agy]`",
                    ),
            );
        }
        if expect.acp.is_some() {
            diags.push(
                Diagnostic::at(
                    src,
                    expect_at("acp").unwrap_or(0),
                    format!("`[expect.acp]` in a `{}` scenario", meta.profile),
                )
                .with_hint(
                    "ACP traffic checks are for `profile = \"acp\"`; use `[expect.journal]`",
                ),
            );
        }
        return;
    }
    if let Some(at) = top("agy") {
        diags.push(
            Diagnostic::at(src, at, "`[agy]` in an `acp` scenario").with_hint(
                "an ACP client talks to `fake-agy-acp`: put its script in `[acp]` (docs/acp-fake-agent.md §4)",
            ),
        );
    }
    if meta.script.is_some() {
        diags.push(
            Diagnostic::at(
                src,
                scenario_key_offset(doc, "script"),
                "`script` in an `acp` scenario",
            )
            .with_hint("an ACP client talks to `fake-agy-acp`: put its script in `[acp]`"),
        );
    }
    for key in ["journal", "invocation", "probes"] {
        if let Some(at) = expect_at(key) {
            diags.push(
                Diagnostic::at(src, at, format!("`[expect.{key}]` in an `acp` scenario"))
                    .with_hint(
                        "agy journal checks do not apply to ACP traffic; use `[expect.acp]`",
                    ),
            );
        }
    }
}

/// Why a scenario could not be rendered as TOML: a part of it the serialisers refuse.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A part of the scenario is not representable in TOML.
    #[error("{0}")]
    Toml(#[from] toml::ser::Error),
    /// A rendered script did not read back as a TOML table.
    #[error("{0}")]
    Reread(#[from] toml::de::Error),
    /// An op's request is not representable in JSON.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

/// Renders a scenario as TOML that [`parse_scenario`] reads back to an equal scenario
/// (op line numbers aside).
pub fn render_scenario(s: &Scenario) -> Result<String, RenderError> {
    let mut out = String::new();
    let mut meta = toml::Table::new();
    meta.insert("scenario".into(), toml::Value::try_from(&s.meta)?);
    out.push_str(&toml::to_string(&meta)?);
    if let (Some(script), None) = (&s.script, &s.script_file) {
        let text = render_script(script)?;
        let value: toml::Table = toml::from_str(&text)?;
        let mut t = toml::Table::new();
        t.insert("agy".into(), toml::Value::Table(value));
        out.push('\n');
        out.push_str(&toml::to_string(&t)?);
    }
    if let Some(script) = &s.acp_script {
        let text = render_acp_script(script)?;
        let value: toml::Table = toml::from_str(&text)?;
        let mut t = toml::Table::new();
        t.insert("acp".into(), toml::Value::Table(value));
        out.push('\n');
        out.push_str(&toml::to_string(&t)?);
    }
    let mut ops = Vec::new();
    for op in &s.ops {
        let mut t = toml::Table::new();
        let (name, fields) = match &op.action {
            OpAction::Restart => ("restart", toml::Table::new()),
            OpAction::Request(req) => {
                let mut json = serde_json::to_value(req)?;
                if let Some(obj) = json.as_object_mut() {
                    obj.remove("op");
                }
                let fields = toml::Value::try_from(json)?;
                let fields = match fields {
                    toml::Value::Table(t) => t,
                    _ => toml::Table::new(),
                };
                (req.name(), fields)
            }
        };
        t.insert(name.into(), toml::Value::Table(fields));
        if op.concurrent {
            t.insert("concurrent".into(), toml::Value::Boolean(true));
        }
        if let Some(d) = &op.reply_within {
            t.insert("reply_within".into(), toml::Value::String(d.to_string()));
        }
        if let Some(wait) = &op.wait_for_acp {
            t.insert("wait_for_acp".into(), toml::Value::try_from(wait)?);
        }
        if op.expect != OpExpect::default() {
            t.insert("expect".into(), toml::Value::try_from(&op.expect)?);
        }
        ops.push(toml::Value::Table(t));
    }
    let mut t = toml::Table::new();
    t.insert("op".into(), toml::Value::Array(ops));
    if s.expect != ScenarioExpect::default() {
        t.insert("expect".into(), toml::Value::try_from(&s.expect)?);
    }
    out.push('\n');
    out.push_str(&toml::to_string(&t)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Profile;

    #[test]
    fn the_parser_reads_each_op_as_the_driver_protocol_spells_it() {
        // The ops' own fields are pinned in agy-protocol (driver/ops.rs); here, that the
        // parser takes every documented op with those keys, and the common ones bare.
        let mut all = actions().to_vec();
        all.sort_unstable();
        let mut named: Vec<&str> = OPS.iter().map(|o| o.name).collect();
        named.extend(["hello", "shutdown", "restart"]);
        named.sort_unstable();
        assert_eq!(all, named, "the parser's actions");
        assert_eq!(action_keys("turn"), ["session", "text"]);
        assert_eq!(action_keys("tool_list"), Vec::<&str>::new());
        assert_eq!(action_keys("restart"), Vec::<&str>::new());
        assert!(names_a_session("acp_close"));
        assert!(!names_a_session("ask"), "`ask`'s session is optional");
        assert!(!names_a_session("hello"));
    }

    use crate::scenario::model::{JournalExpect, OutcomeSet};
    use agy_protocol::acp::{AcpMethod, ClientMethod};
    use agy_protocol::driver::Outcome;
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<Scenario, Diagnostics> {
        parse_scenario(&SourceFile::new("s.toml", text), Path::new("s.toml"))
    }

    const DESIGN_EXAMPLE: &str = r#"
[scenario]
name    = "oneshot/print-timeout-reported-as-success"
profile = "oneshot"
covers  = ["S6c", "ADR 0013: timeout row before missing-output row"]
agy     = "1.2.6"
tags    = ["timeout", "quirk"]

[[agy.invocation]]
steps = [
  { sleep  = "50ms" },
  { stderr = "[agy] print timeout after 1s with turn in progress; returning partial output" },
  { envelope = { status = "SUCCESS", response = "", duration_seconds = 0, usage = "zero" } },
  { exit = 0 },
]

[[op]]
generate = { prompt = "a purple hexagon", aspect = "16:9", timeout_s = 1 }
expect   = { outcome = "timeout", retryable = true }

[expect.journal]
invocations  = 1
argv_has     = ["--output-format json", "--print-timeout"]
argv_lacks   = ["--dangerously-skip-permissions", "--conversation", "--continue"]
"#;

    #[test]
    fn design_illustration_parses() {
        let s = parse(DESIGN_EXAMPLE).expect("parses");
        assert_eq!(s.meta.profile, Profile::Oneshot);
        assert_eq!(s.ops.len(), 1);
        assert_eq!(s.ops[0].line, 17);
        assert_eq!(
            s.ops[0].expect.outcome,
            Some(OutcomeSet::One(Outcome::Timeout))
        );
        assert_eq!(
            s.expect.journal.as_ref().and_then(|j| j.invocations),
            Some(1)
        );
        assert_eq!(s.script.as_ref().map(|x| x.invocations.len()), Some(1));
    }

    #[test]
    fn out_of_range_time_scales_are_located() {
        // Regression: `1e300` was accepted and overflowed every scaled timeout.
        for value in ["1e300", "nan", "inf", "-1.0", "0.0"] {
            let text = format!(
                "[scenario]\nname = \"oneshot/x\"\nprofile = \"oneshot\"\ntime_scale = {value}\n[[op]]\ngenerate = {{ prompt = \"p\" }}\n"
            );
            let err = parse(&text).expect_err(value);
            let d = err.iter().find(|d| d.message.contains("out of range"));
            let d = d.unwrap_or_else(|| panic!("{value}: {err}"));
            assert_eq!(d.line, 4, "{value}: {err}");
            assert!(d.to_string().contains("0.05"), "{value}: {err}");
        }
    }

    #[test]
    fn session_ops_get_the_default_session() {
        let s = parse(
            "[scenario]\nname = \"session/x\"\nprofile = \"session\"\n[[op]]\nopen = {}\n[[op]]\nturn = { text = \"hi\" }\n",
        )
        .expect("parses");
        assert_eq!(
            s.ops[1].action,
            OpAction::Request(RequestOp::Turn {
                session: DEFAULT_SESSION.into(),
                text: "hi".into()
            })
        );
    }

    #[test]
    fn versions_range_is_read_and_a_bad_one_is_located() {
        let head = "[scenario]\nname = \"oneshot/x\"\nprofile = \"oneshot\"\n";
        let tail = "\n[[op]]\ngenerate = { prompt = \"a\" }\n";
        let ok = parse(&format!("{head}versions = \">=1.2.16\"{tail}")).expect("parses");
        let range = ok.meta.versions.expect("versions");
        assert!(range.contains(agy_protocol::AgyVersion::new(1, 3, 1)));
        assert!(!range.contains(agy_protocol::AgyVersion::new(1, 2, 13)));
        let err = parse(&format!("{head}versions = \">=1.2\"{tail}")).expect_err("rejects");
        assert_eq!((err.0[0].line, err.0[0].column), (4, 12), "{err}");
        assert!(err.0[0].message.contains("`>=1.2`"), "{err}");
    }

    #[test]
    fn requires_is_read_and_a_misspelt_premise_is_located_with_a_guess() {
        let head = "[scenario]\nname = \"text/x\"\nprofile = \"text\"\n";
        let tail = "\n[[op]]\nask = { prompt = \"a\", timeout_s = 1 }\n";
        let ok = parse(&format!("{head}requires = [\"continuation\"]{tail}")).expect("parses");
        assert_eq!(ok.meta.requires, [agy_protocol::Premise::Continuation]);
        let err = parse(&format!("{head}requires = [\"continuaton\"]{tail}")).expect_err("typo");
        assert_eq!(err.0[0].line, 4, "{err}");
        assert!(
            err.to_string().contains("did you mean `continuation`?"),
            "{err}"
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_line_and_a_hint() {
        let err = parse(
            "[scenario]\nname = \"x\"\nprofile = \"oneshot\"\nfoo = 1\n[[op]]\ngenrate = {}\n[[op]]\ngenerate = { prompt = \"p\", aspekt = \"16:9\" }\nexpect = { outcome = \"timout\" }\n[expect.journal]\ninvocatons = 1\n",
        )
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert!(lines.contains(&4), "{err}");
        assert!(lines.contains(&5), "{err}");
        assert!(lines.contains(&8), "{err}");
        assert!(lines.contains(&9), "{err}");
        assert!(lines.contains(&10) || lines.contains(&11), "{err}");
        assert!(err.iter().all(|d| d.hint.is_some()), "{err}");
        let text = err.to_string();
        assert!(text.contains("did you mean `aspect`"), "{text}");
        assert!(text.contains("did you mean `timeout`"), "{text}");
    }

    #[test]
    fn acp_ops_parse_for_the_acp_profile() {
        let s = parse(
            "[scenario]\nname = \"acp/x\"\nprofile = \"acp\"\n[[op]]\nacp_new = { model = \"m\" }\n[[op]]\nacp_prompt = { text = \"hi\" }\n[[op]]\nacp_restart_agent = {}\n",
        )
        .expect("parses");
        assert_eq!(
            s.ops[1].action,
            OpAction::Request(RequestOp::AcpPrompt {
                session: DEFAULT_SESSION.into(),
                text: "hi".into()
            })
        );
        let err =
            parse("[scenario]\nname = \"x\"\nprofile = \"session\"\n[[op]]\nacp_status = {}\n")
                .expect_err("rejects");
        assert!(
            err.to_string()
                .contains("not part of the `session` profile"),
            "{err}"
        );
    }

    #[test]
    fn op_of_the_wrong_profile_is_rejected() {
        let err = parse(
            "[scenario]\nname = \"x\"\nprofile = \"oneshot\"\n[[op]]\nturn = { text = \"t\" }\n",
        )
        .expect_err("rejects");
        assert!(
            err.to_string()
                .contains("not part of the `oneshot` profile"),
            "{err}"
        );
        assert_eq!(err.0[0].line, 4);
    }

    #[test]
    fn bad_script_lines_point_into_the_scenario() {
        let err = parse("[scenario]\nname = \"x\"\nprofile = \"oneshot\"\n[[agy.invocation]]\nsteps = [{ slep = \"1s\" }]\n[[op]]\ngenerate = { prompt = \"p\" }\n")
            .expect_err("rejects");
        assert_eq!(err.0[0].line, 5, "{err}");
    }

    #[test]
    fn a_scenario_with_too_many_ops_is_refused_at_the_first_extra_op() {
        let ops = "[[op]]\ngenerate = { prompt = \"p\" }\n".repeat(MAX_OPS + 3);
        let err = parse(&format!(
            "[scenario]\nname = \"x/y\"\nprofile = \"oneshot\"\n{ops}"
        ))
        .expect_err("too many ops");
        let line = 4 + 2 * MAX_OPS;
        let text = err.to_string();
        assert!(
            text.contains(&format!("more than {MAX_OPS} ops"))
                && text.contains(&format!(":{line}:")),
            "{}",
            &text[..text.len().min(400)]
        );
    }

    #[test]
    fn missing_scenario_table_is_reported() {
        let err = parse("[[op]]\nhello = {}\n").expect_err("rejects");
        assert!(err.to_string().contains("missing `scenario`"), "{err}");
    }

    #[test]
    fn script_file_is_read_relative_to_the_scenario_and_its_errors_located() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("ok.toml"),
            "[[invocation]]\nsteps = [{ exit = 3 }]\n",
        )
        .expect("write");
        std::fs::write(
            dir.path().join("bad.toml"),
            "[[invocation]]\nsteps = [{ exti = 3 }]\n",
        )
        .expect("write");
        let scenario = |script: &str, extra: &str| {
            let path = dir.path().join("s.toml");
            let text = format!("[scenario]\nname = \"x/y\"\nprofile = \"oneshot\"\nscript = {script:?}\n{extra}[[op]]\ngenerate = {{ prompt = \"p\" }}\n");
            std::fs::write(&path, text).expect("write");
            parse_scenario_file(&path)
        };
        let s = scenario("ok.toml", "").expect("parses");
        assert_eq!(
            s.script_file
                .as_deref()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str()),
            Some("ok.toml")
        );
        assert_eq!(s.fake_script().map(|(_, table)| table), Some(None));
        let err = scenario("bad.toml", "").expect_err("rejects");
        assert!(
            err.0[0].path.ends_with("bad.toml") && err.0[0].line == 2,
            "{err}"
        );
        // Regression: any file could be named, and each of its lines was echoed as an
        // error (`/proc/self/environ` printed the job's environment).
        for outside in ["/proc/self/environ", "../outside.toml"] {
            let err = scenario(outside, "").expect_err("rejects");
            assert!(
                err.to_string()
                    .contains("is outside the scenario's repository"),
                "{err}"
            );
            assert!(!err.to_string().contains("PATH="), "{err}");
        }
        let err = scenario("missing.toml", "").expect_err("rejects");
        assert!(err.to_string().contains("does not exist"), "{err}");
        let err = scenario("ok.toml", "[[agy.invocation]]\nsteps = []\n").expect_err("rejects");
        assert!(
            err.to_string().contains("both `[agy]` and `script`"),
            "{err}"
        );
    }

    const ACP_SCENARIO: &str = r#"[scenario]
name = "acp/x"
profile = "acp"

[[acp.prompt]]
when = { contains = "deploy" }
steps = [{ text = "working" }, { crash = "kill" }]

[acp.load]
late = [{ text = "LATE" }, { permission = true }]

[[op]]
acp_new = {}

[[op]]
acp_prompt = { text = "deploy" }
concurrent = true

[[op]]
acp_restart_agent = {}
wait_for_acp = { method = "session/prompt" }
expect = { restore_state = "history_gap", history_gaps = 1 }

[expect.history]
gaps = 1

[expect.acp]
method_counts = { "session/new" = 1 }
no_new_after_restore = true
late_permissions_cancelled = true
no_late_text = true
"#;

    #[test]
    fn acp_scenario_with_its_script_and_expectations_parses() {
        let s = parse(ACP_SCENARIO).expect("parses");
        assert_eq!(s.acp_script.as_ref().map(|a| a.prompts.len()), Some(1));
        assert_eq!(s.acp_late_texts(), ["LATE"]);
        assert_eq!(
            s.ops[2].wait_for_acp,
            Some(AcpWait {
                method: AcpMethod::parse("session/prompt").expect("a method"),
                count: 1
            })
        );
        assert_eq!(
            s.ops[2].expect.restore_state,
            Some(agy_protocol::driver::AcpRestoreState::HistoryGap)
        );
        let acp = s.expect.acp.as_ref().expect("[expect.acp]");
        let new = ClientMethod::parse("session/new").expect("a client method");
        assert_eq!(acp.method_counts.get(&new), Some(&1));
        assert_eq!(
            s.fake_acp_script().map(|p| p.ends_with("s.toml")),
            Some(true)
        );
    }

    #[test]
    fn acp_script_errors_point_into_the_scenario() {
        let text = ACP_SCENARIO.replace("{ crash = \"kill\" }", "{ crahs = \"kill\" }");
        let err = parse(&text).expect_err("rejects");
        assert_eq!(err.0[0].line, 7, "{err}");
        assert!(err.to_string().contains("did you mean `crash`"), "{err}");
        let text = ACP_SCENARIO.replace("no_late_text", "no_lat_text");
        let err = parse(&text).expect_err("rejects");
        assert!(
            err.to_string().contains("did you mean `no_late_text`"),
            "{err}"
        );
    }

    #[test]
    fn tables_of_another_profile_are_rejected_with_their_line() {
        let err = parse(&ACP_SCENARIO.replace("profile = \"acp\"", "profile = \"session\""))
            .expect_err("rejects");
        let text = err.to_string();
        assert!(text.contains("`[acp]` in a `session` scenario"), "{text}");
        assert!(
            text.contains("`[expect.acp]` in a `session` scenario"),
            "{text}"
        );
        assert!(text.contains("waits for ACP traffic"), "{text}");
        let err = parse(
            "[scenario]\nname = \"acp/y\"\nprofile = \"acp\"\n[[agy.invocation]]\nsteps = []\n[[op]]\nacp_new = {}\n[expect.journal]\ninvocations = 1\n",
        )
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert!(lines.contains(&4) && lines.contains(&8), "{err}");
    }

    fn arb_acp_op() -> impl Strategy<Value = OpSpec> {
        let action = prop_oneof![
            "[a-z]{1,6}".prop_map(|session| RequestOp::AcpNew {
                session,
                model: None,
                mode: None,
                permission: None
            }),
            ("[a-z]{1,6}", "[a-z ]{1,12}")
                .prop_map(|(session, text)| RequestOp::AcpPrompt { session, text }),
            "[a-z]{1,6}".prop_map(|session| RequestOp::AcpCancel { session }),
            "[a-z]{1,6}".prop_map(|session| RequestOp::AcpRestore { session }),
            "[a-z]{1,6}".prop_map(|session| RequestOp::AcpRestartAgent { session }),
            "[a-z]{1,6}".prop_map(|session| RequestOp::AcpStatus { session }),
        ]
        .prop_map(OpAction::Request);
        (
            prop_oneof![action, Just(OpAction::Restart)],
            proptest::option::of((arb_method(), 1u32..4)),
            proptest::option::of(proptest::sample::select(vec![
                agy_protocol::driver::AcpRestoreState::Ready,
                agy_protocol::driver::AcpRestoreState::Restored,
                agy_protocol::driver::AcpRestoreState::HistoryGap,
            ])),
            proptest::option::of(0u32..3),
        )
            .prop_map(|(action, wait, restore_state, history_gaps)| OpSpec {
                line: 0,
                action,
                concurrent: false,
                reply_within: None,
                wait_for_acp: wait.map(|(method, count)| AcpWait { method, count }),
                wait_for_agy: None,
                expect: OpExpect {
                    restore_state,
                    history_gaps,
                    ..OpExpect::default()
                },
            })
    }

    /// A method ACP defines, or an extension method.
    fn arb_method() -> impl Strategy<Value = AcpMethod> {
        prop_oneof![
            proptest::sample::select(AcpMethod::defined().to_vec())
                .prop_map(|m| AcpMethod::parse(m).expect("a defined method")),
            "_[a-z/]{1,12}".prop_map(AcpMethod::Extension),
        ]
    }

    /// A method the client calls, or an extension method.
    fn arb_client_method() -> impl Strategy<Value = ClientMethod> {
        arb_method().prop_filter_map("a method only the agent sends", |m| {
            ClientMethod::parse(m.as_str())
        })
    }

    fn arb_acp_expect() -> impl Strategy<Value = crate::scenario::AcpExpect> {
        (
            proptest::option::of(0u32..4),
            proptest::collection::vec(arb_client_method(), 0..4),
            proptest::collection::btree_map(arb_client_method(), 0u32..4, 0..3),
            proptest::option::of(any::<bool>()),
            proptest::option::of(proptest::collection::vec("[a-z ]{0,8}", 0..3)),
            proptest::option::of(any::<bool>()),
        )
            .prop_map(
                |(agents, methods_in_order, method_counts, flag, prompts, late)| {
                    crate::scenario::AcpExpect {
                        agents,
                        methods_in_order,
                        method_counts,
                        no_new_after_restore: flag,
                        prompts,
                        no_late_text: late,
                        late_permissions_cancelled: flag,
                        gap_when_pending: late,
                        ..crate::scenario::AcpExpect::default()
                    }
                },
            )
    }

    fn arb_outcome() -> impl Strategy<Value = Outcome> {
        proptest::sample::select(Outcome::ALL.to_vec())
    }

    fn arb_op() -> impl Strategy<Value = OpSpec> {
        let action = prop_oneof![
            (
                "[a-z ]{1,12}",
                proptest::option::of(Just("16:9".to_string())),
                proptest::option::of(1u32..100)
            )
                .prop_map(|(prompt, aspect, t)| OpAction::Request(
                    RequestOp::Generate {
                        prompt,
                        aspect,
                        timeout_s: t.map(f64::from),
                        references: Vec::new(),
                        settings: serde_json::Map::new(),
                    }
                )),
            Just(OpAction::Restart),
        ];
        (
            action,
            proptest::option::of(arb_outcome()),
            proptest::option::of(any::<bool>()),
            any::<bool>(),
        )
            .prop_map(|(action, outcome, retryable, concurrent)| OpSpec {
                line: 0,
                action,
                concurrent,
                reply_within: None,
                wait_for_acp: None,
                wait_for_agy: None,
                expect: OpExpect {
                    outcome: outcome.map(OutcomeSet::One),
                    retryable,
                    ..OpExpect::default()
                },
            })
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }

        #[test]
        fn mutated_acp_scenarios_never_panic(at in 0usize..1200, junk in "\\PC{0,6}") {
            let mut text = ACP_SCENARIO.to_string();
            let at = text.char_indices().map(|(i, _)| i).nth(at % ACP_SCENARIO.chars().count()).unwrap_or(0);
            text.insert_str(at, &junk);
            let _ = parse(&text);
        }

        #[test]
        fn rendered_acp_scenarios_parse_back_equal(
            ops in proptest::collection::vec(arb_acp_op(), 1..5),
            acp in proptest::option::of(arb_acp_expect()),
            gaps in proptest::option::of(0u32..3),
            late in proptest::collection::vec("[A-Z][A-Z ]{0,9}", 0..3),
        ) {
            use agy_protocol::acp::script::{AcpScript, AcpStep, RestoreSpec};
            let s = Scenario {
                path: "s.toml".into(),
                meta: ScenarioMeta {
                    name: "acp/x".into(), profile: Profile::Acp, covers: Vec::new(), agy: None, versions: None, tags: Vec::new(),
                    description: None, catches: vec!["acp-resends-last-prompt".into()], time_scale: None, timeout: None, agy_installed: None, unverified: None, script: None, requires: Vec::new(),
                },
                script: None,
                script_file: None,
                acp_script: Some(AcpScript {
                    load: RestoreSpec { late: late.iter().cloned().map(AcpStep::Text).collect(), ..RestoreSpec::default() },
                    ..AcpScript::default()
                }),
                ops,
                expect: ScenarioExpect {
                    acp,
                    history: gaps.map(|g| crate::scenario::HistoryExpect { gaps: Some(g), ..Default::default() }),
                    ..ScenarioExpect::default()
                },
            };
            let text = render_scenario(&s).expect("renders");
            let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(&back.meta, &s.meta);
            prop_assert_eq!(&back.expect, &s.expect);
            prop_assert_eq!(&back.acp_script, &s.acp_script);
            prop_assert_eq!(back.acp_late_texts(), late);
            let strip = |ops: &[OpSpec]| ops.iter().map(|o| OpSpec { line: 0, ..o.clone() }).collect::<Vec<_>>();
            prop_assert_eq!(strip(&back.ops), strip(&s.ops));
        }

        #[test]
        fn toml_shaped_text_never_panics(lines in proptest::collection::vec(prop_oneof![
            Just("[scenario]".to_string()),
            Just("[[op]]".to_string()),
            Just("[expect.journal]".to_string()),
            Just("[[agy.invocation]]".to_string()),
            "[a-z_]{1,10} = \"[a-z0-9 /]{0,8}\"",
            "[a-z_]{1,10} = \\{ [a-z_]{1,8} = [0-9]{1,3} \\}",
        ], 0..10)) {
            let _ = parse(&lines.join("\n"));
        }

        #[test]
        fn rendered_scenarios_parse_back_equal(
            name in "[a-z]{1,8}/[a-z-]{1,12}",
            tags in proptest::collection::vec("[a-z]{1,6}", 0..3),
            ops in proptest::collection::vec(arb_op(), 1..5),
            invocations in proptest::option::of(0u32..5),
        ) {
            let s = Scenario {
                path: "s.toml".into(),
                meta: ScenarioMeta {
                    name, profile: Profile::Oneshot, covers: Vec::new(), agy: None, versions: None, tags,
                    description: None, catches: Vec::new(), time_scale: None, timeout: None, agy_installed: None, unverified: None, script: None, requires: Vec::new(),
                },
                script: None,
                script_file: None,
                acp_script: None,
                ops,
                expect: ScenarioExpect {
                    journal: invocations.map(|n| JournalExpect { invocations: Some(n), ..JournalExpect::default() }),
                    ..ScenarioExpect::default()
                },
            };
            let text = render_scenario(&s).expect("renders");
            let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(&back.meta, &s.meta);
            prop_assert_eq!(&back.expect, &s.expect);
            let strip = |ops: &[OpSpec]| ops.iter().map(|o| OpSpec { line: 0, ..o.clone() }).collect::<Vec<_>>();
            prop_assert_eq!(strip(&back.ops), strip(&s.ops));
        }
    }
}
