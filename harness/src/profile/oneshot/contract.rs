//! The `oneshot` contract (ADR 0013), line by line with its evidence; docs/contract.md
//! shows it with the scenarios that judge each line.

use crate::profile::{ContractLine, Evidence};

/// The `oneshot` contract.
pub const CONTRACT: [ContractLine; 11] = [
    ContractLine {
        rule: "one print run per image: -p, --output-format json, the work dir as --add-dir; never --conversation/--continue; bounded in time however the adapter bounds it (a --print-timeout equal to the timeout is a seed choice)",
        evidence: Evidence::Measured,
        source: "ADR 0013 decisions 2 and 6; spike S5 (docs/spike-records.md)",
    },
    ContractLine {
        rule: "model and effort as configured",
        evidence: Evidence::Documented,
        source: "ADR 0013 decisions 2 and 7 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "success is exit 0, SUCCESS, exactly one image in brain/<conversation_id>/, and it decodes",
        evidence: Evidence::Measured,
        source: "ADR 0013 decision 3; spikes S2, S3 (docs/spike-records.md)",
    },
    ContractLine {
        rule: "from agy 1.2.16 the image is in the image-generator subagent's conversation folder, which the envelope does not name: the conversations that appeared during the run, never an earlier run's",
        evidence: Evidence::Measured,
        source: "docs/agy-versions.md ImageSubagent (capture cp-1.2.16-image-subagent, changelog 1.2.16)",
    },
    ContractLine {
        rule: "a print timeout (SUCCESS, empty response, zero usage) is a retryable timeout, checked before missing output",
        evidence: Evidence::Measured,
        source: "ADR 0013 error table row 1; spike S6c (docs/spike-records.md)",
    },
    ContractLine {
        rule: "SUCCESS without an image is missing output, not retried, unless the prose carries the image model's 429",
        evidence: Evidence::Measured,
        source: "ADR 0013 error table row 2; spike S7 (docs/spike-records.md)",
    },
    ContractLine {
        rule: "CANCELED and INTERRUPTED are transient; other ERROR, INVALID, WAITING, RUNNING permanent; malformed output is no success",
        evidence: Evidence::Documented,
        source: "ADR 0013 error table rows 3 and 5 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "an authentication error is `auth`, not retried: agy ran once",
        evidence: Evidence::Unverified,
        source: "ADR 0013 error table row 4; spike S6a, unverified (docs/spike-records.md)",
    },
    ContractLine {
        rule: "a hung agy is killed after timeout_s + 30 s and reported as a retryable timeout; nothing left running",
        evidence: Evidence::Documented,
        source: "ADR 0013 error table row 6 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "a missing binary is permanent, with an install hint",
        evidence: Evidence::Documented,
        source: "ADR 0013 error table row 7 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "requests that arrive together run two at a time: at least two at once when two or more wait, never more than two",
        evidence: Evidence::Measured,
        source: "ADR 0013 decision 7 (concurrency 2); spike S7 (docs/spike-records.md)",
    },
];
