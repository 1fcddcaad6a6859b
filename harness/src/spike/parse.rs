//! Reading spike files, with every problem located.

use super::measure::Measure;
use super::model::{Comparator, Expectation, Fact, Probe, Quirk, Recorded, Spike};
use agy_protocol::diag::{
    closest, deserialize_value, parse_toml_document, Diagnostic, Diagnostics, SourceFile,
    TableWalker,
};
use agy_protocol::AgyVersion;
use std::collections::BTreeSet;
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const SPIKE_KEYS: &[&str] = &["spike", "probe", "fact"];
const HEADER_KEYS: &[&str] = &["id", "title", "question"];
const FACT_KEYS: &[&str] = &[
    "id",
    "claim",
    "probe",
    "measure",
    "only_when",
    "quirk",
    "manual",
    "recorded",
];
const RECORDED_KEYS: &[&str] = &["agy", "date", "source", "at_least"];
const COMPARATORS: &[&str] = &[
    "equals",
    "one_of",
    "contains",
    "lacks",
    "set_equals",
    "starts_with",
    "matches",
    "min",
    "max",
    "between",
];

/// Reads every `*.toml` file of `dir`, sorted by name; all problems of all files are
/// returned together.
pub fn load_spikes(dir: &Path) -> Result<Vec<Spike>, Diagnostics> {
    let mut diags = Diagnostics::new();
    let mut paths: Vec<_> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
            .collect(),
        Err(e) => {
            diags.push(
                Diagnostic::at_line(
                    dir.display().to_string(),
                    1,
                    1,
                    format!("failed to read spike folder: {e}"),
                )
                .with_hint("pass the folder that holds S1.toml … S8.toml with --spikes"),
            );
            return Err(diags);
        }
    };
    if paths.is_empty() {
        diags.push(
            Diagnostic::at_line(
                dir.display().to_string(),
                1,
                1,
                "the spike folder holds no spike file (`*.toml`)",
            )
            .with_hint("pass the folder that holds S1.toml … S8.toml with --spikes, or none for the built-in spikes"),
        );
        return Err(diags);
    }
    paths.sort();
    let mut spikes = Vec::new();
    for path in paths {
        let display = path.display().to_string();
        match agy_protocol::file::read_file_bounded(&path, agy_protocol::file::FILE_CAP) {
            Ok(text) => match parse_spike(&SourceFile::new(display, text)) {
                Ok(s) => spikes.push(s),
                Err(d) => diags.extend(d),
            },
            Err(e) => diags.push(Diagnostic::at_line(
                display,
                1,
                1,
                format!("failed to read spike file: {e}"),
            )),
        }
    }
    let mut seen = BTreeSet::new();
    for s in &spikes {
        if !seen.insert(s.id.clone()) {
            diags.push(
                Diagnostic::at_line(
                    s.path.clone(),
                    1,
                    1,
                    format!("spike `{}` is defined twice", s.id),
                )
                .with_hint("give each spike file its own `id`"),
            );
        }
    }
    diags.into_result(spikes)
}

