//! What the README and docs promise a newcomer holds: where the binaries are after the
//! build, and the profile contracts linked from every entry point.

use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(workspace().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn the_readme_names_where_the_build_puts_agy_harness() {
    let readme = read("README.md");
    let built = Path::new(env!("CARGO_BIN_EXE_agy-harness"));
    let dir = built
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .expect("profile folder");
    let claimed = format!("target/{dir}/agy-harness");
    assert!(
        readme.contains(&claimed),
        "the README does not say the build puts agy-harness at `{claimed}`"
    );
    let main_job = read("scripts/main-job");
    assert!(
        main_job.contains(&format!("exec {claimed} run")),
        "scripts/main-job does not run the binary the tests build:\n{main_job}"
    );
    assert!(readme.contains("cargo install --path harness"), "{readme}");
}

#[test]
fn the_oneshot_contract_is_linked_from_every_entry_point() {
    assert!(workspace().join("docs/adr-0013-summary.md").is_file());
    for doc in ["README.md", "docs/driver-protocol.md", "docs/harness.md"] {
        assert!(
            read(doc).contains("docs/adr-0013-summary.md"),
            "{doc} does not link the oneshot contract"
        );
    }
    let driver = read("docs/driver-protocol.md");
    assert!(
        driver.contains("`$HOME/.gemini/antigravity-cli/brain/<conversation_id>/`"),
        "docs/driver-protocol.md does not give the brain folder's path"
    );
}
