//! The `oneshot` oracle: ADR 0013's error table: one request, one image, one outcome class.

use crate::profile::fuzz_kit::case::oneshot_case;
use crate::profile::fuzz_kit::render::Agy;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::evidence::Evidence;
use crate::profile::repro_kit::plan::{oneshot_plan, Plan};
use crate::profile::{shared, ContractOracle, SharedCase};
use proptest::strategy::{BoxedStrategy, Strategy};

/// The `oneshot` contract's oracle.
#[derive(Debug)]
pub struct ImageProvider;

impl ContractOracle for ImageProvider {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        Some(oneshot_case().prop_map(|c| shared(Agy(c))).boxed())
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        oneshot_plan(case)
    }

    fn missing_evidence(&self, e: &Evidence, _case: &ReproCase) -> Option<&'static str> {
        e.invocations.iter().all(|i| i.images.is_none()).then_some(
            "what was in the brain folder (`no image in the brain folder`, `brain/<id>/x.jpg`)",
        )
    }
}
