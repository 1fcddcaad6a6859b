//! Reads a bug report as people paste it: agy's JSON envelope (one line or pretty
//! printed), stream-json events, the user lines sent on stdin, stderr lines, journal
//! records of a kept sandbox, and prose whose hints ([`crate::repro::hint`]) fill in the argv,
//! the version, the exit code and the brain folder. Every problem is reported at once,
//! located at `file:line:col` of the paste.

use crate::profile::repro_kit::evidence::{Evidence, ImageEvidence, Invocation, Item, ItemKind};
use crate::repro::hint::{read_hints, Hint};
use crate::repro::recorded::{journal_invocation, trace_evidence};
use agy_protocol::diag::{Diagnostic, Diagnostics, SourceFile};
use agy_protocol::journal::JournalRecord;
use agy_protocol::stream::UserLine;
use agy_protocol::trace::Trace;
use serde_json::{Map, Value};

/// The largest paste read (a report is text a person pasted; a record folder's traces
/// are read one file at a time under the same cap).
pub const MAX_PASTE_BYTES: u64 = 16 * 1024 * 1024;

/// What a line is labelled as by the person who pasted it (`stderr: …`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    None,
    Stdin,
    Stdout,
    Stderr,
}

/// The reader's state while it walks the paste.
struct Reader<'a> {
    src: &'a SourceFile,
    evidence: Evidence,
    current: Invocation,
    diags: Diagnostics,
    brain_files: Vec<String>,
}

/// Reads a paste; `Err` lists every problem found.
pub fn read_paste(src: &SourceFile) -> Result<Evidence, Diagnostics> {
    let text = src.text();
    if text.trim_start().starts_with("{\"trace\"") {
        return Trace::parse(src.path(), text).map(|t| trace_evidence(src.path(), &[t]));
    }
    let mut r = Reader {
        src,
        evidence: Evidence {
            source: src.path().to_string(),
            ..Evidence::default()
        },
        current: Invocation::default(),
        diags: Diagnostics::new(),
        brain_files: Vec::new(),
    };
    let mut pos = 0;
    while pos < text.len() {
        pos = r.line_at(pos);
    }
    r.finish_invocation();
    if r.evidence.invocations.is_empty() {
        r.diags.push(
            Diagnostic::at_line(src.path(), 1, 1, "the paste shows nothing agy did")
                .with_hint("paste agy's stdout (the JSON envelope or stream-json lines), its stderr, or a `$ agy …` line with `exit status N`"),
        );
    }
    let Reader {
        evidence,
        mut diags,
        ..
    } = r;
    diags.sort();
    diags.into_result(evidence)
}

/// End of the line starting at `pos` (the index of its `\n`, or the text's end).
fn line_end(text: &str, pos: usize) -> usize {
    text[pos..].find('\n').map_or(text.len(), |i| pos + i)
}

/// Strips a label such as `stderr:` or a Markdown quote; returns the label and the body
/// offset.
fn label(line: &str) -> (Label, usize) {
    let trimmed = line.trim_start();
    let mut at = line.len() - trimmed.len();
    let mut rest = trimmed;
    if let Some(r) = rest.strip_prefix("> ") {
        at += 2;
        rest = r;
    }
    for (word, l) in [
        ("stdin:", Label::Stdin),
        ("stdout:", Label::Stdout),
        ("stderr:", Label::Stderr),
    ] {
        let head = rest.get(..word.len());
        if head.is_some_and(|h| h.eq_ignore_ascii_case(word)) {
            let body = &rest[word.len()..];
            let skipped = body.len() - body.trim_start().len();
            return (l, at + word.len() + skipped);
        }
    }
    (Label::None, at)
}

/// agy's own stderr: notices, errors, Go panics.
fn looks_like_stderr(body: &str) -> bool {
    const STARTS: [&str; 9] = [
        "[agy]",
        "error:",
        "Error:",
        "AGY_ERROR:",
        "warning:",
        "Warning:",
        "panic:",
        "fatal error:",
        "goroutine ",
    ];
    STARTS.iter().any(|s| body.starts_with(s))
}

