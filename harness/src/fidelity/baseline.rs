//! `traces/fidelity-baseline.toml`: what the project accepts of the measure's verdicts,
//! each with its reason. The counts of captures compared, the same and skipped; every
//! capture the measure skips; every divergence, keyed by a digest of what the capture
//! shows and what fake-agy did, so that a new difference inside an accepted one is new.
//! Like expected failures, a listed entry that disappears fails the run until the
//! baseline is rewritten (`agy-harness fidelity --write-baseline FILE --reason TEXT`).
//!
//! ```toml
//! [counts]
//! compared = 155
//! same     = 120
//! skipped  = 9
//! reason   = "the measure compares value types"
//!
//! [[skip]]
//! capture = "dm-1.1.27-ok-turn"
//! reason  = "argv unknown: upstream kept the line, not the command"
//!
//! [[divergence]]
//! capture = "pb-1.2.17-print-timeout"
//! what    = "sequence"
//! digest  = "3f2a9c1b7d4e"
//! reason  = "not modelled: agy 1.2.16–1.3.x behaviour"
//! ```

use super::compare::Difference;
use agy_protocol::capture::sha256_hex;
use agy_protocol::diag::{parse_whole_document, Diagnostic, Diagnostics, SourceFile, TableWalker};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const ROOT_KEYS: &[&str] = &["counts", "skip", "divergence"];
const ENTRY_KEYS: &[&str] = &["capture", "what", "digest", "reason"];
const SKIP_KEYS: &[&str] = &["capture", "reason"];
const COUNT_KEYS: &[&str] = &["compared", "same", "skipped", "reason"];
/// The largest baseline read.
const MAX_BASELINE_BYTES: u64 = 4 * 1024 * 1024;
/// Hex digits of a divergence's digest.
const DIGEST_LEN: usize = 12;

/// One accepted divergence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The capture id.
    pub capture: String,
    /// The difference's name ([`Difference::what`]).
    pub what: String,
    /// [`digest`] of the difference as accepted.
    pub digest: String,
    /// Why it is accepted.
    pub reason: String,
}

/// A capture the measure does not compare, and why that is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// The capture id.
    pub capture: String,
    /// Why.
    pub reason: String,
}

/// The committed counts of a run over the whole corpus.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Counts {
    /// Captures compared.
    pub compared: usize,
    /// Captures with no difference.
    pub same: usize,
    /// Captures not compared.
    pub skipped: usize,
    /// Why the counts are what they are (the last change).
    pub reason: String,
}

impl Counts {
    fn numbers(&self) -> (usize, usize, usize) {
        (self.compared, self.same, self.skipped)
    }

    fn describe(&self) -> String {
        format!(
            "compared {}, same {}, skipped {}",
            self.compared, self.same, self.skipped
        )
    }
}

/// The accepted verdicts, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Baseline {
    /// `[counts]`; judged on runs over the whole corpus.
    pub counts: Option<Counts>,
    /// Every `[[skip]]`.
    pub skips: Vec<Skip>,
    /// Every `[[divergence]]`.
    pub divergences: Vec<Divergence>,
}

/// What one run found: per capture compared its differences, per capture skipped the
/// measure's reason, and the counts when the whole corpus ran.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// Capture id → differences, for every capture compared.
    pub compared: BTreeMap<String, Vec<Difference>>,
    /// Capture id → why the measure skipped it.
    pub skipped: BTreeMap<String, String>,
    /// The run covered the whole corpus (its counts are judged).
    pub whole: bool,
}

impl Found {
    /// The run's counts.
    pub fn counts(&self) -> Counts {
        Counts {
            compared: self.compared.len(),
            same: self.compared.values().filter(|d| d.is_empty()).count(),
            skipped: self.skipped.len(),
            reason: String::new(),
        }
    }
}

/// How a run compares with the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BaselineVerdict {
    /// Differences the baseline does not list (by digest): the score dropped.
    pub new: Vec<(String, Difference)>,
    /// Listed divergences the run no longer shows: update the baseline.
    pub gone: Vec<Divergence>,
    /// Captures skipped without a `[[skip]]` entry (id, the measure's reason).
    pub unexplained_skips: Vec<(String, String)>,
    /// `[[skip]]` entries of captures the run compared.
    pub stale_skips: Vec<Skip>,
    /// The committed counts and the run's, when they differ (or none are committed).
    pub counts_moved: Option<String>,
}

