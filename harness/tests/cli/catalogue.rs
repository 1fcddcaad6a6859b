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
