//! The `session` contract (seed 000), line by line with its evidence; docs/contract.md
//! shows it with the scenarios that judge each line.

use crate::profile::{ContractLine, Evidence};

const SEED: &str = "seed 000";

/// The `session` contract.
pub const CONTRACT: [ContractLine; 8] = [
    ContractLine {
        rule: "a successful turn keeps its process: the next turn is the next stdin line of the same pid; no -p",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "replayed output is not a new turn: each turn's answer is its own, and history holds each turn once",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "a turn's text is every text-bearing agent_response step of the turn; a system_message step is not text; a tool step in ERROR under a SUCCESS result is not the turn's failure",
        evidence: Evidence::Measured,
        source: "capture cp-1.2.16-image-subagent; docs/agy-reference.md §4.3, §2.2 item 6",
    },
    ContractLine {
        rule: "a late step of an earlier turn belongs to that turn: not in this turn's text, not in its usage",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "a failed turn fails and releases its process; the next turn runs on a new process",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "a different model, effort or permission releases the process; the next turn runs with the new selection on a new process that continues agy's conversation (--conversation)",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "close and release end the process: stdin ended, gone within the grace, also when agy ignores SIGTERM",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "an authentication error is `auth`, not retried: agy ran once",
        evidence: Evidence::Documented,
        source: "docs/agy-reference.md §2.2 item 3",
    },
];
