//! `traces/fidelity-baseline.toml`: the divergences from the capture corpus the project
//! accepts, each with its reason. Like expected failures, a listed divergence that
//! disappears fails the run until the baseline is updated.
//!
//! ```toml
//! [[divergence]]
//! capture = "pb-1.2.17-print-timeout"
//! what    = "sequence"
//! reason  = "fake-agy does not model this yet (agy 1.2.16–1.3.x behaviour)"
//! ```

use super::compare::Difference;
use agy_protocol::diag::{parse_whole_document, Diagnostic, Diagnostics, SourceFile, TableWalker};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT_KEYS: &[&str] = &["divergence"];
const ENTRY_KEYS: &[&str] = &["capture", "what", "reason"];
/// The largest baseline read.
const MAX_BASELINE_BYTES: u64 = 4 * 1024 * 1024;

/// One accepted divergence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The capture id.
    pub capture: String,
    /// The difference's name ([`Difference::what`]).
    pub what: String,
    /// Why it is accepted.
    pub reason: String,
}

/// The accepted divergences, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Baseline {
    /// Every `[[divergence]]`.
    pub divergences: Vec<Divergence>,
}

/// How a run compares with the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BaselineVerdict {
    /// Differences the baseline does not list: the score dropped.
    pub new: Vec<(String, Difference)>,
    /// Listed divergences the run no longer shows: update the baseline.
    pub gone: Vec<Divergence>,
}

impl BaselineVerdict {
    /// True when the run shows exactly the listed divergences.
    pub fn holds(&self) -> bool {
        self.new.is_empty() && self.gone.is_empty()
    }
}

impl Baseline {
    /// The reason a difference of `capture` is accepted, when it is.
    pub fn reason(&self, capture: &str, what: &str) -> Option<&str> {
        self.divergences
            .iter()
            .find(|d| d.capture == capture && d.what == what)
            .map(|d| d.reason.as_str())
    }

    /// Compares the differences found (capture id → differences, for every capture
    /// compared) with the listed ones; entries of captures not compared are ignored.
    pub fn judge(&self, found: &BTreeMap<String, Vec<Difference>>) -> BaselineVerdict {
        let mut verdict = BaselineVerdict::default();
        for (capture, diffs) in found {
            for d in diffs {
                if self.reason(capture, &d.what).is_none() {
                    verdict.new.push((capture.clone(), d.clone()));
                }
            }
        }
        for entry in &self.divergences {
            let Some(diffs) = found.get(&entry.capture) else {
                continue;
            };
            if !diffs.iter().any(|d| d.what == entry.what) {
                verdict.gone.push(entry.clone());
            }
        }
        verdict
    }
}

impl Baseline {
    /// A baseline listing exactly `found` (capture id → differences), in that order;
    /// a divergence this baseline lists keeps its reason, the others get `reason`.
    pub fn render_with(&self, found: &BTreeMap<String, Vec<Difference>>, reason: &str) -> String {
        let mut out = String::from(
            "# Divergences of fake-agy's default behaviour from the capture corpus that are\n\
             # accepted for now, each with its reason (docs/fidelity.md). `agy-harness fidelity`\n\
             # fails when a difference is not listed here, and when a listed one disappears.\n",
        );
        let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
        for (capture, diffs) in found {
            for d in diffs {
                let why = self.reason(capture, &d.what).unwrap_or(reason);
                out.push_str(&format!(
                    "\n[[divergence]]\ncapture = {}\nwhat    = {}\nreason  = {}\n",
                    quote(capture),
                    quote(&d.what),
                    quote(why)
                ));
            }
        }
        out
    }
}

/// Reads a baseline file; `known` are the corpus's capture ids (an entry naming another
/// capture is an error).
pub fn load_baseline(path: &Path, known: &BTreeSet<String>) -> Result<Baseline, Diagnostics> {
    let display = path.display().to_string();
    let text = read_bounded(path).map_err(|e| {
        Diagnostics(vec![Diagnostic::at_line(
            display.clone(),
            1,
            1,
            format!("failed to read the baseline: {e}"),
        )
        .with_hint("name an existing file with `--baseline FILE`")])
    })?;
    parse_baseline(&SourceFile::new(display, text), known)
}

