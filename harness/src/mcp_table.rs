//! The adapter config's `[mcp]` table: the tool of an MCP server that runs agy and how
//! its arguments map (docs/harness.md, "`[mcp]`"). The bridge receives it as its own
//! options (`--tool NAME --prompt-arg NAME …`).

use agy_protocol::diag::{deserialize_value, Diagnostic, Diagnostics, SourceFile};
use agy_protocol::Premise;
use serde::{Deserialize, Serialize};
use toml::de::DeValue;
use toml::Spanned;

/// `[mcp]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpTable {
    /// The tool that runs agy.
    pub tool: String,
    /// The argument that takes the prompt.
    #[serde(default = "default_prompt_arg")]
    pub prompt_arg: String,
    /// The argument that takes the model, if the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_arg: Option<String>,
    /// The argument that takes a conversation, if the tool continues conversations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_arg: Option<String>,
    /// The argument that takes a timeout in seconds, if the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_arg: Option<String>,
    /// The tool that continues a conversation, when it is not `tool`: a conversation's
    /// first call goes to `tool`, each later one to this (both with the conversation
    /// argument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_tool: Option<String>,
    /// What the conversation argument carries: the harness's handle (`handle`), or the
    /// conversation id the server's first result under that handle named (`result`).
    #[serde(default)]
    pub conversation_from: ConversationFrom,
    /// The field of a result that names its conversation, when it is not
    /// `conversation_id` (with `conversation_from = "result"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_field: Option<String>,
    /// Arguments every call carries as given (`directory = "."`).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub arguments: serde_json::Map<String, serde_json::Value>,
    /// The server's command line, when it is not `[adapter] command` (one program
    /// that serves several profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// Why the tool is outside the `mcp` profile's shape, when it is: every `mcp`
    /// scenario premises [`MCP_SHAPE`], and for a tool declared outside it each is not
    /// applicable with this reason (docs/contract.md, "Outside the profile").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_profile: Option<String>,
}

/// The shape of tool every `mcp` scenario premises.
pub const MCP_SHAPE: &str =
    "one tool call runs agy in print mode (`-p`/`--print`) and answers with that turn's answer";

/// What a tool's conversation argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationFrom {
    /// A handle the caller chooses; the server maps it to agy's conversation.
    #[default]
    Handle,
    /// The conversation id the server's first result named (`conversation_id` in its
    /// text or structured content); the first call passes none.
    Result,
    /// A folder of its own per handle, made in the sandbox when the handle is first
    /// used: the server keys its conversations by working folder (a `workspace`
    /// argument).
    Folder,
}

fn default_prompt_arg() -> String {
    "prompt".to_string()
}

impl McpTable {
    /// The bridge's options for this table.
    pub fn bridge_options(&self) -> Vec<String> {
        let mut out = vec![
            "--tool".to_string(),
            self.tool.clone(),
            "--prompt-arg".to_string(),
            self.prompt_arg.clone(),
        ];
        for (flag, value) in [
            ("--model-arg", &self.model_arg),
            ("--conversation-arg", &self.conversation_arg),
            ("--timeout-arg", &self.timeout_arg),
        ] {
            if let Some(v) = value {
                out.push(flag.to_string());
                out.push(v.clone());
            }
        }
        match self.conversation_from {
            ConversationFrom::Handle => {}
            ConversationFrom::Result => out.push("--conversation-from-result".to_string()),
            ConversationFrom::Folder => out.push("--conversation-folder".to_string()),
        }
        if let Some(tool) = &self.continue_tool {
            out.extend(["--continue-tool".to_string(), tool.clone()]);
        }
        if let Some(field) = &self.conversation_field {
            out.extend(["--conversation-field".to_string(), field.clone()]);
        }
        for (key, value) in &self.arguments {
            out.push("--argument".to_string());
            out.push(format!("{key}={value}"));
        }
        out
    }

