//! Comparing two shapes: every difference says which part, what was expected (the
//! capture) and what was observed (fake-agy).

use super::shape::{Shape, StdoutShape};
use serde::Serialize;
use std::collections::BTreeSet;

/// One way the observed shape differs from the capture's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// Stable name of what differs, used by the baseline: `exit`, `sequence`, `stderr`,
    /// `log`, `keys <kind>`, `types <kind>.<key>`, `values <kind>.<key>`.
    pub what: String,
    /// In the capture.
    pub expected: String,
    /// In fake-agy's output.
    pub observed: String,
}

/// Every difference between `expected` (the capture) and `observed`; parts the capture
/// did not record are not compared.
pub fn compare_shapes(expected: &Shape, observed: &Shape) -> Vec<Difference> {
    let mut out = Vec::new();
    if let Some(code) = expected.exit {
        if observed.exit != Some(code) {
            out.push(diff("exit", code.to_string(), show_exit(observed.exit)));
        }
    }
    if let Some(exp) = &expected.stdout {
        let obs = observed.stdout.clone().unwrap_or_default();
        compare_stdout(exp, &obs, &mut out);
    }
    if let Some(exp) = &expected.stderr {
        let obs = observed.stderr.clone().unwrap_or_default();
        let cut = expected.stderr_cut;
        if (cut && !starts_like(exp, &obs)) || (!cut && *exp != obs) {
            out.push(diff("stderr", lines(exp), lines(&obs)));
        }
    }
    if let Some(exp) = &expected.log {
        let obs = observed.log.clone().unwrap_or_default();
        if *exp != obs {
            out.push(diff("log", lines(exp), lines(&obs)));
        }
    }
    out
}

fn compare_stdout(exp: &StdoutShape, obs: &StdoutShape, out: &mut Vec<Difference>) {
    if exp.elided.contains(KEPT_LINES) {
        // Some lines of the run were kept: they must show, in order, among fake-agy's.
        if !in_order(&exp.sequence, &obs.sequence) {
            out.push(diff(
                "sequence",
                format!("(kept lines, in order) {}", list(&exp.sequence)),
                list(&obs.sequence),
            ));
        }
    } else if exp.sequence != obs.sequence {
        out.push(diff("sequence", list(&exp.sequence), list(&obs.sequence)));
    }
    let kept = exp.elided.contains(KEPT_LINES);
    for (kind, keys) in &exp.keys {
        let Some(seen) = obs.keys.get(kind) else {
            continue; // a kind fake-agy never printed shows in the sequence
        };
        // Of a run whose publisher kept some lines, each kept object's keys must be
        // among fake-agy's; otherwise the objects' key lists are the same.
        if (kept && !keys.is_subset(seen)) || (!kept && keys != seen) {
            out.push(diff(
                &format!("keys {kind}"),
                key_lists(keys),
                key_lists(seen),
            ));
        }
    }
    for (at, types) in &exp.types {
        let Some(seen) = obs.types.get(at) else {
            continue; // the key's absence shows in `keys`
        };
        if (kept && !types.is_subset(seen)) || (!kept && types != seen) {
            out.push(diff(&format!("types {at}"), set(types), set(seen)));
        }
    }
    for (at, values) in &exp.values {
        let Some(seen) = obs.values.get(at) else {
            continue;
        };
        if values == seen {
            continue;
        }
        if exp.elided.contains(at) {
            // A trimmed list: the names still listed (not the publisher's `…` note)
            // must be among fake-agy's.
            let missing: Vec<&String> = values
                .iter()
                .filter(|v| !v.starts_with('…') && !seen.contains(*v))
                .collect();
            if !missing.is_empty() {
                out.push(diff(
                    &format!("values {at}"),
                    format!("(trimmed) fake-agy lacks {}", names(&missing)),
                    format!("{} values", seen.len()),
                ));
            }
            continue;
        }
        if at.ends_with(".tools") {
            let missing: Vec<&String> = values.difference(seen).collect();
            let extra: Vec<&String> = seen.difference(values).collect();
            out.push(diff(
                &format!("values {at}"),
                format!("{} tools; fake-agy lacks {}", values.len(), names(&missing)),
                format!("{} tools; capture lacks {}", seen.len(), names(&extra)),
            ));
        } else {
            out.push(diff(&format!("values {at}"), set(values), set(seen)));
        }
    }
}

/// The corpus `elided` entry for a stdout of which only some lines were kept.
pub const KEPT_LINES: &str = "stdout";

/// True when `kept` appears in `all` in the same order (other labels between).
fn in_order(kept: &[String], all: &[String]) -> bool {
    let mut rest = all.iter();
    kept.iter().all(|k| rest.any(|a| a == k))
}

/// True when the kept start of stderr (`kept`, cut inside its last line) is how
/// `all` starts.
fn starts_like(kept: &[String], all: &[String]) -> bool {
    let Some((last, whole)) = kept.split_last() else {
        return true;
    };
    all.len() >= kept.len()
        && all[..whole.len()] == *whole
        && all[whole.len()].starts_with(last.as_str())
}

fn diff(what: &str, expected: String, observed: String) -> Difference {
    Difference {
        what: what.to_string(),
        expected,
        observed,
    }
}

