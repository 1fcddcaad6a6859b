//! A reproduction as a scenario file: metadata, the `[agy]` script (each step with the
//! report line it came from), the ops a user of the profile sends, and the oracle's
//! expectations with their reasons as comments.

use crate::data_text::{comment, toml_inline, toml_key};
use crate::profile::repro_kit::case::{write_steps, ReproCase, Turn};
use crate::profile::repro_kit::plan::{quote, Plan};
use crate::profile::{unit, AgyRun};
use crate::scenario::Profile;
use std::fmt::Write;

/// Where the scenario comes from, for its header.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    /// The report (file name, `-`, folder).
    pub source: String,
    /// How the profile was chosen.
    pub profile_reason: String,
    /// Conversions and assumptions.
    pub notes: Vec<String>,
    /// Extra header lines (what the minimiser removed).
    pub header: Vec<String>,
    /// `[scenario] timeout`, for minimiser candidates.
    pub timeout: Option<std::time::Duration>,
}

/// The scenario text of `case`, named `<profile>/<stem>`.
pub fn render(case: &ReproCase, plan: &Plan, stem: &str, p: &Provenance) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Written by `agy-harness repro` from {}.",
        comment(&p.source)
    );
    let _ = writeln!(
        out,
        "# profile {}: {}",
        case.profile,
        comment(&p.profile_reason)
    );
    for n in p.notes.iter().chain(&p.header) {
        let _ = writeln!(out, "# {}", comment(n));
    }
    meta(&mut out, case, plan, stem, p);
    match unit(case.profile).agy() {
        AgyRun::PrintPerRequest => {
            for proc in &case.processes {
                let _ = writeln!(out, "# {}\n[[agy.invocation]]", comment(&proc.origin));
                for t in &proc.turns {
                    steps(&mut out, t);
                }
            }
        }
        AgyRun::AcpServer => crate::repro::acp_render::acp_script(&mut out, case),
        AgyRun::StreamJsonSession => {
            for proc in &case.processes {
                for (k, t) in proc.turns.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "# {} turn {}\n[[agy.turn]]\nwhen  = {{ content_contains = {} }}",
                        comment(&proc.origin),
                        k + 1,
                        quote(&t.text)
                    );
                    steps(&mut out, t);
                }
            }
        }
    }
    ops(&mut out, plan);
    expectations(&mut out, plan, case.profile);
    out
}

fn meta(out: &mut String, case: &ReproCase, plan: &Plan, stem: &str, p: &Provenance) {
    let _ = writeln!(
        out,
        "\n[scenario]\nname        = {}\nprofile     = \"{}\"",
        quote(&format!("{}/{stem}", case.profile)),
        case.profile
    );
    let contract = unit(case.profile).covers;
    let _ = writeln!(
        out,
        "covers      = [{}, {}]",
        quote(&format!("bug report: {}", p.source)),
        quote(contract)
    );
    if let Some(v) = &case.version {
        let _ = writeln!(out, "agy         = \"{v}\"");
    }
    let _ = writeln!(out, "tags        = [\"repro\"]");
    if let Some(t) = p.timeout {
        let _ = writeln!(out, "timeout     = \"{}ms\"", t.as_millis());
    }
    let _ = writeln!(out, "description = {}\n", quote(&plan.summary));
}

fn steps(out: &mut String, t: &Turn) {
    write_steps(out, "steps", &t.steps);
    let _ = writeln!(out);
}

fn ops(out: &mut String, plan: &Plan) {
    for op in &plan.ops {
        for w in &op.why {
            let _ = writeln!(out, "# {}", comment(w));
        }
        let _ = writeln!(out, "[[op]]\n{}", op.action);
        if let Some(r) = &op.reply_within {
            let _ = writeln!(out, "reply_within = {}", quote(r));
        }
        if let Ok(v) = toml::Value::try_from(&op.expect) {
            if v.as_table().is_some_and(|t| !t.is_empty()) {
                let _ = writeln!(out, "expect = {}", toml_inline(&v));
            }
        }
        let _ = writeln!(out);
    }
}

fn expectations(out: &mut String, plan: &Plan, profile: Profile) {
    if !unit(profile).judged_by_agy_journal() {
        // acp scenarios have no agy journal: `[expect.acp]` judges the ACP traffic.
        history(out, plan);
        if let Some(acp) = &plan.acp {
            crate::repro::acp_render::acp_expectations(out, acp);
        }
        return;
    }
    if let Ok(toml::Value::Table(t)) = toml::Value::try_from(&plan.journal) {
        let _ = writeln!(out, "# Every agy process ends with the scenario; the count is the contract's (one process per request, or per session while turns succeed).\n[expect.journal]");
        for (k, v) in &t {
            let _ = writeln!(out, "{} = {}", toml_key(k), toml_inline(v));
        }
    }
    history(out, plan);
}

