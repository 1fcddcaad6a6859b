//! What agy's free text says: the error and response strings the adapter must
//! recognise (recorded wordings, with their sources).

/// The image model's quota, reported only in the agent's prose (docs/spike-records.md S7 correction,
/// docs/agy-reference.md §2.2 item 6).
pub fn mentions_image_quota(response: &str) -> bool {
    let lower = response.to_ascii_lowercase();
    lower.contains("resource_exhausted")
        || lower.contains("429 too many requests")
        || lower.contains("exhausted your capacity")
        || lower.contains("exhausted your quota")
}

/// `authentication required` (DOC, ADR 0013) or `authentication failed or timed out`
/// (docs/agy-reference.md §2.2 item 3, the recorded wording).
pub fn mentions_auth(error: &str) -> bool {
    let lower = error.to_ascii_lowercase();
    lower.contains("authentication required") || lower.contains("authentication failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_and_auth_detection_match_the_recorded_strings() {
        assert!(mentions_image_quota(
            "429 Too Many Requests: RESOURCE_EXHAUSTED (code 429)"
        ));
        assert!(mentions_image_quota(
            "you have exhausted your capacity on the image model"
        ));
        assert!(!mentions_image_quota("Here is your image of a 429 bus"));
        assert!(mentions_auth("Authentication required"));
        assert!(mentions_auth("authentication failed or timed out"));
        assert!(!mentions_auth("Eligibility check failed"));
    }
}
