//! A fault switch as the reference adapter's `--list-faults` prints it and the harness's
//! `faults` command reads it: one JSON object per line (docs/harness.md).

use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// One fault switch of the reference adapter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultInfo {
    /// The switch (`--fault NAME`).
    pub name: String,
    /// The profile it breaks.
    pub profile: Profile,
    /// The real bug it reproduces, in one sentence.
    #[serde(default)]
    pub bug: String,
}

/// The `--list-faults` output for `faults`: one JSON object per line.
pub fn render_fault_list(faults: &[FaultInfo]) -> String {
    faults
        .iter()
        .map(|f| serde_json::to_string(f).unwrap_or_default() + "\n")
        .collect()
}

/// Reads `--list-faults` output; blank lines are skipped, and an error names the line.
pub fn parse_fault_list(text: &str) -> Result<Vec<FaultInfo>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| format!("line {} of `--list-faults` is not a fault: {e}", i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_list_reads_back() {
        let faults = vec![
            FaultInfo {
                name: "trusts-success".into(),
                profile: Profile::Oneshot,
                bug: "treats exit 0 as success".into(),
            },
            FaultInfo {
                name: "acp-resends-last-prompt".into(),
                profile: Profile::Acp,
                bug: String::new(),
            },
        ];
        let text = render_fault_list(&faults);
        assert_eq!(text.lines().count(), 2);
        assert_eq!(parse_fault_list(&text), Ok(faults));
    }

    #[test]
    fn a_line_that_is_not_a_fault_is_named() {
        let text =
            "{\"name\":\"a\",\"profile\":\"oneshot\"}\n\n{\"name\":\"b\",\"profile\":\"batch\"}\n";
        let e = parse_fault_list(text).expect_err("unknown profile");
        assert!(e.starts_with("line 3 of `--list-faults`"), "{e}");
    }
}
