//! The `text` contract (print-mode text clients and process-per-turn chat), line by
//! line with its evidence; docs/contract.md shows it with the scenarios that judge
//! each line.

use crate::profile::{ContractLine, Evidence};

/// The `text` contract.
pub const CONTRACT: [ContractLine; 15] = [
    ContractLine {
        rule: "one print run per ask (-p or --print), its output read to the end; no persistent stdin",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1, §2; trace joiomi__playbook-plugin__success-pong",
    },
    ContractLine {
        rule: "success is exit 0, status SUCCESS and a non-empty answer; the answer is agy's response, never its stderr",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.1, §2.2 item 1, §2.3",
    },
    ContractLine {
        rule: "a print timeout is a retryable timeout, never an answer: SUCCESS with an empty or partial response and the `[agy] print timeout` stderr line (1.2.6 on), ERROR `timeout waiting for response` with exit 1 (1.1.24 and earlier)",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.4; trace joiomi__playbook-plugin__print-timeout; spike S6c (docs/spike-records.md)",
    },
    ContractLine {
        rule: "CANCELED (exit 0 in the record) is a transient failure, not an empty success",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.1, §2.3 (FM 1.1.22, antigravity-cli #902), §2.5 (gb-1.1.18-canceled-denial)",
    },
    ContractLine {
        rule: "WAITING and RUNNING are no answer: a permanent failure, not an empty success",
        evidence: Evidence::Documented,
        source: "docs/agy-reference.md §2.1 (documented statuses, never captured)",
    },
    ContractLine {
        rule: "a non-zero exit or death by a signal is a failure, also when text streamed before it",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.3",
    },
    ContractLine {
        rule: "an authentication failure is `auth`, not retried: agy ran once",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.2 item 3 (HV envelope)",
    },
    ContractLine {
        rule: "a quota stop (exit 3, `AGY_ERROR:` RESOURCE_EXHAUSTED on stderr) is transient and retryable, told apart from auth and a rejected model",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.2 item 5; trace joiomi__playbook-plugin__quota-exhausted",
    },
    ContractLine {
        rule: "a rejected model is permanent and not retried, told apart from auth and quota",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1.4; trace joiomi__playbook-plugin__error-model-rejected",
    },
    ContractLine {
        rule: "a hung agy is killed, its process group with it, within timeout_s plus the adapter's declared grace, and reported as a retryable timeout; nothing left running",
        evidence: Evidence::Documented,
        source: "ADR 0013 error table row 6 (docs/adr-0013-summary.md), as for oneshot",
    },
    ContractLine {
        rule: "model and effort as the ask selects them, judged by meaning (--model X --effort e or the tiered id)",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1.2, §1.4",
    },
    ContractLine {
        rule: "--dangerously-skip-permissions only when the ask says permission = skip",
        evidence: Evidence::Documented,
        source: "docs/agy-reference.md §2.5; ADR 0013 S5 superseding D4 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "an ask that continues a conversation runs agy on that conversation (--conversation with agy's id, or --continue), not a new one, and answers with its own turn's text",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1.3; trace zts212653__clowder-ai__resume-turn",
    },
    ContractLine {
        rule: "a reply's usage, when it carries one, is the turn's own: a resumed run's result counts the whole conversation",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §3.4; trace zts212653__clowder-ai__resume-turn",
    },
    ContractLine {
        rule: "a missing binary is permanent, with an install hint",
        evidence: Evidence::Documented,
        source: "ADR 0013 error table row 7 (docs/adr-0013-summary.md), as for oneshot",
    },
];
