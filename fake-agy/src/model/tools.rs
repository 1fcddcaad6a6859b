//! The tool lists the version table gave (the oracle of the built-in calibrations'
//! test), and the recorded counts the built-in calibrations give. The tool list `init` reports, by version (docs/agy-reference.md §3.2: 59 names on 1.1.8,
//! 56 on 1.1.9, 57 on 1.1.15, 1.1.22 and 1.2.7, 60 on 1.2.17; exact lists from the jd, CL and PB
//! traces).

use crate::model::version_model::Behaviour;

/// The 57 tools of 1.2.7 (trace zts212653__clowder-ai__tool-call-turn), sorted.
#[rustfmt::skip]
const TOOLS_57: &[&str] = &[
    "ask_custom_permission", "ask_permission", "ask_question", "browser_click_element",
    "browser_drag_pixel_to_pixel", "browser_get_dom", "browser_get_network_request",
    "browser_input", "browser_list_network_requests", "browser_mouse_down", "browser_mouse_up",
    "browser_move_mouse", "browser_press_key", "browser_refresh_page", "browser_resize_window",
    "browser_scroll", "browser_scroll_dom", "browser_select_option", "browser_subagent",
    "call_mcp_tool", "capture_browser_console_logs", "capture_browser_screenshot",
    "click_browser_pixel", "command_status", "define_subagent", "delete_knowledge",
    "execute_browser_javascript", "find_by_name", "finish", "generate_image", "grep_search",
    "invoke_subagent", "list_browser_pages", "list_dir", "list_permissions", "list_resources",
    "manage_inbox", "manage_subagents", "manage_task", "multi_replace_file_content",
    "notebook_edit", "notebook_execution", "open_browser_url", "read_browser_page",
    "read_resource", "read_url_content", "replace_file_content", "run_command", "schedule",
    "search_web", "sed_file", "send_command_input", "send_message", "view_file", "wait",
    "wait_5_seconds", "write_to_file",
];

/// Tools added by 1.2.16 (capitoline image-subagent capture; PB success-pong, 1.2.17).
const ADDED_1_2_17: &[&str] = &["list_plugin_accounts", "run_workflow", "search_marketplace"];

/// Tools 1.1.8 lists that 1.1.9 does not (jd-1.1.8-adversarial-review, jd-1.1.9-*).
const DROPPED_1_1_9: &[&str] = &["code_search", "moma_search", "skill_search"];

/// The tool 1.1.9 lacks and 1.1.15 lists (jd-1.1.9-*; nm-1.1.15-plain, 57 tools).
const ADDED_1_1_15: &str = "ask_custom_permission";

/// The sorted tool list of `version`.
/// The sorted tool list of an agy with the behaviours `has` says.
pub fn tools_with(has: &dyn Fn(Behaviour) -> bool) -> Vec<String> {
    let mut tools: Vec<String> = TOOLS_57.iter().map(|s| s.to_string()).collect();
    if !has(Behaviour::AskCustomPermissionTool) {
        tools.retain(|t| t != ADDED_1_1_15);
    }
    if !has(Behaviour::SearchToolsDropped) {
        tools.extend(DROPPED_1_1_9.iter().map(|s| s.to_string()));
        tools.sort();
    }
    if has(Behaviour::SixtyTools) {
        tools.extend(ADDED_1_2_17.iter().map(|s| s.to_string()));
        tools.sort();
    }
    tools
}

#[cfg(test)]
mod tests {
    use crate::model::builtin::builtin_for;
    use agy_protocol::AgyVersion;

    /// The `init.tools` the built-in calibration gives `version`.
    fn tools_for(version: AgyVersion) -> Vec<String> {
        builtin_for(version).expect("covered").init.tools.clone()
    }

    #[test]
    fn counts_match_the_recorded_versions() {
        let old = tools_for(AgyVersion::new(1, 2, 13));
        let new = tools_for(AgyVersion::new(1, 2, 16));
        assert_eq!((old.len(), new.len()), (57, 60));
        // jd-1.1.8-adversarial-review: 59; jd-1.1.9-review-stream: 56.
        assert_eq!(tools_for(AgyVersion::new(1, 1, 8)).len(), 59);
        let v119 = tools_for(AgyVersion::new(1, 1, 9));
        assert_eq!(v119.len(), 56);
        assert!(!v119.iter().any(|t| t == "ask_custom_permission"));
        let mut sorted = new.clone();
        sorted.sort();
        assert_eq!(new, sorted);
    }
}
