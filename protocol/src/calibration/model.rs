//! What a calibration says fake-agy presents as one agy: each section is an observable
//! (a text, a key list, a step list, a status), never a switch named after code.

use super::evidence::{Sources, Unverified};
use super::unrecorded::Unrecorded;
use crate::version::{AgyVersion, VersionRange};
use serde::{Deserialize, Serialize};

/// One agy as fake-agy presents it (docs/calibration-format.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// `[calibration]`: which agy this is.
    pub calibration: Identity,
    /// `[models]`: the catalogue and how `agy models` lists it.
    pub models: Models,
    /// `[init]`: the `init` event's tool list.
    pub init: Init,
    /// `[errors]`: error texts that changed between versions.
    pub errors: Errors,
    /// `[turns]`: the steps a turn shows besides its scripted ones.
    pub turns: Turns,
    /// `[denial]`: a headless denial.
    pub denial: Denial,
    /// `[print_timeout]`: `--print-timeout` expiring.
    pub print_timeout: PrintTimeout,
    /// `[usage]`: the keys of a usage object.
    pub usage: UsageKeys,
    /// `[files]`: the files agy writes.
    pub files: Files,
    /// `[signed_out]`: answers without credentials.
    pub signed_out: SignedOut,
    /// `[persistent]`: `--input-format stream-json` sessions.
    pub persistent: Persistent,
    /// `[prompt]`: where a print run's prompt comes from.
    pub prompt: PromptInput,
    /// `[conversation]`: `--conversation` with an id agy does not know.
    pub conversation: Conversation,
    /// `[image]`: how an image is generated.
    pub image: Image,
    /// `[[unrecorded]]`: edges the record leaves open, with both sides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrecorded: Vec<Unrecorded>,
}

/// `[calibration]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// The version `agy --version` prints.
    pub agy: AgyVersion,
    /// The versions this calibration stands for (a built-in's evidence range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<VersionRange>,
    /// Where the version's captures are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// One selectable model, in listing order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// Id with its effort tier (`gemini-3.8-flash-high`).
    pub id: String,
    /// Display label (`Gemini 3.8 Flash (High)`).
    pub label: String,
}

/// What a tier-less id (`gemini-3.8-flash`) without `--effort` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TierlessAlone {
    /// Accepted.
    Accepted,
    /// Refused: `requires --effort (available: …)`.
    RequiresEffort,
}

/// `[models]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Models {
    /// One `agy models` text line per model: `{id}` and `{label}` are replaced.
    pub listing: String,
    /// A tier-less id given without `--effort`.
    pub tierless_alone: TierlessAlone,
    /// The catalogue, in the order agy lists it.
    pub model: Vec<ModelEntry>,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `[init]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Init {
    /// `init.tools`, as listed.
    pub tools: Vec<String>,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `[errors]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// What precedes a pre-turn error on stderr (`error: `).
    pub prefix: String,
    /// An interrupted turn's result error (`interrupted`).
    pub interrupted: String,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// A step agy adds to a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddedStep {
    /// The default agent's `unknown` step (not with `--agent`).
    Unknown,
    /// A `checkpoint` step.
    Checkpoint,
}

/// Where a first turn's `checkpoint` with its own usage goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsageCheckpoint {
    /// After the first tool step, or before the result when no tool ran.
    AfterFirstTool,
    /// None.
    None,
}

/// `[turns]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turns {
    /// The steps DONE right after `user_input` in a new conversation's first turn.
    pub first_after_user_input: Vec<AddedStep>,
    /// A new conversation's first turn's `checkpoint` carrying usage.
    pub first_usage_checkpoint: UsageCheckpoint,
    /// The keys of the `system_message` at the head of a resumed turn besides the
    /// message's own (`duration_seconds`).
    pub resumed_system_message_keys: Vec<String>,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// A turn's end status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndStatus {
    /// `SUCCESS`.
    #[serde(rename = "SUCCESS")]
    Success,
    /// `CANCELED`.
    #[serde(rename = "CANCELED")]
    Canceled,
    /// `ERROR`.
    #[serde(rename = "ERROR")]
    Error,
}

/// A step's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepStatus {
    /// `ACTIVE`.
    #[serde(rename = "ACTIVE")]
    Active,
    /// `DONE`.
    #[serde(rename = "DONE")]
    Done,
    /// `ERROR`.
    #[serde(rename = "ERROR")]
    Error,
}

/// `[denial]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Denial {
    /// The turn's status after a headless denial (`SUCCESS` with `denied_actions`).
    pub status: EndStatus,
    /// The stderr notice; `{action}` is the denied permission.
    pub notice: String,
    /// A denied command's tool step states, outside `strict`.
    pub command_step: Vec<StepStatus>,
    /// A denied command's tool error where the step goes ERROR; `{command}` is the
    /// command line.
    pub command_error: String,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `[print_timeout]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintTimeout {
    /// The result's status.
    pub status: EndStatus,
    /// The exit code.
    pub exit_code: i32,
    /// The stderr notice; `{duration}` is the timeout as a Go duration. Empty: none.
    pub notice: String,
    /// The result's error (`ERROR` only; `""` otherwise).
    #[serde(default)]
    pub error: String,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `[usage]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageKeys {
    /// The keys of a usage object, in order.
    pub keys: Vec<String>,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// `[files]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Files {
    /// A conversation's file under the app dir; `{id}` is its id
    /// (`conversations/{id}.db`).
    pub conversation: String,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// An output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    /// stdout.
    Stdout,
    /// stderr.
    Stderr,
}

/// `[signed_out]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedOut {
    /// Where `agy models` writes its sign-in error.
    pub models_error_stream: Stream,
    /// The stderr line a turn fails with.
    pub auth_error: String,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// What a CLI slash command (`/model`, …) on a persistent stdin line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlashOnStdin {
    /// Ends the session: an ERROR result naming it and `slash_exit_code`.
    Fatal,
    /// Sent to the model as text.
    Text,
}

/// `[persistent]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persistent {
    /// A CLI slash command on a stdin line.
    pub slash_command: SlashOnStdin,
    /// The exit code when it is fatal.
    pub slash_exit_code: i32,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// Where a print run without a prompt flag, stdin not a terminal, takes its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoPromptFlag {
    /// Reads stdin and runs one print turn.
    Stdin,
    /// Starts the interactive UI.
    Ui,
}

/// What `--print ""` (without `--input-format stream-json`) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmptyPrint {
    /// Fails `empty prompt`.
    Refused,
    /// Reads the prompt from stdin.
    Stdin,
}

/// `[prompt]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptInput {
    /// No prompt flag, stdin not a terminal.
    pub without_flag: NoPromptFlag,
    /// `--print ""`.
    pub empty_print: EmptyPrint,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// What `--conversation <unknown id>` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnknownConversation {
    /// Warns and mints agy's own id.
    Mint,
    /// Creates the conversation under the client's id.
    Create,
}

/// `[conversation]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Conversation {
    /// An id agy does not know.
    pub unknown_id: UnknownConversation,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}

/// How an image is generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImageGeneration {
    /// Delegated to the `image-generator` subagent (a `subagent` step, a child
    /// conversation).
    Subagent,
    /// A direct `generate_image` call.
    Direct,
}

/// `[image]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Image {
    /// How it is generated.
    pub generation: ImageGeneration,
    /// Where it is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Sources>,
    /// What no record shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<Unverified>,
}
