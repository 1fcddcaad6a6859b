//! agy's command line, parsed with Go `flag`-package semantics (docs/agy-reference.md §1.2, §1.5).
//!
//! Hand-written rather than clap: Go accepts `-flag`, `--flag`, `-flag=v` and `--flag=v`
//! alike, a string flag always consumes the next token (even one starting with `-`),
//! and parsing stops at the first positional argument. clap cannot express single-dash
//! long flags nor the greedy string flags.

use crate::script::RunMode;
use crate::GoDuration;
use std::time::Duration;

/// The program name Go's `flag` package prints in usage.
const PROGRAM: &str = "agy";

/// What a flag holds, and where its value goes in [`Args`]. The setter sits in the
/// flag's own table row, so a flag cannot be accepted and then dropped.
#[derive(Clone, Copy)]
enum Setter {
    Bool(fn(&mut Args, bool)),
    String(fn(&mut Args, String)),
    Duration(fn(&mut Args, GoDuration)),
    /// Repeatable string (`flag.Value`), printed as `value` in usage.
    List(fn(&mut Args, String)),
}

/// One flag definition: name, setter, usage text, default shown in usage.
struct FlagDef {
    name: &'static str,
    set: Setter,
    usage: &'static str,
    default: &'static str,
}

impl FlagDef {
    fn is_bool(&self) -> bool {
        matches!(self.set, Setter::Bool(_))
    }
}

/// Every flag agy accepts (docs/agy-reference.md §1.2), sorted by name. agy's own help
/// layout, per version, is fake-agy's (`fake_agy::help`); [`usage`] is Go's.
#[rustfmt::skip]
const FLAGS: &[FlagDef] = &[
    FlagDef { name: "add-dir", set: Setter::List(|a, v| a.add_dirs.push(v)), usage: "add a workspace directory (repeatable)", default: "" },
    FlagDef { name: "agent", set: Setter::String(|a, v| a.agent = Some(v)), usage: "custom agent to use", default: "" },
    FlagDef { name: "c", set: Setter::Bool(|a, b| a.continue_last = b), usage: "continue the most recent conversation (shorthand)", default: "" },
    FlagDef { name: "continue", set: Setter::Bool(|a, b| a.continue_last = b), usage: "continue the most recent conversation", default: "" },
    FlagDef { name: "conversation", set: Setter::String(|a, v| a.conversation = Some(v)), usage: "resume the conversation with this `id`", default: "" },
    FlagDef { name: "dangerously-skip-permissions", set: Setter::Bool(|a, b| a.skip_permissions = b), usage: "auto-approve every tool call", default: "" },
    FlagDef { name: "disable-slash-commands", set: Setter::Bool(|a, b| a.disable_slash_commands = b), usage: "do not run a prompt that starts with / as a slash command", default: "" },
    FlagDef { name: "effort", set: Setter::String(|a, v| a.effort = Some(v)), usage: "reasoning effort: low, medium, high", default: "" },
    FlagDef { name: "i", set: Setter::String(|a, v| a.prompt_interactive = Some(v)), usage: "start the interactive UI with this prompt (shorthand)", default: "" },
    FlagDef { name: "input-format", set: Setter::String(|a, v| a.input_format = Some(v)), usage: "input format: text, stream-json", default: "text" },
    FlagDef { name: "json-schema", set: Setter::String(|a, v| a.json_schema = Some(v)), usage: "JSON schema (inline or a file path) the final answer must follow", default: "" },
    FlagDef { name: "log-file", set: Setter::String(|a, v| a.log_file = Some(v)), usage: "write the internal log to this `path`", default: "" },
    FlagDef { name: "mode", set: Setter::String(|a, v| a.mode = Some(v)), usage: "agent mode: plan, accept-edits", default: "" },
    FlagDef { name: "model", set: Setter::String(|a, v| a.model = Some(v)), usage: "model id or display label", default: "" },
    FlagDef { name: "new-project", set: Setter::Bool(|a, b| a.new_project = b), usage: "create a new project for this session", default: "" },
    FlagDef { name: "output-format", set: Setter::String(|a, v| a.output_format_raw = Some(v)), usage: "output format: text, json, stream-json", default: "text" },
    FlagDef { name: "p", set: Setter::String(|a, v| a.prompt = Some(v)), usage: "run one prompt headlessly and print the result (shorthand)", default: "" },
    FlagDef { name: "print", set: Setter::String(|a, v| a.prompt = Some(v)), usage: "run one prompt headlessly and print the result", default: "" },
    FlagDef { name: "print-timeout", set: Setter::Duration(|a, d| a.print_timeout = Some(d)), usage: "give up on a headless turn after this long", default: "5m0s" },
    FlagDef { name: "project", set: Setter::String(|a, v| a.project = Some(v)), usage: "project ID or name for this session", default: "" },
    FlagDef { name: "prompt", set: Setter::String(|a, v| a.prompt = Some(v)), usage: "run one prompt headlessly and print the result", default: "" },
    FlagDef { name: "prompt-interactive", set: Setter::String(|a, v| a.prompt_interactive = Some(v)), usage: "start the interactive UI with this prompt", default: "" },
    FlagDef { name: "remote-control", set: Setter::Bool(|a, b| a.remote_control = b), usage: "enable the remote UI", default: "" },
    FlagDef { name: "sandbox", set: Setter::Bool(|a, b| a.sandbox = b), usage: "run terminal commands in an OS sandbox", default: "" },
    FlagDef { name: "version", set: Setter::Bool(|a, b| a.version = b), usage: "print the version and exit", default: "" },
];

