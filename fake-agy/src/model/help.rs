//! agy's help texts by version (docs/agy-versions.md, "Help"): the root usage that
//! `agy -h`, an undefined flag and an unknown subcommand's `--help` print, and the
//! subcommands' own (`agy models --help`).
//!
//! The layout is agy's, not Go's `flag.PrintDefaults`: `Usage of agy:`, one row per
//! listed flag (name padded to 32 columns, then its text), a blank line and
//! `Available subcommands:`. Recorded whole on 1.0.16 (`ua-1.0.16-help`) and up to the
//! `--prompt-interactive` row on 1.3.3 (`ng-1.3.3-help`); a row's first version is the
//! earliest capture or changelog entry showing the flag, and rows after the 1.3.3 cut
//! keep their 1.0.16 text (**unverified**). Hidden flags (`--version`, and
//! `--output-format` before 1.1.8) are accepted but not listed.

use agy_protocol::AgyVersion;

const fn v(major: u32, minor: u32, patch: u32) -> AgyVersion {
    AgyVersion::new(major, minor, patch)
}

/// One listed flag: its name as printed, the first version that lists it, and its text
/// from each version on (the last entry not after the version applies).
struct FlagRow {
    name: &'static str,
    since: AgyVersion,
    texts: &'static [(AgyVersion, &'static str)],
}

/// Rows and texts recorded on 1.0.16 (`ua-1.0.16-help`), shown from the first version.
const ALWAYS: AgyVersion = v(1, 0, 0);
/// The 1.3.3 texts (`ng-1.3.3-help`).
const V133: AgyVersion = v(1, 3, 3);

/// Every listed flag, in agy's order.
#[rustfmt::skip]
const FLAG_ROWS: &[FlagRow] = &[
    FlagRow { name: "--add-dir", since: ALWAYS, texts: &[(ALWAYS, "Add a directory to the workspace (repeatable) (default [])")] },
    // jd-1.1.6-review-text-run3 passes --agent.
    FlagRow { name: "--agent", since: v(1, 1, 6), texts: &[(ALWAYS, "Agent for the current CLI session")] },
    FlagRow { name: "-c", since: ALWAYS, texts: &[(ALWAYS, "Short alias for --continue")] },
    FlagRow { name: "--continue", since: ALWAYS, texts: &[(ALWAYS, "Continue the most recent conversation")] },
    FlagRow { name: "--conversation", since: ALWAYS, texts: &[(ALWAYS, "Resume a previous conversation by ID")] },
    FlagRow { name: "--dangerously-skip-permissions", since: ALWAYS, texts: &[(ALWAYS, "Auto-approve all tool permission requests without prompting")] },
    // ask-llm PR #261 gates on 1.1.9 (docs/agy-reference.md §1.2).
    FlagRow { name: "--disable-slash-commands", since: v(1, 1, 9), texts: &[(ALWAYS, "Disable slash command and skill expansion in print mode")] },
    // fp-1.1.7-help, om-1.1.10-help; the `xhigh|max` levels are recorded on 1.3.3 only.
    FlagRow { name: "--effort", since: v(1, 1, 7), texts: &[(ALWAYS, "Reasoning effort for the current CLI session (low|medium|high)"), (V133, "Reasoning effort for the current CLI session (low|medium|high|xhigh|max)")] },
    FlagRow { name: "-i", since: ALWAYS, texts: &[(ALWAYS, "Short alias for --prompt-interactive")] },
    // vicoa PR #74 gates on 1.1.15 (§1.2).
    FlagRow { name: "--input-format", since: v(1, 1, 15), texts: &[(ALWAYS, "Input format for print mode (text, stream-json). stream-json reads one NDJSON message per line from stdin and runs a turn for each; it requires --output-format stream-json (default text)")] },
    // Changelog 1.1.8 (§1.2).
    FlagRow { name: "--json-schema", since: v(1, 1, 8), texts: &[(ALWAYS, "Optional JSON schema string or path to a schema file to enforce structured output (for stream-json, only applicable to the final result)")] },
    FlagRow { name: "--log-file", since: ALWAYS, texts: &[(ALWAYS, "Override CLI log file path")] },
    // fp-1.1.7-help, om-1.1.10-help (UX validated it on 1.1.13, §1.2).
    FlagRow { name: "--mode", since: v(1, 1, 7), texts: &[(ALWAYS, "Set the agent execution mode for this session (accept-edits, plan)")] },
    FlagRow { name: "--model", since: ALWAYS, texts: &[(ALWAYS, "Model for the current CLI session")] },
    FlagRow { name: "--new-project", since: ALWAYS, texts: &[(ALWAYS, "Create a new project for this session")] },
    // Accepted but hidden on 1.0.16 (ua-1.0.16-hidden-output-format-help); documented
    // in the 1.1.8 changelog (§1.2).
    FlagRow { name: "--output-format", since: v(1, 1, 8), texts: &[(ALWAYS, "Output format for print mode (text, json, stream-json) (default text)")] },
    FlagRow { name: "-p", since: ALWAYS, texts: &[(ALWAYS, "Short alias for --print")] },
    FlagRow { name: "--print", since: ALWAYS, texts: &[(ALWAYS, "Run a single prompt non-interactively and print the response")] },
    FlagRow { name: "--print-timeout", since: ALWAYS, texts: &[(ALWAYS, "Timeout for print mode wait (default 5m0s)"), (V133, "Optional time limit for print mode; 0 waits until the turn completes (default 0s)")] },
    FlagRow { name: "--project", since: ALWAYS, texts: &[(ALWAYS, "Project ID for the current CLI session"), (V133, "Project ID or project name for the current CLI session")] },
    FlagRow { name: "--prompt", since: ALWAYS, texts: &[(ALWAYS, "Alias for --print")] },
    FlagRow { name: "--prompt-interactive", since: ALWAYS, texts: &[(ALWAYS, "Run an initial prompt interactively and continue the session")] },
    // FM saw it on 1.1.25 (§1.2); its help text is not recorded.
    FlagRow { name: "--remote-control", since: v(1, 1, 25), texts: &[(ALWAYS, "Enable remote control of this session")] },
    FlagRow { name: "--sandbox", since: ALWAYS, texts: &[(ALWAYS, "Run in a sandbox with terminal restrictions enabled")] },
];