    /// The premises the tool cannot be given, for want of an argument that takes them
    /// (docs/contract.md, "Premises and capabilities"): no `timeout_arg`, no caller's
    /// timeout; no `model_arg`, no model choice; no `conversation_arg`, no continuation.
    /// A scenario of the `mcp` profile that requires one is not applicable.
    pub fn unmapped_premises(&self) -> Vec<Premise> {
        [
            (&self.timeout_arg, Premise::CallerTimeout),
            (&self.model_arg, Premise::ModelChoice),
            (&self.conversation_arg, Premise::Continuation),
        ]
        .into_iter()
        .filter(|(arg, _)| arg.is_none())
        .map(|(_, p)| p)
        .collect()
    }

    /// Why an `mcp` scenario does not apply to this tool, when the config declares the
    /// tool outside the profile's shape.
    pub fn outside_note(&self) -> Option<String> {
        self.outside_profile.as_ref().map(|reason| {
            format!("the tool is outside the `mcp` profile's shape ({MCP_SHAPE}), as the adapter config's `[mcp] outside_profile` says: {reason}")
        })
    }

    /// Each argument name with its key: the prompt's first.
    fn names(&self) -> Vec<(&'static str, &str)> {
        let mut out = vec![("prompt_arg", self.prompt_arg.as_str())];
        for (key, value) in [
            ("model_arg", &self.model_arg),
            ("conversation_arg", &self.conversation_arg),
            ("timeout_arg", &self.timeout_arg),
        ] {
            if let Some(v) = value {
                out.push((key, v.as_str()));
            }
        }
        out
    }
}

/// Reads `[mcp]` when `value` (the table) is present, every problem located.
pub fn read_mcp_table(
    src: &SourceFile,
    value: Option<&Spanned<DeValue<'_>>>,
    diags: &mut Diagnostics,
) -> Option<McpTable> {
    let value = value?;
    let table = deserialize_value::<McpTable>(src, value, "`[mcp]`", diags)?;
    let at = |key: &str| -> usize {
        match value.get_ref() {
            DeValue::Table(t) => t.get(key).map(|v| v.span().start),
            _ => None,
        }
        .unwrap_or(value.span().start)
    };
    let before = diags.len();
    if table.tool.trim().is_empty() {
        diags.push(
            Diagnostic::at(src, at("tool"), "`tool` of `[mcp]` is empty")
                .with_hint("name the tool that runs agy, as the server's `tools/list` shows it"),
        );
    }
    let names = table.names();
    for (i, (key, name)) in names.iter().enumerate() {
        if name.trim().is_empty() {
            diags.push(
                Diagnostic::at(src, at(key), format!("`{key}` of `[mcp]` is empty"))
                    .with_hint("give the argument's name as the tool's input schema spells it, or leave the key out"),
            );
        } else if let Some((first, _)) = names[..i].iter().find(|(_, n)| n == name) {
            diags.push(
                Diagnostic::at(
                    src,
                    at(key),
                    format!("`{key}` of `[mcp]` names `{name}`, which `{first}` already names"),
                )
                .with_hint("each value goes to its own argument"),
            );
        }
    }
    push_empty_texts(&table, src, &at, diags);
    push_continue_problems(&table, src, &at, diags);
    if table.command.as_ref().is_some_and(Vec::is_empty) {
        diags.push(
            Diagnostic::at(src, at("command"), "`command` of `[mcp]` is empty").with_hint(
                "give the server's argv, or leave the key out to use `[adapter] command`",
            ),
        );
    }
    if let Some(clash) = table
        .arguments
        .keys()
        .find(|k| names.iter().any(|(_, n)| n == k))
    {
        diags.push(
            Diagnostic::at(
                src,
                at("arguments"),
                format!("`arguments` of `[mcp]` sets `{clash}`, which an op fills in"),
            )
            .with_hint("leave it to the op, or drop the `*_arg` key that names it"),
        );
    }
    (diags.len() == before).then_some(table)
}

