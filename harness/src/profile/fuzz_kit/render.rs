//! Renders a case and its oracle as a scenario file (the catalogue's TOML), so the
//! existing runner runs it and `agy-harness check` accepts it.

use crate::profile::fuzz_kit::case::{Case, OneshotAgy, OneshotCase, SessionCase, TurnAgy};
use crate::profile::fuzz_kit::oracle::{
    answer, late_text, late_usage, oracle, turn_usage, OpOracle, Oracle, TURN_WORDS,
};
use crate::scenario::Profile;
use agy_protocol::AgyVersion;
use std::fmt::Write;

/// A string as a TOML basic string.
pub fn q(s: &str) -> String {
    crate::data_text::toml_string(s)
}

/// Strings as a TOML array of basic strings.
pub fn q_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items.iter().map(|s| q(s.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

/// The `[scenario]` table of a generated case, with `comment` lines on top.
pub fn header(
    profile: Profile,
    agy: Option<&str>,
    name: &str,
    description: &str,
    comment: &[String],
) -> String {
    let mut out = String::new();
    for line in comment {
        let _ = writeln!(out, "# {}", crate::data_text::comment(line));
    }
    let _ = writeln!(
        out,
        "[scenario]\nname        = {}\nprofile     = \"{profile}\"",
        q(name)
    );
    if let Some(version) = agy {
        let _ = writeln!(out, "agy         = \"{version}\"");
    }
    let _ = writeln!(out, "tags        = [\"fuzz\"]");
    let _ = writeln!(out, "description = {}\n", q(description));
    out
}

/// An op's `expect = { … }` line (none without parts) and the blank line after the op.
pub fn write_expect(out: &mut String, parts: &[String]) {
    if !parts.is_empty() {
        let _ = writeln!(out, "expect = {{ {} }}", parts.join(", "));
    }
    let _ = writeln!(out);
}

/// The agy version generated cases model: fake-agy's default.
const DEFAULT_AGY: AgyVersion = AgyVersion::DEFAULT;
/// The first version whose image-generator subagent saves the image in its own brain
/// folder (docs/agy-versions.md, ImageSubagent), one of the modelled versions.
const SUBAGENT_AGY: AgyVersion = AgyVersion::new(1, 2, 16);

/// The agy version `case` needs: the subagent's image needs [`SUBAGENT_AGY`], the rest
/// is [`DEFAULT_AGY`].
fn agy_version(case: &Case) -> AgyVersion {
    match case {
        Case::Oneshot(c) if c.steps.iter().any(|s| s.agy == OneshotAgy::SubagentImage) => {
            SUBAGENT_AGY
        }
        _ => DEFAULT_AGY,
    }
}

/// The scenario file of `case`, named `name`, with `comment` lines on top.
pub fn render(
    profile: Profile,
    case: &Case,
    name: &str,
    description: &str,
    comment: &[String],
) -> String {
    let o = oracle(case);
    let agy = agy_version(case);
    let mut out = header(profile, Some(&agy.to_string()), name, description, comment);
    if agy != DEFAULT_AGY {
        let _ = writeln!(out, "[agy.script]\nagy = \"{agy}\"\n");
    }
    match case {
        Case::Oneshot(c) => oneshot(&mut out, c, &o),
        Case::Session(c) => session(&mut out, c, &o),
    }
    journal(&mut out, &o);
    out
}

fn ms(d: u32) -> String {
    format!("{{ sleep = \"{d}ms\" }}")
}

fn oneshot_steps(agy: &OneshotAgy) -> Vec<String> {
    let usage = "usage = { input = 62753, output = 4953 }";
    let ok = |extra: &str| {
        format!("{{ envelope = {{ status = \"SUCCESS\", response = \"I generated the image{extra}.\", {usage} }} }}")
    };
    let image = "{ image = { width = 1376, height = 768 } }".to_string();
    match agy {
        OneshotAgy::Success { width, height } => vec![
            format!("{{ image = {{ width = {width}, height = {height}, name = \"generated\" }} }}"),
            ok(""),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::PrintTimeout => vec![
            "{ stderr = \"[agy] print timeout after 1s with turn in progress; returning partial output\" }".into(),
            "{ envelope = { status = \"SUCCESS\", response = \"\", num_turns = 1, usage = \"zero\" } }".into(),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::QuotaInProse => vec![
            format!("{{ envelope = {{ status = \"SUCCESS\", num_turns = 1, response = \"I tried to generate the image, but the image tool failed: 429 Too Many Requests: RESOURCE_EXHAUSTED. You have exhausted your capacity on the image model (gemini-3.1-flash-image).\", {usage} }} }}"),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::NoImage => vec![
            format!("{{ envelope = {{ status = \"SUCCESS\", response = \"Here is a description of a purple hexagon.\", {usage} }} }}"),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::TwoImages => vec![
            "{ image = { width = 1376, height = 768, count = 2 } }".into(),
            ok("s"),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::CorruptImage => vec![
            "{ image = { width = 1376, height = 768, corrupt = true } }".into(),
            ok(""),
            "{ exit = 0 }".into(),
        ],
        OneshotAgy::Auth => vec![
            "{ envelope = { conversation_id = \"\", status = \"ERROR\", response = \"\", error = \"authentication required\", duration_seconds = 0, num_turns = 0, usage = \"zero\" } }".into(),
            "{ exit = 1 }".into(),
        ],
        OneshotAgy::Permanent(status) => vec![
            format!("{{ envelope = {{ status = \"{status}\", response = \"\" }} }}"),
            format!("{{ exit = {} }}", u8::from(*status != "WAITING" && *status != "RUNNING")),
        ],
        OneshotAgy::Transient(status) => vec![
            format!("{{ envelope = {{ status = \"{status}\", response = \"\", usage = \"zero\" }} }}"),
            "{ exit = 1 }".into(),
        ],
        OneshotAgy::Crash(signal) => vec![
            "{ stdout_raw = \"{\\\"conversation_id\\\":\\\"4b1f\\\",\\\"status\\\":\\\"SUCC\" }".into(),
            format!("{{ crash = \"{signal}\" }}"),
        ],
        OneshotAgy::SuccessExit1 => vec![image, ok(""), "{ exit = 1 }".into()],
        OneshotAgy::Hang => vec!["{ on_sigterm = \"ignore\" }".into(), "{ hang = true }".into()],
        OneshotAgy::SubagentImage => vec!["{ default = { image = true } }".into()],
    }
}

fn oneshot(out: &mut String, c: &OneshotCase, o: &Oracle) {
    for s in &c.steps {
        let mut steps = vec![ms(s.delay_ms)];
        steps.extend(oneshot_steps(&s.agy));
        let _ = writeln!(
            out,
            "[[agy.invocation]]\nsteps = [\n  {},\n]\n",
            steps.join(",\n  ")
        );
    }
    for (s, e) in c.steps.iter().zip(&o.ops) {
        let timeout = match s.agy {
            OneshotAgy::Hang | OneshotAgy::PrintTimeout => 1,
            _ => 600,
        };
        let _ = writeln!(out, "[[op]]\ngenerate = {{ prompt = \"a purple hexagon\", aspect = \"16:9\", timeout_s = {timeout} }}");
        if matches!(s.agy, OneshotAgy::Hang) {
            let _ = writeln!(out, "reply_within = \"45s\"");
        }
        op_expect(out, e);
    }
}

fn turn_steps(
    i: usize,
    t: &crate::profile::fuzz_kit::case::SessionTurn,
    last_hangs: bool,
) -> Vec<String> {
    let (input, output) = turn_usage(i);
    let usage = format!("usage = {{ input = {input}, output = {output} }}");
    let mut steps = Vec::new();
    if last_hangs {
        steps.push("{ on_sigterm = \"ignore\" }".to_string());
    }
    steps.push(ms(t.delay_ms));
    let answer = format!("response = {}", q(&answer(i)));
    match t.agy {
        TurnAgy::Answer => {}
        TurnAgy::Replay => steps.push("{ replay_previous = true }".into()),
        TurnAgy::LateStep => {
            let (li, lo) = late_usage(i.saturating_sub(1));
            steps.push(format!(
                "{{ late_step = {{ text_delta = {}, usage = {{ input = {li}, output = {lo} }} }} }}",
                q(&late_text(i.saturating_sub(1)))
            ));
        }
        TurnAgy::Stalled => {
            steps.push(format!(
                "{{ default = {{ {answer}, advance_turns = false, {usage} }} }}"
            ));
            return steps;
        }
        TurnAgy::Error => {
            steps.push("{ default = { status = \"ERROR\", error = \"tool execution failed: internal error\" } }".into());
            return steps;
        }
        TurnAgy::DuplicateResult => {
            steps.push(format!("{{ default = {{ {answer}, {usage} }} }}"));
            steps.push("{ duplicate_result = true }".into());
            return steps;
        }
    }
    steps.push(format!("{{ default = {{ {answer}, {usage} }} }}"));
    if last_hangs {
        steps.push("{ hang = true }".into());
    }
    steps
}

fn session(out: &mut String, c: &SessionCase, o: &Oracle) {
    if c.auth_failure {
        let _ = writeln!(out, "[[agy.turn]]\nsteps = [\n  {{ envelope = {{ conversation_id = \"\", status = \"ERROR\", response = \"\", error = \"authentication failed or timed out\", duration_seconds = 0, num_turns = 0, usage = \"zero\" }} }},\n  {{ exit = 1 }},\n]\n");
    } else {
        for (i, t) in c.turns.iter().enumerate() {
            let hangs = c.ignores_sigterm && i + 1 == c.turns.len();
            let _ = writeln!(
                out,
                "[[agy.turn]]\nwhen  = {{ content_contains = \"{}\" }}\nsteps = [\n  {},\n]\n",
                TURN_WORDS[i],
                turn_steps(i, t, hangs).join(",\n  ")
            );
        }
    }
    let mut expects = o.ops.iter();
    let _ = writeln!(out, "[[op]]\nopen = {{ model = \"gemini-3.8-flash-low\" }}");
    op_expect(out, expects.next().unwrap_or(&OpOracle::default()));
    let turns = if c.auth_failure { 1 } else { c.turns.len() };
    let mut model = "low";
    for (i, word) in TURN_WORDS.iter().enumerate().take(turns) {
        if c.turns.get(i).is_some_and(|t| t.model_change) && !c.auth_failure {
            model = if model == "low" { "high" } else { "low" };
            let _ = writeln!(
                out,
                "[[op]]\nselect = {{ model = \"gemini-3.8-flash-{model}\" }}"
            );
            op_expect(out, expects.next().unwrap_or(&OpOracle::default()));
        }
        let _ = writeln!(out, "[[op]]\nturn = {{ text = \"{word} question\" }}");
        op_expect(out, expects.next().unwrap_or(&OpOracle::default()));
    }
    let _ = writeln!(out, "[[op]]\nclose = {{}}");
    op_expect(out, expects.next().unwrap_or(&OpOracle::default()));
}

fn op_expect(out: &mut String, e: &OpOracle) {
    let mut parts = Vec::new();
    match e.outcome.as_slice() {
        [] => {}
        [one] => parts.push(format!("outcome = \"{}\"", one.as_str())),
        many => {
            let names: Vec<&str> = many.iter().map(|o| o.as_str()).collect();
            parts.push(format!("outcome = {}", q_list(&names)));
        }
    }
    if let Some(r) = e.retryable {
        parts.push(format!("retryable = {r}"));
    }
    if let Some(o) = e.output {
        parts.push(format!("output = \"{o}\""));
    }
    if let Some((w, h)) = e.image_size {
        parts.push(format!("image_size = [{w}, {h}]"));
    }
    if let Some(t) = &e.text {
        parts.push(format!("text = {}", q(t)));
    }
    if !e.text_lacks.is_empty() {
        parts.push(format!("text_lacks = {}", q_list(&e.text_lacks)));
    }
    if let Some((i, o)) = e.usage {
        parts.push(format!(
            "usage = {{ input_tokens = {i}, output_tokens = {o} }}"
        ));
    }
    if let Some(g) = e.gone_within {
        parts.push(format!("agy_gone_within = \"{g}\""));
    }
    write_expect(out, &parts);
}

fn journal(out: &mut String, o: &Oracle) {
    let _ = writeln!(out, "[expect.journal]\nnone_left_running = true");
    if let Some(n) = o.invocations {
        let _ = writeln!(out, "invocations = {n}");
    }
    if !o.argv_lacks.is_empty() {
        let _ = writeln!(out, "argv_lacks = {}", q_list(&o.argv_lacks));
    }
    if let Some(n) = o.history_turns {
        let _ = writeln!(out, "\n[expect.history]\nturns = {n}\nno_carryover = true");
    }
}

crate::profile::fuzz_case!(
    /// A generated `oneshot` or `session` case as `fuzz` holds it.
    Agy(Case) => render
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_versions_generated_cases_name_are_modelled_versions() {
        for v in [DEFAULT_AGY, SUBAGENT_AGY] {
            assert!(agy_protocol::MODELLED_VERSIONS.contains(&v), "{v}");
        }
        assert!(SUBAGENT_AGY > DEFAULT_AGY);
    }
}
