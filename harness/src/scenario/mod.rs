//! Scenarios: the model, the parser, and the catalogue on disk.

mod catalogue;
mod model;
#[cfg(test)]
mod name_tests;
mod parse;
#[cfg(test)]
mod session_cwd_tests;

pub use catalogue::{load_catalogue, parse_partition, Catalogue, Selection};
pub use model::{
    AcpExpect, AcpWait, AgyCondition, CwdIs, HistoryExpect, InvocationExpect, JournalExpect,
    OpAction, OpExpect, OpSpec, OutcomeSet, OutputExpect, ProbeExpect, Profile, Scenario,
    ScenarioExpect, ScenarioMeta, UsageExpect,
};
pub use parse::{
    parse_scenario, parse_scenario_file, render_scenario, RenderError, DEFAULT_SESSION,
};
