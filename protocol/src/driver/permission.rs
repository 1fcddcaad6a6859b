//! The `permission` field of the driver ops: how the adapter meets permission prompts.
//! Each op family takes its own values (docs/driver-protocol.md), so a scenario that
//! misspells one fails at load instead of reaching the driver.

use serde::{Deserialize, Serialize};

/// `permission` of `open`, `select` and `ask`: agy's own permission mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgyPermission {
    /// Run agy with `--dangerously-skip-permissions`.
    Skip,
}

/// `permission` of `acp_new`: how the ACP client answers the agent's
/// `session/request_permission` during a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AcpPermission {
    /// Choose an allow option (`allow_once` first).
    #[default]
    Allow,
    /// Choose a reject option (`reject_once` first).
    Deny,
    /// Leave the request pending, as a user who has not decided yet: it is answered
    /// `cancelled` when the turn is cancelled or ends.
    Ask,
}

/// `permission` of `agent_new`: how the harness, as the editor, answers the agent's
/// `session/request_permission` for the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentPermission {
    /// An allow option (allow once before allow always).
    #[default]
    Allow,
    /// A reject option (reject once before reject always).
    Deny,
    /// `cancelled`.
    Cancel,
}

impl AgyPermission {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AgyPermission::Skip => "skip",
        }
    }
}

impl AcpPermission {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AcpPermission::Allow => "allow",
            AcpPermission::Deny => "deny",
            AcpPermission::Ask => "ask",
        }
    }
}

impl AgentPermission {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentPermission::Allow => "allow",
            AgentPermission::Deny => "deny",
            AgentPermission::Cancel => "cancel",
        }
    }
}

crate::spelling::display_as_str!(AgyPermission, AcpPermission, AgentPermission);

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, String> {
        serde_json::from_value(serde_json::Value::String(s.into())).map_err(|e| e.to_string())
    }

    #[test]
    fn each_family_reads_its_own_values_and_spells_them_back() {
        assert_eq!(read::<AgyPermission>("skip"), Ok(AgyPermission::Skip));
        for p in [
            AcpPermission::Allow,
            AcpPermission::Deny,
            AcpPermission::Ask,
        ] {
            assert_eq!(read::<AcpPermission>(p.as_str()), Ok(p));
            assert_eq!(serde_json::to_value(p).ok(), Some(p.as_str().into()));
        }
        for p in [
            AgentPermission::Allow,
            AgentPermission::Deny,
            AgentPermission::Cancel,
        ] {
            assert_eq!(read::<AgentPermission>(p.as_str()), Ok(p));
            assert_eq!(serde_json::to_value(p).ok(), Some(p.as_str().into()));
        }
    }

    #[test]
    fn a_value_of_another_family_is_refused_with_the_accepted_ones() {
        let e = read::<AcpPermission>("cancel").unwrap_err();
        assert!(e.contains("`allow`, `deny`, `ask`"), "{e}");
        assert!(read::<AgentPermission>("ask").is_err());
        assert!(read::<AgyPermission>("allow").is_err());
    }
}