impl Reader<'_> {
    /// Reads the line (or the JSON value) starting at `pos`; returns where the next
    /// one starts.
    fn line_at(&mut self, pos: usize) -> usize {
        let text = self.src.text();
        let end = line_end(text, pos);
        let line = text[pos..end].trim_end_matches('\r');
        let (label, body_at) = label(line);
        let body = &line[body_at..];
        let next = (end + 1).min(text.len().max(end + 1));
        if body.trim().is_empty() || body.starts_with("```") {
            return next;
        }
        if body.starts_with('{') {
            return self.json_at(pos + body_at, label);
        }
        let n = self.line_no(pos);
        match label {
            Label::Stderr => self.push(n, ItemKind::Stderr(body.to_string())),
            Label::Stdin => self.push(n, ItemKind::Stdin(body.to_string())),
            Label::Stdout => self.push(n, ItemKind::Stdout(body.to_string())),
            Label::None if looks_like_stderr(body) => {
                self.push(n, ItemKind::Stderr(body.to_string()))
            }
            Label::None => self.prose(pos, line),
        }
        next
    }

    fn line_no(&self, pos: usize) -> usize {
        self.src.location(pos).0
    }

    fn push(&mut self, line: usize, kind: ItemKind) {
        self.current.items.push(Item {
            line,
            delay_ms: None,
            kind,
        });
    }

    /// One JSON value starting at `at` (it may span lines: a pretty-printed envelope).
    fn json_at(&mut self, at: usize, label: Label) -> usize {
        let text = self.src.text();
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(value)) => {
                let consumed = at + values.byte_offset();
                let n = self.line_no(at);
                self.json_value(at, n, value, label);
                let end = line_end(text, consumed);
                if !text[consumed..end].trim().is_empty() {
                    self.diags.push(
                        Diagnostic::at(
                            self.src,
                            consumed,
                            "text after the JSON value on the same line",
                        )
                        .with_hint(
                            "put each JSON line of agy's output on its own line, as agy prints it",
                        ),
                    );
                }
                (end + 1).min(text.len())
            }
            Some(Err(e)) => {
                let offset = error_offset(&text[at..], &e) + at;
                self.diags.push(
                    Diagnostic::at(self.src, offset.min(text.len()), format!("malformed JSON: {}", without_location(&e)))
                        .with_hint("paste agy's output lines unchanged; a line cut short or edited by hand does not parse"),
                );
                (line_end(text, at) + 1).min(text.len())
            }
            None => text.len(),
        }
    }

    fn json_value(&mut self, at: usize, n: usize, value: Value, label: Label) {
        let Value::Object(obj) = value else {
            return self.diags.push(
                Diagnostic::at(self.src, at, "a JSON value that is not an object")
                    .with_hint("agy prints one JSON object per line"),
            );
        };
        if obj.get("event").and_then(Value::as_str) == Some("user") || label == Label::Stdin {
            return self.user_line(at, n, obj);
        }
        if obj.contains_key("event") || is_envelope(&obj) {
            let line = serde_json::to_string(&obj).unwrap_or_default();
            return self.push(n, ItemKind::Stdout(line));
        }
        if obj.contains_key("pid") && obj.contains_key("argv") {
            return match serde_json::from_value::<JournalRecord>(Value::Object(obj)) {
                Ok(record) => {
                    self.finish_invocation();
                    self.current = journal_invocation(&record, n);
                    self.finish_invocation();
                }
                Err(e) => self.diags.push(
                    Diagnostic::at(
                        self.src,
                        at,
                        format!("a journal record that does not read: {e}"),
                    )
                    .with_hint("paste the kept sandbox's journal.jsonl lines unchanged"),
                ),
            };
        }
        let (message, hint) = if obj.contains_key("jsonrpc") {
            (
                "an ACP JSON-RPC message among agy's output",
                "paste an ACP transcript on its own: repro reads it as an `acp` report (docs/reproduce-a-bug.md)",
            )
        } else if obj.contains_key("invocation") || obj.contains_key("t") {
            (
                "a trace line without the trace's header line",
                "a trace starts with its `{\"trace\":1,…}` header (docs/trace-format.md); paste the whole file",
            )
        } else {
            (
                "a JSON object agy does not print (no `event`, no `status`)",
                "paste agy's stdout: the `--output-format json` envelope or the stream-json lines",
            )
        };
        self.diags
            .push(Diagnostic::at(self.src, at, message).with_hint(hint));
    }

    fn user_line(&mut self, at: usize, n: usize, obj: Map<String, Value>) {
        match serde_json::from_value::<UserLine>(Value::Object(obj)) {
            Ok(u) => self.push(n, ItemKind::Stdin(u.message.content.text())),
            Err(e) => self.diags.push(
                Diagnostic::at(self.src, at, format!("a stdin user line that does not read: {e}"))
                    .with_hint("a stream-json stdin line is `{\"event\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"…\"}}`"),
            ),
        }
    }

    /// A prose line: hints, or nothing.
    fn prose(&mut self, pos: usize, line: &str) {
        let hints = match read_hints(line) {
            Ok(h) => h,
            Err(e) => {
                return self.diags.push(
                    Diagnostic::at(self.src, pos + e.column - 1, e.message).with_hint(e.hint),
                )
            }
        };
        let n = self.line_no(pos);
        for h in hints {
            match h {
                Hint::Argv(argv) => {
                    // Prose before the first command line speaks of that command.
                    if self.current.argv.is_some() || !self.current.items.is_empty() {
                        self.finish_invocation();
                    }
                    self.current.argv = Some(argv);
                }
                Hint::Version(v) => self.evidence.version = Some((v, format!("line {n}"))),
                Hint::Exit(code) => self.current.exit = Some(code),
                Hint::Images(count) => {
                    self.current.images = Some(ImageEvidence {
                        count: count.max(self.brain_files.len()),
                        size: None,
                    })
                }
                Hint::BrainFile(f) => {
                    if !self.brain_files.contains(&f) {
                        self.brain_files.push(f);
                    }
                    let said = self.current.images.map_or(0, |i| i.count);
                    self.current.images = Some(ImageEvidence {
                        count: said.max(self.brain_files.len()),
                        size: None,
                    });
                }
                Hint::Hangs => self.current.hangs = true,
                Hint::IgnoresSigterm => self.current.ignores_sigterm = true,
            }
        }
    }

    fn finish_invocation(&mut self) {
        let inv = std::mem::take(&mut self.current);
        self.brain_files.clear();
        if !inv.is_empty() {
            self.evidence.invocations.push(inv);
        }
    }
}

