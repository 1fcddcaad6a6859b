//! What a calibration's values must satisfy beyond their types: placeholders a template
//! knows, unique ids, step lists that start and end as a step does, exit codes a process
//! can return.

use super::model::*;
use crate::diag::closest;

/// A problem with one field's value: the field, the array element when it is one, what
/// is wrong and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field (`listing`).
    pub field: &'static str,
    /// The element of an array field.
    pub index: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub hint: String,
}

fn problem(field: &'static str, message: String, hint: impl Into<String>) -> Problem {
    Problem {
        field,
        index: None,
        message,
        hint: hint.into(),
    }
}

/// A section's checks beyond its types.
pub trait Check {
    /// Every problem of the section's values.
    fn problems(&self) -> Vec<Problem> {
        Vec::new()
    }
}

/// The `{name}` placeholders of a template that are not in `known`, as problems.
fn placeholders(field: &'static str, text: &str, known: &[&str]) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = &after[..close];
        rest = &after[close + 1..];
        let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if word && !known.contains(&name) {
            let list = known
                .iter()
                .map(|k| format!("`{{{k}}}`"))
                .collect::<Vec<_>>();
            let hint = match closest(name, known.iter().copied()) {
                Some(best) => format!(
                    "did you mean `{{{best}}}`? `{field}` takes {}",
                    list.join(", ")
                ),
                None if known.is_empty() => format!("`{field}` takes no placeholder"),
                None => format!("`{field}` takes {}", list.join(", ")),
            };
            out.push(problem(
                field,
                format!("unknown placeholder `{{{name}}}` in `{field}`"),
                hint,
            ));
        }
    }
    out
}

fn exit_code(field: &'static str, code: i32) -> Vec<Problem> {
    if (0..=255).contains(&code) {
        return Vec::new();
    }
    vec![problem(
        field,
        format!("exit code {code} is out of range"),
        "a process exits 0 to 255",
    )]
}

fn duplicates<'a>(field: &'static str, items: impl Iterator<Item = &'a str>) -> Vec<Problem> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        if !seen.insert(item) {
            out.push(Problem {
                index: Some(i),
                ..problem(
                    field,
                    format!("`{item}` is listed twice in `{field}`"),
                    "list it once",
                )
            });
        }
    }
    out
}

impl Check for Identity {
    fn problems(&self) -> Vec<Problem> {
        match &self.covers {
            Some(range) if !range.contains(self.agy) => vec![problem(
                "covers",
                format!("`covers` ({range}) does not hold `agy` ({})", self.agy),
                "widen the range or change `agy`",
            )],
            _ => Vec::new(),
        }
    }
}

impl Check for Models {
    fn problems(&self) -> Vec<Problem> {
        let mut out = placeholders("listing", &self.listing, &["id", "label"]);
        if !self.listing.contains("{id}") && !self.listing.contains("{label}") {
            out.push(problem(
                "listing",
                "`listing` names neither `{id}` nor `{label}`".into(),
                "write e.g. `{id}\\t{label}`",
            ));
        }
        if self.model.is_empty() {
            out.push(problem(
                "model",
                "the catalogue is empty".into(),
                "add `[[models.model]]` tables with `id` and `label`",
            ));
        }
        out.extend(duplicates(
            "model",
            self.model.iter().map(|m| m.id.as_str()),
        ));
        out
    }
}

impl Check for Init {
    fn problems(&self) -> Vec<Problem> {
        duplicates("tools", self.tools.iter().map(String::as_str))
    }
}

impl Check for Errors {}
impl Check for Turns {}
impl Check for Conversation {}
impl Check for Image {}
impl Check for PromptInput {}

