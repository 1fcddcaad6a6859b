//! The default behaviour of one print-mode invocation (`-p`): version, subcommands,
//! slash commands, pre-turn checks, then one default turn.

use crate::cli::{CliError, OutputFormat};
use crate::error::FakeError;
use crate::exit_code;
use crate::model::help::{root_usage, subcommand_help};
use crate::model::models::validate;
use crate::run::commands;
use crate::run::stdin_prompt;
use crate::run::subcommands;
use crate::session::structured::Schema;
use crate::session::Session;
use crate::turn::default_turn::default_turn;
use agy_protocol::calibration::{EmptyPrint, NoPromptFlag};
use agy_protocol::script::{DefaultSpec, RunMode};
use agy_protocol::stream::StreamEvent;
use agy_protocol::{AgyVersion, Envelope};

/// What the command line asks for before any turn runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `--version`.
    Version,
    /// `models`.
    Models,
    /// `-p /usage` or `-p /quota`.
    Usage,
    /// `-p /credits`.
    Credits,
    /// `-p /model` (the selected model) or `-p /effort` (its reasoning effort).
    Setting(String),
    /// `update`, `changelog`, `agents`, `plugin`, `mcp`, `help` (answered briefly).
    Subcommand(String),
    /// A print-mode turn.
    Turn,
    /// A persistent stream-json session.
    Persistent,
    /// A usage error already described (exit 2).
    UsageError(String),
    /// A slash command print mode refuses (`-p /clear`): the error text (exit 2).
    SlashRefused(String),
    /// A subcommand's `-h`/`--help`: the text for stderr (exit 0).
    Help(String),
    /// No prompt flag: the prompt comes on stdin (`or_ui`: an empty stdin starts the
    /// interactive UI instead, as with no prompt at all).
    StdinPrompt {
        /// True when an empty stdin means no prompt (no prompt flag was given).
        or_ui: bool,
    },
    /// `--print ""` refused as an empty prompt (from 1.1.1).
    EmptyPrompt,
    /// No prompt and no terminal for the interactive UI.
    NoTerminal,
    /// Something fake-agy does not simulate.
    Unsupported(String),
}

/// Reads what the command line asks for (docs/agy-reference.md §1).
pub fn classify(s: &Session) -> Request {
    let a = &s.setup().args();
    if a.version {
        return Request::Version;
    }
    if let Some(first) = a.rest.first() {
        if a.prompt.is_some() {
            // §1.5: a greedy -p leaves tokens behind; agy exits 2 ([I] mechanism).
            return Request::UsageError(format!(
                "error: unexpected argument{} after the flags: {}",
                if a.rest.len() > 1 { "s" } else { "" },
                a.rest.join(" ")
            ));
        }
        if a.rest[1..].iter().any(|t| is_help(t)) {
            // ua-1.0.16-*-help: a subcommand's help, or the root usage for a name agy
            // does not know (ua-1.0.16-unknown-subcommand), exit 0.
            return Request::Help(
                subcommand_help(first).unwrap_or_else(|| root_usage(s.setup().version())),
            );
        }
        return match first.as_str() {
            "models" => match a.rest.get(1) {
                // BB (1.1.19): a flag after the subcommand is undefined for it.
                Some(f) if f.starts_with('-') => Request::UsageError(format!(
                    "flags provided but not defined: -{}",
                    f.trim_start_matches('-').split('=').next().unwrap_or("")
                )),
                _ => Request::Models,
            },
            name if subcommands::ANSWERED.contains(&name) => Request::Subcommand(name.to_string()),
            "install" | "mic-serve" | "remote-control" => {
                Request::Unsupported(format!("the `{first}` subcommand is not simulated"))
            }
            other => Request::UsageError(format!("error: unknown command \"{other}\"")),
        };
    }
    if a.prompt_interactive.is_some() {
        return interactive_ui(Some("-i"));
    }
    if let Err(e) = a.output_format() {
        return Request::UsageError(format!("error: {e}"));
    }
    if let Some(request) = input_format_request(s) {
        return request;
    }
    match a.prompt.as_deref() {
        None => without_prompt_flag(s),
        Some("") => empty_print(s),
        Some(p) if p.starts_with('/') && !a.disable_slash_commands => slash_request(p),
        Some(_) => Request::Turn,
    }
}

/// What `--input-format` asks for, when it decides the run: `text` (the default) reads
/// the prompt as print mode does; `stream-json` needs `--output-format stream-json` and,
/// with no or an empty `-p`, is persistent mode (§1.2, §1.5).
fn input_format_request(s: &Session) -> Option<Request> {
    let a = s.setup().args();
    match a.input_format.as_deref()? {
        "text" => None,
        "stream-json" if s.setup().format() != OutputFormat::StreamJson => {
            Some(Request::UsageError(
                "error: --input-format stream-json requires --output-format stream-json".into(),
            ))
        }
        // §1.5: `--print=""` with --input-format is a no-op; a non-empty -p with it is
        // unrecorded, and the fake runs it as a print turn.
        "stream-json" if a.prompt.as_deref().unwrap_or("").is_empty() => Some(Request::Persistent),
        "stream-json" => None,
        other => Some(Request::UsageError(format!(
            "error: invalid input format \"{other}\" (available: text, stream-json)"
        ))),
    }
}

