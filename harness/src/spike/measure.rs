//! Measures: named quantities read off a probe run (`status`, `images.sizes`,
//! `init.tools.count`, …). The list is in docs/spikes.md.

use super::error::UnknownMeasure;
use super::observation::{ImageInfo, Observation};
use serde_json::{json, Value};
use std::fmt;

/// A measured value: JSON, `null` when the run did not show it.
pub type MeasureValue = Value;

/// What a fact measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measure {
    /// Process exit code.
    ExitCode,
    /// A top-level envelope / result field (`status`, `response`, `error`, …).
    Field(String),
    /// The envelope's keys, in order.
    EnvelopeKeys,
    /// The usage object's keys, in order.
    UsageKeys,
    /// One usage counter.
    Usage(String),
    /// `total_tokens == input_tokens + output_tokens`.
    UsageTotalIsSum,
    /// Whole stderr text.
    Stderr,
    /// stderr lines.
    StderrLines,
    /// stdout lines.
    StdoutLines,
    /// Whether an `init` event was emitted.
    InitPresent,
    /// The `init` payload's keys.
    InitKeys,
    /// One `init` field (`tools`, `model`, `permission_mode`, `cwd`).
    Init(String),
    /// Number of tools in `init.tools`.
    InitToolCount,
    /// Tool names called, in order.
    ToolsCalled,
    /// Whether this tool was called.
    ToolCalled(String),
    /// The parameter names of this tool's first call.
    ToolParameterKeys(String),
    /// One parameter of this tool's first call.
    ToolParameter(String, String),
    /// Whether this tool's first call carried a non-null `output`.
    ToolOutputPresent(String),
    /// Number of images written.
    ImageCount,
    /// Formats of the images.
    ImageFormats,
    /// Sizes of the images, `WxH`.
    ImageSizes,
    /// File names of the images.
    ImageNames,
    /// Whether every image lies in `brain/<conversation_id>/`.
    ImagesInBrain,
    /// Entries of `brain/<conversation_id>/`.
    BrainEntries,
    /// Files in the probe's workdir.
    WorkdirFiles,
    /// Files under `scratch/`.
    ScratchFiles,
    /// Wall time of the run, seconds.
    WallSeconds,
    /// For concurrent probes: every run overlapped in time with every other.
    BatchOverlap,
}

const FIELDS: &[&str] = &[
    "status",
    "response",
    "error",
    "conversation_id",
    "num_turns",
    "duration_seconds",
    "denied_actions",
    "command",
];
const USAGE: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "thinking_tokens",
    "cache_read_tokens",
    "total_tokens",
];
const INIT: &[&str] = &["tools", "model", "permission_mode", "cwd"];

impl Measure {
    /// Parses a measure name; the error lists what is accepted.
    pub fn parse(s: &str) -> Result<Measure, UnknownMeasure> {
        let parts: Vec<&str> = s.split('.').collect();
        let m = match parts.as_slice() {
            ["exit_code"] => Measure::ExitCode,
            [f] if FIELDS.contains(f) => Measure::Field((*f).to_string()),
            ["envelope", "keys"] => Measure::EnvelopeKeys,
            ["usage", "keys"] => Measure::UsageKeys,
            ["usage", "total_is_sum"] => Measure::UsageTotalIsSum,
            ["usage", k] if USAGE.contains(k) => Measure::Usage((*k).to_string()),
            ["stderr"] => Measure::Stderr,
            ["stderr", "lines"] => Measure::StderrLines,
            ["stdout", "lines"] => Measure::StdoutLines,
            ["init", "present"] => Measure::InitPresent,
            ["init", "keys"] => Measure::InitKeys,
            ["init", "tools", "count"] => Measure::InitToolCount,
            ["init", k] if INIT.contains(k) => Measure::Init((*k).to_string()),
            ["tools", "called"] => Measure::ToolsCalled,
            ["tool", name, "called"] => Measure::ToolCalled((*name).to_string()),
            ["tool", name, "parameters", "keys"] => Measure::ToolParameterKeys((*name).to_string()),
            ["tool", name, "parameters", p] => {
                Measure::ToolParameter((*name).to_string(), (*p).to_string())
            }
            ["tool", name, "output_present"] => Measure::ToolOutputPresent((*name).to_string()),
            ["images", "count"] => Measure::ImageCount,
            ["images", "formats"] => Measure::ImageFormats,
            ["images", "sizes"] => Measure::ImageSizes,
            ["images", "names"] => Measure::ImageNames,
            ["images", "in_brain"] => Measure::ImagesInBrain,
            ["brain", "entries"] => Measure::BrainEntries,
            ["workdir", "files"] => Measure::WorkdirFiles,
            ["scratch", "files"] => Measure::ScratchFiles,
            ["wall_seconds"] => Measure::WallSeconds,
            ["batch", "overlap"] => Measure::BatchOverlap,
            _ => return Err(UnknownMeasure(s.to_string())),
        };
        Ok(m)
    }

