//! The steps of an agy script: each is a one-key table such as `{ sleep = "50ms" }`.

use super::flag::{Flag, True};
use super::json_object::JsonObject;
use crate::duration::GoDuration;
use crate::envelope::DeniedAction;
use crate::status::Status;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One thing fake-agy does. The key names the action; the value is its payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Act out the default behaviour (a whole print run, or one persistent turn),
    /// optionally with overrides.
    Default(Flag<DefaultSpec>),
    /// Print an envelope (json mode) or a `result` event (stream-json mode); unset
    /// fields take the values the default behaviour would use.
    Envelope(EnvelopeSpec),
    /// Print the stream-json `init` event.
    Init(Flag<InitSpec>),
    /// Print one stream-json `step_update`.
    StepUpdate(StepSpec),
    /// Print a `command_result` event (agy 1.1.18+ before a slash command's result).
    CommandResult(CommandResultSpec),
    /// Write a line to stdout (`\n` added unless present).
    Stdout(String),
    /// Write text to stdout exactly as given (for a truncated last line).
    StdoutRaw(String),
    /// Write raw bytes to stdout, in hex (for invalid UTF-8).
    StdoutHex(HexBytes),
    /// Write a line to stderr (`\n` added unless present).
    Stderr(String),
    /// Write text to stderr exactly as given.
    StderrRaw(String),
    /// Append text, exactly as given, to the `--log-file` file.
    Log(String),
    /// Wait; multiplied by the time scale.
    Sleep(GoDuration),
    /// Exit with this code now.
    Exit(i32),
    /// Wait until a signal ends the process (see `on_sigterm` / `on_sigint`).
    Hang(True),
    /// What SIGTERM does from now on.
    OnSigterm(SignalAction),
    /// What SIGINT does from now on.
    OnSigint(SignalAction),
    /// Die by a signal now, mid-output if output was written without a newline.
    Crash(CrashKind),
    /// Close stdout and keep running.
    CloseStdout(True),
    /// Stop reading stdin and close it (a writer then gets EPIPE).
    CloseStdin(True),
    /// Wait for the client's next stdin line (or EOF) and take it without acting on it
    /// (a replayed capture's output follows the line that caused it).
    ReadLine(True),
    /// Write image files into `brain/<conversation_id>/`.
    Image(Flag<ImageSpec>),
    /// Write an arbitrary file into `brain/<conversation_id>/`.
    File(FileSpec),
    /// Replay a recorded trace (path relative to the script file).
    Trace(String),
    /// Act out `--print-timeout` expiry as the modelled version does (docs/agy-reference.md §2.4).
    PrintTimeout(Flag<PrintTimeoutSpec>),
    /// Re-emit the previous turn's steps and result before this turn's own output (the
    /// replay quirk of seed 000).
    ReplayPrevious(True),
    /// Deliver a step of the previous turn (lower `step_index`) now.
    LateStep(StepSpec),
    /// Print the last `result` again.
    DuplicateResult(True),
    /// Quota exhausted mid-turn: `error_message` step, ERROR result, `AGY_ERROR:` on
    /// stderr, exit 3 (docs/agy-reference.md §2.2 item 5).
    QuotaExhausted(Flag<QuotaSpec>),
    /// Headless permission denial of a gated tool (docs/agy-reference.md §2.5).
    Deny(Flag<DenySpec>),
    /// A question the agent asks through a tool; the next stdin line answers it.
    Question(QuestionSpec),
    /// Start a real child process in agy's process group, standing for a tool run (a
    /// shell command, an MCP server), and journal its pid.
    ToolChild(Flag<ToolChildSpec>),
}

impl Step {
    /// The step's key as written in a script.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Default(_) => "default",
            Step::Envelope(_) => "envelope",
            Step::Init(_) => "init",
            Step::StepUpdate(_) => "step_update",
            Step::CommandResult(_) => "command_result",
            Step::Stdout(_) => "stdout",
            Step::StdoutRaw(_) => "stdout_raw",
            Step::StdoutHex(_) => "stdout_hex",
            Step::Stderr(_) => "stderr",
            Step::StderrRaw(_) => "stderr_raw",
            Step::Log(_) => "log",
            Step::Sleep(_) => "sleep",
            Step::Exit(_) => "exit",
            Step::Hang(_) => "hang",
            Step::OnSigterm(_) => "on_sigterm",
            Step::OnSigint(_) => "on_sigint",
            Step::Crash(_) => "crash",
            Step::CloseStdout(_) => "close_stdout",
            Step::CloseStdin(_) => "close_stdin",
            Step::ReadLine(_) => "read_line",
            Step::Image(_) => "image",
            Step::File(_) => "file",
            Step::Trace(_) => "trace",
            Step::PrintTimeout(_) => "print_timeout",
            Step::ReplayPrevious(_) => "replay_previous",
            Step::LateStep(_) => "late_step",
            Step::DuplicateResult(_) => "duplicate_result",
            Step::QuotaExhausted(_) => "quota_exhausted",
            Step::Deny(_) => "deny",
            Step::Question(_) => "question",
            Step::ToolChild(_) => "tool_child",
        }
    }
}

