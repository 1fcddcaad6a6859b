//! agy-harness: runs an adapter (the program under test, through its driver) against
//! fake-agy scenario by scenario, and judges what it did.
//!
//! The modules, lowest first (a module uses only modules listed before it, or its own
//! children; `scripts/module-cycles` checks that no two reach each other):
//!
//! - [`exit_code`], `fatal`, `interrupt`: exit codes, the error that ends a command, SIGINT;
//!   [`keep`]: the files a user keeps, never replaced unless forced.
//! - [`profile`]: each profile as one unit (reach, contract, oracle) and their registry.
//! - [`scenario`]: the scenario model, parser and catalogue; [`embedded`]: the catalogue
//!   and spikes built into the binary; [`locate`]: where binaries and the catalogue are.
//! - [`adapter_config`]: how to start a driver and read its errors ([`mcp_table`]: its
//!   `[mcp]` table; [`adapter_command`]: its command's paths); [`options`]: the
//!   option groups commands share.
//! - [`sandbox`]: temp `HOME`, fake-agy as `agy`, no orphans (with
//!   [`agy_process`]); [`fake_identity`]: the handshake a fake passes first.
//! - [`recording`]: what every recorder shares (redacted trace events, headers).
//! - [`driver_client`]: the harness side of driver protocol v1; [`bridge`]: the driver
//!   the harness supplies for a driverless profile (the ACP or MCP client of the adapter).
//! - [`observation`], [`check`]: what a run showed, and the checks that judge it.
//! - [`live`]: the live guard, credentials, the wrapper in front of a real agy.
//! - [`report`]: terminal, JSON, JUnit and Markdown reports.
//! - [`runner`]: running a scenario (settings, ops, judging) and many at once.
//! - `binaries`, `catalogue_run`: the programs a command runs, the catalogue run.
//! - [`fidelity`]: fake-agy's default behaviour against the capture corpus;
//!   [`capture`]: a capture as an agy script (`convert`); [`spike`]: the spikes S1–S8
//!   and their recorder (`spikes`).
//! - [`faults`], [`bench`](mod@bench): the bug-detection score and the benchmark;
//!   [`fuzz`]: generated cases judged by the oracle; [`repro`]: a pasted bug report as
//!   a minimal failing scenario; [`init`]: a starter config and driver skeleton.
//! - `run_command`, `check_command`: the `run` and `check` commands and their arguments;
//!   [`cli`]: the command line; [`matrix`]: the adapter × agy version table; `app`:
//!   the commands behind the command line ([`execute`]).

mod adapter_calibration;
pub mod adapter_command;
pub mod adapter_config;
mod app;
pub mod bench;
mod binaries;
pub mod bridge;
pub mod calibrate;
mod calibration_file;
pub mod capture;
mod catalogue_run;
pub mod check;
mod check_command;
pub mod cli;
pub mod data_text;
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
pub mod keep;
pub mod launch;
pub mod learn;
pub mod live;
pub mod locate;
pub mod matrix;
pub mod mcp_table;
pub mod observation;
mod offers_check;
pub mod offers_inference;
pub mod options;
pub mod profile;
pub mod recording;
pub mod report;
pub mod repro;
mod run_command;
pub mod runner;
pub mod sandbox;
pub mod scenario;
pub mod scenarios_command;
pub mod shape_inference;
pub mod spike;

pub use app::execute;