/// Where `agent` and `agents` join the subcommand list: `fp-1.1.7-help` and
/// `om-1.1.10-help` list them, `ua-1.0.16-help` does not.
const AGENT_SUBCOMMANDS: AgyVersion = v(1, 1, 7);

/// The subcommands the root usage lists (`ua-1.0.16-help`, `om-1.1.10-help`; no later
/// list is recorded whole, so later versions show the 1.1.10 one). `fp-1.1.7-help`
/// prints the same names on one line without their texts: a page's rendering or
/// agy's, the record does not settle it, and the fake keeps the rows.
const SUBCOMMAND_ROWS: &[(&str, &str)] = &[
    ("agent", "List available agents"),
    ("agents", "List available agents"),
    ("changelog", "Show changelog and release notes"),
    ("help", "Show help for subcommands"),
    ("install", "Configure environment paths and shell settings"),
    ("models", "List available models"),
    (
        "plugin",
        "Manage plugins (install, uninstall, list, enable, disable)",
    ),
    ("plugins", "Alias for plugin"),
    ("update", "Update CLI"),
];

/// The help text of a listed flag's row on `version`.
fn row_text(row: &FlagRow, version: AgyVersion) -> &'static str {
    row.texts
        .iter()
        .rev()
        .find(|(since, _)| version >= *since)
        .map_or("", |(_, t)| t)
}

/// The values `flag`'s help row lists on `version` (`(low|medium|high)`, `(text,
/// stream-json)`), when it is listed with two or more: what the fake accepts for it is
/// read from here, so the help and the parser agree.
pub fn listed_values(version: AgyVersion, flag: &str) -> Option<Vec<&'static str>> {
    let row = FLAG_ROWS
        .iter()
        .find(|r| r.name == flag && version >= r.since)?;
    row_text(row, version)
        .split('(')
        .filter_map(|group| group.split_once(')').map(|(inner, _)| inner))
        .map(|inner| {
            inner
                .split(['|', ','])
                .map(str::trim)
                .collect::<Vec<&'static str>>()
        })
        .find(|items| {
            items.len() > 1
                && items.iter().all(|i| {
                    !i.is_empty()
                        && i.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                })
        })
}

