//! The `session` oracle: seed 000's turns on one kept process, released on failure or a new
//! selection.

use super::repro_plan::session_plan;
use crate::profile::fuzz_kit::case::session_case;
use crate::profile::fuzz_kit::render::Agy;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::evidence::Evidence;
use crate::profile::repro_kit::plan::Plan;
use crate::profile::{shared, ContractOracle, SharedCase};
use proptest::strategy::{BoxedStrategy, Strategy};

/// The `session` contract's oracle.
#[derive(Debug)]
pub struct PersistentDriver;

impl ContractOracle for PersistentDriver {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        Some(session_case().prop_map(|c| shared(Agy(c))).boxed())
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        session_plan(case)
    }

    fn missing_evidence(&self, e: &Evidence, case: &ReproCase) -> Option<&'static str> {
        if case.processes.iter().map(|p| p.turns.len()).sum::<usize>() < 2 {
            return Some("a second turn: replays, late steps and process reuse show only from the second stdin line on");
        }
        e.invocations
            .iter()
            .all(|i| i.counts().0 == 0)
            .then_some("the stdin lines the adapter sent (turns were split at each result)")
    }
}
