//! The sign-in a signed-in fake agy shows, spelled once for the fake that lays it on its
//! first turn and the harness that lays it before an adapter starts: the account its log
//! names and the content of `antigravity-oauth-token`
//! ([`crate::app_files::TOKEN_FILE`], mode 600), the file agy keeps its OAuth token in
//! when no OS keyring is reachable (docs/agy-reference.md §5).
//!
//! The content is Go's `oauth2.Token` (`access_token`, `token_type`, `refresh_token`,
//! `expiry`) under `token`, beside `auth_method` `consumer`: the shape clients that
//! read or seed the file use (**unverified**: their repositories are not named in the
//! record). The values are plainly fake.

use time::OffsetDateTime;

/// The account a signed-in fake names in its log: plainly fake.
pub const FAKE_ACCOUNT: &str = "fake-agy@example.com";

/// The token file's content: expiring an hour after `now`.
pub fn fake_token(now: OffsetDateTime) -> String {
    let expiry = (now + time::Duration::hours(1))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    serde_json::json!({
        "token": {
            "access_token": "fake-agy-access-token",
            "token_type": "Bearer",
            "refresh_token": "fake-agy-refresh-token",
            "expiry": expiry,
        },
        "auth_method": "consumer",
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_expires_an_hour_after_it_is_laid() {
        let now = time::macros::datetime!(2026-09-14 23:14:17 UTC);
        let token: serde_json::Value =
            serde_json::from_str(&fake_token(now)).expect("the token is JSON");
        assert_eq!(token["token"]["expiry"], "2026-09-15T00:14:17Z");
        assert_eq!(token["auth_method"], "consumer");
    }
}