/// `--output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Plain text (the default).
    #[default]
    Text,
    /// One JSON envelope.
    Json,
    /// NDJSON events.
    StreamJson,
}

/// The parsed command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    /// `-p/--print/--prompt`; `Some("")` when given empty.
    pub prompt: Option<String>,
    /// `--output-format` as given (validated later, as agy does after parsing).
    pub output_format_raw: Option<String>,
    /// `--input-format` as given.
    pub input_format: Option<String>,
    /// `--add-dir`, in order.
    pub add_dirs: Vec<String>,
    /// `--print-timeout`.
    pub print_timeout: Option<GoDuration>,
    /// `--model`.
    pub model: Option<String>,
    /// `--effort`.
    pub effort: Option<String>,
    /// `--mode`.
    pub mode: Option<String>,
    /// `--agent`.
    pub agent: Option<String>,
    /// `--sandbox`.
    pub sandbox: bool,
    /// `--dangerously-skip-permissions`.
    pub skip_permissions: bool,
    /// `--conversation`.
    pub conversation: Option<String>,
    /// `-c/--continue`.
    pub continue_last: bool,
    /// `--log-file`.
    pub log_file: Option<String>,
    /// `--json-schema`.
    pub json_schema: Option<String>,
    /// `--disable-slash-commands`.
    pub disable_slash_commands: bool,
    /// `--version`.
    pub version: bool,
    /// `--remote-control`.
    pub remote_control: bool,
    /// `-i/--prompt-interactive`.
    pub prompt_interactive: Option<String>,
    /// `--new-project` (listed in `agy -h` from 1.0.16, capture `ua-1.0.16-help`).
    pub new_project: bool,
    /// `--project` (listed in `agy -h` from 1.0.16, capture `ua-1.0.16-help`).
    pub project: Option<String>,
    /// Positional arguments left after the flags (a subcommand and its arguments).
    pub rest: Vec<String>,
}

/// Whether an agy invocation runs a turn or only probes agy (docs/contract.md, "Probes
/// are not turns"). Journal expectations and script rules speak of turns unless they say
/// otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvocationKind {
    /// A print run (`-p …`) or a persistent stream-json session: a model turn.
    Turn,
    /// `--version`, a subcommand (`models`, `update`, …) or a slash command (`-p /usage`).
    Probe,
}