/// An empty `conversation_field` or `outside_profile`, located with a hint.
/// A `continue_tool` that is empty, is `tool` itself, or has no conversation argument
/// to say which conversation it continues.
fn push_continue_problems(
    table: &McpTable,
    src: &SourceFile,
    at: &dyn Fn(&str) -> usize,
    diags: &mut Diagnostics,
) {
    let Some(next) = &table.continue_tool else {
        return;
    };
    let problem = if next.trim().is_empty() {
        Some(("`continue_tool` of `[mcp]` is empty".to_string(), "name the tool that continues a conversation, as `tools/list` shows it, or leave the key out"))
    } else if next == &table.tool {
        Some((format!("`continue_tool` of `[mcp]` is `tool` itself (`{next}`)"), "leave the key out: a tool that both starts and continues conversations needs only `conversation_arg`"))
    } else if table.conversation_arg.is_none() {
        Some((format!("`continue_tool` of `[mcp]` names `{next}`, but no `conversation_arg` says which conversation it continues"), "name the argument both tools take the conversation in (`conversation_arg = \"workspace\"`, with `conversation_from = \"folder\"` for a server that keys conversations by folder)"))
    } else {
        None
    };
    if let Some((message, hint)) = problem {
        diags.push(Diagnostic::at(src, at("continue_tool"), message).with_hint(hint));
    }
}

