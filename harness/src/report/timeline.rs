//! A scenario's timeline for reports: each driver request and reply, each agy
//! invocation's start, stdin lines, signals and end, and each ACP message fake-agy-acp
//! journaled, in time order, built from the [`Observation`]. Every text is cut to a bound, and a delivered image is read at most
//! once, up to [`IMAGE_INLINE_MAX`] bytes, so a report stays small whatever an adapter
//! or a script produced.

use crate::observation::Observation;
use agy_protocol::acp::AcpJournalEntry;
use agy_protocol::journal::JournalRecord;
use base64::Engine;
use serde::Serialize;
use std::path::Path;

/// Images larger than this are named in reports, not inlined.
pub const IMAGE_INLINE_MAX: u64 = 2 * 1024 * 1024;

/// Texts (argv, stdin lines, replies) longer than this many characters are cut.
const DETAIL_MAX_CHARS: usize = crate::data_text::TEXT_MAX_CHARS;

/// How much of what an agy process printed an exit entry quotes, per stream.
const EXCERPT_CHARS: usize = 400;

/// A timeline keeps its first this many entries; a note says how many more there were.
const ENTRIES_MAX: usize = 2000;

/// What a timeline entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineEvent {
    /// The harness sent the driver a request.
    Request,
    /// The driver replied (or did not: the detail says why).
    Reply,
    /// An agy process started (the detail is its argv).
    Start,
    /// A line agy read on stdin.
    Stdin,
    /// agy's stdin was closed.
    StdinClosed,
    /// agy got a signal.
    Signal,
    /// agy ended.
    Exit,
    /// fake-agy-acp's journal: an ACP message to or from the agent, or its lifecycle.
    Acp,
    /// The timeline was cut here ([`build_timeline`] keeps a bounded number of entries).
    Truncated,
}

impl TimelineEvent {
    /// A short word for reports.
    pub fn word(self) -> &'static str {
        match self {
            TimelineEvent::Request => "request",
            TimelineEvent::Reply => "reply",
            TimelineEvent::Start => "start",
            TimelineEvent::Stdin => "stdin",
            TimelineEvent::StdinClosed => "stdin closed",
            TimelineEvent::Signal => "signal",
            TimelineEvent::Exit => "exit",
            TimelineEvent::Acp => "acp",
            TimelineEvent::Truncated => "left out",
        }
    }
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimelineEntry {
    /// Microseconds since the scenario's first event.
    pub at_us: u64,
    /// Who: `driver op 2`, `agy invocation 1 (pid 4242)`.
    pub actor: String,
    /// What.
    pub event: TimelineEvent,
    /// The request or reply as JSON, the argv, the stdin line, the signal, the exit.
    pub detail: String,
    /// The image a reply delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<DeliveredImage>,
}

/// An image a reply named in `result.image`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeliveredImage {
    /// The path as the reply gave it.
    pub path: String,
    /// Its size, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A `data:` URI of the file, for HTML reports (never in JSON).
    #[serde(skip)]
    pub data_uri: Option<String>,
    /// Why it is not inlined (missing, too large, not JPEG or PNG).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_inlined: Option<String>,
}

/// The timeline of `obs`: `requests[i]` is op `i + 1`'s request as JSON text; relative
/// image paths are read under `work_dir`.
pub fn build_timeline(
    obs: &Observation,
    requests: &[String],
    work_dir: &Path,
) -> Vec<TimelineEntry> {
    let mut out = Vec::new();
    for o in &obs.ops {
        let actor = format!("driver op {} `{}`", o.index, o.name);
        let request = requests.get(o.index.wrapping_sub(1)).cloned();
        out.push(entry(
            o.sent_us,
            &actor,
            TimelineEvent::Request,
            request.unwrap_or_default(),
        ));
        let (detail, image) = match &o.reply {
            Ok(r) => (
                serde_json::to_string(r).unwrap_or_else(|e| e.to_string()),
                r.result
                    .image
                    .as_deref()
                    .map(|p| delivered_image(p, work_dir)),
            ),
            Err(e) => (format!("no reply: {e}"), None),
        };
        let mut reply = entry(o.replied_us, &actor, TimelineEvent::Reply, detail);
        reply.image = image;
        out.push(reply);
    }
    for r in &obs.journal {
        out.extend(invocation_entries(r, obs.ended_us.get(&r.pid).copied()));
    }
    out.extend(obs.acp_journal.iter().map(acp_entry));
    out.sort_by_key(|e| e.at_us);
    let first = out.first().map(|e| e.at_us).unwrap_or_default();
    for e in &mut out {
        e.at_us = e.at_us.saturating_sub(first);
    }
    if out.len() > ENTRIES_MAX {
        let left_out = out.len() - ENTRIES_MAX;
        out.truncate(ENTRIES_MAX);
        let at = out.last().map(|e| e.at_us).unwrap_or_default();
        let note = format!("{left_out} later event(s) left out of the report");
        out.push(entry(at, "report", TimelineEvent::Truncated, note));
    }
    out
}