/// Parses one spike file.
pub fn parse_spike(src: &SourceFile) -> Result<Spike, Diagnostics> {
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(src, &mut diags) else {
        return Err(diags);
    };
    let mut root = TableWalker::new(src, doc.get_ref(), 0, "the spike file");
    let (id, title, question) = match root.raw("spike") {
        Some(v) => match TableWalker::from_value(src, v, "`[spike]`", &mut diags) {
            Some(mut h) => {
                let id: Option<String> = h.required("id", "write `id = \"S3\"`", &mut diags);
                let title: Option<String> =
                    h.required("title", "a few words naming the spike", &mut diags);
                let question: Option<String> =
                    h.required("question", "the question the spike answers", &mut diags);
                h.finish(HEADER_KEYS, &mut diags);
                (id, title, question)
            }
            None => (None, None, None),
        },
        None => {
            diags.push(
                Diagnostic::at(src, 0, "missing `[spike]` table")
                    .with_hint("start the file with [spike] id = …, title = …, question = …"),
            );
            (None, None, None)
        }
    };
    let mut probes: Vec<Probe> = Vec::new();
    let mut probe_names = BTreeSet::new();
    for (i, v) in root.elements("probe", &mut diags).into_iter().enumerate() {
        let what = format!("probe {}", i + 1);
        if let Some(p) = deserialize_value::<Probe>(src, v, &what, &mut diags) {
            if !probe_names.insert(p.name.clone()) {
                let message = format!("probe name `{}` is used twice", p.name);
                let hint = "give each probe of a spike its own name";
                diags.push(Diagnostic::at(src, v.span().start, message).with_hint(hint));
            }
            check_probe(src, v.span().start, &what, &p, &mut diags);
            probes.push(p);
        }
    }
    let mut facts = Vec::new();
    let mut fact_ids = BTreeSet::new();
    for (i, v) in root.elements("fact", &mut diags).into_iter().enumerate() {
        if let Some(f) = parse_fact(src, v, i + 1, &probe_names, &mut diags) {
            if !fact_ids.insert(f.id.clone()) {
                let message = format!("fact id `{}` is used twice", f.id);
                let hint = "fact ids are unique across a spike";
                diags.push(Diagnostic::at(src, v.span().start, message).with_hint(hint));
            }
            facts.push(f);
        }
    }
    root.finish(SPIKE_KEYS, &mut diags);
    if let Some(problem) = id
        .as_deref()
        .and_then(agy_protocol::confine::plain_name_problem)
    {
        diags.push(
            Diagnostic::at(src, 0, format!("the spike `id` {problem}"))
                .with_hint("the id names the spike's recordings: write a plain id like `S3`"),
        );
    }
    let spike = Spike {
        id: id.unwrap_or_default(),
        title: title.unwrap_or_default(),
        question: question.unwrap_or_default(),
        path: src.path().to_string(),
        probes,
        facts,
    };
    diags.into_result(spike)
}

/// What a probe must hold beyond its types: runs and concurrency of at least 1,
/// fixture colours as `#rrggbb`, and arguments to run.
fn check_probe(src: &SourceFile, at: usize, what: &str, p: &Probe, diags: &mut Diagnostics) {
    if p.repeat == 0 || p.concurrency == 0 {
        diags.push(
            Diagnostic::at(src, at, format!("{what} has `repeat` or `concurrency` 0"))
                .with_hint("both are at least 1"),
        );
    }
    if let Some(problem) = agy_protocol::confine::plain_name_problem(&p.name) {
        diags.push(
            Diagnostic::at(src, at, format!("the name of {what} {problem}"))
                .with_hint("a probe's name is part of its recordings' file names: write a plain name like `widescreen`"),
        );
    }
    for name in p
        .env
        .keys()
        .filter(|k| agy_protocol::env::is_sandbox_owned(k))
    {
        diags.push(
            Diagnostic::at(src, at, format!("`env` of {what} sets `{name}`, which the sandbox owns"))
                .with_hint("the harness sets `HOME`, `PATH`, `TMPDIR` and every `FAKE_AGY_*` and `AGY_HARNESS_*` variable itself; use `isolated_profile` for an empty HOME"),
        );
    }
    for f in &p.fixtures {
        if let Some(problem) = agy_protocol::confine::plain_name_problem(&f.name) {
            diags.push(
                Diagnostic::at(src, at, format!("the name of fixture `{}` of {what} {problem}", f.name))
                    .with_hint("a fixture is written in the run's `{fixtures}` folder: write a plain file name like `reference.png`"),
            );
        }
        if f.color
            .as_deref()
            .is_some_and(|c| super::probe::parse_color(c).is_none())
        {
            diags.push(
                Diagnostic::at(
                    src,
                    at,
                    format!(
                        "fixture `{}` of {what} has a colour that is not #rrggbb",
                        f.name
                    ),
                )
                .with_hint("write the colour as six hex digits, e.g. \"#ffd700\""),
            );
        }
    }
    if p.argv.is_empty() {
        diags.push(
            Diagnostic::at(src, at, format!("{what} has an empty `argv`"))
                .with_hint("write the arguments after the binary, e.g. [\"-p\", \"{prompt}\", \"--output-format\", \"json\"]"),
        );
    }
}

