//! The catalogue and the spikes compiled into the binary, so an installed agy-harness
//! (`cargo install --path harness`) runs from any folder. They are written out once per
//! content into the temp folder, because scenarios name their script files by path and
//! fake-agy reads them from disk. `scenarios` and `spikes` in this crate are links to the
//! workspace's folders, so a packaged agy-harness (`cargo package`) carries them.

use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Why a built-in folder could not be written out (cloned: it is kept once per process).
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbeddedError {
    /// No folder could be made for it.
    #[error("failed to make a folder for the built-in {name}: {reason}")]
    Folder {
        /// `scenarios` or `spikes`.
        name: String,
        /// The I/O error.
        reason: String,
    },
    /// Its files could not be written.
    #[error("failed to write the built-in {name}: {reason}")]
    Write {
        /// `scenarios` or `spikes`.
        name: String,
        /// The I/O error.
        reason: String,
    },
}

static CATALOGUE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scenarios");
static SPIKES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/spikes");

/// How reports name the built-in catalogue's folder.
pub const BUILT_IN: &str = "built-in:scenarios";

/// The built-in catalogue, written out (once per process).
pub fn catalogue_dir() -> Result<PathBuf, EmbeddedError> {
    static DIR: OnceLock<Result<PathBuf, EmbeddedError>> = OnceLock::new();
    DIR.get_or_init(|| write_out(&CATALOGUE, "scenarios"))
        .clone()
}

/// The built-in spikes, written out (once per process).
pub fn spikes_dir() -> Result<PathBuf, EmbeddedError> {
    static DIR: OnceLock<Result<PathBuf, EmbeddedError>> = OnceLock::new();
    DIR.get_or_init(|| write_out(&SPIKES, "spikes")).clone()
}

/// Every file of the built-in catalogue: its path under the catalogue and its bytes.
pub fn catalogue_files() -> Vec<(&'static Path, &'static [u8])> {
    let mut files = Vec::new();
    collect(&CATALOGUE, &mut files);
    files.iter().map(|f| (f.path(), f.contents())).collect()
}

/// Where the built-in catalogue was written, when it was asked for.
pub fn written_catalogue() -> Option<&'static Path> {
    CATALOGUE_WRITTEN.get().map(PathBuf::as_path)
}

static CATALOGUE_WRITTEN: OnceLock<PathBuf> = OnceLock::new();

/// Writes `dir` into `<temp>/agy-harness-<uid>-<name>-<content hash>/`, reusing a folder
/// a previous run wrote with the same content. A new folder is filled under a unique
/// name and renamed into place, so concurrent runs never see half a catalogue.
fn write_out(dir: &'static Dir<'static>, name: &str) -> Result<PathBuf, EmbeddedError> {
    write_out_in(&std::env::temp_dir(), dir, name)
}

/// [`write_out`] into `base`. A folder found there is reused only when it holds
/// exactly the built-in files, byte for byte: one edited or deleted since would
/// silently weaken every later run, so it is replaced.
fn write_out_in(
    base: &Path,
    dir: &'static Dir<'static>,
    name: &str,
) -> Result<PathBuf, EmbeddedError> {
    let uid = nix::unistd::getuid();
    let target = base.join(format!(
        "agy-harness-{uid}-{name}-{:016x}",
        content_hash(dir)
    ));
    let ours = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir() && m.uid() == uid.as_raw())
    };
    if ours(&target) && !holds_exactly(dir, &target) {
        // Moved aside first, so a run reading it never sees it half removed.
        let stale = base.join(format!(
            "agy-harness-{uid}-{name}-stale-{}",
            std::process::id()
        ));
        if std::fs::rename(&target, &stale).is_ok() {
            let _ = std::fs::remove_dir_all(&stale);
        }
    }
    if !ours(&target) {
        let fresh = tempfile::Builder::new()
            .prefix(&format!("agy-harness-{uid}-{name}-new-"))
            .tempdir_in(base)
            .map_err(|e| EmbeddedError::Folder {
                name: name.to_string(),
                reason: e.to_string(),
            })?;
        dir.extract(fresh.path())
            .map_err(|e| EmbeddedError::Write {
                name: name.to_string(),
                reason: e.to_string(),
            })?;
        let fresh = fresh.keep();
        if std::fs::rename(&fresh, &target).is_err() {
            // Another run put it there first, or the name is taken: use ours.
            if !ours(&target) {
                return finish(name, fresh);
            }
            let _ = std::fs::remove_dir_all(&fresh);
        }
    }
    finish(name, target)
}

fn finish(name: &str, path: PathBuf) -> Result<PathBuf, EmbeddedError> {
    if name == "scenarios" {
        let _ = CATALOGUE_WRITTEN.set(path.clone());
    }
    Ok(path)
}

/// FNV-1a over every file's path and bytes.
fn content_hash(dir: &'static Dir<'static>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort_by_key(|f| f.path());
    for f in files {
        eat(f.path().to_string_lossy().as_bytes());
        eat(f.contents());
    }
    h
}

/// True when `folder` holds the files of `dir` with their contents, and no other file.
fn holds_exactly(dir: &'static Dir<'static>, folder: &Path) -> bool {
    let mut files = Vec::new();
    collect(dir, &mut files);
    let same = files
        .iter()
        .all(|f| std::fs::read(folder.join(f.path())).is_ok_and(|b| b == f.contents()));
    same && count_files(folder) == Some(files.len())
}

/// The regular files under `folder`, or `None` if it cannot be read.
fn count_files(folder: &Path) -> Option<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(folder).ok()? {
        let entry = entry.ok()?;
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            n += count_files(&entry.path())?;
        } else {
            n += 1;
        }
    }
    Some(n)
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<&'static include_dir::File<'static>>) {
    out.extend(dir.files());
    for d in dir.dirs() {
        collect(d, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_or_thinned_extraction_is_replaced_not_reused() {
        // Regression: a folder of the built-in catalogue with a file deleted or edited
        // was reused by name, and the run checked less than the catalogue.
        let base = tempfile::tempdir().expect("temp dir");
        let first = write_out_in(base.path(), &SPIKES, "spikes").expect("written");
        assert!(holds_exactly(&SPIKES, &first));
        std::fs::remove_file(first.join("S1.toml")).expect("delete");
        std::fs::write(first.join("S2.toml"), "[spike]\n").expect("edit");
        std::fs::write(first.join("S9.toml"), "[spike]\n").expect("add");
        let again = write_out_in(base.path(), &SPIKES, "spikes").expect("written");
        assert_eq!(again, first);
        assert!(holds_exactly(&SPIKES, &again));
        assert!(!again.join("S9.toml").exists());
    }
}