fn show_exit(code: Option<i32>) -> String {
    code.map(|c| c.to_string())
        .unwrap_or_else(|| "no exit code (killed or timed out)".into())
}

fn list(items: &[String]) -> String {
    format!("[{}]", items.join(", "))
}

fn key_lists(lists: &BTreeSet<Vec<String>>) -> String {
    lists.iter().map(|l| list(l)).collect::<Vec<_>>().join(" ")
}

fn set(items: &BTreeSet<String>) -> String {
    format!(
        "{{{}}}",
        items.iter().cloned().collect::<Vec<_>>().join(", ")
    )
}

fn names(items: &[&String]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn lines(items: &[String]) -> String {
    if items.is_empty() {
        return "(nothing)".into();
    }
    items.join(" ⏎ ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fidelity::shape::{stdout_shape, TextLines};

    fn shape(stdout: &str, exit: i32) -> Shape {
        Shape {
            exit: Some(exit),
            stdout: Some(stdout_shape(stdout.as_bytes(), TextLines::Model)),
            stderr: None,
            stderr_cut: false,
            log: None,
        }
    }

    #[test]
    fn same_shape_with_other_text_ids_and_counts_has_no_difference() {
        let a = shape(
            r#"{"conversation_id":"a","status":"SUCCESS","response":"PONG","duration_seconds":1.5,"num_turns":1}"#,
            0,
        );
        let b = shape(
            r#"{"conversation_id":"b","status":"SUCCESS","response":"hello","duration_seconds":0.2,"num_turns":1}"#,
            0,
        );
        assert_eq!(compare_shapes(&a, &b), vec![]);
    }

    #[test]
    fn a_missing_key_a_status_and_an_exit_code_are_each_named() {
        let a = shape(
            r#"{"conversation_id":"a","status":"ERROR","response":"","error":"x","num_turns":0}"#,
            1,
        );
        let b = shape(
            r#"{"conversation_id":"a","status":"SUCCESS","response":"","num_turns":0}"#,
            0,
        );
        let whats: Vec<String> = compare_shapes(&a, &b).into_iter().map(|d| d.what).collect();
        assert_eq!(
            whats,
            vec![
                "exit",
                "sequence",
                "keys envelope",
                "values envelope.status"
            ]
        );
    }

    #[test]
    fn a_trimmed_list_is_compared_by_the_names_it_still_holds() {
        let init = |tools: &str| {
            format!(
                r#"{{"event":"init","conversation_id":"c","init":{{"cwd":"/w","tools":{tools},"permission_mode":"strict"}}}}"#
            )
        };
        let mut a = shape(&init(r#"["run_command","… 57 tools"]"#), 0);
        if let Some(s) = a.stdout.as_mut() {
            s.elided.insert("init.tools".into());
        }
        let b = shape(&init(r#"["view_file","run_command"]"#), 0);
        assert_eq!(compare_shapes(&a, &b), vec![]);
        let c = shape(&init(r#"["view_file"]"#), 0);
        let whats: Vec<String> = compare_shapes(&a, &c).into_iter().map(|d| d.what).collect();
        assert_eq!(whats, vec!["values init.tools"]);
    }

    #[test]
    fn parts_the_capture_did_not_record_are_not_compared() {
        let a = Shape::default();
        let b = shape("anything", 3);
        assert!(compare_shapes(&a, &b).is_empty());
    }

    #[test]
    fn kept_lines_must_show_in_order_among_the_observed() {
        let result = r#"{"event":"result","result":{"status":"ERROR"}}"#;
        let init = r#"{"event":"init","init":{}}"#;
        let mut kept = shape(result, 1);
        if let Some(s) = kept.stdout.as_mut() {
            s.elided.insert(KEPT_LINES.into());
        }
        let whole = shape(&format!("{init}\n{result}"), 1);
        assert_eq!(compare_shapes(&kept, &whole), vec![]);
        // Without the note the missing init is a difference; a missing kept line is one
        // either way.
        assert_eq!(compare_shapes(&shape(result, 1), &whole).len(), 1);
        let whats: Vec<String> = compare_shapes(&kept, &shape(init, 1))
            .into_iter()
            .map(|d| d.what)
            .collect();
        assert_eq!(whats, vec!["sequence"]);
    }

    #[test]
    fn a_cut_stderr_is_compared_as_the_start_of_the_observed() {
        let lines = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cut = Shape {
            stderr: Some(lines(&[
                "Usage of agy:",
                "  --add-dir  Add a dir",
                "  --pro",
            ])),
            stderr_cut: true,
            ..Shape::default()
        };
        let full = Shape {
            stderr: Some(lines(&[
                "Usage of agy:",
                "  --add-dir  Add a dir",
                "  --prompt  x",
                "more",
            ])),
            ..Shape::default()
        };
        assert_eq!(compare_shapes(&cut, &full), vec![]);
        let other = Shape {
            stderr: Some(lines(&[
                "Usage of agy:",
                "  --add-dir  Add a dir",
                "  --model  x",
            ])),
            ..Shape::default()
        };
        assert_eq!(compare_shapes(&cut, &other).len(), 1);
    }
}
