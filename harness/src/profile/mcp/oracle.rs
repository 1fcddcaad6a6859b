//! The `mcp` oracle: an MCP tool result: `isError` and a text that names the failure's
//! class.

use super::fuzz_case::{tool_case, Tool};
use super::repro_plan::tool_plan;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::Plan;
use crate::profile::{shared, ContractOracle, SharedCase};
use proptest::strategy::{BoxedStrategy, Strategy};

/// The `mcp` contract's oracle.
#[derive(Debug)]
pub struct ToolResult;

impl ContractOracle for ToolResult {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        Some(tool_case().prop_map(|c| shared(Tool(c))).boxed())
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        tool_plan(case)
    }
}
