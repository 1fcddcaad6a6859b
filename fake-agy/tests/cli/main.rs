//! Integration tests of the fake-agy binary: one binary, one module per topic.

mod support;

mod bad_input;
mod calibrations;
mod capture_steps;
mod command_line;
mod conversations;
mod disk_state;
mod help;
mod images;
mod journal;
mod library;
mod link;
mod mock_agy;
mod no_panic;
mod persistent;
mod print_mode;
mod probes;
mod quirks;
mod scripts;
mod session_driver;
mod signals;
mod slash_commands;
mod stdin_prompt;
mod structured_output;
mod tool_children;
mod traces;
mod versions;