impl BaselineVerdict {
    /// True when the run shows exactly what the baseline lists.
    pub fn holds(&self) -> bool {
        self.new.is_empty()
            && self.gone.is_empty()
            && self.unexplained_skips.is_empty()
            && self.stale_skips.is_empty()
            && self.counts_moved.is_none()
    }
}

/// The digest of a difference: the first hex digits of the SHA-256 of its name, what
/// the capture shows and what fake-agy did, so that any change of either side is a new
/// difference.
pub fn digest(d: &Difference) -> String {
    let mut bytes = Vec::new();
    for part in [&d.what, &d.expected, &d.observed] {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    sha256_hex(&bytes)[..DIGEST_LEN].to_string()
}

impl Baseline {
    /// The reason a difference of `capture` is accepted, when it is (by its digest).
    pub fn reason(&self, capture: &str, d: &Difference) -> Option<&str> {
        let key = digest(d);
        self.divergences
            .iter()
            .find(|e| e.capture == capture && e.what == d.what && e.digest == key)
            .map(|e| e.reason.as_str())
    }

    /// The reason a capture's skip is accepted, when it is.
    pub fn skip_reason(&self, capture: &str) -> Option<&str> {
        self.skips
            .iter()
            .find(|s| s.capture == capture)
            .map(|s| s.reason.as_str())
    }

    /// Compares what a run found with what is listed; entries of captures the run did
    /// not reach are not judged, the counts only when it covered the whole corpus.
    pub fn judge(&self, found: &Found) -> BaselineVerdict {
        let mut verdict = BaselineVerdict::default();
        for (capture, diffs) in &found.compared {
            for d in diffs {
                if self.reason(capture, d).is_none() {
                    verdict.new.push((capture.clone(), d.clone()));
                }
            }
        }
        for entry in &self.divergences {
            let Some(diffs) = found.compared.get(&entry.capture) else {
                continue;
            };
            if !diffs
                .iter()
                .any(|d| d.what == entry.what && digest(d) == entry.digest)
            {
                verdict.gone.push(entry.clone());
            }
        }
        for (capture, why) in &found.skipped {
            if self.skip_reason(capture).is_none() {
                verdict
                    .unexplained_skips
                    .push((capture.clone(), why.clone()));
            }
        }
        for skip in &self.skips {
            if found.compared.contains_key(&skip.capture) {
                verdict.stale_skips.push(skip.clone());
            }
        }
        if found.whole {
            let run = found.counts();
            verdict.counts_moved = match &self.counts {
                None => Some(format!(
                    "the baseline commits no counts; the run: {}",
                    run.describe()
                )),
                Some(c) if c.numbers() != run.numbers() => Some(format!(
                    "committed: {}; the run: {}",
                    c.describe(),
                    run.describe()
                )),
                Some(_) => None,
            };
        }
        verdict
    }

    /// A baseline listing exactly what `found` shows; an entry this baseline lists keeps
    /// its reason, the others (and counts that moved) get `reason`.
    pub fn render_with(&self, found: &Found, reason: &str) -> String {
        let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut out = String::from(
            "# What fake-agy's default behaviour is accepted to do unlike the capture corpus,\n\
             # each with its reason (docs/fidelity.md). `agy-harness fidelity` fails when a run\n\
             # differs from this file in any entry or count; rewrite it deliberately with\n\
             # `agy-harness fidelity --write-baseline traces/fidelity-baseline.toml --reason TEXT`.\n",
        );
        let run = found.counts();
        let counts_reason = match &self.counts {
            Some(c) if c.numbers() == run.numbers() || !found.whole => c.reason.as_str(),
            _ => reason,
        };
        let counts = if found.whole {
            &run
        } else {
            self.counts.as_ref().unwrap_or(&run)
        };
        out.push_str(&format!(
            "\n[counts]\ncompared = {}\nsame     = {}\nskipped  = {}\nreason   = {}\n",
            counts.compared,
            counts.same,
            counts.skipped,
            quote(counts_reason)
        ));
        for (capture, why) in &found.skipped {
            let kept = self.skip_reason(capture).unwrap_or(why);
            let text = if kept.is_empty() { reason } else { kept };
            out.push_str(&format!(
                "\n[[skip]]\ncapture = {}\nreason  = {}\n",
                quote(capture),
                quote(text)
            ));
        }
        for (capture, diffs) in &found.compared {
            for d in diffs {
                let why = self.reason(capture, d).unwrap_or(reason);
                out.push_str(&format!(
                    "\n[[divergence]]\ncapture = {}\nwhat    = {}\ndigest  = {}\nreason  = {}\n",
                    quote(capture),
                    quote(&d.what),
                    quote(&digest(d)),
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

/// Why a baseline file could not be read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    /// The file is missing or unreadable, or not UTF-8.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is larger than a baseline may be.
    #[error("larger than {MAX_BASELINE_BYTES} bytes")]
    TooLarge,
}

fn read_bounded(path: &Path) -> Result<String, ReadError> {
    let meta = std::fs::metadata(path)?;
    if meta.len() > MAX_BASELINE_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(std::fs::read_to_string(path)?)
}

/// Parses a baseline with every problem located.
pub fn parse_baseline(src: &SourceFile, known: &BTreeSet<String>) -> Result<Baseline, Diagnostics> {
    parse_whole_document(src, "the baseline", &|src, value, what, diags| {
        let Some(mut root) = TableWalker::from_value(src, value, what, diags) else {
            return Baseline::default();
        };
        let counts = root.raw("counts").and_then(|v| parse_counts(src, v, diags));
        let skip_values = root.elements("skip", diags);
        let values = root.elements("divergence", diags);
        root.finish(ROOT_KEYS, diags);
        let skips = parse_skips(src, skip_values, known, diags);
        let mut seen: BTreeSet<(String, String, String)> = BTreeSet::new();
        let mut divergences = Vec::new();
        for (i, v) in values.into_iter().enumerate() {
            let what = format!("divergence {}", i + 1);
            let Some(mut w) = TableWalker::from_value(src, v, what.clone(), diags) else {
                continue;
            };
            let capture: Option<String> =
                w.required("capture", "the capture id, as in corpus.toml", diags);
            let what_: Option<String> = w.required(
                "what",
                "the difference's name as the report prints it, e.g. `sequence`",
                diags,
            );
            let digest: Option<String> = w.required(
                "digest",
                "the difference's digest as `--write-baseline` writes it",
                diags,
            );
            let reason: Option<String> =
                w.required("reason", "say why the divergence is accepted", diags);
            let at = v.span().start;
            w.finish(ENTRY_KEYS, diags);
            let (Some(capture), Some(what_), Some(digest), Some(reason)) =
                (capture, what_, digest, reason)
            else {
                continue;
            };
            check_entry(src, at, &what, &capture, &reason, known, diags);
            if digest.len() != DIGEST_LEN || !digest.chars().all(|c| c.is_ascii_hexdigit()) {
                diags.push(
                    Diagnostic::at(src, at, format!("{what} has digest `{digest}`, not {DIGEST_LEN} hex digits"))
                        .with_hint("rewrite the baseline with `agy-harness fidelity --write-baseline FILE --reason TEXT`"),
                );
            }
            if !seen.insert((capture.clone(), what_.clone(), digest.clone())) {
                diags.push(
                    Diagnostic::at(src, at, format!("{what} repeats `{what_}` of `{capture}`"))
                        .with_hint("list each difference once"),
                );
            }
            divergences.push(Divergence {
                capture,
                what: what_,
                digest,
                reason,
            });
        }
        Baseline {
            counts,
            skips,
            divergences,
        }
    })
}

fn parse_counts(
    src: &SourceFile,
    v: &Spanned<DeValue<'_>>,
    diags: &mut Diagnostics,
) -> Option<Counts> {
    let mut w = TableWalker::from_value(src, v, "counts", diags)?;
    let compared: Option<usize> = w.required("compared", "captures compared", diags);
    let same: Option<usize> = w.required("same", "captures with no difference", diags);
    let skipped: Option<usize> = w.required("skipped", "captures not compared", diags);
    let reason: Option<String> =
        w.required("reason", "say why the counts are what they are", diags);
    w.finish(COUNT_KEYS, diags);
    let reason = reason?;
    if reason.trim().is_empty() {
        diags.push(
            Diagnostic::at(src, v.span().start, "`counts` gives no reason")
                .with_hint("say why the counts are what they are"),
        );
    }
    Some(Counts {
        compared: compared?,
        same: same?,
        skipped: skipped?,
        reason,
    })
}

fn parse_skips(
    src: &SourceFile,
    values: Vec<&Spanned<DeValue<'_>>>,
    known: &BTreeSet<String>,
    diags: &mut Diagnostics,
) -> Vec<Skip> {
    let mut seen = BTreeSet::new();
    let mut skips = Vec::new();
    for (i, v) in values.into_iter().enumerate() {
        let what = format!("skip {}", i + 1);
        let Some(mut w) = TableWalker::from_value(src, v, what.clone(), diags) else {
            continue;
        };
        let capture: Option<String> =
            w.required("capture", "the capture id, as in corpus.toml", diags);
        let reason: Option<String> = w.required("reason", "say why it is not compared", diags);
        w.finish(SKIP_KEYS, diags);
        let (Some(capture), Some(reason)) = (capture, reason) else {
            continue;
        };
        let at = v.span().start;
        check_entry(src, at, &what, &capture, &reason, known, diags);
        if !seen.insert(capture.clone()) {
            diags.push(
                Diagnostic::at(src, at, format!("{what} repeats `{capture}`"))
                    .with_hint("list each skipped capture once"),
            );
        }
        skips.push(Skip { capture, reason });
    }
    skips
}

fn check_entry(
    src: &SourceFile,
    at: usize,
    what: &str,
    capture: &str,
    reason: &str,
    known: &BTreeSet<String>,
    diags: &mut Diagnostics,
) {
    if !known.contains(capture) {
        diags.push(
            Diagnostic::at(
                src,
                at,
                format!("{what} names capture `{capture}`, which the corpus does not list"),
            )
            .with_hint("remove the entry or fix the id (see corpus.toml)"),
        );
    }
    if reason.trim().is_empty() {
        diags.push(
            Diagnostic::at(src, at, format!("{what} gives no reason"))
                .with_hint("say why it is accepted"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn known() -> BTreeSet<String> {
        BTreeSet::from(["a".to_string(), "b".to_string(), "c".to_string()])
    }

    fn parse(text: &str) -> Result<Baseline, Diagnostics> {
        parse_baseline(&SourceFile::new("baseline.toml", text), &known())
    }

    #[test]
    fn a_missing_or_oversized_baseline_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = read_bounded(&dir.path().join("none.toml"));
        assert!(
            matches!(&missing, Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound),
            "{missing:?}"
        );
        let big = dir.path().join("big.toml");
        let file = std::fs::File::create(&big).expect("created");
        file.set_len(MAX_BASELINE_BYTES + 1).expect("sized");
        assert!(matches!(read_bounded(&big), Err(ReadError::TooLarge)));
        file.set_len(MAX_BASELINE_BYTES).expect("sized");
        assert!(read_bounded(&big).is_ok());
    }

    fn d(what: &str, observed: &str) -> Difference {
        Difference {
            what: what.into(),
            expected: "x".into(),
            observed: observed.into(),
        }
    }

    fn entry(capture: &str, diff: &Difference) -> String {
        format!(
            "[[divergence]]\ncapture = \"{capture}\"\nwhat = \"{}\"\ndigest = \"{}\"\nreason = \"r\"\n",
            diff.what,
            digest(diff)
        )
    }

    fn found(compared: &[(&str, Vec<Difference>)], skipped: &[&str], whole: bool) -> Found {
        Found {
            compared: compared
                .iter()
                .map(|(c, d)| (c.to_string(), d.clone()))
                .collect(),
            skipped: skipped
                .iter()
                .map(|c| (c.to_string(), "argv unknown".to_string()))
                .collect(),
            whole,
        }
    }

    #[test]
    fn unknown_captures_repeats_bad_digests_and_keys_are_all_reported() {
        let err = parse(concat!(
            "[[divergence]]\ncapture = \"zz\"\nwhat = \"exit\"\ndigest = \"0123456789ab\"\nreason = \"r\"\n",
            "[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\ndigest = \"xyz\"\nreason = \"r\"\n",
            "[[divergence]]\ncapture = \"a\"\nwhat = \"exit\"\ndigest = \"0123456789ab\"\nreasn = \"r\"\n",
            "[[skip]]\ncapture = \"b\"\nreason = \"\"\n",
        ))
        .expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![1, 6, 11, 15, 16], "{err}");
    }

    #[test]
    fn a_new_difference_inside_an_accepted_one_is_new() {
        let b = parse(&entry("a", &d("exit", "0"))).expect("parses");
        assert!(b
            .judge(&found(&[("a", vec![d("exit", "0")])], &[], false))
            .holds());
        let v = b.judge(&found(&[("a", vec![d("exit", "2")])], &[], false));
        assert_eq!(v.new.len(), 1, "{v:?}");
        assert_eq!(v.gone.len(), 1, "{v:?}");
    }

    #[test]
    fn a_new_difference_and_a_vanished_one_both_break_the_baseline() {
        let b = parse(&format!(
            "{}{}",
            entry("a", &d("exit", "0")),
            entry("b", &d("sequence", "y"))
        ))
        .expect("parses");
        let v = b.judge(&found(
            &[("a", vec![d("exit", "0"), d("stderr", "y")]), ("b", vec![])],
            &[],
            false,
        ));
        let new: Vec<String> = v
            .new
            .iter()
            .map(|(c, d)| format!("{c} {}", d.what))
            .collect();
        assert_eq!(new, vec!["a stderr"]);
        assert_eq!(v.gone.len(), 1);
        assert_eq!(v.gone[0].capture, "b");
        assert!(!v.holds());
        // Entries of captures not compared in this run are not judged.
        assert!(b
            .judge(&found(&[("a", vec![d("exit", "0")])], &[], false))
            .holds());
    }

    #[test]
    fn skipping_a_differing_capture_does_not_hide_its_difference() {
        // Marking a differing capture's argv unknown skips it: without a `[[skip]]`
        // entry that is a failure, and over the whole corpus the counts move.
        let listed = format!(
            "[counts]\ncompared = 2\nsame = 1\nskipped = 0\nreason = \"r\"\n{}",
            entry("b", &d("exit", "0"))
        );
        let b = parse(&listed).expect("parses");
        let honest = found(&[("a", vec![]), ("b", vec![d("exit", "0")])], &[], true);
        assert!(b.judge(&honest).holds(), "{:?}", b.judge(&honest));
        let gamed = found(&[("a", vec![])], &["b"], true);
        let v = b.judge(&gamed);
        assert_eq!(v.unexplained_skips.len(), 1, "{v:?}");
        assert!(v.counts_moved.is_some(), "{v:?}");
        // Even with a `[[skip]]` entry added, the committed counts still fail.
        let with_skip = parse(&format!(
            "{listed}[[skip]]\ncapture = \"b\"\nreason = \"r\"\n"
        ))
        .expect("parses");
        let v = with_skip.judge(&gamed);
        assert!(v.unexplained_skips.is_empty());
        assert!(v.counts_moved.is_some(), "{v:?}");
        // A `[[skip]]` entry for a compared capture is stale.
        assert_eq!(with_skip.judge(&honest).stale_skips.len(), 1);
    }

    #[test]
    fn a_baseline_without_counts_fails_a_whole_run() {
        let b = parse("").expect("parses");
        assert!(b
            .judge(&found(&[("a", vec![])], &[], true))
            .counts_moved
            .is_some());
        assert!(b.judge(&found(&[("a", vec![])], &[], false)).holds());
    }

    #[test]
    fn a_written_baseline_reads_back_and_holds_for_what_it_was_written_from() {
        let old = parse(&entry("a", &d("exit", "0"))).expect("parses");
        let run = found(
            &[
                ("a", vec![d("exit", "0"), d("keys \"x\"", "y")]),
                ("b", vec![]),
            ],
            &["c"],
            true,
        );
        let text = old.render_with(&run, "new reason");
        let back = parse(&text).expect("parses");
        assert!(back.judge(&run).holds(), "{text}");
        assert_eq!(back.reason("a", &d("exit", "0")), Some("r"));
        assert_eq!(back.reason("a", &d("keys \"x\"", "y")), Some("new reason"));
        assert_eq!(back.counts.as_ref().map(|c| c.same), Some(1));
        assert_eq!(
            back.counts.map(|c| c.reason),
            Some("new reason".to_string())
        );
    }

    #[test]
    fn digests_differ_when_either_side_does() {
        assert_eq!(digest(&d("exit", "0")).len(), DIGEST_LEN);
        assert_ne!(digest(&d("exit", "0")), digest(&d("exit", "1")));
        assert_ne!(digest(&d("exit", "0")), digest(&d("stderr", "0")));
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }
    }
}