fn history(out: &mut String, plan: &Plan) {
    if let Some(h) = &plan.history {
        if let Ok(toml::Value::Table(t)) = toml::Value::try_from(h) {
            let _ = writeln!(out, "\n# Each turn once in the adapter's history, none carrying another's text.\n[expect.history]");
            for (k, v) in &t {
                let _ = writeln!(out, "{} = {}", toml_key(k), toml_inline(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::repro_kit::evidence::{Evidence, Invocation, Item, ItemKind};
    use crate::repro::build::{build_case, CaseOptions};
    use agy_protocol::diag::SourceFile;
    use proptest::prelude::*;

    fn argv(words: &[&str]) -> Option<Vec<String>> {
        Some(words.iter().map(|w| w.to_string()).collect())
    }

    /// The scenario `repro` writes for a recorded run whose probe argv, prompt, stderr
    /// line and source name are all `text`, with the number of ops its plan has; `None`
    /// when the run shows no turn (a prompt like `/help` is a slash command).
    fn scenario_of(text: &str) -> Option<(String, usize)> {
        let turn = Invocation {
            argv: argv(&["agy", "-p", text, "--output-format", "json"]),
            items: vec![Item {
                line: 2,
                delay_ms: None,
                kind: ItemKind::Stderr(text.to_string()),
            }],
            exit: Some(1),
            ..Invocation::default()
        };
        let probe = Invocation {
            argv: argv(&["agy", "--version", text]),
            ..Invocation::default()
        };
        let e = Evidence {
            source: text.to_string(),
            version: None,
            invocations: vec![probe, turn],
        };
        let built = build_case(&e, &CaseOptions::default()).ok()?;
        let plan = crate::repro::plan::plan(&built.case);
        let p = Provenance {
            source: text.to_string(),
            profile_reason: built.profile_reason.clone(),
            notes: built.notes.clone(),
            ..Provenance::default()
        };
        Some((render(&built.case, &plan, "x", &p), plan.ops.len()))
    }

    /// The `stderr` step of the invocations, read back (a probe whose argv does not
    /// parse as agy's is taken for a turn, so it need not be the first).
    fn stderr_step(doc: &toml::Table) -> Option<String> {
        let invocations = doc.get("agy")?.get("invocation")?.as_array()?;
        invocations.iter().find_map(|i| {
            i.get("steps")?
                .as_array()?
                .iter()
                .find_map(|s| s.get("stderr").and_then(|v| v.as_str()).map(str::to_string))
        })
    }

    /// A recorded trace's argv with a line break once wrote an extra `[[op]]` into the
    /// regression scenario (the probe's argv went into a comment raw).
    #[test]
    fn a_line_break_in_a_recorded_argv_stays_inside_its_comment() {
        let injected = "v\n[[op]]\naction = \"generate\"\nprompt = \"injected\"";
        let (out, ops) = scenario_of(injected).expect("a oneshot case");
        let tables = out.lines().filter(|l| l.trim() == "[[op]]").count();
        assert_eq!(tables, ops, "{out}");
        assert!(out.contains("\\n[[op]]\\naction"), "{out}");
        let doc: toml::Table = toml::from_str(&out).expect("the scenario reads back");
        assert_eq!(stderr_step(&doc).as_deref(), Some(injected));
    }

    fn hostile_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[a-z \\n\\r\\t\\[\\]=\"'#\\\\\u{202e}\u{200b}\u{2028}]{0,40}",
        ]
    }

    proptest! {
        /// Whatever text a trace carries, the scenario written from it reads back with
        /// the ops the plan has (none injected) and the text unchanged in its step.
        #[test]
        fn recorded_text_in_a_generated_scenario_reads_back_as_data(text in hostile_text()) {
            let Some((out, ops)) = scenario_of(&text) else {
                return Ok(());
            };
            let doc: toml::Table = toml::from_str(&out)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
            let written = doc.get("op").and_then(|o| o.as_array()).map_or(0, Vec::len);
            prop_assert_eq!(written, ops, "{}", out);
            prop_assert_eq!(stderr_step(&doc), Some(text.clone()));
            prop_assert!(!out.chars().any(|c| c != '\n' && crate::data_text::is_invisible(c)), "{}", out);
            let parsed = crate::scenario::parse_scenario(
                &SourceFile::new("x.toml", out.clone()),
                std::path::Path::new("x.toml"),
            );
            if let Ok(s) = parsed {
                prop_assert_eq!(s.ops.len(), ops);
            }
        }
    }
}
