//! The `acp` restore contract (seed 003), line by line with its evidence;
//! docs/acp-profile.md shows it with what judges each line.

use crate::profile::{ContractLine, Evidence};

const SEED: &str = "seed 003";

/// The `acp` contract.
pub const CONTRACT: [ContractLine; 8] = [
    ContractLine {
        rule: "a committed session is continued with session/resume (preferred when advertised) on the same external session",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "a prompt that may have progressed is continued with session/load, and the history shows an explicit gap for it",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "the load replay never enters the canonical history",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "no earlier prompt is resent",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "never session/new after a failed restore; the error is surfaced and the handle stays restorable",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "everything the old session sends until the restore has closed is quarantined; its permission requests are answered cancelled",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "late output after a prompt response belongs to no turn",
        evidence: Evidence::Documented,
        source: SEED,
    },
    ContractLine {
        rule: "model and mode are re-applied after every restore with session/set_config_option, never session/set_model",
        evidence: Evidence::Documented,
        source: "seed 003; docs/agy-acp-reference.md §2.9",
    },
];
