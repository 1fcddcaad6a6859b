//! The catalogue: scenario files found under folders, checked as a whole, then
//! selected by name, tag, profile and partition.

use super::model::{Profile, Scenario};
use super::parse::parse_scenario_file;
use agy_protocol::confine::confined;
use agy_protocol::diag::{Diagnostic, Diagnostics};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every scenario of a run, in name order.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    /// The scenarios.
    pub scenarios: Vec<Scenario>,
}

/// Reads every `.toml` file under each path (a file or a folder, recursively). All
/// problems of all files are reported together; nothing runs until they are fixed.
pub fn load_catalogue(paths: &[PathBuf]) -> Result<Catalogue, Diagnostics> {
    let mut files = Vec::new();
    let mut diags = Diagnostics::new();
    for p in paths {
        if p.is_dir() {
            collect_toml(p, &mut files, &mut diags);
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            diags.push(
                Diagnostic::at_line(
                    p.display().to_string(),
                    1,
                    1,
                    "no such scenario file or folder",
                )
                .with_hint(
                    "give a scenario file, a folder of them, or nothing for the whole catalogue",
                ),
            );
        }
    }
    files.sort();
    files.dedup();
    let mut scenarios = Vec::new();
    for f in &files {
        match parse_scenario_file(f) {
            Ok(s) => scenarios.push(s),
            Err(d) => diags.0.extend(d.0),
        }
    }
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for s in &scenarios {
        if let Some(first) = seen.insert(s.meta.name.clone(), s.path.clone()) {
            diags.push(
                Diagnostic::at_line(
                    s.path.display().to_string(),
                    1,
                    1,
                    format!("scenario name `{}` is used twice", s.meta.name),
                )
                .with_hint(format!(
                    "`{}` has the same name; names must be unique",
                    first.display()
                )),
            );
        }
    }
    if files.is_empty() && diags.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        diags.push(
            Diagnostic::at_line(shown.join(", "), 1, 1, "no scenario files found")
                .with_hint("scenario files end in `.toml`"),
        );
    }
    scenarios.sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
    diags.into_result(Catalogue { scenarios })
}

/// Folders of a catalogue that hold agy scripts (fake-agy's behaviour library), not
/// scenarios; skipped when walking folders.
pub const SCRIPT_LIBRARY_DIR: &str = "agy-scripts";

/// The `.toml` files under `dir`, confined like the scripts a scenario names
/// (`agy_protocol::confine`): a symbolic link leading outside the repository of `dir`
/// (its nearest folder holding `.git`, else `dir`) is refused unread, so no diagnostic
/// ever quotes a line of a file outside it (a link to `~/.aws/credentials`).
fn collect_toml(dir: &Path, out: &mut Vec<PathBuf>, diags: &mut Diagnostics) {
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let root = real
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&real)
        .to_path_buf();
    let mut walked = BTreeSet::from([real]);
    walk(dir, &root, &mut walked, out, diags);
}

/// One folder of [`collect_toml`]; `walked` holds the folders seen (by their real
/// path), so a link back up the tree is walked once.
fn walk(
    dir: &Path,
    root: &Path,
    walked: &mut BTreeSet<PathBuf>,
    out: &mut Vec<PathBuf>,
    diags: &mut Diagnostics,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let is_toml = p.extension().and_then(|x| x.to_str()) == Some("toml");
        let is_link = e.file_type().is_ok_and(|t| t.is_symlink());
        if is_link && (is_toml || p.is_dir()) && confined(root, &p).is_none() {
            diags.push(
                Diagnostic::at_line(
                    p.display().to_string(),
                    1,
                    1,
                    format!(
                        "a symbolic link leading outside `{}`, not read",
                        root.display()
                    ),
                )
                .with_hint("scenario files found in a folder stay inside its repository; copy the file in, or name it on the command line"),
            );
            continue;
        }
        if p.is_dir() {
            if p.file_name().and_then(|n| n.to_str()) == Some(SCRIPT_LIBRARY_DIR) {
                continue;
            }
            if walked.insert(std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone())) {
                walk(&p, root, walked, out, diags);
            }
        } else if is_toml {
            out.push(p);
        }
    }
}

/// Which scenarios of a catalogue to run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Keep scenarios whose name contains any of these (none: keep all).
    pub names: Vec<String>,
    /// Keep scenarios with any of these tags (none: keep all).
    pub tags: Vec<String>,
    /// Keep scenarios of these profiles (none: keep all).
    pub profiles: Vec<Profile>,
    /// `(k, n)`: keep the k-th of n round-robin partitions (1-based).
    pub partition: Option<(usize, usize)>,
}

impl Selection {
    /// The selected scenarios, in catalogue order.
    pub fn apply<'a>(&self, catalogue: &'a Catalogue) -> Vec<&'a Scenario> {
        catalogue
            .scenarios
            .iter()
            .filter(|s| {
                self.names.is_empty() || self.names.iter().any(|n| s.meta.name.contains(n.as_str()))
            })
            .filter(|s| self.tags.is_empty() || s.meta.tags.iter().any(|t| self.tags.contains(t)))
            .filter(|s| self.profiles.is_empty() || self.profiles.contains(&s.meta.profile))
            .enumerate()
            .filter(|(i, _)| match self.partition {
                Some((k, n)) => i % n == k - 1,
                None => true,
            })
            .map(|(_, s)| s)
            .collect()
    }
}

