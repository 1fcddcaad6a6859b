//! The `mcp` contract: what any MCP server that exposes agy as a tool does, said in what
//! an MCP tool result can carry (`isError` and the text), line by line with its
//! evidence; docs/contract.md shows it with the scenarios that judge each line and
//! what cannot be judged through MCP.

use crate::profile::{ContractLine, Evidence};

const TOOLS: &str = "MCP specification 2025-06-18, server/tools, \"Error Handling\" (tool execution errors are results with isError: true)";

/// The `mcp` contract.
pub const CONTRACT: [ContractLine; 9] = [
    ContractLine {
        rule: "a signed-out agy (exit 1, `authentication required` / `authentication failed or timed out`) is isError, and the text names authentication",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.2 item 3; docs/agy-versions.md \"Signed out\" (pl-1.2.13-signed-out-stream, ut-1.3.2-signed-out)",
    },
    ContractLine {
        rule: "an exhausted quota (ERROR, exit 3, RESOURCE_EXHAUSTED on stderr) is isError, and the text names the quota, not authentication",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.2 item 5 (joiomi__playbook-plugin__quota-exhausted)",
    },
    ContractLine {
        rule: "agy's print timeout (exit 0, SUCCESS, empty response, zero usage; on 1.1.24 and earlier exit 1, ERROR, `timeout waiting for response`) is isError, and the text names a timeout: never an empty success",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §2.4; spike S6c (docs/spike-records.md)",
    },
    ContractLine {
        rule: "a rejected model (exit 1, `invalid model selection`) is isError, and the text names the model",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1.4 (joiomi__playbook-plugin__error-model-rejected)",
    },
    ContractLine {
        rule: "any other agy failure (ERROR, CANCELED, malformed output, a SUCCESS result with a failing exit, a crash) is isError, and its text names no class it is not",
        evidence: Evidence::Documented,
        source: TOOLS,
    },
    ContractLine {
        rule: "a success is not isError and its text carries agy's answer, never empty",
        evidence: Evidence::Documented,
        source: TOOLS,
    },
    ContractLine {
        rule: "a tool call is answered within its timeout plus the adapter's declared grace, as a timeout, and its agy process group is gone",
        evidence: Evidence::Documented,
        source: "MCP specification 2025-06-18, basic/lifecycle \"Timeouts\"; ADR 0013 error table row 6 (docs/adr-0013-summary.md)",
    },
    ContractLine {
        rule: "calls with the same conversation argument continue one agy conversation: the later run has `--conversation <the id the first printed>`",
        evidence: Evidence::Measured,
        source: "docs/agy-reference.md §1 (`--conversation`) and §2.1 (`conversation_id`)",
    },
    ContractLine {
        rule: "the model argument reaches agy as `--model`; without it agy runs with no `--model`",
        evidence: Evidence::Documented,
        source: "docs/agy-reference.md §1 (`--model`)",
    },
];
