//! The `acp-agent` oracle: an ACP agent in front of agy: stop reasons, errors and agy
//! processes of a turn. `fuzz` has no generator for it yet.

use super::repro_plan::editor_agent_plan;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::Plan;
use crate::profile::{ContractOracle, SharedCase};
use proptest::strategy::BoxedStrategy;

/// The `acp-agent` contract's oracle.
#[derive(Debug)]
pub struct EditorAgent;

impl ContractOracle for EditorAgent {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        None
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        editor_agent_plan(case)
    }
}