/// What a `--print-timeout` expiry shows where the record is silent (`print_timeout`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintTimeoutSpec {
    /// The text the turn had produced when the timeout hit, returned as the partial
    /// output (the response; in text mode, stdout) by the versions that return it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// The stderr line instead of the modelled version's (`""`: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// A child process standing for a tool run (`tool_child`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolChildSpec {
    /// What it stands for, as the journal names it (default `run_command`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `true`: it outlives the run, as a backgrounded command or an MCP server would;
    /// otherwise the run ends it when the turn ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outlives: bool,
    /// The longest it lives if nothing kills it (time-scaled). Without it, it lives as
    /// long as its turn: 10 minutes, not scaled, ended with the turn or its group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lasts: Option<GoDuration>,
}

/// Overrides for a default run or turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultSpec {
    /// The answer text instead of the canned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The answer is `response` this many times over, one copy after the other: a long
    /// answer (tens of KiB, megabytes) from a short script; at most
    /// [`super::limits::MAX_RESPONSE_BYTES`] in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_repeat: Option<u32>,
    /// Split the answer into this many `text_delta` chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u32>,
    /// How long the turn takes instead of the script's `turn_duration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<GoDuration>,
    /// This turn's own usage (the result adds it to the conversation's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
    /// Force image generation on (`true`) or off (`false`) whatever the prompt says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<bool>,
    /// Image size instead of the prompt-derived one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_size: Option<[u32; 2]>,
    /// When `false`, the result's `num_turns` does not advance (a native failure the
    /// session profile must catch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advance_turns: Option<bool>,
    /// The result status instead of `SUCCESS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The result error text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// With `--json-schema`: the `structured_output` instead of the minimal conforming
    /// value (carried as given, conforming or not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
}

/// An explicit envelope / `result`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeSpec {
    /// Conversation id; default: the current conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Status; default `SUCCESS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Response; default the canned answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Error text (omitted when empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Duration; default the elapsed turn time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// Turn count; default the conversation's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_turns: Option<u64>,
    /// Usage; default the conversation's cumulative usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
    /// `denied_actions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied_actions: Vec<DeniedAction>,
    /// Slash-command payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<serde_json::Value>,
    /// `structured_output` (the `--json-schema` answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<serde_json::Value>,
    /// The `--json-schema` document the result echoes (agy 1.1.27+), as a JSON object
    /// in text; default the run's own `--json-schema` once loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<JsonObject>,
    /// Keys the envelope has beyond the named ones, as a JSON object in text; added
    /// after them, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<JsonObject>,
    /// The form of the result whatever `--output-format` says: an envelope line
    /// (`json`), a `result` event (`stream_json`) or the response alone (`text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ResultFormat>,
    /// The order of the keys where it is not agy's usual one (named and `extra` keys
    /// alike); keys it leaves out follow in the usual order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_order: Vec<String>,
}

/// How a result is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultFormat {
    /// The response text alone (`--output-format text`).
    Text,
    /// One envelope line (`--output-format json`).
    Json,
    /// A `result` event (`--output-format stream-json`).
    StreamJson,
}

/// A `command_result` event: `{"event":"command_result","command":{"name":…,"data":…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandResultSpec {
    /// The command's name (`models`, `usage`, `model`, `effort`).
    pub name: String,
    /// The command's answer, as a JSON object in text (agy's key order kept); without
    /// it the payload has no `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<JsonObject>,
}

/// Overrides for the `init` event.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitSpec {
    /// `init.model`; default: `--model` when passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `init.cwd`; default the process cwd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Tool list; default the modelled version's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Permission mode; default from `--dangerously-skip-permissions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The event's `conversation_id`; default the current conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// The `--json-schema` document the event echoes (agy 1.3.1), as a JSON object in
    /// text; default the run's own `--json-schema` once loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<JsonObject>,
    /// Keys beyond the named ones, as a JSON object in text; added after them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<JsonObject>,
    /// The order of the payload's keys where it is not agy's usual one (agy 1.1.8
    /// puts `agent` after `cwd`); keys it leaves out follow in the usual order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_order: Vec<String>,
}

