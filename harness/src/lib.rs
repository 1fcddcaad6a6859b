//! agy-harness: runs an adapter (the program under test, through its driver) against
//! fake-agy scenario by scenario, and judges what it did.
//!
//! - [`scenario`]: the scenario model, parser and catalogue.
//! - [`adapter_config`]: how to start a driver and read its errors.
//! - [`sandbox`]: temp `HOME`, fake-agy as `agy`, no orphans (with
//!   [`agy_process`]).
//! - [`driver_client`]: the harness side of driver protocol v1.
//! - [`runner`], [`observation`], [`check`]: running a scenario and judging it.
//! - [`report`]: terminal, JSON, JUnit and Markdown reports; [`exit_code`].
//! - [`faults`], [`bench`](mod@bench): the bug-detection score and the benchmark.
//! - [`fidelity`]: fake-agy's default behaviour measured against the capture corpus;
//!   [`capture`]: a capture as an agy script.
//! - [`matrix`]: the adapter × agy version table.
//! - [`repro`]: a pasted bug report as a minimal failing scenario.

pub mod adapter_config;
mod app;
pub mod bench;
mod binaries;
pub mod capture;
mod catalogue_run;
pub mod check;
pub mod cli;
pub mod driver_client;
pub mod embedded;
pub mod exit_code;
pub mod fake_identity;
mod fatal;
pub mod faults;
pub mod fidelity;
pub mod fuzz;
pub mod init;
mod interrupt;
pub mod live;
pub mod locate;
pub mod matrix;
pub mod observation;
pub mod options;
pub mod report;
pub mod repro;
pub mod runner;
pub mod sandbox;
pub mod scenario;
pub mod spike;

pub use app::execute;