    /// Every accepted measure name, for hints.
    pub fn names() -> Vec<String> {
        let mut v: Vec<String> = vec!["exit_code".into()];
        v.extend(FIELDS.iter().map(|f| f.to_string()));
        v.extend(["envelope.keys", "usage.keys", "usage.total_is_sum"].map(String::from));
        v.extend(USAGE.iter().map(|k| format!("usage.{k}")));
        v.extend(
            [
                "stderr",
                "stderr.lines",
                "stdout.lines",
                "init.present",
                "init.keys",
                "init.tools.count",
            ]
            .map(String::from),
        );
        v.extend(INIT.iter().map(|k| format!("init.{k}")));
        v.extend(
            [
                "tools.called",
                "tool.<name>.called",
                "tool.<name>.parameters.keys",
                "tool.<name>.parameters.<Name>",
                "tool.<name>.output_present",
                "images.count",
                "images.formats",
                "images.sizes",
                "images.names",
                "images.in_brain",
                "brain.entries",
                "workdir.files",
                "scratch.files",
                "wall_seconds",
                "batch.overlap",
            ]
            .map(String::from),
        );
        v
    }

    /// Reads the measure off one run; `batch` holds every run of the probe.
    pub fn value(&self, obs: &Observation, batch: &[Observation]) -> MeasureValue {
        let env = obs.envelope.as_ref();
        match self {
            Measure::ExitCode => obs.exit_code.map(Value::from).unwrap_or(Value::Null),
            Measure::Field(f) => env.and_then(|e| e.get(f)).cloned().unwrap_or(Value::Null),
            Measure::EnvelopeKeys => keys(env),
            Measure::UsageKeys => keys(env.and_then(|e| e.get("usage"))),
            Measure::Usage(k) => env
                .and_then(|e| e.get("usage"))
                .and_then(|u| u.get(k))
                .cloned()
                .unwrap_or(Value::Null),
            Measure::UsageTotalIsSum => usage_total_is_sum(env.and_then(|e| e.get("usage"))),
            Measure::Stderr => json!(obs.stderr),
            Measure::StderrLines => json!(obs.stderr.lines().collect::<Vec<_>>()),
            Measure::StdoutLines => json!(obs.stdout.lines().collect::<Vec<_>>()),
            Measure::InitPresent => json!(obs.init().is_some()),
            Measure::InitKeys => keys(obs.init()),
            Measure::Init(k) => obs
                .init()
                .and_then(|i| i.get(k))
                .cloned()
                .unwrap_or(Value::Null),
            Measure::InitToolCount => obs
                .init()
                .and_then(|i| i.get("tools"))
                .and_then(Value::as_array)
                .map(|t| json!(t.len()))
                .unwrap_or(Value::Null),
            Measure::ToolsCalled
            | Measure::ToolCalled(_)
            | Measure::ToolParameterKeys(_)
            | Measure::ToolParameter(..)
            | Measure::ToolOutputPresent(_) => self.tool_value(obs),
            Measure::ImageCount
            | Measure::ImageFormats
            | Measure::ImageSizes
            | Measure::ImageNames
            | Measure::ImagesInBrain => self.image_value(obs),
            Measure::BrainEntries => json!(obs.brain_entries),
            Measure::WorkdirFiles => json!(obs.workdir_files),
            Measure::ScratchFiles => json!(obs.scratch_files),
            Measure::WallSeconds => json!(obs.ended - obs.started),
            Measure::BatchOverlap => batch_overlap(batch),
        }
    }

    /// A measure of the tool calls of one run (`Null` for any other measure).
    fn tool_value(&self, obs: &Observation) -> MeasureValue {
        let first_call = |name: &str| -> Option<Value> {
            obs.tool_calls()
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, info)| info)
        };
        match self {
            Measure::ToolsCalled => {
                json!(obs
                    .tool_calls()
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>())
            }
            Measure::ToolCalled(name) => json!(first_call(name).is_some()),
            Measure::ToolParameterKeys(name) => {
                keys(first_call(name).as_ref().and_then(|i| i.get("parameters")))
            }
            Measure::ToolParameter(name, p) => first_call(name)
                .and_then(|i| i.get("parameters").and_then(|ps| ps.get(p)).cloned())
                .unwrap_or(Value::Null),
            Measure::ToolOutputPresent(name) => match first_call(name) {
                Some(info) => json!(info.get("output").is_some_and(|o| !o.is_null())),
                None => Value::Null,
            },
            _ => Value::Null,
        }
    }

    /// A measure of the images of one run (`Null` for any other measure).
    fn image_value(&self, obs: &Observation) -> MeasureValue {
        let each = |f: &dyn Fn(&ImageInfo) -> String| -> Value {
            json!(obs.images.iter().map(f).collect::<Vec<_>>())
        };
        match self {
            Measure::ImageCount => json!(obs.images.len()),
            Measure::ImageFormats => each(&|i| i.format.clone()),
            Measure::ImageSizes => each(&|i| match i.size {
                Some((w, h)) => format!("{w}x{h}"),
                None => "undecodable".to_string(),
            }),
            Measure::ImageNames => {
                each(&|i| i.path.rsplit('/').next().unwrap_or_default().to_string())
            }
            Measure::ImagesInBrain => match obs.conversation_id() {
                Some(id) => {
                    let prefix = format!("brain/{id}/");
                    json!(
                        !obs.images.is_empty()
                            && obs.images.iter().all(|i| i.path.starts_with(&prefix))
                    )
                }
                None => Value::Null,
            },
            _ => Value::Null,
        }
    }
}