/// One `step_update`, field by field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// Default `agent_response`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_type: Option<String>,
    /// Default `DONE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Absolute index; default the next index of the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_index: Option<u64>,
    /// Reuse the previous step's index (an ACTIVE line followed by its DONE line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_index: Option<bool>,
    /// Text fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_delta: Option<String>,
    /// Tool name (tool steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Tool parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<serde_json::Value>,
    /// Tool output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Tool or step error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<StepErrorSpec>,
    /// The step-level error of a tool step, beside `tool_info` (agy 1.1.17 put a
    /// denied tool's error there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_error: Option<StepErrorSpec>,
    /// Step duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<f64>,
    /// Step usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSpec>,
    /// The step's `conversation_id`; default the current conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// `false`: a step with a `tool_name` but no `tool_info` (agy's `subagent` steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_info: Option<bool>,
    /// Keys beyond the named ones (`subagent_info`, 1.1.17's step-level `output`), as a
    /// JSON object in text; added after them, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<JsonObject>,
    /// The order of the payload's keys where it is not agy's usual one; keys it leaves
    /// out follow in the usual order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_order: Vec<String>,
}

/// `{ type = "TOOL_ERROR", message = "…" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepErrorSpec {
    /// Error kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// Message.
    pub message: String,
}

/// Usage given by name or by counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UsageSpec {
    /// `"zero"`, `"default"`.
    Named(UsageName),
    /// Explicit counters; `total` defaults to input + output.
    Counts {
        /// input_tokens
        #[serde(default)]
        input: u64,
        /// output_tokens
        #[serde(default)]
        output: u64,
        /// thinking_tokens
        #[serde(default)]
        thinking: u64,
        /// cache_read_tokens
        #[serde(default)]
        cache_read: u64,
        /// total_tokens (default input + output)
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
        /// `false`: no `cache_read_tokens` key at all (agy 1.0.16 printed none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_read_key: Option<bool>,
    },
}

/// Named usage values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageName {
    /// All five counters zero.
    Zero,
    /// What the default behaviour would report.
    Default,
}

/// Image files to write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImageSpec {
    /// Width; default from the prompt (S3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Height; default from the prompt (S3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The tool's `ImageName` (file name prefix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How many files.
    pub count: u32,
    /// Write bytes that no decoder accepts.
    pub corrupt: bool,
    /// File format.
    pub format: ImageFormat,
    /// In stream-json, also emit the `generate_image` tool steps.
    pub tool_steps: bool,
}

impl Default for ImageSpec {
    fn default() -> Self {
        ImageSpec {
            width: None,
            height: None,
            name: None,
            count: 1,
            corrupt: false,
            format: ImageFormat::Jpeg,
            tool_steps: true,
        }
    }
}

/// Image file format (agy writes JPEG: S3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// `.jpg`, what agy writes.
    #[default]
    Jpeg,
    /// `.png`, for adapters that must not assume JPEG.
    Png,
}

/// A file in the brain directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// Path relative to `brain/<conversation_id>/`.
    pub path: String,
    /// Text content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Byte content in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<HexBytes>,
}

/// What a signal does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SignalAction {
    /// `"ignore"`, `"exit"` (exit now, 128 + signal), `"default"` (die by the signal).
    Named(SignalNamed),
    /// Exit this long after the signal, with this code.
    ExitAfter {
        /// Delay before exiting (time-scaled).
        exit_after: GoDuration,
        /// Exit code; default 128 + signal number.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<i32>,
    },
}

/// Named signal dispositions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalNamed {
    /// Keep running.
    Ignore,
    /// Exit at once with 128 + signal number, after journalling.
    Exit,
    /// Die by the signal (the OS default).
    Default,
}

/// How to crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashKind {
    /// SIGABRT.
    Abort,
    /// SIGSEGV.
    Segv,
    /// SIGKILL.
    Kill,
}

/// Quota exhaustion details.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaSpec {
    /// The error text; default the recorded "Individual quota reached…" message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A denied tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DenySpec {
    /// Tool name; default `run_command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Tool parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<serde_json::Value>,
}

/// A question asked through a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionSpec {
    /// The question text.
    pub text: String,
    /// Tool name; default `ask_question`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// Bytes written as hex (`"ff fe 0a"`; spaces optional).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HexBytes(pub Vec<u8>);

impl Serialize for HexBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = self.0.iter().map(|b| format!("{b:02x}")).collect();
        s.serialize_str(&text.join(" "))
    }
}

impl<'de> Deserialize<'de> for HexBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let digits: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if !digits.len().is_multiple_of(2) || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(serde::de::Error::custom(format!(
                "`{s}` is not hex bytes: write pairs of hex digits such as \"ff fe 0a\""
            )));
        }
        let bytes = (0..digits.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&digits[i..i + 2], 16).ok())
            .collect();
        Ok(HexBytes(bytes))
    }
}

/// A regular expression, checked when the script is parsed.
#[derive(Debug, Clone)]
pub struct Pattern(pub regex::Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        regex::Regex::new(&s).map(Pattern).map_err(|e| {
            serde::de::Error::custom(format!(
                "invalid regular expression: {}",
                e.to_string().lines().last().unwrap_or("")
            ))
        })
    }
}
