//! What can go wrong before or while the stand-in answers.

use agy_protocol::diag::Diagnostics;

/// Why the stand-in could not load its captures or answer an invocation.
#[derive(Debug, thiserror::Error)]
pub enum StandinError {
    /// The folder of traces was not named.
    #[error(
        "`{var}` is not set\nhelp: set it to a folder of traces of one agy version (`*.jsonl`)"
    )]
    NoFolder {
        /// The variable that names it.
        var: &'static str,
    },
    /// The folder could not be listed.
    #[error("failed to list the traces in `{dir}`: {source}\nhelp: name a readable folder of `*.jsonl` traces")]
    List {
        /// The folder.
        dir: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The folder holds more traces than the stand-in reads.
    #[error("`{dir}` holds more than {cap} traces\nhelp: give the stand-in the captures of one agy version only")]
    TooMany {
        /// The folder.
        dir: String,
        /// The cap.
        cap: usize,
    },
    /// One or more traces are malformed, or they record more than one agy version;
    /// every problem is located.
    #[error("{0}")]
    Traces(Diagnostics),
    /// No held capture has this argv.
    #[error("no capture for argv {argv} (held: {held} invocations of agy {version}){hint}")]
    NoArgv {
        /// The argv after the program name, as JSON.
        argv: String,
        /// How many invocations are held.
        held: usize,
        /// The version they record.
        version: String,
        /// `\nhelp: …` naming the nearest held argv, or empty.
        hint: String,
    },
    /// Captures with this argv exist, but none was driven by this stdin line.
    #[error("no capture for argv {argv} with stdin line {number} {got}\nhelp: the held captures with this argv expect {expected}")]
    NoStdin {
        /// The argv after the program name, as JSON.
        argv: String,
        /// 1-based number of the stdin line.
        number: usize,
        /// The line the client wrote, as JSON (or `(end of input)`).
        got: String,
        /// What the held captures expect there, as JSON strings.
        expected: String,
    },
    /// A stdin line could not be read (too long, not UTF-8, or a read error).
    #[error("failed to read stdin: {0}")]
    Stdin(String),
    /// Writing stdout or stderr failed.
    #[error("failed to write {stream}: {source}")]
    Write {
        /// `stdout` or `stderr`.
        stream: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}
