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

/// Variables of agy itself that the docs name (docs/agy-reference.md), not contracts
/// between this workspace's binaries.
const AGY_OWN_VARIABLES: &[&str] = &["AGY_ACP_FORCE_FILE_STORAGE"];

#[test]
fn scripts_examples_and_docs_spell_only_the_contract_names_agy_protocol_defines() {
    // They cannot import `agy_protocol::env`, so a renamed variable is caught here.
    let name = regex::Regex::new(
        r"\b(?:(?:FAKE_AGY|AGY_HARNESS|AGY_DRIVER|AGY_ACP)_[A-Z0-9_]*[A-Z0-9]|AGY_BIN)\b",
    )
    .expect("regex");
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = ["scripts", ".ci", "examples", "docs"]
        .iter()
        .map(|d| workspace().join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable folder").flatten() {
            let path = entry.path();
            if path.is_dir() && entry.file_name() != "node_modules" {
                dirs.push(path);
            } else if path.is_file() {
                files.push(path);
            }
        }
    }
    files.extend(
        [
            "",
            "harness/",
            "fake-agy/",
            "fake-agy-acp/",
            "protocol/",
            "reference-adapter/",
        ]
        .iter()
        .map(|c| workspace().join(format!("{c}README.md")))
        .filter(|p| p.is_file()),
    );
    let mut unknown = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for m in name.find_iter(line) {
                let known = agy_protocol::env::ALL.contains(&m.as_str())
                    || AGY_OWN_VARIABLES.contains(&m.as_str());
                if !known {
                    unknown.push(format!("{}:{}: {}", path.display(), n + 1, m.as_str()));
                }
            }
        }
    }
    assert!(files.len() > 20, "read only {} files", files.len());
    assert!(
        unknown.is_empty(),
        "names agy_protocol::env does not define:\n{}",
        unknown.join("\n")
    );
}

/// The section of `text` from the heading line starting with `heading` to the next
/// heading of its level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    let rest = &text[start + heading.len()..];
    let level = heading.split(' ').next().unwrap_or("##");
    rest.find(&format!("\n{level} "))
        .map_or(rest, |end| &rest[..end])
}

#[test]
fn the_docs_that_list_profiles_and_ops_list_every_one() {
    use agy_protocol::driver::OPS;
    use agy_protocol::Profile;
    let mut missing = Vec::new();
    let actions = section(&read("docs/scenario-format.md"), "## `[[op]]`")
        .lines()
        .filter(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    let ops_doc = read("docs/driver-protocol.md");
    for op in OPS {
        let name = format!("`{}`", op.name);
        if !actions.contains(&name) {
            missing.push(format!(
                "docs/scenario-format.md's action table lacks {name}"
            ));
        }
        if !ops_doc.contains(&name) {
            missing.push(format!("docs/driver-protocol.md lacks {name}"));
        }
    }
    let readme = read("README.md");
    let fits = section(&readme, "## Which profile fits");
    let reference = read("docs/reference-adapter.md");
    for p in Profile::ALL {
        if !fits.contains(&format!("| `{p}` |")) {
            missing.push(format!("README's profile table has no row for `{p}`"));
        }
        if !reference.contains(&format!("`{p}`")) {
            missing.push(format!("docs/reference-adapter.md does not name `{p}`"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
