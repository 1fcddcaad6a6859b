//! Evidence as agy script steps: a oneshot invocation as one print run, a session's
//! process as one turn per stdin line. Output lines become typed steps where the script
//! format says them field by field (the capture converter's rules), hints become the
//! steps that act them out (images, a hang, an ignored SIGTERM).

use crate::capture::stdout_step;
use crate::profile::repro_kit::case::{Process, ScriptStep, Turn};
use crate::profile::repro_kit::evidence::{Invocation, Item, ItemKind};
use agy_protocol::script::Step;
use toml::Value;

/// A step of the script format as a [`ScriptStep`].
pub fn typed_step(step: &Step, line: usize) -> Option<ScriptStep> {
    toml::Value::try_from(step)
        .ok()
        .map(|value| ScriptStep { value, line })
}

/// A stdout line as a typed step (init, step_update, envelope), or a plain `stdout`
/// step when the script format cannot say it field by field.
pub fn stdout_script_step(line: &str, n: usize) -> ScriptStep {
    let typed = stdout_step(format!("{line}\n").as_bytes())
        .ok()
        .and_then(|s| typed_step(&s, n));
    typed.unwrap_or_else(|| ScriptStep::new("stdout", toml::Value::String(line.to_string()), n))
}

/// The size written for an image whose size the report does not give: agy's 16:9
/// widescreen image (docs/spike-records.md S3).
const DEFAULT_IMAGE: (u32, u32) = (1376, 768);

fn sleep(ms: u64, line: usize) -> ScriptStep {
    ScriptStep::new("sleep", Value::String(format!("{ms}ms")), line)
}

fn with_delay(out: &mut Vec<ScriptStep>, item: &Item) {
    if let Some(ms) = item.delay_ms.filter(|ms| *ms > 0) {
        out.push(sleep(ms, item.line));
    }
}

fn image_step(inv: &Invocation, notes: &mut Vec<String>) -> Option<ScriptStep> {
    let images = inv.images?;
    if images.count == 0 {
        return None;
    }
    let (w, h) = images.size.unwrap_or_else(|| {
        notes.push(format!(
            "the report does not give the image size: {}×{} assumed",
            DEFAULT_IMAGE.0, DEFAULT_IMAGE.1
        ));
        DEFAULT_IMAGE
    });
    let mut t = toml::Table::new();
    t.insert("width".into(), Value::Integer(i64::from(w)));
    t.insert("height".into(), Value::Integer(i64::from(h)));
    t.insert(
        "count".into(),
        Value::Integer(i64::try_from(images.count).unwrap_or(1)),
    );
    Some(ScriptStep::new("image", Value::Table(t), 0))
}

/// One oneshot invocation: its output as one print run. Stream events other than the
/// result are left out (the oneshot adapter asks for `--output-format json`, where agy
/// prints only the envelope); the envelope's conversation id is left to fake-agy, so the
/// images land in the folder the envelope names.
pub fn oneshot_process(i: usize, inv: &Invocation, notes: &mut Vec<String>) -> Process {
    let mut steps = Vec::new();
    if inv.ignores_sigterm {
        steps.push(ScriptStep::new(
            "on_sigterm",
            Value::String("ignore".into()),
            0,
        ));
    }
    let mut image = image_step(inv, notes);
    let mut dropped = 0;
    for item in &inv.items {
        match &item.kind {
            ItemKind::Stdout(line) => {
                let step = stdout_script_step(line, item.line);
                match step.key() {
                    "init" | "step_update" => dropped += 1,
                    "envelope" => {
                        with_delay(&mut steps, item);
                        steps.extend(image.take());
                        steps.push(without_conversation_id(step));
                    }
                    _ => {
                        with_delay(&mut steps, item);
                        steps.push(step);
                    }
                }
            }
            ItemKind::Stderr(line) => {
                with_delay(&mut steps, item);
                steps.push(ScriptStep::new(
                    "stderr",
                    Value::String(line.clone()),
                    item.line,
                ));
            }
            ItemKind::Stdin(_) => {}
        }
    }
    if dropped > 0 {
        notes.push(format!(
            "invocation {}: {dropped} stream event(s) before the result left out (a oneshot adapter reads the json envelope)",
            i + 1
        ));
    }
    steps.extend(image);
    end_steps(inv, &mut steps);
    Process {
        model: inv.flag("--model").map(str::to_string),
        prompt: inv
            .flag("-p")
            .or_else(|| inv.flag("--print"))
            .map(str::to_string),
        timeout_s: inv.flag("--print-timeout").and_then(seconds),
        turns: vec![Turn {
            text: String::new(),
            steps,
        }],
        origin: format!("invocation {}", i + 1),
        restore: None,
    }
}

/// How the process ends: a hang, else the exit code the report gives.
fn end_steps(inv: &Invocation, steps: &mut Vec<ScriptStep>) {
    if inv.hangs {
        steps.push(ScriptStep::new("hang", Value::Boolean(true), 0));
    } else if let Some(code) = inv.exit.filter(|c| *c != 70 && (0..=255).contains(c)) {
        steps.push(ScriptStep::new("exit", Value::Integer(i64::from(code)), 0));
    }
}

/// `90s`, `2m`, `120` as whole seconds.
fn seconds(text: &str) -> Option<u64> {
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    agy_protocol::GoDuration::parse(text)
        .ok()
        .map(|d| d.0.as_secs().max(1))
}

