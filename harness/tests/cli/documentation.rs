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

/// The `.md` files a user reads: the README and `docs/`.
fn user_docs() -> Vec<(String, String)> {
    let mut docs = vec![("README.md".to_string(), read("README.md"))];
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let rel = format!("docs/{n}");
        let text = read(&rel);
        docs.push((rel, text));
    }
    docs
}

/// The scenarios of the catalogue tagged `live`, by name.
fn live_scenarios() -> Vec<String> {
    let mut found = Vec::new();
    let root = workspace().join("scenarios");
    let mut folders = vec![root.clone()];
    while let Some(dir) = folders.pop() {
        for entry in std::fs::read_dir(&dir).expect("scenarios/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let live = text
                .lines()
                .any(|l| l.starts_with("tags") && l.contains("\"live\""));
            if live {
                let rel = path.strip_prefix(&root).expect("below scenarios/");
                found.push(rel.with_extension("").display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// What `text` lacks of the profiles, each spelled as the list spells it (`{}` stands
/// for the name, so `acp` is not found inside `acp-agent`).
fn lacking(place: &str, text: &str, spelled: &str) -> Vec<String> {
    agy_protocol::Profile::ALL
        .iter()
        .filter(|p| !text.contains(&spelled.replace("{}", p.as_str())))
        .map(|p| format!("{place} lacks `{p}`"))
        .collect()
}

// Every list of profiles a user reads names all of them: the `--profile a|b|…`
// synopses of the docs, the Python plugin's profiles, the repro and python pages'
// lists, the revalidation table (and the live scenarios it names), `init`'s choices.
// The registry (`Profile::ALL`, harness/src/profile/registry.rs) is what they follow.
#[test]
fn every_user_facing_list_of_profiles_names_every_profile() {
    use agy_protocol::Profile;
    let mut missing = Vec::new();
    let synopsis = regex::Regex::new(r"--profile ([a-z-]+(?:\|[a-z-]+)+)").expect("regex");
    let mut synopses = 0;
    for (rel, text) in user_docs() {
        for m in synopsis.captures_iter(&text) {
            synopses += 1;
            let names: Vec<&str> = m[1].split('|').collect();
            for p in Profile::ALL {
                if !names.contains(&p.as_str()) {
                    missing.push(format!("{rel}: `--profile {}` lacks `{p}`", &m[1]));
                }
            }
        }
    }
    assert!(synopses >= 2, "the init and repro synopses are found");
    let plugin = read("python/src/agy_conformance/catalogue.py");
    let tuple = plugin
        .lines()
        .find(|l| l.starts_with("PROFILES = ("))
        .expect("the Python plugin's PROFILES");
    missing.extend(lacking(
        "python/src/agy_conformance/catalogue.py `PROFILES`",
        tuple,
        "\"{}\"",
    ));
    let python_md = read("docs/python.md");
    let params = python_md
        .split("\n\n")
        .find(|p| p.starts_with("`conformance_params` lists"))
        .expect("docs/python.md on conformance_params");
    missing.extend(lacking(
        "docs/python.md on `conformance_params`",
        params,
        "`{}`",
    ));
    let repro_md = read("docs/reproduce-a-bug.md");
    let repro = section(&repro_md, "## What `repro` writes");
    missing.extend(lacking(
        "docs/reproduce-a-bug.md, \"What `repro` writes\"",
        repro,
        "`{}`",
    ));
    let revalidate = read("docs/revalidate.md");
    let table = section(&revalidate, "## Which spikes and live scenarios matter");
    for p in Profile::ALL {
        if !table.contains(&format!("| `{p}` |")) {
            missing.push(format!("docs/revalidate.md's table has no row for `{p}`"));
        }
    }
    for s in live_scenarios() {
        if !table.contains(&format!("`{s}`")) {
            missing.push(format!(
                "docs/revalidate.md's table does not name the live scenario `{s}`"
            ));
        }
    }
    let init_help = read("snapshots/agy-harness/cli/init-help.snap");
    missing.extend(lacking("`init --help` (its snapshot)", &init_help, "- {}:"));
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The quoted names between `start` and the first `end` after it in `text`.
fn quoted_names(text: &str, start: &str, end: &str) -> Vec<String> {
    let from = text.find(start).unwrap_or_else(|| panic!("no `{start}`"));
    let body = &text[from + start.len()..];
    let body = &body[..body
        .find(end)
        .unwrap_or_else(|| panic!("no end of `{start}`"))];
    body.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_packages_drop_the_credential_variables_the_protocol_lists() {
    let protocol: Vec<String> = agy_protocol::env::AGY_USER_VARS
        .iter()
        .map(|v| v.to_string())
        .collect();
    let python = read("python/src/agy_conformance/sandbox.py");
    let node = read("npm/agy-conformance/index.js");
    assert_eq!(
        quoted_names(&python, "AGY_USER_VARS = (", ")"),
        protocol,
        "python/src/agy_conformance/sandbox.py"
    );
    assert_eq!(
        quoted_names(&node, "export const AGY_USER_VARS = [", "]"),
        protocol,
        "npm/agy-conformance/index.js"
    );
}