fn push_empty_texts(
    table: &McpTable,
    src: &SourceFile,
    at: &dyn Fn(&str) -> usize,
    diags: &mut Diagnostics,
) {
    if table
        .conversation_field
        .as_ref()
        .is_some_and(|f| f.trim().is_empty())
    {
        diags.push(
            Diagnostic::at(src, at("conversation_field"), "`conversation_field` of `[mcp]` is empty")
                .with_hint("name the field of the tool's result that holds the conversation id (`SESSION_ID`), or leave the key out for `conversation_id`"),
        );
    }
    if table
        .outside_profile
        .as_ref()
        .is_some_and(|r| r.trim().is_empty())
    {
        diags.push(
            Diagnostic::at(src, at("outside_profile"), "`outside_profile` of `[mcp]` is empty")
                .with_hint("say why the tool is not one call answered with one agy turn's answer (its file and lines), or leave the key out"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::diag::{parse_toml_document, TableWalker};
    use proptest::prelude::*;

    fn read(text: &str) -> Result<Option<McpTable>, String> {
        let src = SourceFile::new("a.toml", text.to_string());
        let mut diags = Diagnostics::new();
        let Some(doc) = parse_toml_document(&src, &mut diags) else {
            return Err(diags.to_string());
        };
        let mut root = TableWalker::new(&src, doc.get_ref(), 0, "the config");
        let table = read_mcp_table(&src, root.raw("mcp"), &mut diags);
        if diags.is_empty() {
            Ok(table)
        } else {
            Err(diags.to_string())
        }
    }

    #[test]
    fn a_missing_argument_is_a_premise_the_tool_cannot_be_given() {
        let bare = read("[mcp]\ntool = \"ask\"\n")
            .expect("valid")
            .expect("table");
        assert_eq!(
            bare.unmapped_premises(),
            vec![
                Premise::CallerTimeout,
                Premise::ModelChoice,
                Premise::Continuation
            ]
        );
        let full = read("[mcp]\ntool = \"ask\"\nmodel_arg = \"m\"\nconversation_arg = \"c\"\ntimeout_arg = \"t\"\n")
            .expect("valid")
            .expect("table");
        assert_eq!(full.unmapped_premises(), Vec::<Premise>::new());
    }

    #[test]
    fn a_continue_tool_keyed_by_folder_becomes_bridge_options() {
        // agent-intern 0.33.0 continues with `antigravity_continue`, keyed by workspace
        // (agent_intern/antigravity_tools.py:143-150).
        let t = read("[mcp]\ntool = \"ask\"\ncontinue_tool = \"cont\"\nconversation_arg = \"workspace\"\nconversation_from = \"folder\"\n")
            .expect("parses")
            .expect("present");
        assert_eq!(
            t.bridge_options(),
            [
                "--tool",
                "ask",
                "--prompt-arg",
                "prompt",
                "--conversation-arg",
                "workspace",
                "--conversation-folder",
                "--continue-tool",
                "cont"
            ]
        );
        assert!(!t.unmapped_premises().contains(&Premise::Continuation));
    }

    #[test]
    fn a_continue_tool_without_a_conversation_argument_or_the_tool_itself_is_located() {
        for (text, words) in [
            (
                "[mcp]\ntool = \"ask\"\ncontinue_tool = \"cont\"\n",
                "no `conversation_arg`",
            ),
            (
                "[mcp]\ntool = \"ask\"\nconversation_arg = \"c\"\ncontinue_tool = \"ask\"\n",
                "is `tool` itself",
            ),
            (
                "[mcp]\ntool = \"ask\"\nconversation_arg = \"c\"\ncontinue_tool = \" \"\n",
                "is empty",
            ),
        ] {
            let err = read(text).expect_err(text);
            assert!(err.contains(words), "{err}");
            assert!(err.contains("a.toml:"), "located: {err}");
        }
    }

    #[test]
    fn a_full_table_is_read_and_becomes_bridge_options() {
        let t = read("[mcp]\ntool = \"ask_agy\"\nprompt_arg = \"q\"\nmodel_arg = \"model\"\ntimeout_arg = \"timeout_s\"\n")
            .expect("parses")
            .expect("present");
        assert_eq!(
            t.bridge_options(),
            [
                "--tool",
                "ask_agy",
                "--prompt-arg",
                "q",
                "--model-arg",
                "model",
                "--timeout-arg",
                "timeout_s"
            ]
        );
        let field = read("[mcp]\ntool = \"agy\"\nconversation_from = \"result\"\nconversation_field = \"SESSION_ID\"\n")
            .expect("parses")
            .expect("present");
        assert!(
            field.bridge_options().ends_with(&[
                "--conversation-from-result".into(),
                "--conversation-field".into(),
                "SESSION_ID".into()
            ]),
            "{:?}",
            field.bridge_options()
        );
        let plain = read("[mcp]\ntool = \"agy\"\n")
            .expect("parses")
            .expect("present");
        assert_eq!(plain.prompt_arg, "prompt");
        assert_eq!(read("").expect("parses"), None);
    }

    #[test]
    fn bad_tables_are_located_with_a_hint() {
        let cases = [
            (
                "[mcp]\ntool = \"\"\n",
                "a.toml:2:8",
                "`tool` of `[mcp]` is empty",
            ),
            (
                "[mcp]\ntool = \"a\"\nmodel_arg = \"prompt\"\n",
                "a.toml:3:13",
                "which `prompt_arg` already names",
            ),
            (
                "[mcp]\ntool = \"a\"\nmodle_arg = \"m\"\n",
                "a.toml:3:",
                "modle_arg",
            ),
            ("[mcp]\nprompt_arg = \"q\"\n", "a.toml:1:", "tool"),
            ("[mcp]\ntool = 3\n", "a.toml:2:", "tool"),
            (
                "[mcp]\ntool = \"a\"\ncommand = []\n",
                "a.toml:3:11",
                "`command` of `[mcp]` is empty",
            ),
            (
                "[mcp]\ntool = \"a\"\nconversation_field = \"\"\n",
                "a.toml:3:22",
                "`conversation_field` of `[mcp]` is empty",
            ),
            (
                "[mcp]\ntool = \"a\"\noutside_profile = \" \"\n",
                "a.toml:3:19",
                "`outside_profile` of `[mcp]` is empty",
            ),
            (
                "[mcp]\ntool = \"a\"\noutside_profil = \"x\"\n",
                "a.toml:3:",
                "outside_profile",
            ),
        ];
        for (text, at, what) in cases {
            let err = read(text).expect_err(text);
            assert!(err.contains(at) && err.contains(what), "{text}: {err}");
        }
    }

    proptest! {
        #[test]
        fn any_table_text_is_read_or_located(body in "[a-z_]{1,12} = (\"[a-z ]{0,6}\"|[0-9]{1,3}|\\[\\])(\n[a-z_]{1,12} = \"[a-z]{0,4}\"){0,4}") {
            match read(&format!("[mcp]\n{body}\n")) {
                Ok(t) => prop_assert!(t.is_some()),
                Err(e) => prop_assert!(e.contains("a.toml:"), "{}", e),
            }
        }
    }
}
