//! Renders an `acp` case and its oracle as a scenario file: the agent's behaviour as the
//! `[acp]` script, the ops with their expectations, `[expect.history]` and
//! `[expect.acp]`.

use crate::profile::acp::fuzz_case::{AcpCase, Late, Replay, RestoreAgy, TurnAgy};
use crate::profile::acp::fuzz_oracle::{
    acp_oracle, answer_text, late_text, partial_text, restore_late_text, AcpOpOracle, AcpOracle,
    Action, Rule, RuleAgy,
};
use crate::profile::fuzz_kit::render::{header, q, q_list, write_expect};
use crate::scenario::Profile;
use std::fmt::Write;

/// The scenario file of `c`, named `name`, with `comment` lines on top.
pub fn render_acp(
    profile: Profile,
    c: &AcpCase,
    name: &str,
    description: &str,
    comment: &[String],
) -> String {
    let o = acp_oracle(c);
    let mut out = header(profile, None, name, description, comment);
    restore_table(&mut out, "load", &c.load, Replay::Before);
    restore_table(&mut out, "resume", &c.resume, Replay::None);
    for rule in &o.rules {
        let _ = writeln!(
            out,
            "[[acp.prompt]]\nwhen  = {{ nth = {}, contains = {} }}\nsteps = [\n  {},\n]\n",
            rule.nth,
            q(rule.word),
            rule_steps(rule).join(",\n  ")
        );
    }
    for e in &o.ops {
        op(&mut out, e);
    }
    expect(&mut out, &o);
    out
}

fn late_steps(late: &[Late], text: &dyn Fn(usize) -> String, tag: &str) -> Vec<String> {
    let mut steps = Vec::new();
    for (i, l) in late.iter().enumerate() {
        match l {
            Late::Text => steps.push(format!("{{ text = {} }}", q(&text(i)))),
            Late::Permission => {
                steps.push(format!(
                    "{{ tool_call = {{ id = \"call_{tag}_{i}\", title = \"Run cleanup?\", kind = \"execute\" }} }}"
                ));
                steps.push("{ permission = true }".into());
            }
        }
    }
    steps
}

fn restore_table(out: &mut String, method: &str, r: &RestoreAgy, default: Replay) {
    let mut lines = Vec::new();
    if r.replay != default {
        let replay = match r.replay {
            Replay::Before => "before_response",
            Replay::After => "after_response",
            Replay::None => "none",
        };
        lines.push(format!("replay = \"{replay}\""));
    }
    let late = late_steps(&r.late, &|i| restore_late_text(method, i), method);
    if !late.is_empty() {
        lines.push(format!("late   = [\n  {},\n]", late.join(",\n  ")));
    }
    if r.fails {
        lines.push("error  = { code = -32002, message = \"Resource not found\" }".into());
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "[acp.{method}]\n{}\n", lines.join("\n"));
    }
}

fn rule_steps(rule: &Rule) -> Vec<String> {
    let w = rule.word;
    let mut steps = Vec::new();
    if rule.delay_ms > 0 {
        steps.push(format!("{{ sleep = \"{}ms\" }}", rule.delay_ms));
    }
    let say = |t: String| format!("{{ text = {} }}", q(&t));
    match &rule.agy {
        RuleAgy::Turn(TurnAgy::Default) => steps.push("{ default = true }".into()),
        RuleAgy::Turn(TurnAgy::Answer { late }) => {
            steps.push(say(answer_text(w)));
            steps.push("{ respond = \"end_turn\" }".into());
            steps.extend(late_steps(late, &|_| late_text(w), w));
        }
        RuleAgy::Turn(TurnAgy::Permission) => {
            steps.push(format!(
                "{{ tool_call = {{ id = \"call_{w}\", title = \"Run ls?\", kind = \"execute\" }} }}"
            ));
            steps.push("{ permission = true }".into());
            steps.push(say(answer_text(w)));
            steps.push("{ respond = \"end_turn\" }".into());
        }
        RuleAgy::Turn(TurnAgy::Crash) => {
            steps.push(say(partial_text(w)));
            steps.push("{ crash = \"kill\" }".into());
        }
        RuleAgy::WaitsForCancel => {
            steps.push(say(partial_text(w)));
            steps.push("{ wait_for_cancel = true }".into());
        }
        RuleAgy::Stalls => {
            steps.push(say(partial_text(w)));
            steps.push("{ hang = true }".into());
        }
    }
    steps
}

fn wait_for(after: usize) -> String {
    format!("wait_for_acp = {{ method = \"session/prompt\", count = {after} }}")
}

fn op(out: &mut String, e: &AcpOpOracle) {
    let line = match &e.action {
        Action::New => "acp_new = {}".to_string(),
        Action::Prompt { text, concurrent } => {
            let mut l = format!("acp_prompt = {{ text = {} }}", q(text));
            if *concurrent {
                l.push_str("\nconcurrent = true");
            }
            l
        }
        Action::Cancel { after } => format!("acp_cancel = {{}}\n{}", wait_for(*after)),
        Action::RestartAgent { after } => match after {
            Some(n) => format!("acp_restart_agent = {{}}\n{}", wait_for(*n)),
            None => "acp_restart_agent = {}".to_string(),
        },
        Action::RestartClient => "restart = {}".to_string(),
        Action::Restore => "acp_restore = {}".to_string(),
        Action::Close => "acp_close = {}".to_string(),
    };
    let _ = writeln!(out, "[[op]]\n{line}");
    let mut parts = Vec::new();
    if let Some(o) = e.outcome {
        parts.push(format!("outcome = \"{}\"", o.as_str()));
    }
    if let Some(r) = e.retryable {
        parts.push(format!("retryable = {r}"));
    }
    if let Some(t) = &e.text {
        parts.push(format!("text = {}", q(t)));
    }
    if !e.text_lacks.is_empty() {
        parts.push(format!("text_lacks = {}", q_list(&e.text_lacks)));
    }
    if let Some(s) = e.restore_state {
        parts.push(format!("restore_state = \"{s}\""));
    }
    if let Some(n) = e.history_gaps {
        parts.push(format!("history_gaps = {n}"));
    }
    write_expect(out, &parts);
}

fn expect(out: &mut String, o: &AcpOracle) {
    let _ = writeln!(
        out,
        "[expect.history]\nturns        = {}\ngaps         = {}\nanswers      = {}\nno_carryover = true\n",
        o.answers.len(),
        o.gaps,
        q_list(&o.answers)
    );
    let _ = writeln!(
        out,
        "[expect.acp]\nmethod_counts              = {{ \"session/new\" = 1 }}\nno_new_after_restore       = true\nprompts                    = {}\nprompts_sent_once          = true\nno_late_text               = true",
        q_list(&o.prompts)
    );
    if o.late_permissions_read {
        let _ = writeln!(out, "late_permissions_cancelled = true");
    }
    if o.none_left_running {
        let _ = writeln!(out, "none_left_running          = true");
    }
}

crate::profile::fuzz_case!(
    /// A generated `acp` case as `fuzz` holds it.
    Acp(AcpCase) => render_acp
);
