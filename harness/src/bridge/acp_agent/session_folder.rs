//! A new session's folder: `agent_new`'s `cwd`, a folder inside the bridge's work
//! directory (the sandbox's), created and sent absolute as `session/new`'s `cwd`.

use std::path::{Component, Path, PathBuf};

/// Why a session's folder cannot be given.
#[derive(Debug, thiserror::Error)]
pub(super) enum FolderError {
    /// The bridge's own working directory could not be read.
    #[error("failed to read the bridge's work directory: {0}")]
    WorkDir(std::io::Error),
    /// The folder is absolute or climbs out with `..`.
    #[error("`cwd` must be a folder inside the work directory, not {folder:?}")]
    Outside {
        /// The folder as the op gave it.
        folder: String,
    },
    /// The folder could not be created.
    #[error("failed to create the session folder {}: {source}", path.display())]
    Create {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The absolute `cwd` of a new session: the bridge's work directory, or `folder`
/// inside it.
pub(super) fn session_cwd(folder: Option<&str>) -> Result<PathBuf, FolderError> {
    let work = std::env::current_dir().map_err(FolderError::WorkDir)?;
    cwd_inside(work, folder)
}

/// `folder` inside `work`, created; `work` when there is none.
fn cwd_inside(work: PathBuf, folder: Option<&str>) -> Result<PathBuf, FolderError> {
    let Some(folder) = folder.filter(|f| !f.is_empty()) else {
        return Ok(work);
    };
    let rel = Path::new(folder);
    if rel.is_absolute() || rel.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(FolderError::Outside {
            folder: folder.to_string(),
        });
    }
    let path = work.join(rel);
    std::fs::create_dir_all(&path).map_err(|source| FolderError::Create {
        path: path.clone(),
        source,
    })?;
    // fake-agy journals its cwd as the system reads it back: compare like with like.
    Ok(path.canonicalize().unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_folder_is_created_inside_the_work_directory() {
        let work = tempfile::tempdir().expect("tempdir");
        let root = work.path().canonicalize().expect("canonical");
        let cwd = cwd_inside(root.clone(), Some("projects/alpha")).expect("inside");
        assert_eq!(cwd, root.join("projects/alpha"));
        assert!(cwd.is_dir());
        assert_eq!(cwd_inside(root.clone(), None).ok(), Some(root.clone()));
        assert_eq!(cwd_inside(root.clone(), Some("")).ok(), Some(root));
    }

    #[test]
    fn a_session_folder_outside_the_work_directory_is_refused() {
        let work = tempfile::tempdir().expect("tempdir");
        for folder in ["/etc", "../elsewhere", "a/../../b"] {
            let err = cwd_inside(work.path().to_path_buf(), Some(folder)).expect_err(folder);
            assert!(matches!(err, FolderError::Outside { .. }), "{err}");
            assert!(
                err.to_string().contains("inside the work directory"),
                "{err}"
            );
        }
    }
}
