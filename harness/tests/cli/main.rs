//! Integration tests of the `agy-harness` binary: real processes, real signals.

mod acp;
mod catalogue;
mod commands;
mod documentation;
mod end_to_end;
mod live;
mod python_example;
mod reliability;
mod spikes;
mod support;
mod usability;
