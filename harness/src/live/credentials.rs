//! How a live run gets the user's credentials. The default gives it none; the others
//! are explicit, documented opt-ins.

use crate::sandbox::{profile_dir, TOKEN_FILE};
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// `--credentials`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CredentialsArg {
    /// An empty profile: live runs are not signed in.
    None,
    /// Copy the token file and settings.json from ~/.gemini/antigravity-cli into the sandbox.
    Copy,
    /// Run with your real HOME: agy writes into your ~/.gemini.
    Home,
}

/// The resolved choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// An empty profile.
    None,
    /// Copy `antigravity-oauth-token` and `settings.json` from this home into the
    /// sandbox `HOME` (the user's files are only read).
    Copy(PathBuf),
    /// Run with this (the real) `HOME`.
    Home(PathBuf),
}

/// `--credentials` other than `none` without a `HOME` to take them from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--credentials needs HOME to be set")]
pub struct NoHome;

impl Credentials {
    /// Resolves `--credentials` against the user's `HOME`.
    pub fn from_arg(arg: CredentialsArg) -> Result<Credentials, NoHome> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        match (arg, home) {
            (CredentialsArg::None, _) => Ok(Credentials::None),
            (CredentialsArg::Copy, Some(h)) => Ok(Credentials::Copy(h)),
            (CredentialsArg::Home, Some(h)) => Ok(Credentials::Home(h)),
            (_, None) => Err(NoHome),
        }
    }

    /// Prepares `sandbox_home` and returns the `HOME` the run gets.
    pub fn home_for(&self, sandbox_home: &Path) -> PathBuf {
        match self {
            Credentials::None => sandbox_home.to_path_buf(),
            Credentials::Copy(real) => {
                copy_credentials(real, sandbox_home);
                sandbox_home.to_path_buf()
            }
            Credentials::Home(real) => real.clone(),
        }
    }

    /// The redactor of a live run with these credentials: the user's own facts, and
    /// the account's when the run can see the user's credentials.
    pub fn redactor(&self) -> agy_protocol::redact::Redactor {
        use agy_protocol::redact::{Identity, Redactor};
        let identity = Identity::from_env();
        match self {
            Credentials::Copy(home) | Credentials::Home(home) => {
                Redactor::new(&identity.with_profile_of(home))
            }
            Credentials::None => Redactor::new(&identity),
        }
    }
}

/// Copies the token file and settings from `real_home`'s profile into
/// `sandbox_home`'s; missing files are skipped (a keyring sign-in has no token file).
pub fn copy_credentials(real_home: &Path, sandbox_home: &Path) {
    let from = profile_dir(real_home);
    let to = profile_dir(sandbox_home);
    let _ = std::fs::create_dir_all(&to);
    for name in [TOKEN_FILE, "settings.json"] {
        let _ = std::fs::copy(from.join(name), to.join(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_takes_the_token_and_settings_and_leaves_the_rest() {
        let real = tempfile::tempdir().expect("real");
        let sandbox = tempfile::tempdir().expect("sandbox");
        let profile = real.path().join(".gemini/antigravity-cli");
        std::fs::create_dir_all(profile.join("brain")).expect("mkdir");
        std::fs::write(profile.join("antigravity-oauth-token"), "t").expect("token");
        std::fs::write(profile.join("settings.json"), "{}").expect("settings");
        let home = Credentials::Copy(real.path().to_path_buf()).home_for(sandbox.path());
        assert_eq!(home, sandbox.path());
        let copied = sandbox.path().join(".gemini/antigravity-cli");
        assert!(copied.join("antigravity-oauth-token").is_file());
        assert!(copied.join("settings.json").is_file());
        assert!(!copied.join("brain").exists());
    }
}
