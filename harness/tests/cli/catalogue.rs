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
fn oneshot_and_session_profiles_have_scenarios_that_claim_faults() {
    let cat = load_catalogue(&[catalogue_dir()]).expect("catalogue parses");
    for p in [Profile::Oneshot, Profile::Session] {
        let n = cat.scenarios.iter().filter(|s| s.meta.profile == p).count();
        assert!(n >= 5, "only {n} {p} scenarios");
        assert!(
            cat.scenarios
                .iter()
                .any(|s| s.meta.profile == p && !s.meta.catches.is_empty()),
            "no {p} scenario claims a fault"
        );
    }
}
