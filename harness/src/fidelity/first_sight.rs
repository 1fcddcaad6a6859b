//! The first-sight score: how often fake-agy's default behaviour had a capture's shape
//! when the capture entered the corpus, before fake-agy was changed for it. Read from
//! the verdicts `traces/corpus.toml` records (`first_sight`), never re-measured: it is
//! the generalisation figure, beside the fitted score of the current run.

use super::report::{tally, FirstSightScore};
use agy_protocol::capture::{Corpus, FirstSightVerdict};

/// The recorded first-sight verdicts of the corpus, per agy version and overall;
/// `skipped` verdicts are not counted.
pub fn first_sight_score(corpus: &Corpus) -> FirstSightScore {
    let versions: Vec<(String, bool)> = corpus
        .captures
        .iter()
        .filter_map(|c| {
            let sight = c.first_sight.as_ref()?;
            let same = match sight.verdict {
                FirstSightVerdict::Same => true,
                FirstSightVerdict::Different => false,
                FirstSightVerdict::Skipped => return None,
            };
            let version = c
                .version()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "unknown".into());
            Some((version, same))
        })
        .collect();
    let (overall, by_version) = tally(versions.iter().map(|(v, s)| (v.as_str(), *s)));
    FirstSightScore {
        overall,
        by_version,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::capture::parse_corpus;
    use agy_protocol::diag::SourceFile;

    fn capture(id: &str, version: &str, sight: &str) -> String {
        let hex = "ab".repeat(32);
        format!(
            r#"
[[capture]]
id           = "{id}"
agy_version  = "{version}"
version_from = "the README"
kind         = "stream-json"
argv         = ["agy", "-p", "hi", "--output-format", "stream-json"]
stdin        = []
exit         = 0
captured     = "unknown"
confidence   = "live"
platform     = "unknown"
source       = {{ repo = "owner/name", path = "a.ndjson", commit = "2a7bb078ee6c76512030f351d1f2251562bbd32c" }}
files        = {{ stdout = "upstream/a.ndjson" }}
sha256       = {{ stdout = "{hex}" }}
shows        = "a turn"
redacted     = "none"
{sight}
"#
        )
    }

    #[test]
    fn recorded_verdicts_are_counted_per_version_and_skips_and_unscored_are_not() {
        let text = [
            capture("a-1", "1.1.15", r#"first_sight = { verdict = "same", fake = "7f78eed", scored = "2026-12-01" }"#),
            capture("a-2", "1.1.15", r#"first_sight = { verdict = "different", fake = "7f78eed", scored = "2026-12-01", note = "exit" }"#),
            capture("a-3", "1.2.8", r#"first_sight = { verdict = "skipped", fake = "7f78eed", scored = "2026-12-01", note = "argv unknown" }"#),
            capture("a-4", "1.2.8", ""),
            capture("a-5", "unknown", r#"first_sight = { verdict = "same", fake = "7f78eed", scored = "2026-12-01" }"#),
        ]
        .concat();
        let corpus = parse_corpus(&SourceFile::new("corpus.toml", text.as_str())).expect("parses");
        let score = first_sight_score(&corpus);
        assert_eq!((score.overall.same, score.overall.compared), (2, 3));
        let rows: Vec<(&str, usize, usize)> = score
            .by_version
            .iter()
            .map(|(v, s)| (v.as_str(), s.same, s.compared))
            .collect();
        assert_eq!(rows, vec![("1.1.15", 1, 2), ("unknown", 1, 1)]);
    }
}
