//! Subcommands and read-only slash commands: `--version`, `models`, `-p /usage` and
//! its alias `/quota`, `-p /model`, `-p /effort` (docs/agy-reference.md §1.6).

use crate::cli::OutputFormat;
use crate::model::models::catalogue;
use crate::session::Session;
use agy_protocol::stream::StreamEvent;
use agy_protocol::{Envelope, Status};
use serde_json::json;
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

/// `--version`: the modelled version alone on a line (one source shows bare `1.0.4`;
/// the exact format is an open item, docs/agy-reference.md §9 item 7).
pub fn version(s: &mut Session) {
    s.out().stdout_line(&s.setup().version().to_string());
}

/// `agy models` / `agy --output-format=json models`.
pub fn models(s: &mut Session) {
    // The banner goes to stderr (FM 1.1.25, UX 1.1.13).
    s.out().stderr_line("Fetching available models...");
    let models = catalogue(s.setup().calibration());
    match s.setup().format() {
        OutputFormat::Text => {
            // gb-1.1.18-models-text: id, tab, label; fp-1.1.7-models-piped: the id
            // alone; ua-1.0.16-models: the label alone.
            let listing = s.setup().calibration().models.listing.clone();
            for m in &models {
                let line = listing.replace("{id}", &m.id).replace("{label}", &m.label);
                s.out().stdout_line(&line);
            }
        }
        _ => {
            // `command.data.models[] = {id, label}` (HP 97d3b883); the outer envelope
            // is presumed the slash-command one (§1.6, [I]).
            let data: Vec<_> = models
                .iter()
                .map(|m| json!({ "id": m.id, "label": m.label }))
                .collect();
            // The response is the text listing (gb-1.1.18-models-stream-json).
            let response: String = models
                .iter()
                .map(|m| format!("{}\t{}\n", m.id, m.label))
                .collect();
            let env = Envelope {
                response,
                command: Some(json!({ "name": "models", "data": { "models": data } })),
                ..Envelope::empty("", Status::Success)
            };
            write_command(s, env);
        }
    }
}

/// `-p /usage` or `-p /quota`: the TSV report (text) or the envelope with the
/// `command` payload (json), shaped as the PB `quota` trace (1.2.17).
pub fn usage(s: &mut Session) {
    let now = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    let at = |d: Duration| (now + d).format(&Rfc3339).unwrap_or_default();
    let buckets = [
        ("Gemini Models", "gemini-weekly", "Weekly Limit Remaining", "weekly", 0.9961962699890137_f64, at(Duration::days(7)), Some("You have used some of your weekly limit, it will fully refresh in 6 days, 21 hours.")),
        ("Gemini Models", "gemini-5h", "Five Hour Limit Remaining", "5h", 0.977177619934082, at(Duration::minutes(140)), Some("You have used some of your 5-hour limit, it will fully refresh in 2 hours, 20 minutes.")),
        ("Claude and GPT models", "3p-weekly", "Weekly Limit Remaining", "weekly", 1.0, at(Duration::days(7)), None),
        ("Claude and GPT models", "3p-5h", "Five Hour Limit Remaining", "5h", 1.0, at(Duration::hours(5)), None),
    ];
    let mut tsv = String::new();
    for (group, _, name, _, frac, reset, _) in &buckets {
        tsv.push_str(&format!(
            "{group}\t{name}\t{}%\t{reset}\n",
            (frac * 100.0).round() as u32
        ));
    }
    if s.setup().format() == OutputFormat::Text {
        s.out().stdout(tsv.as_bytes());
        return;
    }
    let bucket = |i: usize| {
        let (_, id, name, window, frac, reset, desc) = &buckets[i];
        let mut b = serde_json::Map::new();
        b.insert("id".into(), json!(id));
        b.insert("name".into(), json!(name));
        if let Some(d) = desc {
            b.insert("description".into(), json!(d));
        }
        b.insert("window".into(), json!(window));
        b.insert("remaining_fraction".into(), json!(frac));
        b.insert("reset_time".into(), json!(reset));
        serde_json::Value::Object(b)
    };
    let data = json!({
        "description": "Within each group, models share a weekly limit and a 5-hour limit. Quota is consumed proportionally to the cost of the tokens. Thus, limits will last longer with shorter tasks or using more cost-effective models. The 5-hour limit smooths out aggregate demand to fairly distribute global capacity across all users, while your weekly limit is tied directly to your individual tier.",
        "groups": [
            { "name": "Gemini Models", "description": "Models within this group: Gemini Flash, Gemini Pro", "buckets": [bucket(0), bucket(1)] },
            { "name": "Claude and GPT models", "description": "Models within this group: Claude Opus, Claude Sonnet, GPT-OSS", "buckets": [bucket(2), bucket(3)] },
        ]
    });
    let env = Envelope {
        response: tsv,
        command: Some(json!({ "name": "usage", "data": data })),
        ..Envelope::empty("", Status::Success)
    };
    write_command(s, env);
}

/// `-p /model` or `-p /effort`: the selected model (`{id, label, effort, is_default}`,
/// response `id<TAB>label`) or its effort (`{adjustable, current, available}`, response
/// the current tier), recorded on 1.1.18 (`gb-1.1.18-model-slash`), 1.2.7
/// (`jd-1.2.7-model-command-result`) and 1.3.1 (`ut-1.3.1-model-stream-json`,
/// `ut-1.3.1-effort-stream-json`). Which model an account has selected is its
/// settings'; the fake reports `--model` when given, else the first of its catalogue
/// (`is_default` was `false` in every record).
pub fn setting(s: &mut Session, name: &str) {
    let models = catalogue(s.setup().calibration());
    let chosen = s
        .setup()
        .args()
        .model
        .as_deref()
        .and_then(|m| models.iter().find(|x| x.id == m || x.label == m))
        .or(models.first());
    let Some(m) = chosen else { return };
    let tier = ["high", "medium", "low"]
        .into_iter()
        .find(|t| m.id.ends_with(&format!("-{t}")))
        .unwrap_or("high");
    let (response, data) = if name == "effort" {
        (
            format!("{tier}\n"),
            json!({ "adjustable": true, "current": tier, "available": ["low", "medium", "high"] }),
        )
    } else {
        (
            format!("{}\t{}\n", m.id, m.label),
            json!({ "id": m.id, "label": m.label, "effort": tier, "is_default": false }),
        )
    };
    let env = Envelope {
        response,
        command: Some(json!({ "name": name, "data": data })),
        ..Envelope::empty("", Status::Success)
    };
    write_command(s, env);
}

/// A command's envelope: the JSON envelope, or in stream-json a `command_result` event
/// with the same `command` and then the `result` (`gb-1.1.18-models-stream-json`,
/// `ut-1.3.1-usage-stream-json`).
fn write_command(s: &mut Session, env: Envelope) {
    if !s.is_stream() {
        s.out().stdout(env.to_line().as_bytes());
        return;
    }
    if let Some(command) = &env.command {
        let event = StreamEvent::Other(
            [
                ("event".to_string(), json!("command_result")),
                ("command".to_string(), command.clone()),
            ]
            .into_iter()
            .collect(),
        );
        s.out().stdout(event.to_line().as_bytes());
    }
    s.out()
        .stdout(StreamEvent::Result(env).to_line().as_bytes());
}