/// Classifies a full argv (`argv[0]` included) the way fake-agy's parser reads it. An argv
/// that does not parse counts as a turn (the caller meant agy to run one), except a
/// request for help (`-h`, `--help`), which only asks.
pub fn invocation_kind(argv: &[String]) -> InvocationKind {
    match parse_args(argv.get(1..).unwrap_or_default()) {
        Ok(args) => args.kind(),
        // `-h`/`--help` only asks agy for its usage.
        Err(CliError::Help) => InvocationKind::Probe,
        Err(CliError::Usage(_)) => InvocationKind::Turn,
    }
}

/// Why the command line did not parse, with Go's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliError {
    /// `-h`/`-help`: usage on stderr, exit 0 (Go's `flag.ErrHelp`).
    Help,
    /// Any other parse error: message and usage on stderr, exit 2.
    Usage(String),
}

/// The default `--print-timeout` (docs/agy-reference.md §1.2).
pub const DEFAULT_PRINT_TIMEOUT: Duration = Duration::from_secs(300);

impl Args {
    /// The output format; `Err` carries the message for an unknown value.
    pub fn output_format(&self) -> Result<OutputFormat, String> {
        match self.output_format_raw.as_deref() {
            None | Some("text") => Ok(OutputFormat::Text),
            Some("json") => Ok(OutputFormat::Json),
            Some("stream-json") => Ok(OutputFormat::StreamJson),
            Some(other) => Err(format!(
                "invalid output format \"{other}\" (available: text, json, stream-json)"
            )),
        }
    }

    /// True when `--input-format stream-json` asks for persistent mode (`text`, the
    /// default, reads the prompt as print mode does: docs/agy-reference.md §1.2).
    pub fn persistent_input(&self) -> bool {
        self.input_format.as_deref() == Some("stream-json")
    }

    /// `--print-timeout`, or its default.
    pub fn print_timeout(&self) -> GoDuration {
        self.print_timeout
            .unwrap_or(GoDuration(DEFAULT_PRINT_TIMEOUT))
    }

    /// What the invocation is for: a turn (a print run or a persistent session) or a
    /// probe that only asks agy something (`--version`, a subcommand such as `models` or
    /// `update`, a slash command such as `-p /usage`).
    pub fn kind(&self) -> InvocationKind {
        if self.version || self.run_mode() == RunMode::Command {
            InvocationKind::Probe
        } else {
            InvocationKind::Turn
        }
    }

    /// The run mode the journal and rule matching see.
    pub fn run_mode(&self) -> RunMode {
        let format = self.output_format().unwrap_or_default();
        let prompt = self.prompt.as_deref().unwrap_or("");
        if self.persistent_input() && prompt.is_empty() {
            return RunMode::Persistent;
        }
        // `--input-format text` names print mode (the help: "Input format for print
        // mode"), so only a command line with neither starts the UI.
        if self.rest.is_empty()
            && !self.version
            && self.input_format.is_none()
            && (self.prompt.is_none() || self.prompt_interactive.is_some())
        {
            return RunMode::Interactive;
        }
        if !self.rest.is_empty() || (prompt.starts_with('/') && !self.disable_slash_commands) {
            return RunMode::Command;
        }
        match format {
            OutputFormat::Text => RunMode::Text,
            OutputFormat::Json => RunMode::Json,
            OutputFormat::StreamJson => RunMode::StreamJson,
        }
    }
}

