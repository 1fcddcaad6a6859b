//! Keeping the files a data file names inside the folder meant for them. A scenario,
//! script or spike file is data someone else may have written (a cloned repository, a
//! bug report): a fixture `name`, a spike `id` that names a recording, or an image step's
//! `name` is one plain file name, and a path a scenario reads from stays under its root.

use std::path::{Component, Path, PathBuf};

/// Why `name` cannot be one file name inside a folder (`../x`, `/etc/x`, `a/b`, ``),
/// or `None` when it can.
pub fn plain_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("is empty");
    }
    if name == "." || name == ".." {
        return Some("is `.` or `..`, a folder rather than a file name");
    }
    if name.contains(['/', '\\']) {
        return Some("contains a path separator");
    }
    if name.contains('\0') {
        return Some("contains a NUL character");
    }
    None
}

/// `path` (relative to `root`, or absolute) when it stays under `root` once `.` and `..`
/// are taken apart by the words alone and symbolic links are resolved, else `None`.
/// `root` must exist; a `path` that does not exist is judged by its words.
pub fn confined(root: &Path, path: &Path) -> Option<PathBuf> {
    let root = std::fs::canonicalize(root).ok()?;
    let joined = root.join(path);
    let mut lexical = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                if !lexical.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => lexical.push(other.as_os_str()),
        }
    }
    let resolved = std::fs::canonicalize(&lexical).unwrap_or(lexical);
    resolved.starts_with(&root).then_some(resolved)
}

/// The repository `file` belongs to: the nearest folder above it that holds `.git`,
/// else the folder of `file` itself. Paths a data file names are confined to it.
pub fn repository_root(file: &Path) -> PathBuf {
    let folder = std::fs::canonicalize(file)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| file.parent().unwrap_or(Path::new(".")).to_path_buf());
    folder
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&folder)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_plain_component_is_a_file_name() {
        for bad in ["", ".", "..", "../x", "a/b", "/etc/passwd", "..\\x", "a\0b"] {
            assert!(plain_name_problem(bad).is_some(), "{bad:?} accepted");
        }
        for good in ["reference.png", "S3", "a..b", ".hidden", "wide screen"] {
            assert_eq!(plain_name_problem(good), None, "{good:?}");
        }
    }

    #[test]
    fn the_repository_is_the_nearest_folder_with_git_else_the_files_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).expect("git");
        std::fs::create_dir_all(repo.join("scenarios/oneshot")).expect("dirs");
        let file = repo.join("scenarios/oneshot/a.toml");
        std::fs::write(&file, "").expect("file");
        let repo_c = std::fs::canonicalize(&repo).expect("canonical");
        assert_eq!(repository_root(&file), repo_c);
        let loose = dir.path().join("loose.toml");
        std::fs::write(&loose, "").expect("file");
        assert_eq!(
            repository_root(&loose),
            std::fs::canonicalize(dir.path()).expect("canonical")
        );
    }

    #[test]
    fn a_path_leaving_its_root_is_not_confined() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("scenarios")).expect("dirs");
        std::fs::write(root.join("scenarios/a.toml"), "").expect("file");
        std::os::unix::fs::symlink("/etc", root.join("link")).expect("link");
        let root_c = std::fs::canonicalize(&root).expect("canonical");
        assert_eq!(
            confined(&root, Path::new("scenarios/../scenarios/a.toml")),
            Some(root_c.join("scenarios/a.toml"))
        );
        assert_eq!(
            confined(&root, Path::new("not/yet")),
            Some(root_c.join("not/yet"))
        );
        for out in [
            "../x",
            "/proc/self/environ",
            "scenarios/../../x",
            "link/passwd",
        ] {
            assert_eq!(confined(&root, Path::new(out)), None, "{out}");
        }
    }
}
