//! Every citation in the repository resolves inside it: no file names the former research
//! notes or a path outside the repository, and every `docs/agy-reference.md §N.M`,
//! `docs/agy-acp-reference.md §N.M` (with `item K`) and `docs/spike-records.md Sn` names a
//! section, item or spike id that exists in that document.
//! `scripts/rewrite-citations` turns old citations into new ones.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files larger than this are data, not prose; none of ours comes close.
const MAX_TEXT_BYTES: u64 = 4 << 20;

const PROTOCOL_DOC: &str = "docs/agy-reference.md";
const ACP_DOC: &str = "docs/agy-acp-reference.md";
const SPIKE_DOC: &str = "docs/spike-records.md";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Names that must not be cited: spelled in pieces so this file does not cite them itself.
fn stale_citation() -> Regex {
    let names = ["PROTOCOL", "ACP", "SPIKES"]
        .map(|n| format!("{n}\\.md"))
        .join("|");
    let shared = "shared";
    // A relative path up to the notes' folder, or an absolute path to it on some machine.
    let outside = format!(r"\.\./{shared}\b|/[A-Za-z0-9_.-]+/{shared}/(?:agy-protocol|seeds)\b");
    // Group 1: a stale name; group 2: a path outside the repository.
    Regex::new(&format!(r"(?:^|[^A-Za-z0-9_-])((?:{names})\b)|({outside})")).expect("regex")
}

/// Section numbers of a reference, each with the item numbers of its numbered lists.
type Sections = BTreeMap<String, BTreeSet<u32>>;

fn sections_of(text: &str) -> Sections {
    let heading = Regex::new(r"^#{1,6} (\d+(?:\.\d+)*) ").expect("regex");
    let item = Regex::new(r"^ {0,3}(\d+)\. ").expect("regex");
    let mut sections = Sections::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(c) = heading.captures(line) {
            let id = c[1].to_string();
            sections.entry(id.clone()).or_default();
            current = Some(id);
        } else if let (Some(id), Some(c)) = (&current, item.captures(line)) {
            if let Ok(n) = c[1].parse() {
                sections.entry(id.clone()).or_default().insert(n);
            }
        }
    }
    sections
}

fn spike_ids_of(text: &str) -> BTreeSet<String> {
    let heading = Regex::new(r"^#{1,6} (S\d+[a-z]?)\b").expect("regex");
    text.lines()
        .filter_map(|l| heading.captures(l).map(|c| c[1].to_string()))
        .collect()
}

/// The three references, as parsed from their text.
struct References {
    protocol: Sections,
    acp: Sections,
    spikes: BTreeSet<String>,
}

impl References {
    fn load(root: &Path) -> References {
        let read = |doc: &str| {
            std::fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"))
        };
        References {
            protocol: sections_of(&read(PROTOCOL_DOC)),
            acp: sections_of(&read(ACP_DOC)),
            spikes: spike_ids_of(&read(SPIKE_DOC)),
        }
    }
}

/// The text a citation's numbers follow: the rest of the line, or, when the document name
/// ends the line, the next line without its comment leader.
fn tail<'a>(line: &'a str, next: Option<&'a str>) -> &'a str {
    if !line.trim().is_empty() {
        return line;
    }
    next.map_or("", |n| {
        n.trim_start_matches([' ', '\t', '/', '!', '#', '*', '-'])
    })
}

/// Problems with the section citations after one occurrence of a reference's name.
fn check_sections(doc: &str, sections: &Sections, after: &str) -> Vec<String> {
    let refs = Regex::new(
        r"^(?:\s*(?:,|;|/|and|or)?\s*)§\s?(\d+(?:\.\d+)*)(?:\s+items?\s+(\d+(?:\s*(?:,|-|–|and)\s*\d+)*))?",
    )
    .expect("regex");
    let number = Regex::new(r"\d+").expect("regex");
    let mut problems = Vec::new();
    let mut rest = after;
    while let Some(c) = refs.captures(rest) {
        let section = &c[1];
        match sections.get(section) {
            None => problems.push(format!("{doc} has no section §{section}")),
            Some(items) => {
                for n in c
                    .get(2)
                    .into_iter()
                    .flat_map(|m| number.find_iter(m.as_str()))
                {
                    let k: u32 = n.as_str().parse().unwrap_or(0);
                    if !items.contains(&k) {
                        problems.push(format!("{doc} §{section} has no item {k}"));
                    }
                }
            }
        }
        rest = &rest[c.get(0).map_or(rest.len(), |m| m.end())..];
    }
    problems
}

/// Problems with the spike ids after one occurrence of the spike records' name.
fn check_spikes(ids: &BTreeSet<String>, after: &str) -> Vec<String> {
    let refs = Regex::new(r"^(?:\s*(?:,|/|and)?\s*)(S\d+[a-z]?)\b").expect("regex");
    let mut problems = Vec::new();
    let mut rest = after;
    while let Some(c) = refs.captures(rest) {
        if !ids.contains(&c[1]) {
            problems.push(format!("{SPIKE_DOC} has no spike {}", &c[1]));
        }
        rest = &rest[c.get(0).map_or(rest.len(), |m| m.end())..];
    }
    problems
}

