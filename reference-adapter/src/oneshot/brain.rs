//! The brain directory: where agy puts a generated image (docs/spike-records.md S2:
//! `brain/<conversation_id>/<ImageName>_<epoch_ms>.jpg`, next to bookkeeping subfolders).

use super::image::{decode_image, ImageInfo};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// An image file found in the brain directory, and whether it decodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundImage {
    /// The file.
    pub path: PathBuf,
    /// Its format and size, or why it does not decode.
    pub decoded: Result<ImageInfo, String>,
}

const IMAGE_EXTENSIONS: [&str; 3] = ["jpg", "jpeg", "png"];

/// True when agy's conversation id can name a directory: one normal path component.
pub(crate) fn usable_conversation_id(id: &str) -> bool {
    !id.is_empty() && id != "." && id != ".." && !id.contains(['/', '\\', '\0'])
}

/// The image files directly in `dir` (subfolders such as `scratch/` are not output),
/// sorted by name, each decoded. A missing directory holds no images.
pub fn list_images(dir: &Path) -> Vec<FoundImage> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .map(|x| IMAGE_EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()))
                .unwrap_or(false)
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let decoded = std::fs::read(&path)
                .map_err(|e| format!("cannot read: {e}"))
                .and_then(|bytes| decode_image(&bytes));
            FoundImage { path, decoded }
        })
        .collect()
}

/// The conversation folders under `brain/` now (a missing folder has none).
pub fn conversation_dirs(brain_root: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(brain_root) else {
        return BTreeSet::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .collect()
}

/// The images of conversations that appeared during the run other than the run's own:
/// from agy 1.2.16 the `image-generator` subagent makes the image in its own
/// conversation, `brain/<child conversation_id>/` (docs/agy-versions.md,
/// `ImageSubagent`), and the JSON envelope does not name the child.
pub fn subagent_images(
    brain_root: &Path,
    before: &BTreeSet<String>,
    parent: &str,
) -> Vec<FoundImage> {
    conversation_dirs(brain_root)
        .into_iter()
        .filter(|d| d != parent && !before.contains(d))
        .flat_map(|d| list_images(&brain_root.join(d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_top_level_image_files_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("scratch")).expect("mkdir");
        std::fs::write(dir.path().join("scratch/x.jpg"), b"x").expect("write");
        std::fs::write(dir.path().join("notes.txt"), b"x").expect("write");
        std::fs::write(dir.path().join("b_2.JPG"), b"x").expect("write");
        std::fs::write(dir.path().join("a_1.png"), b"x").expect("write");
        let found = list_images(dir.path());
        let names: Vec<_> = found
            .iter()
            .map(|f| {
                f.path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a_1.png", "b_2.JPG"]);
        assert!(found.iter().all(|f| f.decoded.is_err()));
    }

    #[test]
    fn a_missing_directory_holds_nothing() {
        assert!(list_images(Path::new("/nonexistent/brain/x")).is_empty());
    }

    #[test]
    fn a_subagent_image_is_found_in_a_conversation_that_appeared_during_the_run() {
        let root = tempfile::tempdir().expect("tempdir");
        let mkdir = |d: &str| std::fs::create_dir_all(root.path().join(d)).expect("mkdir");
        mkdir("old");
        std::fs::write(root.path().join("old/a.jpg"), b"x").expect("write");
        let before = conversation_dirs(root.path());
        mkdir("parent");
        mkdir("child");
        std::fs::write(root.path().join("child/b.jpg"), b"x").expect("write");
        std::fs::write(root.path().join("parent/c.jpg"), b"x").expect("write");
        let found = subagent_images(root.path(), &before, "parent");
        let names: Vec<_> = found.iter().map(|f| f.path.clone()).collect();
        assert_eq!(names, vec![root.path().join("child/b.jpg")]);
    }

    #[test]
    fn conversation_ids_cannot_escape_the_brain_directory() {
        assert!(usable_conversation_id(
            "e1fea50a-738b-40bd-beb4-249481d6ab1e"
        ));
        for bad in ["", ".", "..", "../x", "a/b"] {
            assert!(!usable_conversation_id(bad), "{bad}");
        }
    }
}