fn parse_fact(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    probes: &BTreeSet<String>,
    diags: &mut Diagnostics,
) -> Option<Fact> {
    let what = format!("fact {n}");
    let mut w = TableWalker::from_value(src, value, what.clone(), diags)?;
    let id: Option<String> = w.required("id", "write `id = \"S3.widescreen-size\"`", diags);
    let claim: Option<String> = w.required("claim", "the fact in words", diags);
    let probe: Option<String> =
        w.required("probe", "the name of a `[[probe]]` of this file", diags);
    if let (Some(p), Some(v)) = (&probe, w.raw("probe")) {
        if !probes.contains(p) {
            let hint = match closest(p, probes.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!("probes of this file: {}", list(probes.iter())),
            };
            diags.push(
                Diagnostic::at(
                    src,
                    v.span().start,
                    format!("{what} names unknown probe `{p}`"),
                )
                .with_hint(hint),
            );
        }
    }
    let measure = parse_measure(src, &mut w, "measure", diags);
    let only_when = match w.raw("only_when") {
        Some(v) => TableWalker::from_value(src, v, format!("`only_when` of {what}"), diags)
            .and_then(|mut ow| {
                let m = parse_measure(src, &mut ow, "measure", diags);
                let c = parse_comparator(src, &mut ow, diags);
                let mut known = vec!["measure"];
                known.extend(COMPARATORS);
                ow.finish(&known, diags);
                Some((m?, c?))
            }),
        None => None,
    };
    let quirk: Option<Quirk> = w.get("quirk", diags);
    let manual: Option<String> = w.get("manual", diags);
    let mut recorded = Vec::new();
    let elements = w.elements("recorded", diags);
    if elements.is_empty() && w.has("id") {
        diags.push(
            Diagnostic::at(src, w.span_start(), format!("{what} has no `[[fact.recorded]]`"))
                .with_hint("record what was seen: agy = \"1.2.6\", date, source, and one comparator such as equals = …"),
        );
    }
    for (j, rv) in elements.into_iter().enumerate() {
        let rwhat = format!("record {} of {what}", j + 1);
        recorded.extend(parse_recorded(src, rv, rwhat, diags));
    }
    recorded.sort_by_key(|r| r.agy);
    w.finish(FACT_KEYS, diags);
    Some(Fact {
        id: id?,
        claim: claim?,
        probe: probe?,
        measure: measure?,
        only_when,
        quirk,
        manual,
        recorded,
    })
}

/// One `[[fact.recorded]]`: the agy version, date and source of a record, and what was
/// seen.
fn parse_recorded(
    src: &SourceFile,
    rv: &Spanned<DeValue<'_>>,
    rwhat: String,
    diags: &mut Diagnostics,
) -> Option<Recorded> {
    let mut r = TableWalker::from_value(src, rv, rwhat, diags)?;
    let agy: Option<String> = r.required(
        "agy",
        "the agy version it was seen on, e.g. \"1.2.6\"",
        diags,
    );
    let agy = agy.and_then(|s| match s.parse::<AgyVersion>() {
        Ok(v) => Some(v),
        Err(e) => {
            let at = r
                .raw("agy")
                .map(|v| v.span().start)
                .unwrap_or(rv.span().start);
            diags.push(Diagnostic::at(src, at, e).with_hint("versions are major.minor.patch"));
            None
        }
    });
    let date: Option<String> = r.required("date", "when it was recorded, YYYY-MM-DD", diags);
    let source: Option<String> = r.required("source", "where the record is published", diags);
    let at_least: Option<u32> = r.get("at_least", diags);
    let comparator = parse_comparator(src, &mut r, diags);
    let mut known = RECORDED_KEYS.to_vec();
    known.extend(COMPARATORS);
    r.finish(&known, diags);
    Some(Recorded {
        agy: agy?,
        date: date?,
        source: source?,
        expect: Expectation {
            comparator: comparator?,
            at_least,
        },
    })
}