/// Parses argv (without `argv[0]`) the way Go's `flag.Parse` does.
pub fn parse_args(args: &[String]) -> Result<Args, CliError> {
    let mut out = Args::default();
    let mut i = 0;
    while i < args.len() {
        let s = &args[i];
        if s.len() < 2 || !s.starts_with('-') {
            break;
        }
        let minuses = if s.starts_with("--") { 2 } else { 1 };
        if s == "--" {
            i += 1;
            break;
        }
        let name_part = &s[minuses..];
        if name_part.is_empty() || name_part.starts_with('-') || name_part.starts_with('=') {
            return Err(CliError::Usage(format!("bad flag syntax: {s}")));
        }
        i += 1;
        let (name, inline) = match name_part.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name_part, None),
        };
        let Some(def) = FLAGS.iter().find(|f| f.name == name) else {
            if name == "help" || name == "h" {
                return Err(CliError::Help);
            }
            return Err(CliError::Usage(format!(
                "flags provided but not defined: -{name}"
            )));
        };
        let value = if def.is_bool() {
            match inline {
                None => "true".to_string(),
                Some(v) => v,
            }
        } else {
            match inline {
                Some(v) => v,
                None => match args.get(i) {
                    // A string flag takes the next token whatever it is (§1.5).
                    Some(v) => {
                        i += 1;
                        v.clone()
                    }
                    None => {
                        return Err(CliError::Usage(format!("flag needs an argument: -{name}")))
                    }
                },
            }
        };
        set_flag(&mut out, def, &value)?;
    }
    out.rest = args[i..].to_vec();
    Ok(out)
}

/// The token at which agy's flag parser stops on a command line (without `argv[0]`) it
/// does not run (`-h`, an undefined flag, a flag without its value): the last of the
/// shortest prefix that fails the same way. `None` when `args` parse.
pub fn flag_error_token(args: &[String]) -> Option<&String> {
    let e = parse_args(args).err()?;
    (1..=args.len())
        .find(|&k| parse_args(&args[..k]).err().as_ref() == Some(&e))
        .map(|k| &args[k - 1])
}

/// The flags that are one flag under several names (docs/agy-reference.md §1.2): each
/// group's names set the same field.
pub const FLAG_ALIASES: &[&[&str]] = &[
    &["c", "continue"],
    &["i", "prompt-interactive"],
    &["p", "print", "prompt"],
];

/// Whether flag names `a` and `b` (without dashes) name one flag: equal, or in one
/// group of [`FLAG_ALIASES`].
pub fn same_flag(a: &str, b: &str) -> bool {
    a == b
        || FLAG_ALIASES
            .iter()
            .any(|group| group.contains(&a) && group.contains(&b))
}

/// The value a string flag `name` (without dashes) has in `args`, read token by token
/// (`-name v`, `--name v`, `-name=v`, `--name=v`; the last one wins) whether or not the
/// whole command line parses: a command line the flag parser rejects still names its
/// `--log-file`.
pub fn find_flag_value(args: &[String], name: &str) -> Option<String> {
    let mut found = None;
    let mut tokens = args.iter();
    while let Some(t) = tokens.next() {
        let Some(body) = t.strip_prefix("--").or_else(|| t.strip_prefix('-')) else {
            continue;
        };
        match body.split_once('=') {
            Some((n, v)) if n == name => found = Some(v.to_string()),
            None if body == name => found = tokens.next().cloned().or(found),
            _ => {}
        }
    }
    found
}

fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

fn set_flag(out: &mut Args, def: &FlagDef, value: &str) -> Result<(), CliError> {
    match def.set {
        Setter::Bool(set) => {
            let b = parse_go_bool(value).ok_or_else(|| {
                CliError::Usage(format!(
                    "invalid boolean value {value:?} for -{}: parse error",
                    def.name
                ))
            })?;
            set(out, b);
        }
        Setter::String(set) | Setter::List(set) => set(out, value.to_string()),
        Setter::Duration(set) => {
            let d = GoDuration::parse(value).map_err(|_| {
                CliError::Usage(format!(
                    "invalid value {value:?} for flag -{}: parse error",
                    def.name
                ))
            })?;
            set(out, d);
        }
    }
    Ok(())
}