fn read_bounded(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > MAX_BASELINE_BYTES {
        return Err(format!("larger than {MAX_BASELINE_BYTES} bytes"));
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

/// Parses a baseline with every problem located.
pub fn parse_baseline(src: &SourceFile, known: &BTreeSet<String>) -> Result<Baseline, Diagnostics> {
    parse_whole_document(src, "the baseline", &|src, value, what, diags| {
        let Some(mut root) = TableWalker::from_value(src, value, what, diags) else {
            return Baseline::default();
        };
        let values = root.elements("divergence", diags);
        root.finish(ROOT_KEYS, diags);
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut divergences = Vec::new();
        for (i, v) in values.into_iter().enumerate() {
            let Some(mut w) =
                TableWalker::from_value(src, v, format!("divergence {}", i + 1), diags)
            else {
                continue;
            };
            let capture: Option<String> =
                w.required("capture", "the capture id, as in corpus.toml", diags);
            let what_: Option<String> = w.required(
                "what",
                "the difference's name as the report prints it, e.g. `sequence`",
                diags,
            );
            let reason: Option<String> =
                w.required("reason", "say why the divergence is accepted", diags);
            let at = v.span().start;
            w.finish(ENTRY_KEYS, diags);
            let (Some(capture), Some(what_), Some(reason)) = (capture, what_, reason) else {
                continue;
            };
            if !known.contains(&capture) {
                diags.push(
                    Diagnostic::at(src, at, format!("divergence {} names capture `{capture}`, which the corpus does not list", i + 1))
                        .with_hint("remove the entry or fix the id (see corpus.toml)"),
                );
            }
            if reason.trim().is_empty() {
                diags.push(
                    Diagnostic::at(src, at, format!("divergence {} gives no reason", i + 1))
                        .with_hint("say why the divergence is accepted"),
                );
            }
            if !seen.insert((capture.clone(), what_.clone())) {
                diags.push(
                    Diagnostic::at(
                        src,
                        at,
                        format!("divergence {} repeats `{what_}` of `{capture}`", i + 1),
                    )
                    .with_hint("list each difference once"),
                );
            }
            divergences.push(Divergence {
                capture,
                what: what_,
                reason,
            });
        }
        Baseline { divergences }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn known() -> BTreeSet<String> {
        BTreeSet::from(["a".to_string(), "b".to_string()])
    }

    fn parse(text: &str) -> Result<Baseline, Diagnostics> {
        parse_baseline(&SourceFile::new("baseline.toml", text), &known())
    }

    fn d(what: &str) -> Difference {
        Difference {
            what: what.into(),
            expected: "x".into(),
            observed: "y".into(),
        }
    }

    #[test]
    fn unknown_captures_repeats_and_keys_are_all_reported() {
        let err = parse("[[divergence]]\ncapture = \"zz\"\nwhat = \"exit\"\nreason = \"r\"\n[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\nreason = \"r\"\n[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\nreasn = \"r\"\n")
            .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![1, 9, 12], "{err}");
    }

    #[test]
    fn a_new_difference_and_a_vanished_one_both_break_the_baseline() {
        let b = parse("[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\nreason = \"r\"\n[[divergence]]\ncapture = \"b\"\nwhat = \"sequence\"\nreason = \"r\"\n")
            .expect("parses");
        let found = BTreeMap::from([
            ("a".to_string(), vec![d("exit"), d("stderr")]),
            ("b".to_string(), vec![]),
        ]);
        let v = b.judge(&found);
        assert_eq!(
            v.new
                .iter()
                .map(|(c, d)| format!("{c} {}", d.what))
                .collect::<Vec<_>>(),
            vec!["a stderr"]
        );
        assert_eq!(v.gone.len(), 1);
        assert_eq!(v.gone[0].capture, "b");
        assert!(!v.holds());
        let exact = BTreeMap::from([
            ("a".to_string(), vec![d("exit")]),
            ("b".to_string(), vec![d("sequence")]),
        ]);
        assert!(b.judge(&exact).holds());
        // Entries of captures not compared in this run are not judged.
        assert!(b
            .judge(&BTreeMap::from([("a".to_string(), vec![d("exit")])]))
            .holds());
    }

    #[test]
    fn a_written_baseline_reads_back_and_holds_for_what_it_was_written_from() {
        let old = parse("[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\nreason = \"kept\"\n")
            .expect("parses");
        let found = BTreeMap::from([
            ("a".to_string(), vec![d("exit"), d("keys \"x\"")]),
            ("b".to_string(), vec![]),
        ]);
        let text = old.render_with(&found, "new reason");
        let back = parse(&text).expect("parses");
        assert!(back.judge(&found).holds());
        assert_eq!(back.reason("a", "exit"), Some("kept"));
        assert_eq!(back.reason("a", "keys \"x\""), Some("new reason"));
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }
    }
}