fn parse_measure(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    key: &str,
    diags: &mut Diagnostics,
) -> Option<Measure> {
    let text: String = w.required(
        key,
        "name what to measure, e.g. `status` or `images.sizes` (docs/spikes.md)",
        diags,
    )?;
    match Measure::parse(&text) {
        Ok(m) => Some(m),
        Err(e) => {
            let names = Measure::names();
            let at = w.raw(key).map(|v| v.span().start).unwrap_or(w.span_start());
            let hint = match closest(&text, names.iter().map(String::as_str)) {
                Some(best) => {
                    format!("did you mean `{best}`? measures are listed in docs/spikes.md")
                }
                None => "measures are listed in docs/spikes.md".to_string(),
            };
            diags.push(Diagnostic::at(src, at, e.to_string()).with_hint(hint));
            None
        }
    }
}

fn parse_comparator(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Option<Comparator> {
    let present: Vec<&str> = COMPARATORS.iter().copied().filter(|c| w.has(c)).collect();
    match present.as_slice() {
        [one] => {
            let what = format!("`{one}` of {}", w.what());
            let v = w.raw(one)?;
            one_comparator(src, one, v, &what, diags)
        }
        [] => {
            diags.push(
                Diagnostic::at(
                    src,
                    w.span_start(),
                    format!("{} has no comparator", w.what()),
                )
                .with_hint(format!("add one of {}", list(COMPARATORS.iter()))),
            );
            None
        }
        many => {
            diags.push(
                Diagnostic::at(
                    src,
                    w.span_start(),
                    format!(
                        "{} has {} comparators ({})",
                        w.what(),
                        many.len(),
                        list(many.iter())
                    ),
                )
                .with_hint("keep exactly one; write another record or fact for a second check"),
            );
            for c in many {
                w.raw(c);
            }
            None
        }
    }
}

/// The comparator `name` with its value `v` (`what` names it in messages).
fn one_comparator(
    src: &SourceFile,
    name: &str,
    v: &Spanned<DeValue<'_>>,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<Comparator> {
    match name {
        "equals" => deserialize_value(src, v, what, diags).map(Comparator::Equals),
        "one_of" => deserialize_value(src, v, what, diags).map(Comparator::OneOf),
        "contains" => deserialize_value(src, v, what, diags).map(Comparator::Contains),
        "lacks" => deserialize_value(src, v, what, diags).map(Comparator::Lacks),
        "set_equals" => deserialize_value(src, v, what, diags).map(Comparator::SetEquals),
        "starts_with" => deserialize_value(src, v, what, diags).map(Comparator::StartsWith),
        "matches" => {
            let re: String = deserialize_value(src, v, what, diags)?;
            match regex::Regex::new(&re) {
                Ok(_) => Some(Comparator::Matches(re)),
                Err(e) => {
                    diags.push(
                        Diagnostic::at(
                            src,
                            v.span().start,
                            format!("invalid regular expression in {what}"),
                        )
                        .with_hint(e.to_string().lines().last().unwrap_or("").to_string()),
                    );
                    None
                }
            }
        }
        "min" => deserialize_value(src, v, what, diags).map(Comparator::Min),
        "max" => deserialize_value(src, v, what, diags).map(Comparator::Max),
        "between" => {
            let b: [f64; 2] = deserialize_value(src, v, what, diags)?;
            if b[0] > b[1] {
                diags.push(
                    Diagnostic::at(
                        src,
                        v.span().start,
                        format!("{what} has its low bound above its high bound"),
                    )
                    .with_hint("write between = [low, high]"),
                );
            }
            Some(Comparator::Between(b))
        }
        _ => None,
    }
}

fn list<T: std::fmt::Display>(items: impl Iterator<Item = T>) -> String {
    items
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GOOD: &str = r#"
[spike]
id = "S9"
title = "t"
question = "q?"

[[probe]]
name = "p"
argv = ["-p", "{prompt}", "--output-format", "json"]
prompt = "hi"
repeat = 5

[[fact]]
id = "S9.status"
claim = "it succeeds"
probe = "p"
measure = "status"

[[fact.recorded]]
agy = "1.2.6"
date = "2026-09-20"
source = "docs/spike-records.md"
equals = "SUCCESS"
at_least = 4
"#;

    fn parse(text: &str) -> Result<Spike, Diagnostics> {
        parse_spike(&SourceFile::new("S9.toml", text))
    }

    #[test]
    fn names_that_would_write_outside_their_folder_are_refused() {
        // Regression: a fixture `name` with `../` overwrote any file the user could
        // write; a spike `id` with `../` wrote recordings outside the `--record` folder.
        let bad = GOOD
            .replace("id = \"S9\"", "id = \"../S9\"")
            .replace(
                "repeat = 5",
                "repeat = 5\nenv = { HOME = \"/home/u\" }\nfixtures = [{ name = \"../../.bashrc\", text = \"x\" }]",
            )
            .replace("name = \"p\"", "name = \"/tmp/p\"")
            .replace("probe = \"p\"", "probe = \"/tmp/p\"");
        let text = parse(&bad).expect_err("refused").to_string();
        for message in [
            "the spike `id` contains a path separator",
            "the name of probe 1 contains a path separator",
            "the name of fixture `../../.bashrc` of probe 1 contains a path separator",
            "`env` of probe 1 sets `HOME`, which the sandbox owns",
        ] {
            assert!(text.contains(message), "{message}: {text}");
        }
    }

    #[test]
    fn a_good_file_parses() {
        let s = parse(GOOD).expect("parses");
        assert_eq!(s.probes[0].repeat, 5);
        assert_eq!(s.facts[0].recorded[0].expect.at_least, Some(4));
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        let bad = GOOD
            .replace("measure = \"status\"", "measure = \"stauts\"")
            .replace("probe = \"p\"\n", "probe = \"q\"\n")
            .replace("agy = \"1.2.6\"", "agy = \"1.2\"")
            .replace("at_least = 4", "at_least = 4\nmatches = \"(\"");
        let err = parse(&bad).expect_err("rejects");
        let text = err.to_string();
        assert!(
            text.contains("unknown measure `stauts`") && text.contains("did you mean `status`"),
            "{text}"
        );
        assert!(text.contains("unknown probe `q`"), "{text}");
        assert!(text.contains("not an agy version"), "{text}");
        assert!(text.contains("2 comparators"), "{text}");
        assert!(
            err.iter().all(|d| d.line > 1 && d.path == "S9.toml"),
            "{text}"
        );
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }

        #[test]
        fn mutated_good_files_never_panic(cut in 0usize..600, insert in "[\\[\\]{}=\"a-z0-9,. \n]{0,12}") {
            let mut text = GOOD.to_string();
            let at = cut.min(text.len());
            if text.is_char_boundary(at) {
                text.insert_str(at, &insert);
            }
            let _ = parse(&text);
        }
    }
}

#[cfg(test)]
mod catalogue_tests {
    use super::*;

    #[test]
    fn the_shipped_spike_files_parse_and_cover_s1_to_s8() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spikes");
        let spikes = load_spikes(&dir).unwrap_or_else(|d| panic!("{d}"));
        let ids: Vec<&str> = spikes.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8"]);
        for s in &spikes {
            for f in &s.facts {
                assert!(!f.recorded.is_empty(), "{} has no record", f.id);
            }
        }
    }
}
