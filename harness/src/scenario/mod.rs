//! Scenarios: the model, the parser, and the catalogue on disk.

mod catalogue;
mod model;
mod parse;

pub use catalogue::{load_catalogue, parse_partition, Catalogue, Selection};
pub use model::{
    AcpExpect, AcpWait, HistoryExpect, InvocationExpect, JournalExpect, OpAction, OpExpect, OpSpec,
    OutcomeSet, OutputExpect, Profile, Scenario, ScenarioExpect, ScenarioMeta,
};
pub use parse::{parse_scenario, parse_scenario_file, render_scenario, DEFAULT_SESSION};
