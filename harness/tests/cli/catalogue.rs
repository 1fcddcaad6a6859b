//! The catalogue itself: every file parses, names match paths, each profile is covered.

use agy_harness::scenario::{load_catalogue, Profile};
use std::path::Path;

fn catalogue_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

#[test]
fn every_catalogue_file_parses() {
    if let Err(d) = load_catalogue(&[catalogue_dir()]) {
        panic!("the catalogue has problems:\n{d}");
    }
}

#[test]
fn scenario_names_match_their_paths() {
    let root = catalogue_dir();
    let cat = load_catalogue(std::slice::from_ref(&root)).expect("catalogue parses");
    for s in &cat.scenarios {
        let rel = s.path.strip_prefix(&root).expect("under the catalogue");
        let want = rel.with_extension("").display().to_string();
        assert_eq!(s.meta.name, want, "name of {}", s.path.display());
        assert!(
            s.meta.name.starts_with(s.meta.profile.as_str()),
            "{} is filed under the wrong profile",
            s.meta.name
        );
    }
}

#[test]
fn every_profile_has_scenarios_that_claim_faults() {
    let cat = load_catalogue(&[catalogue_dir()]).expect("catalogue parses");
    for (p, at_least) in [
        (Profile::Oneshot, 5),
        (Profile::Session, 5),
        (Profile::Acp, 20),
        (Profile::Text, 25),
        (Profile::Mcp, 15),
    ] {
        let n = cat.scenarios.iter().filter(|s| s.meta.profile == p).count();
        assert!(n >= at_least, "only {n} {p} scenarios");
        assert!(
            cat.scenarios
                .iter()
                .any(|s| s.meta.profile == p && !s.meta.catches.is_empty()),
            "no {p} scenario claims a fault"
        );
    }
}

#[test]
fn every_fault_of_the_reference_adapter_is_claimed_by_a_scenario_of_its_profile() {
    let bin = Path::new(env!("CARGO_BIN_EXE_agy-harness")).with_file_name("agy-reference-adapter");
    if !bin.is_file() {
        panic!(
            "`{}` is missing: build it with `cargo build --workspace --bins`",
            bin.display()
        );
    }
    let faults = agy_harness::faults::list_faults(&bin).expect("--list-faults");
    assert!(
        faults.iter().any(|f| f.profile == Profile::Acp),
        "{faults:?}"
    );
    let cat = load_catalogue(&[catalogue_dir()]).expect("catalogue parses");
    for f in &faults {
        assert!(
            cat.scenarios
                .iter()
                .any(|s| s.meta.profile == f.profile && s.meta.catches.contains(&f.name)),
            "no {} scenario claims `{}`",
            f.profile,
            f.name
        );
    }
}

/// Every `argv_has` and `argv_lacks` item of a scenario of `profile`, with its name.
fn argv_items(profile: Profile) -> Vec<(String, String)> {
    let cat = load_catalogue(&[catalogue_dir()]).expect("catalogue parses");
    let mut out = Vec::new();
    for s in cat.scenarios.iter().filter(|s| s.meta.profile == profile) {
        let journal = s
            .expect
            .journal
            .iter()
            .flat_map(|j| j.argv_has.iter().chain(&j.argv_lacks).cloned());
        let nth = s
            .expect
            .invocations
            .iter()
            .flat_map(|i| i.argv_has.iter().chain(&i.argv_lacks).cloned());
        out.extend(journal.chain(nth).map(|a| (s.meta.name.clone(), a)));
    }
    out
}

#[test]
fn no_text_or_mcp_scenario_asks_for_a_flag_agy_s_record_leaves_to_the_adapter() {
    // How a run is bounded is the adapter's choice (docs/contract.md, text and mcp), and
    // the mcp contract names no output format: a client correct by agy's record that
    // bounds its runs itself, or reads text, must not fail on its argv.
    let required: Vec<(String, String)> =
        argv_items(Profile::Text)
            .into_iter()
            .filter(|(_, a)| a.starts_with("--print-timeout"))
            .chain(argv_items(Profile::Mcp).into_iter().filter(|(_, a)| {
                a.starts_with("--output-format") || a.starts_with("--print-timeout")
            }))
            .collect();
    assert!(required.is_empty(), "{required:?}");
}

#[test]
fn a_text_scenario_that_asks_for_an_output_mode_requires_it() {
    // A client that uses one output mode ignores `output` (docs/driver-protocol.md); a
    // scenario about another mode must be not applicable to it, not failed.
    let cat = load_catalogue(&[catalogue_dir()]).expect("catalogue parses");
    for s in cat
        .scenarios
        .iter()
        .filter(|s| s.meta.profile == Profile::Text)
    {
        for op in &s.ops {
            let agy_harness::scenario::OpAction::Request(r) = &op.action else {
                continue;
            };
            let v = serde_json::to_value(r).expect("op as JSON");
            let Some(mode) = v.get("output").and_then(|m| m.as_str()) else {
                continue;
            };
            let premise = agy_protocol::Premise::parse(&format!("output-mode:{mode}"))
                .expect("a premise for every output mode");
            assert!(
                s.meta.requires.contains(&premise),
                "{} asks for {mode} output but does not require `{premise}`",
                s.meta.name
            );
        }
    }
}
