//! The `acp` oracle: seed 003's ACP sessions created, prompted and restored.

use super::fuzz_case::acp_case;
use super::fuzz_render::Acp;
use super::repro_plan::acp_plan;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::Plan;
use crate::profile::{shared, ContractOracle, SharedCase};
use proptest::strategy::{BoxedStrategy, Strategy};

/// The `acp` contract's oracle.
#[derive(Debug)]
pub struct Restore;

impl ContractOracle for Restore {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        Some(acp_case().prop_map(|c| shared(Acp(c))).boxed())
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        acp_plan(case)
    }
}
