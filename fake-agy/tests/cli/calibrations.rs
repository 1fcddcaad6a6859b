//! Calibrations: what fake-agy presents as agy comes from a file
//! (`FAKE_AGY_CALIBRATION`, a script's `[script] calibration`) or the version's built-in
//! one (docs/calibration-format.md).

use crate::support::{workspace, Sandbox};
use agy_protocol::env::{FAKE_AGY_CALIBRATION, FAKE_AGY_SIGNED_OUT, FAKE_AGY_VERSION};
use agy_protocol::script::FAKE_BROKEN_EXIT;

/// The built-in calibration of 1.3.2 with its version, listing and sign-in line changed.
fn edited() -> String {
    let text =
        std::fs::read_to_string(workspace().join("calibrations/agy-1.3.2.toml")).expect("built-in");
    text.replacen("agy = \"1.3.2\"", "agy = \"9.9.9\"", 1)
        .replacen("covers = \">=1.3.2, <1.3.3\"\n", "", 1)
        .replacen(
            "listing = \"{id}\\t{label}\"",
            "listing = \"{label} = {id}\"",
            1,
        )
        .replacen("Run 'agy' to log in", "Run 'agy9' to log in", 1)
}

fn stdout(c: &mut assert_cmd::Command) -> String {
    let out = c.output().expect("runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_calibration_file_decides_the_version_the_listing_and_the_texts() {
    let sb = Sandbox::new();
    let cal = sb.path().join("agy-9.9.9.toml");
    std::fs::write(&cal, edited()).expect("write");
    let mut version = sb.cmd();
    version.arg("--version").env(FAKE_AGY_CALIBRATION, &cal);
    assert_eq!(stdout(&mut version).trim(), "9.9.9");
    let mut models = sb.cmd();
    models.arg("models").env(FAKE_AGY_CALIBRATION, &cal);
    let listed = stdout(&mut models);
    assert!(
        listed
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(" = gemini-3.8-flash-high")),
        "{listed}"
    );
    let out = sb
        .cmd()
        .args(["-p", "hi"])
        .env(FAKE_AGY_CALIBRATION, &cal)
        .env(FAKE_AGY_SIGNED_OUT, "1")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Run 'agy9' to log in"), "{err}");
}

#[test]
fn a_scripts_calibration_is_read_beside_it_and_the_variable_comes_first() {
    let sb = Sandbox::new();
    std::fs::write(sb.path().join("mine.toml"), edited()).expect("write");
    let mut c = sb.scripted("[script]\ncalibration = \"mine.toml\"\n");
    c.arg("--version");
    assert_eq!(stdout(&mut c).trim(), "9.9.9");
    let other = sb.path().join("other.toml");
    std::fs::write(&other, edited().replacen("\"9.9.9\"", "\"8.8.8\"", 1)).expect("write");
    let mut c = sb.scripted("[script]\ncalibration = \"mine.toml\"\n");
    c.arg("--version").env(FAKE_AGY_CALIBRATION, &other);
    assert_eq!(stdout(&mut c).trim(), "8.8.8");
}

#[test]
fn a_bad_calibration_is_the_fakes_error_with_every_problem_located() {
    let sb = Sandbox::new();
    let cal = sb.path().join("bad.toml");
    let text = edited()
        .replacen(
            "tierless_alone = \"accepted\"",
            "tierless_alone = \"acepted\"",
            1,
        )
        .replacen("[usage]\nkeys", "[usage]\nkeyz", 1);
    std::fs::write(&cal, &text).expect("write");
    let out = sb
        .cmd()
        .arg("--version")
        .env(FAKE_AGY_CALIBRATION, &cal)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(FAKE_BROKEN_EXIT), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("fake-agy: "), "{err}");
    for needle in ["\"acepted\"", "keyz"] {
        let line = text.lines().position(|l| l.contains(needle)).expect(needle) + 1;
        assert!(
            err.contains(&format!("bad.toml:{line}:")),
            "{needle}: {err}"
        );
    }
    assert!(err.contains("did you mean `keys`"), "{err}");
}

#[test]
fn agy_1_3_3_is_its_data_file_and_lists_the_recorded_models() {
    let sb = Sandbox::new();
    let mut version = sb.cmd();
    version.arg("--version").env(FAKE_AGY_VERSION, "1.3.3");
    assert_eq!(stdout(&mut version).trim(), "1.3.3");
    let mut models = sb.cmd();
    models.arg("models").env(FAKE_AGY_VERSION, "1.3.3");
    let recorded = std::fs::read_to_string(
        workspace()
            .join("traces/upstream/sleegme__native-gravity__113-live-probe-sweep__models.stdout"),
    )
    .expect("ng-1.3.3-models");
    assert_eq!(stdout(&mut models), recorded);
}
