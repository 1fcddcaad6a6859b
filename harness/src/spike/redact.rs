//! Redaction applied at record time: the user's home path, user name, e-mail addresses
//! and tokens never reach a trace file.

use regex::Regex;

/// Replaces personal data in recorded text.
#[derive(Debug, Clone)]
pub struct Redactor {
    home: Option<String>,
    user: Option<Regex>,
    email: Regex,
    tokens: Regex,
}

impl Redactor {
    /// A redactor for this user's home path and user name.
    pub fn new(home: Option<String>, user: Option<String>) -> Redactor {
        let user = user
            .filter(|u| u.len() >= 3)
            .and_then(|u| Regex::new(&format!(r"\b{}\b", regex::escape(&u))).ok());
        Redactor {
            home: home.filter(|h| h.len() > 1),
            user,
            // Built from literals known to compile.
            email: Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}").unwrap_or_else(|_| never()),
            tokens: Regex::new(r#"(ya29\.[A-Za-z0-9._-]+|AIza[0-9A-Za-z_-]{20,}|1//[0-9A-Za-z_-]{20,}|(?i:bearer)\s+[A-Za-z0-9._~+/-]+=*)"#)
                .unwrap_or_else(|_| never()),
        }
    }

    /// The redactor for the current user (`HOME`, `USER`).
    pub fn for_current_user() -> Redactor {
        Redactor::new(std::env::var("HOME").ok(), std::env::var("USER").ok())
    }

    /// Redacts one piece of text.
    pub fn redact(&self, text: &str) -> String {
        let mut s = text.to_string();
        if let Some(home) = &self.home {
            s = s.replace(home.as_str(), "[HOME]");
        }
        s = self.tokens.replace_all(&s, "[TOKEN]").into_owned();
        s = self.email.replace_all(&s, "[EMAIL]").into_owned();
        if let Some(user) = &self.user {
            s = user.replace_all(&s, "[USER]").into_owned();
        }
        s
    }
}

fn never() -> Regex {
    // A pattern that matches nothing; only reached if a literal above failed to compile.
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!("a constant pattern compiles"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_user_email_and_tokens_are_replaced() {
        let r = Redactor::new(Some("/home/alice".into()), Some("alice".into()));
        let out = r.redact("cwd /home/alice/work by alice <alice@example.com> token ya29.a0AbC-123_x Bearer abc.def");
        assert_eq!(
            out,
            "cwd [HOME]/work by [USER] <[EMAIL]> token [TOKEN] [TOKEN]"
        );
    }

    #[test]
    fn short_user_names_are_not_redacted_everywhere() {
        let r = Redactor::new(None, Some("al".into()));
        assert_eq!(r.redact("all along"), "all along");
    }
}
