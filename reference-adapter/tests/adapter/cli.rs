//! The binary's help and fault list, as users and the catalogue see them.

use assert_cmd::Command;

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../snapshots/agy-reference-adapter/cli"
    ));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

fn stdout_of(args: &[&str]) -> String {
    let out = Command::cargo_bin("agy-reference-adapter")
        .expect("binary")
        .args(args)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn help_lists_the_flags() {
    snapshot_settings().bind(|| insta::assert_snapshot!("help", stdout_of(&["--help"])));
}

#[test]
fn fault_list_is_the_catalogue_contract() {
    snapshot_settings()
        .bind(|| insta::assert_snapshot!("list-faults", stdout_of(&["--list-faults"])));
}
