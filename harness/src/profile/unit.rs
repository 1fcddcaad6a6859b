//! What a profile is to the harness: a [`ProfileUnit`], a table of data that the runner
//! and the subcommands read instead of asking which profile they run.

use super::oracle::ContractOracle;
use agy_protocol::driver::{ops_of, OpDoc};
use agy_protocol::profile::{AgyRun, Profile};

/// One profile: how the harness reaches an adapter of it, where its scenarios and docs
/// are, its contract and its oracle. Its ops are driver-protocol vocabulary
/// ([`ProfileUnit::ops`]).
#[derive(Debug)]
pub struct ProfileUnit {
    /// The profile.
    pub profile: Profile,
    /// How the harness reaches the adapter (how the adapter runs agy is the profile's
    /// own, [`ProfileUnit::agy`]).
    pub reach: Reach,
    /// Its folder under `scenarios/` (and under the built-in catalogue).
    pub scenarios: &'static str,
    /// The docs section of its contract.
    pub docs: &'static str,
    /// The contract a repro scenario covers, as its `covers` line says it.
    pub covers: &'static str,
    /// The contract, line by line, with the evidence for each line.
    pub contract: &'static [ContractLine],
    /// The oracle of its contract: what `fuzz` generates for it and what `repro`
    /// expects of a reproduction.
    pub oracle: &'static dyn ContractOracle,
    /// Other correct readings of agy's output by the reference adapter, each as the
    /// arguments that select it (session: answers read from the streamed steps only).
    /// `repro` keeps a cut only when every reading that passes the original passes it
    /// too, so a minimal scenario keeps what any correct adapter may read.
    pub readings: &'static [&'static [&'static str]],
    /// What the probe bounds (`[expect.probes]`) count per.
    pub probe_scopes: ProbeScopes,
}

/// What the probe bounds count per: the whole scenario, or each start of the adapter
/// (it may read agy's version or models again) and each session it opens (it may start
/// agy once to see it start, an idle start).
#[derive(Debug, Clone, Copy)]
pub struct ProbeScopes {
    /// Ops after which the adapter is started afresh when another op follows.
    pub restarts: &'static [&'static str],
    /// Ops that open or load a session.
    pub sessions: &'static [&'static str],
}

impl ProbeScopes {
    /// Every bound counts over the whole scenario.
    pub const PER_SCENARIO: ProbeScopes = ProbeScopes {
        restarts: &[],
        sessions: &[],
    };

    /// The adapter's starts and the sessions it opened in a run of `ops` (the op names in
    /// order), each at least 1.
    pub fn count(&self, ops: &[&str]) -> (u32, u32) {
        let followed = ops.len().saturating_sub(1);
        let restarts = ops[..followed]
            .iter()
            .filter(|o| self.restarts.contains(o))
            .count();
        let sessions = ops.iter().filter(|o| self.sessions.contains(o)).count();
        let at_least_one = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).max(1);
        (at_least_one(restarts + 1), at_least_one(sessions))
    }
}

impl ProfileUnit {
    /// The ops a driver of the profile answers besides `hello`, `shutdown` (and the
    /// harness's own `restart`), with their arguments and results, as driver protocol
    /// v1 spells them (docs/driver-protocol.md).
    pub fn ops(&self) -> impl Iterator<Item = &'static OpDoc> {
        ops_of(self.profile)
    }

    /// How the adapter runs agy.
    pub fn agy(&self) -> AgyRun {
        self.profile.agy_run()
    }

    /// Whether a run needs fake-agy-acp installed as `agy_acp_server`.
    pub fn needs_fake_acp(&self) -> bool {
        self.agy() == AgyRun::AcpServer
    }

    /// Whether fake-agy's journal of agy invocations judges the run (probes,
    /// `[expect.journal]`, `[[expect.invocation]]`); otherwise the ACP journal does.
    pub fn judged_by_agy_journal(&self) -> bool {
        self.agy() != AgyRun::AcpServer
    }
}

/// How the harness reaches an adapter of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Through the user's driver, speaking driver protocol v1.
    Driver,
    /// With no driver: the harness is the client of the user's program (an ACP agent or
    /// an MCP server that fronts agy).
    Driverless {
        /// The protocol the harness speaks to the program.
        client: Client,
    },
}

/// The protocol the harness speaks to a driverless adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// The harness is an ACP client of the adapter.
    Acp,
    /// The harness is an MCP client of the adapter.
    Mcp,
}

impl Client {
    /// The name `agy-harness bridge` takes for it: `acp` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Acp => "acp",
            Client::Mcp => "mcp",
        }
    }
}

/// One line of a profile's contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContractLine {
    /// What any correct adapter of the profile does.
    pub rule: &'static str,
    /// What the line rests on.
    pub evidence: Evidence,
    /// Where: a spike, a capture, a doc section, a seed decision.
    pub source: &'static str,
}

/// What a contract line rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Seen in a capture or a spike record of real agy.
    Measured,
    /// Written in a vendor doc, a changelog or the seed's decision record.
    Documented,
    /// Neither: the fake's behaviour is scriptable, not known.
    Unverified,
}

#[cfg(test)]
mod tests {
    use super::ProbeScopes;

    #[test]
    fn starts_count_restarts_followed_by_an_op_and_sessions_count_opened_ones() {
        let scopes = ProbeScopes {
            restarts: &["kill"],
            sessions: &["new", "load"],
        };
        assert_eq!(scopes.count(&["init", "new", "prompt"]), (1, 1));
        assert_eq!(
            scopes.count(&["new", "prompt", "kill", "load", "prompt"]),
            (2, 2)
        );
        assert_eq!(
            scopes.count(&["new", "new", "kill"]),
            (1, 2),
            "a last kill starts nothing"
        );
        assert_eq!(scopes.count(&[]), (1, 1));
        assert_eq!(
            ProbeScopes::PER_SCENARIO.count(&["kill", "new", "new"]),
            (1, 1)
        );
    }
}
