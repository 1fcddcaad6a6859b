//! agy's headless permission check for one tool call (docs/agy-reference.md §2.5,
//! docs/agy-versions.md "Permissions"): which tools ask for a permission, and whether
//! `--dangerously-skip-permissions`, the settings' `toolPermission` and `--mode` let
//! the call run without a prompt. A call that would need a prompt is auto-denied.

use crate::session::Session;

/// The permission a tool asks for before it runs, when it asks for one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// `command` (the name in `denied_actions[].action`): a terminal command (run_command; cp-1.2.8-tool-denied,
    /// pb-1.2.17-denied-command, ut-1.3.1-tools-denied).
    Command,
    /// `mcp`: an MCP server's tool (cl-1.2.7-denied-mcp-turn).
    Mcp,
    /// `file`: a file edit (jd-1.2.7-write-denied; ut-1.3.1-accept-edits runs it under
    /// `--mode accept-edits`).
    File,
}

/// The permission `tool` asks for; reads, searches, images, subagents and the rest ask
/// for none (every recorded call of them ran without `--dangerously-skip-permissions`:
/// view_file in ut-1.3.1-tools-denied, generate_image in cp-unknown-image-429, the
/// image-generator subagent in cp-1.2.16-image-subagent).
pub fn permission_of(tool: &str) -> Option<Permission> {
    match tool {
        "run_command" | "send_command_input" => Some(Permission::Command),
        "call_mcp_tool" => Some(Permission::Mcp),
        "write_to_file"
        | "replace_file_content"
        | "multi_replace_file_content"
        | "sed_file"
        | "notebook_edit" => Some(Permission::File),
        _ => None,
    }
}

/// The permission a call of `tool` is denied for in this run, or `None` when it runs.
/// Under `--dangerously-skip-permissions` and `toolPermission: always-proceed` every
/// call runs (pb-1.2.17-success-tools); `--mode accept-edits` lets file edits run
/// (ut-1.3.1-accept-edits, where run_command is still denied). The other tool
/// permissions (`request-review`, `strict`, `proceed-in-sandbox`) deny every gated call
/// headless; for `proceed-in-sandbox` with `--sandbox` the record is silent, and the fake
/// denies (unverified).
pub fn denied(s: &Session, tool: &str) -> Option<Permission> {
    let permission = permission_of(tool)?;
    if s.permission_mode() == "always-proceed" {
        return None;
    }
    if permission == Permission::File && s.setup().args().mode.as_deref() == Some("accept-edits") {
        return None;
    }
    Some(permission)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_commands_mcp_calls_and_edits_ask() {
        assert_eq!(permission_of("run_command"), Some(Permission::Command));
        assert_eq!(permission_of("call_mcp_tool"), Some(Permission::Mcp));
        assert_eq!(permission_of("write_to_file"), Some(Permission::File));
        for tool in [
            "view_file",
            "generate_image",
            "search_web",
            "invoke_subagent",
        ] {
            assert_eq!(permission_of(tool), None, "{tool}");
        }
    }
}
