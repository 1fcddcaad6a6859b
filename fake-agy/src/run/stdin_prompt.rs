//! The prompt agy reads from stdin in print mode: with no prompt flag and a stdin that is
//! not a terminal (from 1.1.1), and for `--print ""` before 1.1.1 (docs/agy-versions.md,
//! `StdinPrompt` and `EmptyPrintRefused`; docs/agy-reference.md §1.1 item 4).

use crate::io::stdin_reader::{StdinEvent, STDIN_LINE_CAP};
use crate::session::Session;
use std::io::IsTerminal;

/// The text of the `--print ""` refusal from 1.1.1 (antigravity-cli issue #582).
pub const EMPTY_PROMPT: &str = "empty prompt";

/// Reads stdin to its end and returns the prompt: its lines joined by `\n`, at most
/// [`STDIN_LINE_CAP`] bytes (the rest is named on stderr and left out). A line that is
/// not UTF-8 is reported and skipped by the stdin reader, as in persistent mode.
pub fn read(s: &mut Session) -> String {
    let mut prompt = String::new();
    let mut capped = false;
    while let StdinEvent::Line { text, index } = s.stdin().next() {
        if capped {
            continue;
        }
        if prompt.len() + text.len() + 1 > STDIN_LINE_CAP {
            s.out().stderr_line(&format!(
                "fake-agy: stdin:{index}:1: the prompt is longer than the cap of {STDIN_LINE_CAP} bytes; this line and the rest are left out"
            ));
            capped = true;
            continue;
        }
        if !prompt.is_empty() {
            prompt.push('\n');
        }
        prompt.push_str(&text);
    }
    prompt
}

/// True when stdin is a terminal (agy then starts its interactive UI instead of reading a
/// prompt from it).
pub fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// True when the process can open its controlling terminal, as agy's interactive UI
/// (bubbletea) does first.
pub fn has_terminal() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
}