/// Every problem in one file's text, as `line: message` pairs.
fn check_text(text: &str, refs: &References) -> Vec<(usize, String)> {
    let stale = stale_citation();
    let lines: Vec<&str> = text.lines().collect();
    let mut problems = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(c) = stale.captures(line) {
            let what = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
            problems.push((
                i + 1,
                format!("cites {what}, which is not in the repository"),
            ));
        }
        let next = lines.get(i + 1).copied();
        for (doc, found) in [(PROTOCOL_DOC, &refs.protocol), (ACP_DOC, &refs.acp)] {
            for (at, _) in line.match_indices(doc) {
                let after = tail(&line[at + doc.len()..], next);
                problems.extend(
                    check_sections(doc, found, after)
                        .into_iter()
                        .map(|p| (i + 1, p)),
                );
            }
        }
        for (at, _) in line.match_indices(SPIKE_DOC) {
            let after = tail(&line[at + SPIKE_DOC.len()..], next);
            problems.extend(
                check_spikes(&refs.spikes, after)
                    .into_iter()
                    .map(|p| (i + 1, p)),
            );
        }
    }
    problems
}

/// Text files under `dir`, skipping build output and git's own files.
fn text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if name != "target" && name != ".git" {
                text_files(&path, out);
            }
        } else if kind.is_file() && entry.metadata().is_ok_and(|m| m.len() <= MAX_TEXT_BYTES) {
            out.push(path);
        }
    }
}

fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[test]
fn every_citation_resolves_inside_the_repository() {
    let root = repo_root();
    let refs = References::load(&root);
    let mut files = Vec::new();
    text_files(&root, &mut files);
    files.sort();
    let mut report = Vec::new();
    for file in &files {
        let Some(text) = read_text(file) else {
            continue;
        };
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (line, problem) in check_text(&text, &refs) {
            report.push(format!("{shown}:{line}: {problem}"));
        }
    }
    assert!(
        report.is_empty(),
        "{} citation problem(s); run scripts/rewrite-citations for stale names, or fix the \
         section:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_references_keep_the_numbering_citations_rely_on() {
    let refs = References::load(&repo_root());
    for section in ["0", "1.2", "2.2", "2.4", "3.5", "4.4", "5", "6", "8", "9"] {
        assert!(
            refs.protocol.contains_key(section),
            "{PROTOCOL_DOC} §{section}"
        );
    }
    assert_eq!(
        refs.protocol["2.2"],
        (1..=8).collect(),
        "{PROTOCOL_DOC} §2.2 items"
    );
    assert_eq!(
        refs.protocol["9"],
        (1..=11).collect(),
        "{PROTOCOL_DOC} §9 items"
    );
    for section in ["1.1", "1.12", "2.1", "2.12", "3", "5", "6.7", "8"] {
        assert!(refs.acp.contains_key(section), "{ACP_DOC} §{section}");
    }
    assert_eq!(refs.acp["4"], (1..=24).collect(), "{ACP_DOC} §4 items");
    assert_eq!(refs.acp["7"], (1..=34).collect(), "{ACP_DOC} §7 items");
    let spikes: BTreeSet<String> = [
        "S1", "S2", "S3", "S4", "S5", "S6", "S6a", "S6b", "S6c", "S7", "S8",
    ]
    .map(String::from)
    .into();
    assert_eq!(refs.spikes, spikes, "{SPIKE_DOC} ids");
}

#[test]
fn the_check_reports_stale_names_and_missing_sections() {
    let refs = References {
        protocol: sections_of("## 2 Envelope\n### 2.4 Timeout\n1. first\n2. second\n"),
        acp: sections_of("## 7 Scenarios\n1. one\n"),
        spikes: spike_ids_of("## S1 tools\n### S6c timeout\n"),
    };
    // Built from pieces so that this file's own text passes the repository check.
    let [p, a, s] = ["PROTOCOL", "ACP", "SPIKES"].map(|n| format!("{n}.md"));
    let (pd, ad, sd) = (PROTOCOL_DOC, ACP_DOC, SPIKE_DOC);
    let text = [
        format!("see {p} §2.4"),
        format!("see {a} §7 item 1"),
        format!("see {s} S1"),
        format!("and ../{}/notes", "shared"),
        format!("or /srv/{}/agy-protocol/notes", "shared"),
        format!("fine: {pd} §2.4 item 2, §2"),
        format!("bad: {pd} §2.5 and {pd} §2.4 item 3"),
        format!("bad: {ad} §7 items 1-2"),
        format!("spikes: {sd} S1, S6c; {sd} S6b"),
        format!("wrapped: {pd}"),
        "    /// §3.1".to_string(),
    ]
    .join("\n");
    let found = check_text(&text, &refs);
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 7, 7, 8, 9, 10], "{found:?}");
    assert!(found[4].1.contains("cites /srv/"), "{found:?}");
    assert!(found[5].1.contains("no section §2.5"), "{found:?}");
    assert!(found[6].1.contains("§2.4 has no item 3"), "{found:?}");
    assert!(found[7].1.contains("§7 has no item 2"), "{found:?}");
    assert!(found[8].1.contains("no spike S6b"), "{found:?}");
    assert!(found[9].1.contains("no section §3.1"), "{found:?}");
}
