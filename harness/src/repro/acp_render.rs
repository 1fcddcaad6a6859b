//! The `[acp]` script and `[expect.acp]` of an ACP reproduction: one `[[acp.prompt]]`
//! rule per turn (matched by its text, longest first so a text inside another does not
//! take its rule; by its place in the agent process too when a text repeats), and the
//! restore the transcript shows as `[acp.load]` / `[acp.resume]`. The error and the
//! late output go into both: they are the agent's, whichever method the client under
//! test chooses; the replay's place stays with the method it was seen on.

use crate::data_text::{comment, toml_inline, toml_key};
use crate::profile::repro_kit::case::{write_steps, ReproCase, Restore, Turn};
use crate::profile::repro_kit::plan::quote;
use crate::scenario::AcpExpect;
use std::fmt::Write;

/// Writes the `[acp]` tables of `case`.
pub fn acp_script(out: &mut String, case: &ReproCase) {
    let mut rules: Vec<(String, usize, &Turn)> = Vec::new();
    for p in &case.processes {
        for (k, t) in p.turns.iter().enumerate() {
            rules.push((format!("{} turn {}", p.origin, k + 1), k + 1, t));
        }
    }
    let repeats = |text: &str| rules.iter().filter(|(_, _, t)| t.text == text).count() > 1;
    let mut order: Vec<usize> = (0..rules.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(rules[i].2.text.chars().count()));
    for i in order {
        let (origin, nth, turn) = &rules[i];
        let nth = if repeats(&turn.text) {
            format!("nth = {nth}, ")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "# {}\n[[acp.prompt]]\nwhen  = {{ {nth}contains = {} }}",
            comment(origin),
            quote(&turn.text)
        );
        write_steps(out, "steps", &turn.steps);
        let _ = writeln!(out);
    }
    let restores: Vec<&Restore> = case
        .processes
        .iter()
        .filter_map(|p| p.restore.as_ref())
        .collect();
    if let Some(r) = restores.first() {
        for method in ["session/load", "session/resume"] {
            restore_table(out, r, method);
        }
    }
}

fn restore_table(out: &mut String, r: &Restore, method: &str) {
    let table = method.trim_start_matches("session/");
    let seen = if r.method == method {
        String::new()
    } else {
        format!(", the same for `{}`", comment(method))
    };
    let _ = writeln!(
        out,
        "# the agent's answer to `{}` (line {}){seen}\n[acp.{table}]",
        comment(&r.method),
        r.line
    );
    if r.method == method {
        let _ = writeln!(out, "replay = {}", quote(&r.replay));
    }
    if let Some((code, message)) = &r.error {
        let _ = writeln!(
            out,
            "error  = {{ code = {code}, message = {} }}",
            quote(message)
        );
    }
    if !r.late.is_empty() {
        write_steps(out, "late", &r.late);
    }
    let _ = writeln!(out);
}

/// Writes `[expect.acp]`.
pub fn acp_expectations(out: &mut String, acp: &AcpExpect) {
    let _ = writeln!(out, "\n# The restore contract on the ACP traffic fake-agy-acp journaled (docs/acp-profile.md).\n[expect.acp]");
    if !acp.method_counts.is_empty() {
        let counts: Vec<String> = acp
            .method_counts
            .iter()
            .map(|(m, n)| format!("{} = {n}", quote(m.as_str())))
            .collect();
        let _ = writeln!(out, "method_counts = {{ {} }}", counts.join(", "));
    }
    let mut rest = acp.clone();
    rest.method_counts.clear();
    if let Ok(toml::Value::Table(t)) = toml::Value::try_from(&rest) {
        for (k, v) in &t {
            let _ = writeln!(out, "{} = {}", toml_key(k), toml_inline(v));
        }
    }
}
