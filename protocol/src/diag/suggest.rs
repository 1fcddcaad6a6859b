//! "Did you mean" hints.

/// The candidate closest to `word` by edit distance, when it is close enough to be a
/// plausible typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1) + 1;
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// A hint for serde's "unknown field/variant `x`, expected one of `a`, `b`" messages.
pub fn hint_for_serde_message(message: &str) -> Option<String> {
    let (head, expected) = message.split_once("expected")?;
    let word = head.split('`').nth(1)?;
    let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if candidates.is_empty() {
        return None;
    }
    let list = candidates
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match closest(word, candidates.iter().copied()) {
        Some(best) => Some(format!("did you mean `{best}`? expected one of {list}")),
        None => Some(format!("expected one of {list}")),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typo_gets_the_nearest_candidate() {
        assert_eq!(
            closest("expcet", ["send", "expect", "exit"]),
            Some("expect")
        );
        assert_eq!(closest("zzzzzz", ["send", "expect"]), None);
    }

    #[test]
    fn serde_unknown_field_message_becomes_a_hint() {
        let hint = hint_for_serde_message("unknown field `slep`, expected `sleep` or `exit`");
        assert_eq!(
            hint.as_deref(),
            Some("did you mean `sleep`? expected one of `sleep`, `exit`")
        );
    }
}
