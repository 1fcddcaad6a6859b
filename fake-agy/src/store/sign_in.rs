//! The trace a signed-in agy leaves in its data directory: `antigravity-oauth-token`,
//! the OAuth token file (mode 600) agy keeps when no OS keyring is reachable
//! (docs/agy-reference.md §5). A signed-in fake lays one with fake content when the
//! directory has none; a signed-out one (`FAKE_AGY_SIGNED_OUT`) never does. The data
//! directory is under the `HOME` the fake is given (or `ANTIGRAVITY_APP_DATA_DIR`),
//! never anywhere else.
//!
//! The content is `agy_protocol::sign_in`'s (the harness lays the same file in a
//! signed-in sandbox before the adapter starts, so the fake seldom lays it itself).

use crate::error::FakeError;
use crate::store::brain::AppDir;
use agy_protocol::app_files::TOKEN_FILE;
use agy_protocol::sign_in::fake_token;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// `<app dir>/antigravity-oauth-token`.
pub fn token_path(app: &AppDir) -> PathBuf {
    app.root.join(TOKEN_FILE)
}

/// Lays the token file, mode 600, unless one is there. Returns the file when it laid it.
pub fn lay_token(app: &AppDir) -> Result<Option<PathBuf>, FakeError> {
    let path = token_path(app);
    if path.exists() {
        return Ok(None);
    }
    std::fs::create_dir_all(&app.root).map_err(|e| FakeError::io("create dir", &app.root, e))?;
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path);
    let mut file = match opened {
        Ok(f) => f,
        // A concurrent run laid it first.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(None),
        Err(e) => return Err(FakeError::io("create the token file", &path, e)),
    };
    file.write_all(fake_token(time::OffsetDateTime::now_utc()).as_bytes())
        .map_err(|e| FakeError::io("write the token file", &path, e))?;
    Ok(Some(path))
}