impl Check for Denial {
    fn problems(&self) -> Vec<Problem> {
        let mut out = placeholders("notice", &self.notice, &["action"]);
        out.extend(placeholders(
            "command_error",
            &self.command_error,
            &["command"],
        ));
        if self.status == EndStatus::Error {
            out.push(problem(
                "status",
                "a headless denial ends SUCCESS or CANCELED".into(),
                "write `\"SUCCESS\"` or `\"CANCELED\"`",
            ));
        }
        let steps = &self.command_step;
        let shape = steps.first() == Some(&StepStatus::Active)
            && steps.len() == 2
            && steps.last() != Some(&StepStatus::Active);
        if !shape {
            out.push(problem(
                "command_step",
                "a tool step goes ACTIVE, then DONE or ERROR".into(),
                "write `[\"ACTIVE\", \"DONE\"]` or `[\"ACTIVE\", \"ERROR\"]`",
            ));
        }
        out
    }
}

impl Check for PrintTimeout {
    fn problems(&self) -> Vec<Problem> {
        let mut out = placeholders("notice", &self.notice, &["duration"]);
        out.extend(exit_code("exit_code", self.exit_code));
        match self.status {
            EndStatus::Error if self.error.is_empty() => out.push(problem(
                "status",
                "an ERROR result needs its `error` text".into(),
                "add `error = \"…\"`",
            )),
            EndStatus::Canceled => out.push(problem(
                "status",
                "a print timeout ends SUCCESS or ERROR".into(),
                "write `\"SUCCESS\"` or `\"ERROR\"`",
            )),
            _ => {}
        }
        out
    }
}

/// The keys a usage object may carry.
pub const USAGE_KEYS: &[&str] = &[
    "input_tokens",
    "output_tokens",
    "thinking_tokens",
    "cache_read_tokens",
    "total_tokens",
];

impl Check for UsageKeys {
    fn problems(&self) -> Vec<Problem> {
        let mut out = duplicates("keys", self.keys.iter().map(String::as_str));
        for (i, k) in self.keys.iter().enumerate() {
            if !USAGE_KEYS.contains(&k.as_str()) {
                let list = USAGE_KEYS
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let hint = match closest(k, USAGE_KEYS.iter().copied()) {
                    Some(best) => format!("did you mean `{best}`? a usage object carries {list}"),
                    None => format!("a usage object carries {list}"),
                };
                out.push(Problem {
                    index: Some(i),
                    ..problem("keys", format!("unknown usage key `{k}`"), hint)
                });
            }
        }
        out
    }
}

impl Check for Files {
    fn problems(&self) -> Vec<Problem> {
        let mut out = placeholders("conversation", &self.conversation, &["id"]);
        let c = &self.conversation;
        let written = ["conversations/{id}.db", "conversations/{id}.pb"];
        if !written.contains(&c.as_str()) {
            out.push(problem(
                "conversation",
                format!(
                    "fake-agy writes a conversation as `{}` or `{}`, not `{c}`",
                    written[0], written[1]
                ),
                "write `conversations/{id}.db` (SQLite) or `conversations/{id}.pb` (protobuf)",
            ));
        }
        out
    }
}

impl Check for SignedOut {}

impl Check for Persistent {
    fn problems(&self) -> Vec<Problem> {
        exit_code("slash_exit_code", self.slash_exit_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_placeholder_gets_the_nearest_known_one() {
        let p = placeholders("notice", "after {duraton} {duration}", &["duration"]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].hint.contains("did you mean `{duration}`"), "{p:?}");
        assert!(placeholders("notice", "{ not a placeholder }", &[]).is_empty());
    }

    #[test]
    fn usage_keys_are_known_and_listed_once() {
        let u = UsageKeys {
            keys: vec![
                "input_tokens".into(),
                "input_tokens".into(),
                "cache_reed_tokens".into(),
            ],
            evidence: None,
            unverified: None,
        };
        let p = u.problems();
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p
            .iter()
            .any(|p| p.hint.contains("did you mean `cache_read_tokens`")));
        assert_eq!(
            p.iter().filter_map(|p| p.index).collect::<Vec<_>>(),
            vec![1, 2]
        );
    }
}
