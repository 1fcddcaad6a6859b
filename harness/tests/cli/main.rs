//! Integration tests of the `agy-harness` binary: real processes, real signals.

mod acp;
mod catalogue;
mod ci_doc;
mod citations;
mod commands;
mod contract_doc;
mod convert;
mod convert_acp;
mod documentation;
mod end_to_end;
mod fidelity;
mod fuzz;
mod init;
mod live;
mod live_guard;
mod live_record;
mod no_panic;
mod node_example;
mod probes;
mod python_example;
mod reliability;
mod repro;
mod spikes;
mod strict;
mod support;
mod usability;
