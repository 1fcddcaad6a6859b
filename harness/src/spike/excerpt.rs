//! Drift output a reader can use: the part of an observed value that departs from what
//! was expected, with control characters escaped.

use super::model::Comparator;
use serde_json::Value;

/// Characters shown of a long value.
const WIDTH: usize = 160;
/// Characters kept before the point where a value departs from the expected text.
const LEAD: usize = 40;

/// `value` as a drift report shows it next to comparator `c`: a long string cut around
/// where it departs from the expected text (for `equals` and `starts_with` on text),
/// else its start; newlines and other control characters escaped.
pub fn excerpt(c: &Comparator, value: &Value) -> String {
    let Value::String(s) = value else {
        return cut(&value.to_string(), 0);
    };
    let expected = match c {
        Comparator::Equals(Value::String(e)) => Some(e.as_str()),
        Comparator::StartsWith(e) => Some(e.as_str()),
        _ => None,
    };
    let Some(expected) = expected else {
        return quoted(s, 0);
    };
    let at = s
        .chars()
        .zip(expected.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let shown = quoted(s, at.saturating_sub(LEAD));
    if at < s.chars().count() || at < expected.chars().count() {
        format!("{shown} (departs at character {})", at + 1)
    } else {
        shown
    }
}

fn quoted(s: &str, from: usize) -> String {
    format!("\"{}\"", cut(s, from))
}

/// `WIDTH` characters of `s` from character `from`, escaped, `…` where cut.
fn cut(s: &str, from: usize) -> String {
    let total = s.chars().count();
    let body: String = s.chars().skip(from).take(WIDTH).collect();
    format!(
        "{}{}{}",
        if from > 0 { "…" } else { "" },
        body.escape_debug(),
        if from + WIDTH < total { "…" } else { "" }
    )
}

/// A regex as reports show it: between slashes, newlines and tabs escaped.
pub fn shown_regex(re: &str) -> String {
    format!("/{}/", re.escape_debug())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_text_is_cut_around_where_it_departs() {
        let expected = format!("{}END", "a".repeat(300));
        let observed = format!("{}X\nrest", "a".repeat(300));
        let shown = excerpt(&Comparator::Equals(json!(expected)), &json!(observed));
        assert!(shown.starts_with("\"…aaaa"), "{shown}");
        assert!(shown.contains("aX\\nrest\""), "{shown}");
        assert!(shown.ends_with("(departs at character 301)"), "{shown}");
    }

    #[test]
    fn other_values_show_their_start_escaped() {
        let shown = excerpt(&Comparator::Contains(json!("zz")), &json!("line\nnext"));
        assert_eq!(shown, "\"line\\nnext\"");
        assert_eq!(excerpt(&Comparator::Min(1.0), &json!(0)), "0");
        assert_eq!(shown_regex("^a\nb$"), "/^a\\nb$/");
    }
}
