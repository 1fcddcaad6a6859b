//! `agy-harness scenarios export DIR`: the catalogue built into this binary written into
//! a folder, so a scenario a report names `built-in:scenarios/<file>` is a file the user
//! can open (`DIR/<file>`), copy beside their own scenarios or run with `--scenarios`.

use crate::exit_code;
use std::path::{Path, PathBuf};

/// `agy-harness scenarios`.
#[derive(Debug, Clone, clap::Args)]
pub struct ScenariosArgs {
    /// What to do with the built-in catalogue.
    #[command(subcommand)]
    pub action: ScenariosAction,
}

/// `agy-harness scenarios …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ScenariosAction {
    /// Write the built-in catalogue into DIR: reports name its files
    /// `built-in:scenarios/<file>`, which is then `DIR/<file>`.
    Export {
        /// Overwrite files that exist.
        #[arg(long)]
        force: bool,
        /// The folder to write into (made when missing).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// Why the catalogue was not written, or only in part.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Files of the catalogue are there already and `--force` was not given: nothing
    /// was written.
    #[error("`{first}` exists already ({count} file(s) of the catalogue do)\nhelp: pass `--force` to overwrite, or choose another folder")]
    Exists {
        /// The first of them.
        first: PathBuf,
        /// How many.
        count: usize,
    },
    /// A file or folder could not be written.
    #[error("failed to write `{path}`: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
}

/// `agy-harness scenarios`: its exit code.
pub fn scenarios_command(args: ScenariosArgs) -> i32 {
    match args.action {
        ScenariosAction::Export { force, dir } => match export(&dir, force) {
            Ok(n) => {
                println!(
                    "wrote {n} file(s) of the built-in catalogue into {}",
                    dir.display()
                );
                println!(
                    "a report's `built-in:scenarios/<file>` is {}",
                    dir.join("<file>").display()
                );
                exit_code::ALL_CONFORM
            }
            Err(e) => {
                eprintln!("error: {e}");
                match e {
                    ExportError::Exists { .. } => exit_code::BAD_INPUT,
                    ExportError::Write { .. } => exit_code::COULD_NOT_RUN,
                }
            }
        },
    }
}

/// Writes every file of the built-in catalogue under `dir`; refuses before writing any
/// when one is there already and `force` is not set. Returns how many were written.
pub fn export(dir: &Path, force: bool) -> Result<usize, ExportError> {
    let files = crate::embedded::catalogue_files();
    let existing: Vec<PathBuf> = files
        .iter()
        .map(|(rel, _)| dir.join(rel))
        .filter(|p| p.exists())
        .collect();
    if let (false, Some(first)) = (force, existing.first()) {
        return Err(ExportError::Exists {
            first: first.clone(),
            count: existing.len(),
        });
    }
    for (rel, contents) in &files {
        let path = dir.join(rel);
        let write = |path: &Path| {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, contents)
        };
        write(&path).map_err(|source| ExportError::Write { path, source })?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exported_catalogue_holds_each_built_in_file_at_the_path_reports_name() {
        let dir = tempfile::tempdir().expect("dir");
        let n = export(dir.path(), false).expect("exported");
        let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let name = "oneshot/binary-missing-is-permanent-with-install-hint.toml";
        assert_eq!(
            std::fs::read(dir.path().join(name)).expect("exported file"),
            std::fs::read(built_in.join(name)).expect("catalogue file")
        );
        assert!(n > 10, "{n}");
        match export(dir.path(), false) {
            Err(ExportError::Exists { count, .. }) => assert_eq!(count, n),
            other => panic!("{other:?}"),
        }
        assert_eq!(export(dir.path(), true).expect("forced"), n);
    }
}
