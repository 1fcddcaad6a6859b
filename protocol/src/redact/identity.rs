//! The identity facts of the person a live run belongs to: the home path, the user
//! name, and the account's name and e-mail read from the credentials profile when it
//! was copied into a sandbox. The redactor removes each of them in every encoding.

use base64::Engine;
use serde_json::Value;
use std::path::Path;

/// Keys of a credentials profile whose string values name the account.
const IDENTITY_KEYS: &[&str] = &[
    "email",
    "name",
    "given_name",
    "family_name",
    "account",
    "user",
    "login",
    "display_name",
    "displayName",
    "active",
];

/// Files of the agy profile (`~/.gemini/antigravity-cli`) that can name the account.
pub const PROFILE_FILES: &[&str] = &[
    "antigravity-oauth-token",
    "settings.json",
    "google_accounts.json",
];

/// Literal facts to remove, besides the secret formats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// Home paths (`[HOME]`).
    pub homes: Vec<String>,
    /// User names (`[USER]`), matched as whole words.
    pub users: Vec<String>,
    /// Account display names and their parts (`[NAME]`), matched as whole words.
    pub names: Vec<String>,
    /// Account e-mail addresses (`[EMAIL]`).
    pub emails: Vec<String>,
}

impl Identity {
    /// The current process's `HOME` and `USER` (or `LOGNAME`).
    pub fn from_env() -> Identity {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let mut id = Identity::default();
        id.homes.extend(var("HOME"));
        id.users.extend(var("USER").or_else(|| var("LOGNAME")));
        id
    }

    /// Adds the account facts found in the agy profile under `home`
    /// (`.gemini/antigravity-cli`); unreadable or non-JSON files add nothing.
    pub fn with_profile_of(mut self, home: &Path) -> Identity {
        let profile = home.join(".gemini").join("antigravity-cli");
        for name in PROFILE_FILES {
            // A profile file is small; a larger one is not a profile file.
            let Ok(meta) = std::fs::metadata(profile.join(name)) else {
                continue;
            };
            if meta.len() > 1 << 20 {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(profile.join(name)) {
                self.add_from_text(&text);
            }
        }
        self
    }

    /// Adds the account facts of one profile file's text (JSON, possibly holding a JWT
    /// `id_token` whose claims name the account).
    pub fn add_from_text(&mut self, text: &str) {
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            self.walk(&value, None, 0);
        }
    }

    fn walk(&mut self, value: &Value, key: Option<&str>, depth: usize) {
        if depth > 16 {
            return;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    self.walk(v, Some(k), depth + 1);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.walk(v, key, depth + 1)),
            Value::String(s) => {
                if let Some(claims) = jwt_claims(s) {
                    self.walk(&claims, None, depth + 1);
                } else if s.contains('@') && s.len() < 320 {
                    push_unique(&mut self.emails, s);
                } else if key.is_some_and(|k| IDENTITY_KEYS.contains(&k)) {
                    self.add_name(s);
                }
            }
            _ => {}
        }
    }

    fn add_name(&mut self, name: &str) {
        let name = name.trim();
        if name.chars().count() < 3 || name.len() > 200 {
            return;
        }
        push_unique(&mut self.names, name);
        for part in name.split_whitespace().filter(|p| p.chars().count() >= 3) {
            push_unique(&mut self.names, part);
        }
    }
}

fn push_unique(list: &mut Vec<String>, s: &str) {
    if !list.iter().any(|x| x == s) {
        list.push(s.to_string());
    }
}

/// The claims of a JWT (`header.claims.signature`, base64url), when `s` is one.
fn jwt_claims(s: &str) -> Option<Value> {
    let mut parts = s.split('.');
    let (header, claims, _sig) = (parts.next()?, parts.next()?, parts.next()?);
    if !header.starts_with("eyJ") || parts.next().is_some() {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_emails_come_from_the_profile_and_its_id_token() {
        let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(br#"{"email":"alice@example.com","name":"Alice Liddell"}"#);
        let token =
            format!(r#"{{"id_token":"eyJhbGciOiJub25lIn0.{claims}.sig","account":"Wonder Land"}}"#);
        let mut id = Identity::default();
        id.add_from_text(&token);
        assert_eq!(id.emails, vec!["alice@example.com"]);
        assert!(id.names.contains(&"Alice Liddell".to_string()));
        assert!(id.names.contains(&"Liddell".to_string()));
        assert!(id.names.contains(&"Wonder Land".to_string()));
    }

    #[test]
    fn a_profile_on_disk_is_read_and_a_missing_one_adds_nothing() {
        let home = tempfile_dir();
        let profile = home.join(".gemini/antigravity-cli");
        std::fs::create_dir_all(&profile).expect("mkdir");
        std::fs::write(
            profile.join("google_accounts.json"),
            r#"{"active":"bob@example.org"}"#,
        )
        .expect("write");
        let id = Identity::default().with_profile_of(&home);
        assert_eq!(id.emails, vec!["bob@example.org"]);
        let none = Identity::default().with_profile_of(&home.join("missing"));
        assert_eq!(none, Identity::default());
        let _ = std::fs::remove_dir_all(&home);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "identity-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("dir");
        d
    }
}