/// The root usage `version` prints on stderr.
pub fn root_usage(version: AgyVersion) -> String {
    let mut out = String::from("Usage of agy:\n");
    for row in FLAG_ROWS.iter().filter(|r| version >= r.since) {
        out.push_str(&format!("  {:<32}{}\n", row.name, row_text(row, version)));
    }
    out.push_str("\nAvailable subcommands:\n");
    for (name, text) in SUBCOMMAND_ROWS {
        if name.starts_with("agent") && version < AGENT_SUBCOMMANDS {
            continue;
        }
        out.push_str(&format!("  {name:<16}{text}\n"));
    }
    out
}

/// The `-h`/`--help` of subcommand `name` (`ua-1.0.16-models-help`,
/// `ua-1.0.16-changelog-help`, `ua-1.0.16-plugin-help`); `None` for a name agy does
/// not know, which prints the root usage.
pub fn subcommand_help(name: &str) -> Option<String> {
    let flags_only = |what: &str, text: &str| {
        format!("Usage: agy {what} [flags]\n\n{text}\n\nFlags:\n  -h      Show help\n  --help  Show help\n")
    };
    match name {
        "models" => Some(flags_only("models", "List available models")),
        "changelog" => Some(flags_only("changelog", "Show changelog and release notes")),
        "plugin" | "plugins" => Some(PLUGIN_HELP.to_string()),
        _ => None,
    }
}

/// `agy plugin --help` (`ua-1.0.16-plugin-help`).
const PLUGIN_HELP: &str = "Usage: agy plugin <command> [arguments]

Commands:
  list                   List imported plugins
  import [source]        Import plugins from gemini or claude
  install <target>       Install a plugin (supports plugin@marketplace)
  uninstall <name>       Uninstall a plugin
  enable <name>          Enable a plugin
  disable <name>         Disable a plugin
  validate [path]        Validate a plugin
  link <mp> <target>     Generate link to a marketplace
  help                   Show this help
";

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../traces/upstream")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn the_1_0_16_usage_is_the_recorded_one() {
        assert_eq!(
            root_usage(v(1, 0, 16)),
            upstream("dnichyparuk__untether-agy__20260703-134316__help_h.err")
        );
    }

    #[test]
    fn the_1_1_10_usage_is_the_recorded_one() {
        assert_eq!(
            root_usage(v(1, 1, 10)),
            upstream("ImL1s__oh-my-grok__help-1.1.10.txt")
        );
    }

    #[test]
    fn the_1_3_3_usage_starts_as_the_recorded_one() {
        // Upstream kept the first 2000 characters.
        let recorded = upstream("sleegme__native-gravity__113-live-probe-sweep__help.stderr");
        assert_eq!(recorded.chars().count(), 2000);
        assert!(root_usage(V133).starts_with(&recorded));
    }

    #[test]
    fn listed_values_are_read_from_the_rows() {
        assert_eq!(
            listed_values(V133, "--effort"),
            Some(vec!["low", "medium", "high", "xhigh", "max"])
        );
        assert_eq!(
            listed_values(v(1, 1, 10), "--effort"),
            Some(vec!["low", "medium", "high"])
        );
        assert_eq!(
            listed_values(V133, "--input-format"),
            Some(vec!["text", "stream-json"])
        );
        assert_eq!(listed_values(V133, "--add-dir"), None, "(repeatable)");
        assert_eq!(listed_values(v(1, 0, 16), "--effort"), None, "not listed");
    }

    #[test]
    fn the_subcommand_helps_are_the_recorded_ones() {
        for (name, file) in [
            ("models", "help_sub_models"),
            ("changelog", "help_sub_changelog"),
            ("plugin", "help_sub_plugin"),
        ] {
            let recorded = upstream(&format!(
                "dnichyparuk__untether-agy__20260703-134316__{file}.err"
            ));
            assert_eq!(subcommand_help(name).as_deref(), Some(recorded.as_str()));
        }
        assert_eq!(subcommand_help("auth"), None);
    }
}