fn without_conversation_id(mut step: ScriptStep) -> ScriptStep {
    if let Some(Value::Table(t)) = step.body_mut() {
        if t.get("conversation_id").and_then(Value::as_str) != Some("") {
            t.remove("conversation_id");
        }
    }
    step
}

/// A session's processes: one per invocation, its output split into turns at each
/// stdin line (or, when the report has none, after each result that is not a replay of
/// an earlier one).
pub fn session_processes(invs: &[Invocation], notes: &mut Vec<String>) -> Vec<Process> {
    let mut processes: Vec<Process> = invs
        .iter()
        .enumerate()
        .map(|(i, inv)| {
            let mut turns = split_turns(inv);
            if let Some(last) = turns.last_mut() {
                if inv.ignores_sigterm {
                    last.steps.insert(
                        0,
                        ScriptStep::new("on_sigterm", Value::String("ignore".into()), 0),
                    );
                    last.steps
                        .push(ScriptStep::new("hang", Value::Boolean(true), 0));
                } else if inv.hangs {
                    last.steps
                        .push(ScriptStep::new("hang", Value::Boolean(true), 0));
                } else if let Some(code) = inv
                    .exit
                    .filter(|c| *c != 0 && *c != 70 && (0..=255).contains(c))
                {
                    last.steps
                        .push(ScriptStep::new("exit", Value::Integer(i64::from(code)), 0));
                }
            }
            Process {
                model: inv.flag("--model").map(str::to_string),
                prompt: None,
                timeout_s: None,
                turns,
                origin: format!("invocation {}", i + 1),
                restore: None,
            }
        })
        .collect();
    if unique_texts(&mut processes) {
        notes.push("turn texts repeat or contain each other: each is prefixed with `turn N:` so the script tells them apart".into());
    }
    for p in &processes {
        for (k, t) in p.turns.iter().enumerate() {
            if t.steps.is_empty() {
                notes.push(format!(
                    "{} turn {}: the report shows no output for it; fake-agy answers with its default turn",
                    p.origin,
                    k + 1
                ));
            }
        }
    }
    processes
}

/// True when the stdin lines are interleaved with the output (each line after the
/// first follows some output): the report shows which output each line caused.
fn stdin_interleaved(inv: &Invocation) -> bool {
    let mut output_since = false;
    let mut stdin = 0;
    for i in &inv.items {
        match i.kind {
            ItemKind::Stdin(_) => {
                if stdin > 0 && !output_since {
                    return false;
                }
                stdin += 1;
                output_since = false;
            }
            _ => output_since = true,
        }
    }
    stdin > 0
}

fn split_turns(inv: &Invocation) -> Vec<Turn> {
    let by_stdin = stdin_interleaved(inv);
    let mut texts = inv.items.iter().filter_map(|i| match &i.kind {
        ItemKind::Stdin(t) if !by_stdin => Some(t.clone()),
        _ => None,
    });
    let mut turns: Vec<Turn> = Vec::new();
    let mut current = Turn {
        text: texts.next().unwrap_or_default(),
        steps: Vec::new(),
    };
    let mut opened = false;
    let mut results: Vec<String> = Vec::new();
    for item in &inv.items {
        match &item.kind {
            ItemKind::Stdin(text) if by_stdin => {
                if opened {
                    let next = Turn {
                        text: text.clone(),
                        steps: Vec::new(),
                    };
                    turns.push(std::mem::replace(&mut current, next));
                } else {
                    current.text.clone_from(text);
                }
                opened = true;
                with_delay(&mut current.steps, item);
            }
            ItemKind::Stdin(_) => {}
            ItemKind::Stdout(line) => {
                with_delay(&mut current.steps, item);
                current.steps.push(stdout_script_step(line, item.line));
                let is_result = line.starts_with("{\"event\":\"result\"");
                if !by_stdin && is_result && !results.contains(line) {
                    results.push(line.clone());
                    let next = Turn {
                        text: texts.next().unwrap_or_default(),
                        steps: Vec::new(),
                    };
                    turns.push(std::mem::replace(&mut current, next));
                }
            }
            ItemKind::Stderr(line) => {
                with_delay(&mut current.steps, item);
                current.steps.push(ScriptStep::new(
                    "stderr",
                    Value::String(line.clone()),
                    item.line,
                ));
            }
        }
    }
    if opened || !current.steps.is_empty() || turns.is_empty() {
        turns.push(current);
    }
    turns
}

/// Makes every turn text non-empty and unique so that no text contains another (turn
/// rules match by `content_contains`); true when texts had to be renamed.
fn unique_texts(processes: &mut [Process]) -> bool {
    let texts: Vec<&String> = processes
        .iter()
        .flat_map(|p| p.turns.iter().map(|t| &t.text))
        .collect();
    let clash = texts.iter().enumerate().any(|(i, a)| {
        a.trim().is_empty()
            || texts
                .iter()
                .enumerate()
                .any(|(j, b)| i != j && b.contains(a.as_str()))
    });
    let given = texts.iter().any(|t| !t.trim().is_empty());
    let mut n = 0;
    for t in processes.iter_mut().flat_map(|p| p.turns.iter_mut()) {
        n += 1;
        if clash {
            t.text = if t.text.trim().is_empty() {
                format!("turn {n}:")
            } else {
                format!("turn {n}: {}", t.text)
            };
        }
    }
    clash && given
}
