//! The `init` command: writes the starter files, refusing to overwrite any without
//! `--force`.

use super::skeleton::{
    render, role, writes_driver, Language, StarterFile, CONFIG_FILE, DRIVER_DIR,
};
use crate::exit_code;
use crate::profile::{Client, Reach};
use crate::scenario::Profile;
use clap::Args;
use std::path::{Path, PathBuf};

/// `agy-harness init`.
#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    /// The profile the adapter implements.
    #[arg(long, value_enum, default_value_t = crate::profile::DEFAULT)]
    pub profile: Profile,
    /// The driver skeleton's language.
    #[arg(long, value_enum, default_value_t = Language::Python)]
    pub language: Language,
    /// Overwrite files that exist.
    #[arg(long)]
    pub force: bool,
    /// The repository to write into.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

/// Why `init` wrote nothing, or stopped part way.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InitError {
    /// Starter files are there already and `--force` was not given: nothing was
    /// written. Shown one `error:` line per file, then what to do.
    #[error(
        "{}\nhelp: pass `--force` to overwrite, or choose another folder",
        .0.iter()
            .map(|p| format!("`{}` exists already", p.display()))
            .collect::<Vec<_>>()
            .join("\nerror: ")
    )]
    Exists(Vec<PathBuf>),
    /// A folder of a starter file could not be made.
    #[error("failed to create `{path}`: {source}")]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// A starter file could not be written.
    #[error("failed to write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The driver skeleton could not be made executable.
    #[error("failed to make `{path}` executable: {source}")]
    Executable {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
}

impl InitError {
    /// The exit code it comes to: bad input for files that exist, could not run for a
    /// file that could not be written.
    fn exit_code(&self) -> i32 {
        match self {
            InitError::Exists(_) => exit_code::BAD_INPUT,
            _ => exit_code::COULD_NOT_RUN,
        }
    }
}

/// `agy-harness init`: writes `agy-adapter.toml` and `agy-driver/` into the folder.
pub fn init_command(args: InitArgs) -> i32 {
    match init(&args) {
        Ok(()) => exit_code::ALL_CONFORM,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// Writes the starter files, each said on stdout, then the next steps; refuses before
/// writing any when one is there already and `--force` was not given.
fn init(args: &InitArgs) -> Result<(), InitError> {
    let name = std::fs::canonicalize(&args.dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .map(|n| format!("{n} adapter"))
        .unwrap_or_else(|| "my adapter".into());
    let files = render(args.profile, args.language, &name);
    let existing: Vec<PathBuf> = files
        .iter()
        .map(|f| args.dir.join(&f.path))
        .filter(|p| p.exists())
        .collect();
    if !args.force && !existing.is_empty() {
        return Err(InitError::Exists(existing));
    }
    for f in &files {
        write_file(&args.dir, f)?;
        println!("wrote {}", args.dir.join(&f.path).display());
    }
    print_next_steps(&args.dir, args.language, args.profile);
    Ok(())
}

fn write_file(dir: &Path, file: &StarterFile) -> Result<(), InitError> {
    let path = dir.join(&file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| InitError::CreateFolder {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    crate::keep::write_kept(&path, &file.text).map_err(|source| InitError::Write {
        path: path.clone(),
        source,
    })?;
    if file.executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|source| InitError::Executable { path, source })?;
    }
    Ok(())
}

fn print_next_steps(dir: &Path, language: Language, profile: Profile) {
    let config = dir.join(CONFIG_FILE);
    let driver = writes_driver(profile);
    println!("\nnext:");
    if let Some(what) = driverless_to_fill(profile) {
        println!("  put {what} in {}", config.display());
    } else if language == Language::Rust {
        println!(
            "  cargo build --manifest-path {}",
            dir.join(DRIVER_DIR).join("Cargo.toml").display()
        );
    }
    if driver {
        println!(
            "  fill in the op functions of {}",
            dir.join(DRIVER_DIR).display()
        );
    }
    println!("  agy-harness check --adapter {}", config.display());
    println!("  agy-harness run --adapter {}", config.display());
}

/// What a driverless profile's config needs filled in: the command line, and for an
/// MCP server the tool that runs agy; `None` for a profile with a driver.
fn driverless_to_fill(profile: Profile) -> Option<String> {
    match crate::profile::unit(profile).reach {
        Reach::Driver => None,
        Reach::Driverless { client } => Some(match client {
            Client::Mcp => format!("your {}'s command line and its tool", role(client)),
            Client::Acp => format!("your {}'s command line", role(client)),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(dir: &Path, force: bool) -> InitArgs {
        InitArgs {
            profile: crate::profile::DEFAULT,
            language: Language::Python,
            force,
            dir: dir.to_path_buf(),
        }
    }

    #[test]
    fn a_second_init_refuses_naming_every_file_there_unless_forced() {
        let dir = tempfile::tempdir().expect("dir");
        init(&args(dir.path(), false)).expect("first init");
        let written = render(crate::profile::DEFAULT, Language::Python, "x").len();
        let e = init(&args(dir.path(), false)).expect_err("the files are there");
        assert_eq!(e.exit_code(), exit_code::BAD_INPUT);
        match e {
            InitError::Exists(paths) => {
                assert_eq!(paths.len(), written);
                assert!(paths.iter().all(|p| p.starts_with(dir.path())), "{paths:?}");
            }
            other => panic!("{other:?}"),
        }
        init(&args(dir.path(), true)).expect("forced");
    }

    #[test]
    fn a_folder_that_cannot_be_made_stops_init_as_could_not_run() {
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").expect("file");
        let e = init(&args(&file.join("repo"), false)).expect_err("a file is in the way");
        assert!(matches!(e, InitError::CreateFolder { .. }), "{e:?}");
        assert_eq!(e.exit_code(), exit_code::COULD_NOT_RUN);
    }
}
