//! docs/contract.md states every rule the catalogue judges. Each profile's section has
//! contract tables whose "judged by" cell names the scenarios that judge the row's rule
//! (a name, or a prefix ending in `…` or `*`). Every catalogue scenario of the profile
//! must be named by a row of its section (else it judges a rule the page does not
//! state), and every row must name a scenario that exists (else the rule is not
//! judged). Each section's contract table has one row per line of the profile's
//! contract in the harness (`harness/src/profile/<profile>/contract.rs`). The `acp`
//! profile's contract is docs/acp-profile.md's, not this page's.

use agy_harness::profile::{unit, units};
use agy_protocol::Profile;
use std::collections::BTreeMap;
use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The profiles whose contract tables are on docs/contract.md (their unit's `docs`
/// points there), each section opened by the heading "## `<profile>`".
fn sections() -> Vec<&'static str> {
    units()
        .filter(|u| u.docs.starts_with("docs/contract.md#"))
        .map(|u| u.profile.as_str())
        .collect()
}

/// One row of a contract or seed-choice table.
#[derive(Clone)]
struct Row {
    text: String,
    /// Backticked words in it.
    words: Vec<String>,
    /// A row of a contract table (not of a seed-choice table).
    contract: bool,
}

/// Table rows of each profile's section.
fn rows_by_profile(doc: &str) -> BTreeMap<&'static str, Vec<Row>> {
    let sections = sections();
    let mut out: BTreeMap<&'static str, Vec<Row>> = BTreeMap::new();
    let mut current: Option<&'static str> = None;
    let mut contract = false;
    for line in doc.lines() {
        if line.starts_with("## ") {
            current = sections
                .iter()
                .find(|p| line.starts_with(&format!("## `{p}`")))
                .copied();
            continue;
        }
        let Some(profile) = current else { continue };
        if line.starts_with("| contract |") || line.starts_with("| seed choice |") {
            contract = line.starts_with("| contract |");
            continue;
        }
        if !line.starts_with('|') || line.starts_with("|---") {
            continue;
        }
        let words = line
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        out.entry(profile).or_default().push(Row {
            text: line.to_string(),
            words,
            contract,
        });
    }
    out
}

/// Scenario stems of `scenarios/<profile>/`.
fn scenarios_of(profile: &str) -> Vec<String> {
    let dir = workspace().join("scenarios").join(profile);
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("`{}`: {e}", dir.display()))
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    out.sort();
    out
}

/// Whether a backticked `word` of a row names scenario `stem`.
fn names(word: &str, stem: &str) -> bool {
    match word.strip_suffix('…').or_else(|| word.strip_suffix('*')) {
        Some(prefix) => !prefix.is_empty() && stem.starts_with(prefix),
        None => word == stem,
    }
}

#[test]
fn every_scenario_judges_a_rule_stated_in_the_contract_and_every_rule_is_judged() {
    let path = workspace().join("docs/contract.md");
    let doc = std::fs::read_to_string(&path).expect("docs/contract.md reads");
    let rows = rows_by_profile(&doc);
    let mut problems = Vec::new();
    for profile in sections() {
        if !doc
            .lines()
            .any(|l| l.starts_with(&format!("## `{profile}`")))
        {
            problems.push(format!(
                "`{profile}`'s unit points at docs/contract.md, which has no \"## `{profile}`\" section"
            ));
        }
        let stems = scenarios_of(profile);
        let rows = rows.get(&profile).cloned().unwrap_or_default();
        for stem in &stems {
            if !rows.iter().any(|r| r.words.iter().any(|w| names(w, stem))) {
                problems.push(format!(
                    "{profile}/{stem}: no row of the `{profile}` section names it (state the rule it judges)"
                ));
            }
        }
        for row in &rows {
            if !stems.iter().any(|s| row.words.iter().any(|w| names(w, s))) {
                problems.push(format!(
                    "`{profile}` row judged by no scenario: {}",
                    row.text
                ));
            }
        }
        let lines = unit(profile.parse::<Profile>().expect("a profile"))
            .contract
            .len();
        let doc_rows = rows.iter().filter(|r| r.contract).count();
        if doc_rows != lines {
            problems.push(format!(
                "`{profile}`: {doc_rows} contract row(s) on the page, {lines} line(s) in harness/src/profile/{}/contract.rs",
                profile.replace('-', "_")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The anchor a heading line gets on the code host's rendering: lower case, punctuation
/// other than `-` and `_` dropped, spaces made `-`.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_units_docs_link_names_a_heading_of_its_page() {
    assert_eq!(
        slug("## `oneshot`: an image provider (ADR 0013, docs/adr-0013-summary.md)"),
        "oneshot-an-image-provider-adr-0013-docsadr-0013-summarymd"
    );
    let mut problems = Vec::new();
    for u in units() {
        let (page, anchor) = u.docs.split_once('#').unwrap_or((u.docs, ""));
        let text = std::fs::read_to_string(workspace().join(page))
            .unwrap_or_else(|e| panic!("`{}`: {page}: {e}", u.profile));
        let headings: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(slug)
            .collect();
        if !headings.iter().any(|h| h == anchor) {
            problems.push(format!(
                "`{}`: {page} has no heading whose anchor is `#{anchor}` (harness/src/profile/{}/unit.rs `docs`)",
                u.profile,
                u.profile.as_str().replace('-', "_")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
