//! The deterministic split of one agy version's captures into the ones the stand-in
//! holds and the ones held back (standin/README.md, "The split").
//!
//! Rule: the version's captures in id order, grouped by kind; within each kind the 1st,
//! 3rd, 5th … servable capture is held and the 2nd, 4th … held back, so every kind the
//! version has keeps material on both sides once it has two captures. A capture the
//! stand-in cannot serve (ACP transcript, argv or exit unknown) is held back.

use agy_protocol::capture::{Capture, CaptureKind, Corpus};
use agy_protocol::standin::STANDIN_UNSERVED_EXIT;
use std::collections::BTreeMap;
use std::path::Path;

/// Which side of the split a capture is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The stand-in holds it.
    Held,
    /// Held back: the stand-in never answers with it.
    Back,
}

/// One version's captures, each on its side, in id order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Split {
    /// `(capture id, kind, side, why)`.
    pub captures: Vec<(String, CaptureKind, Side, &'static str)>,
}

impl Split {
    /// The ids on `side`, in id order.
    pub fn ids(&self, side: Side) -> Vec<&str> {
        self.captures
            .iter()
            .filter(|c| c.2 == side)
            .map(|c| c.0.as_str())
            .collect()
    }
}

/// Splits the captures of agy `version` in `corpus` by the rule above.
pub fn split_version(corpus: &Corpus, version: &str) -> Split {
    let mut of_version: Vec<&Capture> = corpus
        .captures
        .iter()
        .filter(|c| c.version().is_some_and(|v| v.to_string() == version))
        .collect();
    of_version.sort_by(|a, b| a.id.cmp(&b.id));
    let mut seen: BTreeMap<CaptureKind, usize> = BTreeMap::new();
    let mut split = Split::default();
    for c in of_version {
        let entry = match unservable(c) {
            Some(why) => (c.id.clone(), c.kind, Side::Back, why),
            None => {
                let n = seen.entry(c.kind).or_default();
                *n += 1;
                if *n % 2 == 1 {
                    (c.id.clone(), c.kind, Side::Held, "odd position in its kind")
                } else {
                    (
                        c.id.clone(),
                        c.kind,
                        Side::Back,
                        "even position in its kind",
                    )
                }
            }
        };
        split.captures.push(entry);
    }
    split
}

fn unservable(c: &Capture) -> Option<&'static str> {
    if c.kind == CaptureKind::Acp {
        return Some("an ACP transcript (no agy argv to serve)");
    }
    if c.argv().is_none() {
        return Some("its argv is unknown");
    }
    match c.exit.get() {
        None => Some("its exit is unknown"),
        Some(&STANDIN_UNSERVED_EXIT) => Some("it exited with the stand-in's reserved code"),
        Some(_) => None,
    }
}

/// Copies the trace of every held capture (`<corpus>/<id>.jsonl`) into `held_dir`.
pub fn write_split(corpus_dir: &Path, split: &Split, held_dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(held_dir)?;
    for id in split.ids(Side::Held) {
        let name = format!("{id}.jsonl");
        std::fs::copy(corpus_dir.join(&name), held_dir.join(&name))
            .map_err(|e| std::io::Error::new(e.kind(), format!("failed to copy `{name}`: {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::capture::load_corpus;

    fn corpus() -> Corpus {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces");
        load_corpus(&dir).expect("the committed corpus loads")
    }

    #[test]
    fn every_kind_with_two_servable_captures_has_both_sides_and_the_rest_is_held_back() {
        let corpus = corpus();
        for version in ["1.3.1", "1.1.18", "1.2.7", "1.1.12"] {
            let split = split_version(&corpus, version);
            let mut sides: BTreeMap<CaptureKind, (usize, usize)> = BTreeMap::new();
            for (id, kind, side, why) in &split.captures {
                let c = corpus
                    .captures
                    .iter()
                    .find(|c| &c.id == id)
                    .expect("listed");
                let servable =
                    c.argv().is_some() && c.exit.get().is_some() && c.kind != CaptureKind::Acp;
                assert!(
                    servable || *side == Side::Back,
                    "{id} is not servable but held ({why})"
                );
                if servable {
                    let e = sides.entry(*kind).or_default();
                    if *side == Side::Held {
                        e.0 += 1
                    } else {
                        e.1 += 1
                    }
                }
            }
            for (kind, (held, back)) in sides {
                assert!(
                    held >= back && held <= back + 1,
                    "{version} {kind:?}: {held} held, {back} back"
                );
            }
        }
    }

    #[test]
    fn the_split_is_the_same_whatever_order_the_corpus_lists_its_captures_in() {
        let mut corpus = corpus();
        let before = split_version(&corpus, "1.3.1");
        corpus.captures.reverse();
        assert_eq!(split_version(&corpus, "1.3.1"), before);
        assert!(!before.ids(Side::Held).is_empty() && !before.ids(Side::Back).is_empty());
    }
}
