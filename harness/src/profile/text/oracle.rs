//! The `text` oracle: one run per question, each outcome classified, a conversation
//! continued run by run.

use super::fuzz_case::{text_case, Text};
use super::repro_plan::text_plan;
use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::Plan;
use crate::profile::{shared, ContractOracle, SharedCase};
use proptest::strategy::{BoxedStrategy, Strategy};

/// The `text` contract's oracle.
#[derive(Debug)]
pub struct TextClient;

impl ContractOracle for TextClient {
    fn cases(&self) -> Option<BoxedStrategy<SharedCase>> {
        Some(text_case().prop_map(|c| shared(Text(c))).boxed())
    }

    fn plan(&self, case: &ReproCase) -> Plan {
        text_plan(case)
    }
}