/// The keys of an object, in order (`Null` for anything else).
fn keys(v: Option<&Value>) -> Value {
    match v.and_then(Value::as_object) {
        Some(o) => json!(o.keys().collect::<Vec<_>>()),
        None => Value::Null,
    }
}

/// Whether `total_tokens` is `input_tokens + output_tokens` (`Null` when one is missing).
fn usage_total_is_sum(usage: Option<&Value>) -> Value {
    let n = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
    match (n("input_tokens"), n("output_tokens"), n("total_tokens")) {
        (Some(i), Some(o), Some(t)) => json!(i.checked_add(o) == Some(t)),
        _ => Value::Null,
    }
}

/// Whether the runs of a batch overlapped in time (`Null` for fewer than two runs).
fn batch_overlap(batch: &[Observation]) -> Value {
    let ran: Vec<&Observation> = batch.iter().filter(|o| o.was_run()).collect();
    if ran.len() < 2 {
        return Value::Null;
    }
    let latest_start = ran.iter().map(|o| o.started).fold(f64::MIN, f64::max);
    let earliest_end = ran.iter().map(|o| o.ended).fold(f64::MAX, f64::min);
    json!(latest_start < earliest_end)
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::ExitCode => f.write_str("exit_code"),
            Measure::Field(x) => f.write_str(x),
            Measure::EnvelopeKeys => f.write_str("envelope.keys"),
            Measure::UsageKeys => f.write_str("usage.keys"),
            Measure::Usage(k) => write!(f, "usage.{k}"),
            Measure::UsageTotalIsSum => f.write_str("usage.total_is_sum"),
            Measure::Stderr => f.write_str("stderr"),
            Measure::StderrLines => f.write_str("stderr.lines"),
            Measure::StdoutLines => f.write_str("stdout.lines"),
            Measure::InitPresent => f.write_str("init.present"),
            Measure::InitKeys => f.write_str("init.keys"),
            Measure::Init(k) => write!(f, "init.{k}"),
            Measure::InitToolCount => f.write_str("init.tools.count"),
            Measure::ToolsCalled => f.write_str("tools.called"),
            Measure::ToolCalled(n) => write!(f, "tool.{n}.called"),
            Measure::ToolParameterKeys(n) => write!(f, "tool.{n}.parameters.keys"),
            Measure::ToolParameter(n, p) => write!(f, "tool.{n}.parameters.{p}"),
            Measure::ToolOutputPresent(n) => write!(f, "tool.{n}.output_present"),
            Measure::ImageCount => f.write_str("images.count"),
            Measure::ImageFormats => f.write_str("images.formats"),
            Measure::ImageSizes => f.write_str("images.sizes"),
            Measure::ImageNames => f.write_str("images.names"),
            Measure::ImagesInBrain => f.write_str("images.in_brain"),
            Measure::BrainEntries => f.write_str("brain.entries"),
            Measure::WorkdirFiles => f.write_str("workdir.files"),
            Measure::ScratchFiles => f.write_str("scratch.files"),
            Measure::WallSeconds => f.write_str("wall_seconds"),
            Measure::BatchOverlap => f.write_str("batch.overlap"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_without_placeholders_parses_and_prints_back() {
        for name in Measure::names().iter().filter(|n| !n.contains('<')) {
            let m = Measure::parse(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&m.to_string(), name);
        }
        assert_eq!(
            Measure::parse("usage.price"),
            Err(UnknownMeasure("usage.price".into()))
        );
    }

    #[test]
    fn a_sixth_usage_key_shows_in_usage_keys() {
        let obs = Observation {
            envelope: Some(
                json!({"usage":{"input_tokens":1,"output_tokens":2,"thinking_tokens":0,"cache_read_tokens":0,"total_tokens":3,"credits":1}}),
            ),
            ..Default::default()
        };
        let v = Measure::UsageKeys.value(&obs, &[]);
        assert_eq!(v.as_array().map(Vec::len), Some(6));
        assert_eq!(Measure::UsageTotalIsSum.value(&obs, &[]), json!(true));
    }
}
