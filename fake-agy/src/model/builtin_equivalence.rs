//! The built-in calibration files say exactly what the version table said, at every
//! version and on both sides of every edge the record leaves open.

use crate::model::builtin::{builtin_for, builtins};
use crate::model::table_calibration::{at, builtin, candidates, range_starts};
use agy_protocol::calibration::Calibration;
use agy_protocol::version_evidence::UncertainSide;
use agy_protocol::{AgyVersion, MODELLED_VERSIONS};

/// The observables alone: evidence, identity and open edges set aside.
fn observed(mut c: Calibration) -> toml::Table {
    c.unrecorded.clear();
    let mut t = toml::Table::try_from(&c).expect("serializes");
    t.remove("calibration");
    for (_, section) in t.iter_mut() {
        if let toml::Value::Table(s) = section {
            s.remove("evidence");
            s.remove("unverified");
        }
    }
    t
}

#[test]
fn each_file_is_named_after_the_first_version_it_covers() {
    for (name, c) in builtins().expect("the built-ins parse") {
        let covers = c
            .calibration
            .covers
            .as_ref()
            .expect("a built-in says what it covers");
        let file = name.trim_start_matches("calibrations/");
        match crate::model::builtin::named_start(file) {
            Some(start) => assert!(
                covers.to_string().starts_with(&format!(">={start}")),
                "{name}: {covers}"
            ),
            None => assert!(file.starts_with("agy-before-"), "{name}"),
        }
    }
}

#[test]
fn every_version_and_side_gets_what_the_table_gave() {
    let all = builtins().expect("the built-ins parse");
    // Every range of the table has its file; files for versions added as data since
    // (CONTRIBUTING.md, "Add an agy version") split the last range further.
    for start in range_starts().into_iter().skip(1) {
        assert!(
            all.iter()
                .any(|(name, _)| name.ends_with(&format!("/agy-{start}.toml"))),
            "no built-in for the range from {start}"
        );
    }
    let mut versions = candidates();
    versions.extend(MODELLED_VERSIONS);
    let mut checked = 0;
    for v in versions {
        let file = builtin_for(v).unwrap_or_else(|| panic!("no built-in covers {v}"));
        for side in [
            None,
            Some(UncertainSide::Before),
            Some(UncertainSide::After),
        ] {
            let got = file.at(v, side).expect("resolves");
            assert_eq!(observed(got), observed(at(v, side)), "{v} {side:?}");
            checked += 1;
        }
    }
    assert!(checked > 600, "{checked}");
}

/// Writes the built-in files from the table: `cargo test -p fake-agy write_builtin --
/// --ignored`.
#[test]
#[ignore = "writes calibrations/; run once to regenerate"]
fn write_builtin_calibrations() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("calibrations");
    let starts = range_starts();
    for (i, lo) in starts.iter().enumerate() {
        let hi = starts.get(i + 1).copied();
        let mut c = builtin(*lo, hi);
        let shown = MODELLED_VERSIONS
            .iter()
            .find(|v| *v >= lo && hi.is_none_or(|h| **v < h))
            .copied()
            .unwrap_or(*lo);
        c.calibration.agy = shown;
        if *lo == AgyVersion::new(0, 0, 0) {
            c.calibration.covers = Some(format!("<{}", hi.expect("more")).parse().expect("range"));
        }
        let name = match *lo == AgyVersion::new(0, 0, 0) {
            true => format!("agy-before-{}.toml", hi.expect("more")),
            false => format!("agy-{lo}.toml"),
        };
        let text = c.to_toml().expect("toml");
        std::fs::write(dir.join(name), text).expect("write");
    }
}
