//! The permission policy: how a `session/request_permission` of a running turn is
//! answered. Only options the agent offered are chosen — Antigravity offers exactly
//! `allow_once` and `reject_once` (docs/agy-acp-reference.md §2.7), and a client must not synthesise
//! "always" (§7 item 16). No matching option means `cancelled`.

use agent_client_protocol_schema::v1::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionResponse,
    SelectedPermissionOutcome,
};

/// The session's policy: `acp_new`'s `permission` (allow when absent).
pub use agy_protocol::driver::AcpPermission as PermissionPolicy;

/// The answer under `policy` to a request offering `options`; `None` for
/// [`PermissionPolicy::Ask`] (the request stays pending).
pub fn answer(
    policy: PermissionPolicy,
    options: &[PermissionOption],
) -> Option<RequestPermissionResponse> {
    let preference: [PermissionOptionKind; 2] = match policy {
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
            chosen(&answer(PermissionPolicy::Allow, &antigravity_options())).as_deref(),
            Some("allow")
        );
        assert_eq!(
            chosen(&answer(PermissionPolicy::Deny, &antigravity_options())).as_deref(),
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
        assert_eq!(chosen(&answer(PermissionPolicy::Deny, &only_allow)), None);
        assert_eq!(chosen(&answer(PermissionPolicy::Allow, &[])), None);
    }

    #[test]
    fn ask_leaves_the_request_pending() {
        assert!(answer(PermissionPolicy::Ask, &antigravity_options()).is_none());
    }
}