/// The usage text Go's `flag.PrintDefaults` prints, headed `Usage of agy:`.
pub fn usage() -> String {
    let mut out = format!("Usage of {PROGRAM}:\n");
    for f in FLAGS {
        let (arg_name, text) = unquote_usage(f);
        let mut line = format!("  -{}", f.name);
        if !arg_name.is_empty() {
            line.push(' ');
            line.push_str(&arg_name);
        }
        if line.len() <= 4 {
            line.push('\t');
        } else {
            line.push_str("\n    \t");
        }
        line.push_str(&text);
        if !f.default.is_empty() {
            match f.set {
                Setter::String(_) => line.push_str(&format!(" (default {:?})", f.default)),
                _ => line.push_str(&format!(" (default {})", f.default)),
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Go's `flag.UnquoteUsage`: a back-quoted word in the usage names the argument.
fn unquote_usage(f: &FlagDef) -> (String, String) {
    let u = f.usage;
    if let Some(start) = u.find('`') {
        if let Some(len) = u[start + 1..].find('`') {
            let name = &u[start + 1..start + 1 + len];
            let text = format!("{}{}{}", &u[..start], name, &u[start + 2 + len..]);
            return (name.to_string(), text);
        }
    }
    let name = match f.set {
        Setter::Bool(_) => "",
        Setter::String(_) => "string",
        Setter::Duration(_) => "duration",
        Setter::List(_) => "value",
    };
    (name.to_string(), u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, CliError> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse_args(&v)
    }

    /// A value that flag `f` accepts and that differs from the flag's unset state.
    fn sample_value(f: &FlagDef) -> &'static str {
        match f.set {
            Setter::Bool(_) => "true",
            Setter::Duration(_) => "7s",
            Setter::String(_) | Setter::List(_) => "x",
        }
    }

    #[test]
    fn the_token_the_flag_parser_stops_at_is_named() {
        let v = |a: &[&str]| -> Vec<String> { a.iter().map(|s| s.to_string()).collect() };
        let help = v(&["--output-format", "json", "--help", "--nope"]);
        assert_eq!(flag_error_token(&help).map(String::as_str), Some("--help"));
        let undefined = v(&["-p", "x", "--no-such-flag", "--log-file", "l"]);
        assert_eq!(
            flag_error_token(&undefined).map(String::as_str),
            Some("--no-such-flag")
        );
        let missing = v(&["-p", "x", "--model"]);
        assert_eq!(
            flag_error_token(&missing).map(String::as_str),
            Some("--model")
        );
        assert_eq!(flag_error_token(&v(&["-p", "x"])), None);
    }

    #[test]
    fn a_command_line_without_a_prompt_or_input_format_starts_the_interactive_ui() {
        assert_eq!(parse(&[]).expect("parses").run_mode(), RunMode::Interactive);
        let model_only = parse(&["--model", "x"]).expect("parses");
        assert_eq!(model_only.run_mode(), RunMode::Interactive);
        let i = parse(&["-i", "hello"]).expect("parses");
        assert_eq!(i.run_mode(), RunMode::Interactive);
        assert_eq!(
            parse(&["-p", "hi"]).expect("parses").run_mode(),
            RunMode::Text
        );
        assert_eq!(
            parse(&["-p", ""]).expect("parses").run_mode(),
            RunMode::Text
        );
        assert_eq!(
            parse(&["--version"]).expect("parses").kind(),
            InvocationKind::Probe
        );
        assert_eq!(
            parse(&["models"]).expect("parses").run_mode(),
            RunMode::Command
        );
    }

    #[test]
    fn a_request_for_help_is_a_probe_and_another_bad_command_line_a_turn() {
        let argv = |a: &[&str]| -> Vec<String> { a.iter().map(|s| s.to_string()).collect() };
        assert_eq!(
            invocation_kind(&argv(&["agy", "--help"])),
            InvocationKind::Probe
        );
        assert_eq!(
            invocation_kind(&argv(&["agy", "-h"])),
            InvocationKind::Probe
        );
        assert_eq!(
            invocation_kind(&argv(&["agy", "-p", "x", "--no-such-flag"])),
            InvocationKind::Turn
        );
    }

    #[test]
    fn a_flag_value_is_found_in_a_command_line_that_does_not_parse() {
        let v: Vec<String> = ["-p", "x", "--undefined", "--log-file", "a.log", "-sandbox"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(parse_args(&v).is_err());
        assert_eq!(find_flag_value(&v, "log-file").as_deref(), Some("a.log"));
        let eq: Vec<String> = vec!["-log-file=b.log".into()];
        assert_eq!(find_flag_value(&eq, "log-file").as_deref(), Some("b.log"));
        assert_eq!(find_flag_value(&v, "model"), None);
    }

    #[test]
    fn every_flag_in_the_table_changes_the_parsed_args() {
        for f in FLAGS {
            let flag = format!("-{}={}", f.name, sample_value(f));
            let args = parse(&[flag.as_str()]).unwrap_or_else(|e| panic!("{flag}: {e:?}"));
            assert_ne!(
                args,
                Args::default(),
                "`-{}` is accepted but ignored",
                f.name
            );
        }
    }

    #[test]
    fn flags_sharing_a_field_are_the_documented_aliases() {
        // Two table rows writing the same field must be one flag's short and long form.
        let aliases = FLAG_ALIASES;
        for f in FLAGS {
            let flag = format!("-{}={}", f.name, sample_value(f));
            let mine = parse(&[flag.as_str()]).expect("parses");
            for g in FLAGS.iter().filter(|g| g.name != f.name) {
                let other = format!("-{}={}", g.name, sample_value(g));
                let theirs = parse(&[other.as_str()]).expect("parses");
                if mine == theirs {
                    assert!(
                        aliases
                            .iter()
                            .any(|a| a.contains(&f.name) && a.contains(&g.name)),
                        "`-{}` and `-{}` set the same field but are not aliases",
                        f.name,
                        g.name
                    );
                }
            }
        }
    }

    #[test]
    fn single_and_double_dash_and_equals_forms_are_equivalent() {
        for form in [
            &["-output-format", "json"][..],
            &["--output-format", "json"],
            &["-output-format=json"],
            &["--output-format=json"],
        ] {
            let a = parse(form).expect("parses");
            assert_eq!(a.output_format(), Ok(OutputFormat::Json), "{form:?}");
        }
    }

    #[test]
    fn p_swallows_the_next_flag_as_its_prompt() {
        // Grimoire PR #71: `agy -p --input-format stream-json` runs prompt `--input-format`.
        let a = parse(&["-p", "--input-format", "stream-json"]).expect("parses");
        assert_eq!(a.prompt.as_deref(), Some("--input-format"));
        assert_eq!(a.rest, vec!["stream-json".to_string()]);
    }

    #[test]
    fn input_format_text_is_print_mode_and_stream_json_is_persistent() {
        // The help: "Input format for print mode (text, stream-json) … (default text)".
        let text = parse(&["--input-format", "text", "--output-format", "json"]).expect("parses");
        assert_eq!(text.run_mode(), RunMode::Json);
        let stream =
            parse(&["--input-format=stream-json", "--output-format=stream-json"]).expect("parses");
        assert_eq!(stream.run_mode(), RunMode::Persistent);
    }

    #[test]
    fn p_without_value_needs_an_argument() {
        assert_eq!(
            parse(&["-p"]),
            Err(CliError::Usage("flag needs an argument: -p".into()))
        );
    }

    #[test]
    fn unknown_flag_is_reported_the_go_way() {
        assert_eq!(
            parse(&["--yolo"]),
            Err(CliError::Usage(
                "flags provided but not defined: -yolo".into()
            ))
        );
        assert_eq!(parse(&["-h"]), Err(CliError::Help));
    }

    #[test]
    fn bool_flags_take_no_separate_value_but_accept_equals() {
        let a = parse(&["-c", "-p", "x"]).expect("parses");
        assert!(a.continue_last);
        let b = parse(&["--dangerously-skip-permissions=false", "-p", "x"]).expect("parses");
        assert!(!b.skip_permissions);
        assert!(matches!(
            parse(&["--sandbox=maybe"]),
            Err(CliError::Usage(_))
        ));
    }

    #[test]
    fn add_dir_repeats_and_parsing_stops_at_a_positional() {
        let a = parse(&["--add-dir", "/a", "-add-dir=/b", "models", "-x"]).expect("parses");
        assert_eq!(a.add_dirs, vec!["/a", "/b"]);
        assert_eq!(a.rest, vec!["models", "-x"]);
    }

    #[test]
    fn version_subcommands_and_slash_commands_are_probes() {
        let kind = |argv: &[&str]| {
            let v: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            invocation_kind(&v)
        };
        assert_eq!(kind(&["agy", "--version"]), InvocationKind::Probe);
        assert_eq!(kind(&["agy", "-version"]), InvocationKind::Probe);
        assert_eq!(kind(&["agy", "models"]), InvocationKind::Probe);
        assert_eq!(kind(&["agy", "update"]), InvocationKind::Probe);
        assert_eq!(
            kind(&["agy", "-p", "/usage", "--output-format", "json"]),
            InvocationKind::Probe
        );
        assert_eq!(
            kind(&["agy", "-p", "draw", "--output-format", "json"]),
            InvocationKind::Turn
        );
        assert_eq!(
            kind(&[
                "agy",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json"
            ]),
            InvocationKind::Turn
        );
        assert_eq!(
            kind(&["agy", "--disable-slash-commands", "-p", "/usage"]),
            InvocationKind::Turn
        );
        assert_eq!(kind(&["agy", "--no-such-flag"]), InvocationKind::Turn);
        assert_eq!(kind(&[]), InvocationKind::Turn);
    }

    #[test]
    fn print_timeout_takes_go_durations() {
        let a = parse(&["--print-timeout", "1h30m", "-p", "x"]).expect("parses");
        assert_eq!(a.print_timeout().0, Duration::from_secs(5400));
        assert!(matches!(
            parse(&["--print-timeout", "soon"]),
            Err(CliError::Usage(_))
        ));
    }

    #[test]
    fn bad_flag_syntax_is_rejected() {
        assert_eq!(
            parse(&["---x"]),
            Err(CliError::Usage("bad flag syntax: ---x".into()))
        );
    }

    use proptest::prelude::*;

    /// Renders `a` as an argv in the forms drivers use (mixed `-x v`, `--x=v`).
    fn render(a: &Args, equals: bool) -> Vec<String> {
        let mut v = Vec::new();
        let mut push = |name: &str, value: &str| {
            if equals {
                v.push(format!("--{name}={value}"));
            } else {
                v.push(format!("-{name}"));
                v.push(value.to_string());
            }
        };
        if let Some(p) = &a.prompt {
            push("p", p);
        }
        if let Some(f) = &a.output_format_raw {
            push("output-format", f);
        }
        for d in &a.add_dirs {
            push("add-dir", d);
        }
        if let Some(m) = &a.model {
            push("model", m);
        }
        if let Some(t) = &a.print_timeout {
            push("print-timeout", &t.go_string());
        }
        if a.skip_permissions {
            v.push("--dangerously-skip-permissions".into());
        }
        if a.continue_last {
            v.push("-c".into());
        }
        v
    }

    fn arb_args() -> impl Strategy<Value = Args> {
        (
            proptest::option::of("\\PC{0,20}"),
            proptest::option::of(prop_oneof![Just("text"), Just("json"), Just("stream-json")]),
            proptest::collection::vec("[a-z/]{1,10}", 0..3),
            proptest::option::of("[a-z0-9.-]{1,20}"),
            proptest::option::of(0u64..100_000),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(prompt, f, dirs, model, ms, skip, cont)| Args {
                prompt,
                output_format_raw: f.map(str::to_string),
                add_dirs: dirs,
                model,
                print_timeout: ms.map(|m| GoDuration(Duration::from_millis(m))),
                skip_permissions: skip,
                continue_last: cont,
                ..Args::default()
            })
    }

    proptest! {
        #[test]
        fn arbitrary_argv_never_panics(argv in proptest::collection::vec("\\PC{0,12}", 0..8)) {
            let _ = parse_args(&argv);
        }

        #[test]
        fn rendered_args_parse_back_equal(a in arb_args(), equals in any::<bool>()) {
            let back = parse_args(&render(&a, equals)).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(back, a);
        }
    }
}
