//! The permission policy: how a `session/request_permission` of a running turn is
//! answered. Only options the agent offered are chosen — Antigravity offers exactly
//! `allow_once` and `reject_once` (docs/agy-acp-reference.md §2.7), and a client must not synthesise
//! "always" (§7 item 16). No matching option means `cancelled`.

use agent_client_protocol_schema::v1::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionResponse,
    SelectedPermissionOutcome,
};

/// The session's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionPolicy {
    /// Choose an allow option (`allow_once` first).
    #[default]
    Allow,
    /// Choose a reject option (`reject_once` first).
    Deny,
    /// Leave the request pending, as a user who has not decided yet: it is answered
    /// `cancelled` when the turn is cancelled or ends (docs/agy-acp-reference.md §1.7, §7 item 18).
    Ask,
}

impl PermissionPolicy {
    /// Parses `allow` / `deny` (absent means allow).
    pub fn parse(text: Option<&str>) -> Result<PermissionPolicy, String> {
        match text {
            None | Some("allow") => Ok(PermissionPolicy::Allow),
            Some("deny") => Ok(PermissionPolicy::Deny),
            Some("ask") => Ok(PermissionPolicy::Ask),
            Some(other) => Err(format!(
                "unknown permission policy `{other}`; expected `allow`, `deny` or `ask`"
            )),
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionPolicy::Allow => "allow",
            PermissionPolicy::Deny => "deny",
            PermissionPolicy::Ask => "ask",
        }
    }

    /// The answer to a request offering `options`; `None` for [`PermissionPolicy::Ask`]
    /// (the request stays pending).
    pub fn answer(self, options: &[PermissionOption]) -> Option<RequestPermissionResponse> {
        let preference: [PermissionOptionKind; 2] = match self {
            PermissionPolicy::Ask => return None,
            PermissionPolicy::Allow => [
                PermissionOptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways,
            ],
            PermissionPolicy::Deny => [
                PermissionOptionKind::RejectOnce,
                PermissionOptionKind::RejectAlways,
            ],
        };
        let chosen = preference
            .iter()
            .find_map(|kind| options.iter().find(|o| o.kind == *kind));
        Some(match chosen {
            Some(option) => RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
                SelectedPermissionOutcome::new(option.option_id.clone()),
            )),
            None => cancelled(),
        })
    }
}

/// The `cancelled` outcome.
pub fn cancelled() -> RequestPermissionResponse {
    RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn antigravity_options() -> Vec<PermissionOption> {
        vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("deny", "Deny", PermissionOptionKind::RejectOnce),
        ]
    }

    fn chosen(r: &Option<RequestPermissionResponse>) -> Option<String> {
        match &r.as_ref().expect("answered").outcome {
            RequestPermissionOutcome::Selected(s) => Some(s.option_id.0.to_string()),
            _ => None,
        }
    }

    #[test]
    fn policies_choose_among_the_offered_options() {
        assert_eq!(
            chosen(&PermissionPolicy::Allow.answer(&antigravity_options())).as_deref(),
            Some("allow")
        );
        assert_eq!(
            chosen(&PermissionPolicy::Deny.answer(&antigravity_options())).as_deref(),
            Some("deny")
        );
    }

    #[test]
    fn no_matching_option_is_cancelled() {
        let only_allow = vec![PermissionOption::new(
            "a",
            "A",
            PermissionOptionKind::AllowOnce,
        )];
        assert_eq!(chosen(&PermissionPolicy::Deny.answer(&only_allow)), None);
        assert_eq!(chosen(&PermissionPolicy::Allow.answer(&[])), None);
    }

    #[test]
    fn policy_names_parse() {
        assert_eq!(PermissionPolicy::parse(None), Ok(PermissionPolicy::Allow));
        assert_eq!(
            PermissionPolicy::parse(Some("deny")),
            Ok(PermissionPolicy::Deny)
        );
        assert_eq!(
            PermissionPolicy::parse(Some("ask")),
            Ok(PermissionPolicy::Ask)
        );
        assert!(PermissionPolicy::parse(Some("always")).is_err());
        assert!(PermissionPolicy::Ask
            .answer(&antigravity_options())
            .is_none());
    }
}