/// Parses `k/n` (1 ≤ k ≤ n).
pub fn parse_partition(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}` is not a partition; write `k/n`, e.g. `1/2`"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a number in `{s}`"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a number in `{s}`"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("partition `{s}` needs 1 ≤ k ≤ n"));
    }
    Ok((k, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::{ScenarioExpect, ScenarioMeta};

    fn scenario(name: &str, tags: &[&str]) -> Scenario {
        Scenario {
            path: PathBuf::from(format!("{name}.toml")),
            meta: ScenarioMeta {
                name: name.into(),
                profile: Profile::Oneshot,
                covers: vec![],
                agy: None,
                versions: None,
                tags: tags.iter().map(|t| t.to_string()).collect(),
                description: None,
                catches: vec![],
                time_scale: None,
                timeout: None,
                agy_installed: None,
                unverified: None,
                script: None,
                requires: vec![],
            },
            script: None,
            script_file: None,
            acp_script: None,
            ops: vec![],
            expect: ScenarioExpect::default(),
        }
    }

    #[test]
    fn partitions_cover_every_scenario_once() {
        let cat = Catalogue {
            scenarios: (0..7).map(|i| scenario(&format!("s{i}"), &[])).collect(),
        };
        let mut names: Vec<String> = (1..=3)
            .flat_map(|k| {
                Selection {
                    partition: Some((k, 3)),
                    ..Selection::default()
                }
                .apply(&cat)
                .into_iter()
                .map(|s| s.meta.name.clone())
                .collect::<Vec<_>>()
            })
            .collect();
        names.sort();
        assert_eq!(names.len(), 7);
        names.dedup();
        assert_eq!(names.len(), 7);
    }

    #[test]
    fn name_and_tag_filters_combine() {
        let cat = Catalogue {
            scenarios: vec![
                scenario("a/x", &["t"]),
                scenario("a/y", &[]),
                scenario("b/x", &["t"]),
            ],
        };
        let sel = Selection {
            names: vec!["a/".into()],
            tags: vec!["t".into()],
            ..Selection::default()
        };
        let got: Vec<&str> = sel
            .apply(&cat)
            .iter()
            .map(|s| s.meta.name.as_str())
            .collect();
        assert_eq!(got, vec!["a/x"]);
    }

    #[test]
    fn bad_partitions_are_refused() {
        assert!(parse_partition("0/2").is_err());
        assert!(parse_partition("3/2").is_err());
        assert!(parse_partition("x").is_err());
        assert_eq!(parse_partition("2/3"), Ok((2, 3)));
    }

    /// A scenario folder holding a link to a file outside it: the file is not read, and
    /// no error quotes its lines (its first bad line was printed as a TOML error).
    #[test]
    fn a_walked_link_leading_outside_the_repository_is_refused_unread() {
        let dir = tempfile::tempdir().expect("dir");
        let outside = dir.path().join("home");
        std::fs::create_dir_all(outside.join("secrets")).expect("outside");
        let secret = outside.join("credentials");
        std::fs::write(
            &secret,
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\nleaked line\n",
        )
        .expect("secret");
        std::fs::write(outside.join("secrets/x.toml"), "leaked line too").expect("secret");
        let repo = dir.path().join("repo");
        let folder = repo.join("scenarios");
        std::fs::create_dir_all(repo.join(".git")).expect("git");
        std::fs::create_dir_all(&folder).expect("scenarios");
        std::os::unix::fs::symlink(&secret, folder.join("leak.toml")).expect("link");
        std::os::unix::fs::symlink(outside.join("secrets"), folder.join("more")).expect("link");
        let Err(d) = load_catalogue(&[folder]) else {
            panic!("a link leading outside was read")
        };
        let shown = d.to_string();
        assert!(!shown.contains("leaked line"), "{shown}");
        assert!(!shown.contains("wJalrXUtnFEMI"), "{shown}");
        assert_eq!(
            shown.matches("a symbolic link leading outside").count(),
            2,
            "{shown}"
        );
    }

    /// A link inside the repository is followed, and a link back up the tree is walked
    /// once, not until the path is too long.
    #[test]
    fn a_link_inside_the_repository_is_walked_once() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = dir.path().join("scenarios");
        std::fs::create_dir_all(folder.join("oneshot")).expect("folder");
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/oneshot/binary-missing-is-permanent-with-install-hint.toml");
        let text = std::fs::read_to_string(source).expect("a catalogue scenario");
        std::fs::write(folder.join("oneshot/a.toml"), text).expect("scenario");
        std::os::unix::fs::symlink(&folder, folder.join("oneshot/up")).expect("link");
        std::os::unix::fs::symlink("oneshot/a.toml", folder.join("b.toml")).expect("link");
        let Err(d) = load_catalogue(&[folder]) else {
            panic!("the file read twice (through `b.toml`) names one scenario twice")
        };
        let shown = d.to_string();
        assert_eq!(shown.matches("is used twice").count(), 1, "{shown}");
        assert!(!shown.contains("up/"), "{shown}");
    }
}
