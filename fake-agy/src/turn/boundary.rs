//! agy's hardcoded protection boundary: a read of agy's own data directory is denied
//! whatever the permission mode; the tool step is an ERROR, the model answers, and the
//! turn's result is ERROR carrying the tool error while `response` keeps the answer
//! (gb-1.1.18-protection-boundary; other versions **unverified**).

use crate::store::brain::AppDir;

/// The parameters that name the path a reading tool looks at.
const PATH_KEYS: &[&str] = &[
    "DirectoryPath",
    "AbsolutePath",
    "SearchPath",
    "SearchDirectory",
];

/// The data directory as the model writes it (gb-1.1.18-protection-boundary).
const DATA_DIR: &str = "~/.gemini/antigravity-cli";

/// The denial message when `parameters` name a path inside agy's data directory `app`.
pub fn denial(app: &AppDir, parameters: &serde_json::Value) -> Option<String> {
    let root = app.root.display().to_string();
    let path = PATH_KEYS
        .iter()
        .find_map(|k| parameters.get(*k).and_then(|v| v.as_str()))?;
    (inside(path, DATA_DIR) || inside(path, &root)).then(|| {
        format!(
            "permission check failed for read_file {path:?}: Permission denied for read_file({path}). Matches hardcoded system protection boundary rule."
        )
    })
}

/// True when `path` is `base` or below it.
fn inside(path: &str, base: &str) -> bool {
    path == base || path.strip_prefix(base).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_inside_the_data_directory_are_denied() {
        assert!(inside("~/.gemini/antigravity-cli", DATA_DIR));
        assert!(inside("~/.gemini/antigravity-cli/brain", DATA_DIR));
        assert!(!inside("~/.gemini/antigravity-cli-other", DATA_DIR));
        assert!(!inside("/work", DATA_DIR));
    }
}