fn entry(at_us: u64, actor: &str, event: TimelineEvent, detail: String) -> TimelineEntry {
    TimelineEntry {
        at_us,
        actor: actor.to_string(),
        event,
        detail: bounded(detail),
        image: None,
    }
}

/// One agy process: its start, stdin lines, signals and end.
fn invocation_entries(r: &JournalRecord, seen_ended_us: Option<u64>) -> Vec<TimelineEntry> {
    let actor = format!("agy invocation {} (pid {})", r.invocation, r.pid);
    let mut out = vec![entry(
        r.started_us,
        &actor,
        TimelineEvent::Start,
        shell_words(&r.argv),
    )];
    for l in &r.stdin.lines {
        out.push(entry(l.at_us, &actor, TimelineEvent::Stdin, l.text.clone()));
    }
    if let Some(at) = r.stdin.closed_us {
        let detail = format!("{} B read", r.stdin.bytes);
        out.push(entry(at, &actor, TimelineEvent::StdinClosed, detail));
    }
    for s in &r.signals {
        out.push(entry(
            s.at_us,
            &actor,
            TimelineEvent::Signal,
            s.signal.clone(),
        ));
    }
    let end = match &r.exit {
        Some(x) => match (x.code, &x.signal) {
            (Some(c), _) => format!("exit {c}"),
            (None, Some(sig)) => format!("died by {sig}"),
            _ => "ended".to_string(),
        },
        None => "no final record (killed, or still running at the end)".to_string(),
    };
    let mut detail = format!(
        "{end}; stdout {} B, stderr {} B",
        r.stdout_bytes, r.stderr_bytes
    );
    for (stream, head) in [("stdout", &r.stdout_head), ("stderr", &r.stderr_head)] {
        if !head.is_empty() {
            let quoted = crate::data_text::excerpt(head, EXCERPT_CHARS);
            detail.push_str(&format!("; {stream}: {quoted}"));
        }
    }
    if let Some(at) = r.ended_us.or(seen_ended_us) {
        out.push(entry(at, &actor, TimelineEvent::Exit, detail));
    }
    out
}

/// One entry of fake-agy-acp's journal: `in session/prompt: {…}`, `event exit: …`.
fn acp_entry(e: &AcpJournalEntry) -> TimelineEntry {
    let what = e.method.clone().unwrap_or_else(|| word_of(&e.kind));
    let body = (e.message.as_ref())
        .map(|m| m.to_string())
        .or_else(|| e.text.clone())
        .unwrap_or_default();
    let detail = format!("{} {what}: {body}", word_of(&e.dir));
    entry(
        e.at_us,
        &format!("ACP agent (pid {})", e.pid),
        TimelineEvent::Acp,
        detail,
    )
}

