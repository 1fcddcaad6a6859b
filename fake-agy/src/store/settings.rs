//! agy's `settings.json` in the data directory (docs/agy-reference.md §5): the fake reads
//! `toolPermission`, which `init.permission_mode` reports (docs/agy-versions.md,
//! "Permissions").

use std::io::Read;
use std::path::Path;

/// The largest settings file read; a larger one is treated as absent.
const MAX_SETTINGS_BYTES: u64 = 256 * 1024;

/// The tool-permission values agy's settings accept (§5).
pub const TOOL_PERMISSIONS: &[&str] = &[
    "request-review",
    "proceed-in-sandbox",
    "always-proceed",
    "strict",
];

/// The `toolPermission` of `<app dir>/settings.json` when it names one of
/// [`TOOL_PERMISSIONS`]; a missing, unreadable or malformed file gives `None` (what agy
/// does with a malformed file is unrecorded).
pub fn tool_permission(app_dir: &Path) -> Option<String> {
    let file = std::fs::File::open(app_dir.join("settings.json")).ok()?;
    let mut text = String::new();
    file.take(MAX_SETTINGS_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    if text.len() as u64 > MAX_SETTINGS_BYTES {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let p = v.get("toolPermission")?.as_str()?;
    TOOL_PERMISSIONS.contains(&p).then(|| p.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_tool_permission_is_read_and_checked() {
        let dir = tempfile::tempdir().expect("temp");
        assert_eq!(tool_permission(dir.path()), None);
        let write = |t: &str| std::fs::write(dir.path().join("settings.json"), t).expect("write");
        write(r#"{"toolPermission": "strict", "model": "Gemini 3.8 Flash (High)"}"#);
        assert_eq!(tool_permission(dir.path()).as_deref(), Some("strict"));
        write(r#"{"toolPermission": "sometimes"}"#);
        assert_eq!(tool_permission(dir.path()), None);
        write("{not json");
        assert_eq!(tool_permission(dir.path()), None);
    }
}
