//! The `init` command: writes the starter files, refusing to overwrite any without
//! `--force`.

use super::skeleton::{render, writes_driver, Language, StarterFile, CONFIG_FILE, DRIVER_DIR};
use crate::exit_code;
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

/// `agy-harness init`: writes `agy-adapter.toml` and `agy-driver/` into the folder.
pub fn init_command(args: InitArgs) -> i32 {
    let name = std::fs::canonicalize(&args.dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .map(|n| format!("{n} adapter"))
        .unwrap_or_else(|| "my adapter".into());
    let files = render(args.profile, args.language, &name);
    let existing: Vec<&StarterFile> = files
        .iter()
        .filter(|f| args.dir.join(&f.path).exists())
        .collect();
    if !args.force && !existing.is_empty() {
        for f in &existing {
            eprintln!(
                "error: `{}` exists already",
                args.dir.join(&f.path).display()
            );
        }
        eprintln!("help: pass `--force` to overwrite, or choose another folder");
        return exit_code::BAD_INPUT;
    }
    for f in &files {
        if let Err(e) = write_file(&args.dir, f) {
            eprintln!("error: {e}");
            return exit_code::COULD_NOT_RUN;
        }
        println!("wrote {}", args.dir.join(&f.path).display());
    }
    print_next_steps(&args.dir, args.language, writes_driver(args.profile));
    exit_code::ALL_CONFORM
}

fn write_file(dir: &Path, file: &StarterFile) -> Result<(), String> {
    let path = dir.join(&file.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("failed to create `{}`: {e}", parent.display()))?;
    }
    crate::keep::write_kept(&path, &file.text)
        .map_err(|e| format!("failed to write `{}`: {e}", path.display()))?;
    if file.executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("failed to make `{}` executable: {e}", path.display()))?;
    }
    Ok(())
}

fn print_next_steps(dir: &Path, language: Language, driver: bool) {
    let config = dir.join(CONFIG_FILE);
    println!("\nnext:");
    if !driver {
        println!(
            "  put your server's command line and its tool in {}",
            config.display()
        );
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