/// What a print run without a prompt flag asks for: the prompt from stdin when the
/// version reads it and stdin is not a terminal, otherwise agy's interactive UI.
fn without_prompt_flag(s: &Session) -> Request {
    let reads_stdin = s.setup().calibration().prompt.without_flag == NoPromptFlag::Stdin;
    if reads_stdin && !stdin_prompt::stdin_is_terminal() {
        Request::StdinPrompt { or_ui: true }
    } else {
        interactive_ui(None)
    }
}

/// What `--print ""` (without `--input-format stream-json`) asks for: refused from
/// 1.1.1; before, the prompt is read from stdin (a terminal is not read: the run answers
/// the empty prompt).
fn empty_print(s: &Session) -> Request {
    if s.setup().calibration().prompt.empty_print == EmptyPrint::Refused {
        Request::EmptyPrompt
    } else if stdin_prompt::stdin_is_terminal() {
        Request::Turn
    } else {
        Request::StdinPrompt { or_ui: false }
    }
}

/// agy's interactive UI: without a terminal it fails to open one (ga-1.3.2-no-tty;
/// multica-ai/multica PR #4663 saw `agy -i` fail without a TTY on 1.0.13); with one,
/// the UI is not simulated. `flag` names the flag that asked for it (`-i`).
fn interactive_ui(flag: Option<&str>) -> Request {
    if !stdin_prompt::has_terminal() {
        return Request::NoTerminal;
    }
    Request::Unsupported(match flag {
        Some(f) => format!("the interactive UI (`{f}`) is not simulated"),
        None => "the interactive UI is not simulated; pass -p <prompt>, pipe the prompt on stdin, or use --input-format stream-json --output-format stream-json".into(),
    })
}

/// A print-mode prompt that starts with a slash command agy answers itself.
fn slash_request(prompt: &str) -> Request {
    let cmd = prompt.split_whitespace().next().unwrap_or("");
    match cmd {
        "/usage" | "/quota" => Request::Usage,
        "/credits" => Request::Credits,
        "/model" | "/effort" => Request::Setting(cmd.trim_start_matches('/').to_string()),
        "/clear" => Request::SlashRefused(CLEAR_REFUSED.into()),
        _ => Request::Unsupported(format!("the slash command `{cmd}` is not simulated")),
    }
}

/// `-h`, `--help`, `-help` or `--h`.
fn is_help(token: &str) -> bool {
    matches!(token.trim_start_matches('-'), "h" | "help") && token.starts_with('-')
}

/// `-p /clear` (jc-1.1.26-slash-clear, agy 1.1.26; the only record, other versions
/// **unverified**).
const CLEAR_REFUSED: &str = "/clear is not available in print mode (every print-mode run already starts a new conversation unless --continue or --conversation is passed); pass --disable-slash-commands to send /clear to the model as literal text";

/// `-p /credits` on an account without AI credits (gb-1.1.18-credits-error).
const CREDITS_ERROR: &str = "/credits failed: retrieving credits: no credits info found";

/// agy 1.3.2 started without a prompt and without a terminal
/// (capture `ga-1.3.2-no-tty`); the exit code is not recorded (the fake's 1 is
/// unverified).
const NO_TERMINAL: &str = "CLI error: bubbletea: error opening TTY: bubbletea: could not open TTY: open /dev/tty: no such device or address";

/// What agy's flag parser answers for a command line it does not run: the stderr text
/// and the exit code (`-h`: usage, 0; any other error: the message and usage, 2).
pub fn flag_error_answer(e: &CliError, version: AgyVersion) -> (String, i32) {
    match e {
        CliError::Help => (root_usage(version), exit_code::OK),
        CliError::Usage(msg) => (format!("{msg}\n{}", root_usage(version)), exit_code::USAGE),
    }
}

/// Acts out the default print-mode run with `spec`'s overrides; leaves the exit code
/// in `s.exit_code()`.
pub fn default_run(s: &mut Session, spec: &DefaultSpec) -> Result<(), FakeError> {
    if let Some(e) = s.setup().flag_error() {
        let (text, code) = flag_error_answer(e, s.setup().version());
        s.out().stderr(text.as_bytes());
        s.set_exit_code(code);
        return Ok(());
    }
    answer(s, spec, classify(s))
}

