//! The profiles: the contracts an adapter implements. One enum for the harness's
//! `--profile`, a scenario's `profile`, an adapter config's `profiles`, the driver
//! protocol's `hello` reply and a fault's entry in `--list-faults`.

use serde::{Deserialize, Deserializer, Serialize};

/// The contract an adapter implements (docs/driver-protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// One `agy -p … --output-format json` process per request.
    Oneshot,
    /// One persistent stream-json process per conversation.
    Session,
    /// An ACP client that restores sessions.
    Acp,
    /// A print-mode text client: one `agy -p …` process per question, a conversation
    /// continued with `--conversation` or `--continue`.
    Text,
    /// An MCP server that exposes agy as a tool (driverless: the harness is its MCP
    /// client).
    Mcp,
    /// An ACP agent that fronts agy (driverless: the harness is its ACP client).
    #[serde(rename = "acp-agent")]
    AcpAgent,
}

impl Profile {
    /// Every profile, in catalogue order.
    pub const ALL: [Profile; 6] = [
        Profile::Oneshot,
        Profile::Session,
        Profile::Acp,
        Profile::Text,
        Profile::Mcp,
        Profile::AcpAgent,
    ];

    /// How an adapter of the profile runs agy: what fake-agy (or fake-agy-acp) acts
    /// out, and so which tables a scenario of it holds (`[agy]` or `[acp]`).
    pub fn agy_run(self) -> AgyRun {
        match self {
            Profile::Oneshot | Profile::Text | Profile::Mcp | Profile::AcpAgent => {
                AgyRun::PrintPerRequest
            }
            Profile::Session => AgyRun::StreamJsonSession,
            Profile::Acp => AgyRun::AcpServer,
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Oneshot => "oneshot",
            Profile::Session => "session",
            Profile::Acp => "acp",
            Profile::Text => "text",
            Profile::Mcp => "mcp",
            Profile::AcpAgent => "acp-agent",
        }
    }
}

/// How an adapter runs agy: what fake-agy (or fake-agy-acp) acts out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgyRun {
    /// One `agy -p …` print run per request.
    PrintPerRequest,
    /// One persistent `--input-format stream-json` process per conversation.
    StreamJsonSession,
    /// Antigravity's ACP server, `agy_acp_server` (fake-agy-acp).
    AcpServer,
}

crate::spelling::display_as_str!(Profile);

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<String> = Profile::ALL
                    .iter()
                    .map(|p| format!("`{}`", p.as_str()))
                    .collect();
                format!(
                    "unknown profile `{s}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Reads a list of profile names, keeping the ones this protocol knows: a driver that
/// also names a profile of a later protocol is not broken (the `hello` reply).
pub fn known_profiles<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Profile>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    Ok(names.iter().filter_map(|n| n.parse().ok()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_spelling_round_trips_through_serde_and_from_str() {
        for p in Profile::ALL {
            let json = serde_json::to_string(&p).expect("serialises");
            assert_eq!(json, format!("\"{}\"", p.as_str()));
            assert_eq!(serde_json::from_str::<Profile>(&json).expect("parses"), p);
            assert_eq!(p.as_str().parse::<Profile>(), Ok(p));
        }
        assert!("batch".parse::<Profile>().is_err());
    }

    #[test]
    fn unknown_profiles_in_a_list_are_skipped() {
        #[derive(Deserialize)]
        struct Hello {
            #[serde(deserialize_with = "known_profiles")]
            profiles: Vec<Profile>,
        }
        let h: Hello =
            serde_json::from_str(r#"{"profiles":["oneshot","batch","acp"]}"#).expect("parses");
        assert_eq!(h.profiles, [Profile::Oneshot, Profile::Acp]);
    }
}
