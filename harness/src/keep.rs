//! Files a user keeps (reports, the fidelity baseline, `repro` scenarios, recorded
//! traces): an earlier one is never replaced unless `--force` says so.

use std::path::Path;

/// A kept file that is there already: what to say, and what to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// What is wrong, naming the file.
    pub message: String,
    /// What to do next, naming `--force`.
    pub hint: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error: {}\nhelp: {}", self.message, self.hint)
    }
}

/// Refuses to replace `path` when it exists and `force` is off: the error names the
/// file and the flag. `flag` is the option that chose the file (`--out`, `--record`).
pub fn refuse_overwrite(path: &Path, force: bool, flag: &str) -> Result<(), Refused> {
    if force || std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    Err(Refused {
        message: format!(
            "`{}` already exists (from an earlier `{flag}`); nothing was run or replaced",
            path.display()
        ),
        hint: format!("move it away, choose another `{flag}`, or give `--force` to replace it"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_file_is_refused_with_its_name_and_the_flag() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("a.toml");
        assert!(refuse_overwrite(&path, false, "--out").is_ok());
        std::fs::write(&path, "kept").expect("write");
        let e = refuse_overwrite(&path, false, "--out").expect_err("refused");
        let shown = e.to_string();
        assert!(shown.contains(&path.display().to_string()), "{shown}");
        assert!(shown.contains("`--force`"), "{shown}");
        assert!(refuse_overwrite(&path, true, "--out").is_ok());
    }
}