/// Acts out what the command line asks for.
fn answer(s: &mut Session, spec: &DefaultSpec, request: Request) -> Result<(), FakeError> {
    match request {
        Request::Version => commands::version(s),
        Request::Models => commands::models(s),
        // gb-1.1.18-credits-error: an account without AI credits (the fake's own).
        Request::Credits => report_pre_turn_error(s, CREDITS_ERROR),
        Request::Usage => commands::usage(s),
        Request::Setting(name) => commands::setting(s, &name),
        Request::Subcommand(name) => {
            let rest = s.setup().args().rest.get(1..).unwrap_or_default().to_vec();
            subcommands::answer(s, &name, &rest);
        }
        Request::Help(text) => s.out().stderr(text.as_bytes()),
        Request::UsageError(msg) => {
            s.out()
                .stderr(format!("{msg}\n{}", root_usage(s.setup().version())).as_bytes());
            s.set_exit_code(exit_code::USAGE);
        }
        Request::NoTerminal => {
            s.out().stderr_line(NO_TERMINAL);
            s.set_exit_code(exit_code::TURN_FAILED);
        }
        Request::Unsupported(msg) => return Err(FakeError::Unsupported(msg)),
        // jc-1.1.26-slash-clear: a lone ERROR result, exit 2; the stderr line is
        // **unverified** (shaped as the other pre-turn errors).
        Request::SlashRefused(text) => {
            report_pre_turn_error(s, &text);
            s.set_exit_code(exit_code::USAGE);
        }
        Request::Persistent => {
            return Err(FakeError::Step(
                "`default` as a print run in a persistent invocation".into(),
            ))
        }
        Request::StdinPrompt { or_ui } => return stdin_turn(s, spec, or_ui),
        // antigravity-cli issue #582 quotes the text; the stream, envelope and exit code
        // are **unverified** (shaped as the other pre-turn errors).
        Request::EmptyPrompt => report_pre_turn_error(s, stdin_prompt::EMPTY_PROMPT),
        Request::Turn => {
            if pre_turn_checks(s) {
                default_turn(s, spec)?;
            }
        }
    }
    Ok(())
}

/// A print turn whose prompt comes on stdin; an empty stdin without a prompt flag starts
/// the interactive UI instead (ga-1.3.2-no-tty ran `agy` with nothing on stdin).
fn stdin_turn(s: &mut Session, spec: &DefaultSpec, or_ui: bool) -> Result<(), FakeError> {
    let prompt = stdin_prompt::read(s);
    if prompt.trim().is_empty() && or_ui {
        return answer(s, spec, interactive_ui(None));
    }
    // The command line alone read as the interactive UI: the journal says the print
    // run it became.
    let mode = match s.setup().args().output_format().unwrap_or_default() {
        OutputFormat::Text => RunMode::Text,
        OutputFormat::Json => RunMode::Json,
        OutputFormat::StreamJson => RunMode::StreamJson,
    };
    s.recorder().update(false, |r| r.mode = Some(mode));
    s.begin_turn(prompt);
    if pre_turn_checks(s) {
        default_turn(s, spec)?;
    }
    Ok(())
}

/// `--model`/`--effort` validation (§1.4) and the `--json-schema` load; on failure
/// prints the error and returns false.
pub fn pre_turn_checks(s: &mut Session) -> bool {
    if let Some(mode) = s.setup().args().mode.as_deref() {
        if !matches!(mode, "plan" | "accept-edits") {
            // gb-1.1.18-mode-bogus: a warning, then the turn in the default mode.
            s.out().stderr_line(&format!(
                "warning: unrecognized --mode value {mode:?} (valid: accept-edits, plan)"
            ));
        }
    }
    if let Err(text) = validate(
        s.setup().calibration(),
        s.setup().version(),
        s.setup().args().model.as_deref(),
        s.setup().args().effort.as_deref(),
    ) {
        report_pre_turn_error(s, &text);
        return false;
    }
    if let Err(text) = load_schema(s) {
        // Unverified: agy's wording and exit code for a bad schema are not recorded; a
        // pre-turn error like a bad --model is the plausible shape.
        report_pre_turn_error(s, &text);
        return false;
    }
    true
}

/// Loads `--json-schema` (when given) into the session, so that every default turn
/// answers under it. The schema is agy's, not a decision of the model: a scripted
/// invocation loads it too (and then decides for itself what a bad one does).
pub fn load_schema(s: &mut Session) -> Result<(), String> {
    if let Some(arg) = s.setup().args().json_schema.clone() {
        let cwd = std::env::current_dir().unwrap_or_default();
        s.set_schema(Schema::load(&arg, &cwd)?);
    }
    Ok(())
}

/// A pre-turn failure: `error: …` on stderr, the ERROR envelope (json) or a lone
/// `result` event without `init` (stream-json), exit 1 (PB, TF S6b).
pub fn report_pre_turn_error(s: &mut Session, text: &str) {
    // gb-1.1.18-effort-bogus: `Error: ` before 1.2.3.
    let head = s.setup().calibration().errors.prefix.clone();
    s.out().stderr_line(&format!("{head}{text}"));
    let env = Envelope::pre_turn_error(text);
    match s.setup().format() {
        OutputFormat::Json => s.out().stdout(env.to_line().as_bytes()),
        OutputFormat::StreamJson => s
            .out()
            .stdout(StreamEvent::Result(env).to_line().as_bytes()),
        OutputFormat::Text => {}
    }
    s.set_exit_code(exit_code::TURN_FAILED);
}