/// The snake_case name serde gives a unit variant.
fn word_of(v: &impl Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// argv as one shell line (shlex quoting; argv with a NUL byte is shown as a list).
fn shell_words(argv: &[String]) -> String {
    shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_else(|_| format!("{argv:?}"))
}

/// `text`, cut after [`DETAIL_MAX_CHARS`] characters with a note of how much is left out.
fn bounded(text: String) -> String {
    crate::data_text::cut(&text, DETAIL_MAX_CHARS).into_owned()
}

/// The image at `path` (relative to `work_dir`), inlined when small and JPEG or PNG.
fn delivered_image(path: &str, work_dir: &Path) -> DeliveredImage {
    let full = work_dir.join(path);
    let mut image = DeliveredImage {
        path: path.to_string(),
        bytes: None,
        data_uri: None,
        not_inlined: None,
    };
    let size = match std::fs::metadata(&full) {
        Ok(m) => m.len(),
        Err(e) => {
            image.not_inlined = Some(format!("not readable: {e}"));
            return image;
        }
    };
    image.bytes = Some(size);
    if size > IMAGE_INLINE_MAX {
        image.not_inlined = Some(format!(
            "{size} B, over the {IMAGE_INLINE_MAX} B inlined in reports"
        ));
        return image;
    }
    match agy_protocol::file::read_bytes_bounded(&full, IMAGE_INLINE_MAX) {
        Ok(bytes) => match agy_protocol::image::sniff_format(&bytes) {
            Some(f) => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
                image.data_uri = Some(format!("data:image/{};base64,{b64}", f.name()));
            }
            None => image.not_inlined = Some("neither JPEG nor PNG".to_string()),
        },
        Err(e) => image.not_inlined = Some(format!("not readable: {e}")),
    }
    image
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::test_record as record;

    #[test]
    fn events_are_in_time_order_from_the_first() {
        let obs = Observation {
            journal: vec![
                record(2, 11, &["agy", "-p", "second"], 500, Some(900)),
                record(1, 10, &["agy", "-p", "a red fox"], 100, Some(300)),
            ],
            ..Observation::default()
        };
        let t = build_timeline(&obs, &[], Path::new("."));
        let at: Vec<u64> = t.iter().map(|e| e.at_us).collect();
        let mut sorted = at.clone();
        sorted.sort_unstable();
        assert_eq!(at, sorted);
        assert_eq!(at[0], 0);
        assert_eq!(t[0].detail, "agy -p 'a red fox'");
        assert!(t.iter().any(|e| e.event == TimelineEvent::Exit), "{t:?}");
    }

    #[test]
    fn acp_messages_name_their_direction_and_method() {
        let obs = Observation {
            acp_journal: vec![AcpJournalEntry {
                v: agy_protocol::acp::ACP_JOURNAL_VERSION,
                pid: 77,
                seq: 0,
                at_us: 10,
                dir: agy_protocol::acp::AcpDirection::In,
                kind: agy_protocol::acp::AcpKind::Request,
                method: Some("session/load".into()),
                id: None,
                session_id: None,
                update: None,
                message: Some(serde_json::json!({"method": "session/load"})),
                text: None,
            }],
            ..Observation::default()
        };
        let t = build_timeline(&obs, &[], Path::new("."));
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].actor, "ACP agent (pid 77)");
        assert_eq!(t[0].detail, r#"in session/load: {"method":"session/load"}"#);
    }

    #[test]
    fn a_long_timeline_keeps_its_start_and_says_how_much_is_left_out() {
        let mut r = record(1, 10, &["agy"], 0, Some(1_000_000));
        r.stdin.lines = (0..ENTRIES_MAX as u64 + 5)
            .map(|i| agy_protocol::journal::StdinLine {
                at_us: i + 1,
                text: format!("line {i}"),
                rule: None,
            })
            .collect();
        let obs = Observation {
            journal: vec![r],
            ..Observation::default()
        };
        let t = build_timeline(&obs, &[], Path::new("."));
        assert_eq!(t.len(), ENTRIES_MAX + 1);
        let last = t.last().unwrap();
        assert_eq!(last.event, TimelineEvent::Truncated);
        // start + ENTRIES_MAX + 5 lines + exit, of which ENTRIES_MAX are kept.
        assert_eq!(last.detail, "7 later event(s) left out of the report");
    }

    #[test]
    fn long_texts_are_cut_and_say_how_much() {
        let cut = bounded("é".repeat(DETAIL_MAX_CHARS + 10));
        assert!(cut.ends_with("… (20 more bytes)"), "{cut}");
    }

    #[test]
    fn an_image_over_the_bound_is_named_not_inlined() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.png");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(IMAGE_INLINE_MAX + 1).unwrap();
        let image = delivered_image("big.png", dir.path());
        assert!(image.data_uri.is_none());
        assert!(image.not_inlined.unwrap().contains("over the"));
        let small = dir.path().join("small.png");
        std::fs::write(&small, b"\x89PNG\r\n\x1a\nrest").unwrap();
        let image = delivered_image("small.png", dir.path());
        assert!(image
            .data_uri
            .unwrap()
            .starts_with("data:image/png;base64,"));
    }

    /// A reply naming a FIFO blocked the report for ever (the open waited for a writer).
    #[test]
    fn an_image_that_is_no_regular_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.jpg");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        for path in ["out.jpg", "/dev/zero", "."] {
            let image = delivered_image(path, dir.path());
            assert!(image.data_uri.is_none(), "{path}");
            let why = image.not_inlined.unwrap_or_default();
            assert!(why.contains("not a regular file"), "{path}: {why}");
        }
    }
}
