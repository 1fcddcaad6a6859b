//! A reproduction as a scenario file: metadata, the `[agy]` script (each step with the
//! report line it came from), the ops a user of the profile sends, and the oracle's
//! expectations with their reasons as comments.

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
    let _ = writeln!(out, "# Written by `agy-harness repro` from {}.", p.source);
    let _ = writeln!(out, "# profile {}: {}", case.profile, p.profile_reason);
    for n in p.notes.iter().chain(&p.header) {
        let _ = writeln!(out, "# {n}");
    }
    meta(&mut out, case, plan, stem, p);
    match unit(case.profile).agy() {
        AgyRun::PrintPerRequest => {
            for proc in &case.processes {
                let _ = writeln!(out, "# {}\n[[agy.invocation]]", proc.origin);
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
                        proc.origin,
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
            let _ = writeln!(out, "# {w}");
        }
        let _ = writeln!(out, "[[op]]\n{}", op.action);
        if let Some(r) = &op.reply_within {
            let _ = writeln!(out, "reply_within = {}", quote(r));
        }
        if let Ok(v) = toml::Value::try_from(&op.expect) {
            if v.as_table().is_some_and(|t| !t.is_empty()) {
                let _ = writeln!(out, "expect = {v}");
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
            let _ = writeln!(out, "{k} = {v}");
        }
    }
    history(out, plan);
}

fn history(out: &mut String, plan: &Plan) {
    if let Some(h) = &plan.history {
        if let Ok(toml::Value::Table(t)) = toml::Value::try_from(h) {
            let _ = writeln!(out, "\n# Each turn once in the adapter's history, none carrying another's text.\n[expect.history]");
            for (k, v) in &t {
                let _ = writeln!(out, "{k} = {v}");
            }
        }
    }
}