/// An agy result: the `--output-format json` envelope.
fn is_envelope(obj: &Map<String, Value>) -> bool {
    obj.contains_key("status")
        && (obj.contains_key("response") || obj.contains_key("conversation_id"))
}

/// The byte offset in `text` of serde_json's error position (1-based line and column;
/// column 0 is the newline ending the line before).
pub(crate) fn error_offset(text: &str, e: &serde_json::Error) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if e.column() == 0 && i + 2 == e.line() {
            return offset + l.trim_end_matches('\n').len();
        }
        if i + 1 == e.line() {
            return offset + e.column().saturating_sub(1).min(l.len());
        }
        offset += l.len();
    }
    text.len()
}

/// serde_json's message without its " at line L column C": the diagnostic says where.
pub(crate) fn without_location(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Evidence, Diagnostics> {
        read_paste(&SourceFile::new("report.txt", text))
    }

    #[test]
    fn an_envelope_with_prose_gives_argv_version_exit_and_stderr() {
        let e = read(concat!(
            "I run agy 1.2.6 like this:\n",
            "$ agy -p 'a hexagon' --output-format json --print-timeout 60s\n",
            "[agy] print timeout after 60s with turn in progress; returning partial output\n",
            "{\"conversation_id\":\"c1\",\"status\":\"SUCCESS\",\"response\":\"\"}\n",
            "exit status 0\n",
        ))
        .expect("reads");
        assert_eq!(
            e.version.as_ref().map(|v| v.0.to_string()),
            Some("1.2.6".into())
        );
        let inv = &e.invocations[0];
        assert_eq!(inv.flag("-p"), Some("a hexagon"));
        assert_eq!(inv.exit, Some(0));
        assert_eq!(inv.counts(), (0, 1, 1));
        assert_eq!(inv.items[1].line, 4);
    }

    #[test]
    fn a_pretty_printed_envelope_is_one_stdout_line() {
        let e = read("{\n  \"status\": \"ERROR\",\n  \"response\": \"\"\n}\n").expect("reads");
        assert_eq!(
            e.invocations[0].items[0].kind,
            ItemKind::Stdout("{\"status\":\"ERROR\",\"response\":\"\"}".into())
        );
    }

    #[test]
    fn every_malformed_line_is_located_at_once() {
        let err = read(concat!(
            "{\"event\":\"init\"}\n",
            "{\"status\":\"SUCC\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1}\n",
            "$ agy -p 'unclosed\n",
        ))
        .expect_err("rejects");
        let at: Vec<(usize, usize)> = err.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(at, vec![(2, 16), (3, 1), (4, 3)], "{err}");
        assert!(err
            .iter()
            .all(|d| d.path == "report.txt" && d.hint.is_some()));
    }

    #[test]
    fn stdin_lines_and_labelled_lines_keep_their_kind() {
        let e = read(concat!(
            "{\"event\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"first\"}}\n",
            "stderr: something odd\n",
            "> stdin: second\n",
        ))
        .expect("reads");
        let kinds: Vec<&ItemKind> = e.invocations[0].items.iter().map(|i| &i.kind).collect();
        assert_eq!(
            kinds,
            [
                &ItemKind::Stdin("first".into()),
                &ItemKind::Stderr("something odd".into()),
                &ItemKind::Stdin("second".into())
            ]
        );
    }

    #[test]
    fn two_command_lines_make_two_invocations() {
        let e =
            read("$ agy --model a\n{\"event\":\"init\"}\n$ agy --model b\n{\"event\":\"init\"}\n")
                .expect("reads");
        assert_eq!(e.invocations.len(), 2);
        assert_eq!(e.invocations[1].flag("--model"), Some("b"));
    }

    /// Lines a report is made of, mixed freely: fragments of agy output, cut JSON,
    /// prose hints, labels.
    fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just("{\"event\":\"user\",\"message\":{\"content\":\"hi\"}}".to_string()),
            Just("{\"event\":\"result\",\"result\":{\"conversation_id\":\"c\",\"status\":\"SUCCESS\",\"response\":\"\",\"duration_seconds\":0,\"num_turns\":1,\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"thinking_tokens\":0,\"cache_read_tokens\":0,\"total_tokens\":0}}}".to_string()),
            Just("{\"event\":\"step_update\",\"step_update\":{\"conversation_id\":\"c\",\"step_index\":2,\"state\":\"DONE\",\"step_type\":\"agent_response\",\"text_delta\":\"x\"}}".to_string()),
            Just("{\"status\":\"ERROR\",\"response\":\"\",\"error\":\"authentication required\"}".to_string()),
            Just("{\n  \"status\": \"SUCCESS\",".to_string()),
            Just("}".to_string()),
            Just("$ agy -p 'a b' --output-format json".to_string()),
            Just("$ agy --input-format stream-json --output-format stream-json --model m".to_string()),
            Just("$ agy -p \"unclosed".to_string()),
            Just("[agy] print timeout after 1s".to_string()),
            Just("exit status 1".to_string()),
            Just("two images in brain/c/a.jpg brain/c/b.jpg".to_string()),
            Just("agy hangs and ignores SIGTERM".to_string()),
            Just("agy 1.2.6".to_string()),
            Just("stdin: hello".to_string()),
            Just("```".to_string()),
            "\\PC{0,40}",
        ]
    }

    proptest::proptest! {
        /// Whatever is pasted, reading it and turning it into a scenario never panics.
        #[test]
        fn arbitrary_pastes_never_panic_the_reader_or_converter(
            lines in proptest::collection::vec(fragment(), 0..24),
            raw in "\\PC{0,200}",
        ) {
            for text in [lines.join("\n"), raw] {
                if let Ok(e) = read(&text) {
                    if let Ok(built) = crate::repro::build::build_case(&e, &crate::repro::build::CaseOptions::default()) {
                        let plan = crate::repro::plan::plan(&built.case);
                        let out = crate::repro::render::render(&built.case, &plan, "x", &crate::repro::render::Provenance::default());
                        proptest::prop_assert!(out.contains("[scenario]"));
                    }
                }
            }
        }
    }

    #[test]
    fn an_empty_paste_says_what_to_paste() {
        let err = read("hello\n").expect_err("nothing");
        assert!(err.iter().next().and_then(|d| d.hint.clone()).is_some());
    }
}
