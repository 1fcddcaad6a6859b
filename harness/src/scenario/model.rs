//! The scenario as the runner sees it: metadata, ops and typed expectations.

use agy_protocol::acp::script::{AcpScript, AcpStep};
use agy_protocol::acp::{AcpMethod, ClientMethod, PermissionOutcome};
use agy_protocol::driver::{AcpRestoreState, Outcome, RequestOp};
use agy_protocol::script::{RunMode, Script};
use agy_protocol::signal::SignalName;
pub use agy_protocol::Profile;
use agy_protocol::VersionRange;
use agy_protocol::{AgyVersion, GoDuration};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One behaviour, one file (docs/scenario-format.md).
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it was read from.
    pub path: PathBuf,
    /// `[scenario]`.
    pub meta: ScenarioMeta,
    /// The script fake-agy acts out: the scenario's `[agy]` table, or the file named by
    /// `[scenario] script`.
    pub script: Option<Script>,
    /// The file named by `[scenario] script`, resolved against the scenario's folder.
    pub script_file: Option<PathBuf>,
    /// The scenario's `[acp]` table: the ACP script `fake-agy-acp` acts out.
    pub acp_script: Option<AcpScript>,
    /// `[[op]]`, in order.
    pub ops: Vec<OpSpec>,
    /// `[expect.*]`: checks on the whole run.
    pub expect: ScenarioExpect,
}

impl Scenario {
    /// Where fake-agy reads the script: `(file, table)`, `None` for the default
    /// behaviour.
    pub fn fake_script(&self) -> Option<(PathBuf, Option<&'static str>)> {
        if let Some(file) = &self.script_file {
            return Some((file.clone(), None));
        }
        self.script.as_ref().map(|_| {
            let path = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
            (path, Some("agy"))
        })
    }

    /// Where `fake-agy-acp` reads its script: the scenario file itself (table `acp`),
    /// `None` for its default behaviour.
    pub fn fake_acp_script(&self) -> Option<PathBuf> {
        self.acp_script
            .as_ref()
            .map(|_| std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone()))
    }

    /// Texts the ACP script makes the agent send *late*: after a `session/load` or
    /// `session/resume` response (`late`), or after a prompt's `respond`. None of them
    /// belongs to a later turn.
    pub fn acp_late_texts(&self) -> Vec<String> {
        let Some(script) = &self.acp_script else {
            return Vec::new();
        };
        let mut late: Vec<&AcpStep> = script
            .load
            .late
            .iter()
            .chain(script.resume.late.iter())
            .collect();
        for rule in &script.prompts {
            if let Some(at) = rule
                .steps
                .iter()
                .position(|s| matches!(s, AcpStep::Respond(_)))
            {
                late.extend(rule.steps[at + 1..].iter());
            }
        }
        late.into_iter()
            .filter_map(|s| match s {
                AcpStep::Text(t) if !t.trim().is_empty() => Some(t.clone()),
                _ => None,
            })
            .collect()
    }
}

/// `[scenario]`: what the scenario is and what it covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioMeta {
    /// Unique name, `profile/behaviour-in-kebab-case`.
    pub name: String,
    /// The contract it exercises.
    pub profile: Profile,
    /// Seed facts, spikes or ADR rows it covers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covers: Vec<String>,
    /// The agy version the script models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy: Option<AgyVersion>,
    /// The agy versions the scenario applies to (`">=1.2.16"`); `agy-harness matrix`
    /// runs it only under those. None: every version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<VersionRange>,
    /// Free tags for `--tag`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// One or two sentences on the behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Known bugs (reference-adapter fault names) this scenario is meant to catch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub catches: Vec<String>,
    /// Time scale for this scenario instead of the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_scale: Option<agy_protocol::TimeScale>,
    /// Wall-clock limit for the whole scenario instead of the adapter config's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<GoDuration>,
    /// A script file (relative to this file) instead of an `[agy]` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// `false`: no `agy` in the sandbox (`PATH` holds only the sandbox's empty `bin/`,
    /// and `AGY_BIN` names a file that does not exist), for the binary-missing row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy_installed: Option<bool>,
    /// The agy behaviour the scenario acts out that no public record shows: its
    /// failures are reported apart as unverified, and fail the run only when the
    /// adapter config is strict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
    /// What the scenario needs of an adapter to apply (docs/contract.md, "Premises and
    /// capabilities"): against an adapter that does not offer one, it is not
    /// applicable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<agy_protocol::Premise>,
}

/// One `[[op]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSpec {
    /// 1-based line of the op in the file, for messages.
    pub line: usize,
    /// What to do.
    pub action: OpAction,
    /// Send the next op without waiting for this one's reply (replies are collected
    /// before the next op that is not concurrent, and at the end).
    pub concurrent: bool,
    /// How long the reply may take (before the time scale) instead of the default.
    pub reply_within: Option<GoDuration>,
    /// Send the op only once fake-agy-acp's journal shows this ACP message (acp).
    pub wait_for_acp: Option<AcpWait>,
    /// `wait_for_agy = N`: send the op once fake-agy's journal shows at least `N`
    /// invocations that have begun a turn (a running agy to cancel, kill or leave
    /// behind; see `JournalRecord::has_begun_turn`).
    pub wait_for_agy: Option<u32>,
    /// Checks on the reply.
    pub expect: OpExpect,
}

/// `wait_for_acp = { method = "session/request_permission", count = 1 }`: the op is sent
/// once the ACP journal holds at least `count` requests or notifications of `method`
/// (either direction). A wait on a condition, with the reply timeout as its deadline,
/// so an op can reach the agent at a known point (a permission pending, a prompt
/// received).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpWait {
    /// The JSON-RPC method (either direction): one ACP defines, or an extension method
    /// (`_…`); any other name fails at load.
    pub method: AcpMethod,
    /// How many such messages (default 1).
    #[serde(default = "one")]
    pub count: u32,
}

fn one() -> u32 {
    1
}

/// What an op does.
#[derive(Debug, Clone, PartialEq)]
pub enum OpAction {
    /// Send a driver protocol request.
    Request(RequestOp),
    /// Stop the driver and start it again with the same state dir (harness-side).
    Restart,
}

impl OpAction {
    /// The op's name as written in a scenario.
    pub fn name(&self) -> &'static str {
        match self {
            OpAction::Request(op) => op.name(),
            OpAction::Restart => "restart",
        }
    }
}

/// One outcome class, or a list of acceptable ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OutcomeSet {
    /// Exactly this class.
    One(Outcome),
    /// Any of these.
    Any(Vec<Outcome>),
}

impl<'de> Deserialize<'de> for OutcomeSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, value::StrDeserializer, IntoDeserializer, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OutcomeSet;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an outcome class or a list of them")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OutcomeSet, E> {
                let d: StrDeserializer<'_, E> = v.into_deserializer();
                Outcome::deserialize(d).map(OutcomeSet::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OutcomeSet, A::Error> {
                let mut all = Vec::new();
                while let Some(o) = seq.next_element::<Outcome>()? {
                    all.push(o);
                }
                Ok(OutcomeSet::Any(all))
            }
        }
        d.deserialize_any(V)
    }
}

impl OutcomeSet {
    /// True when `o` is acceptable.
    pub fn allows(&self, o: Outcome) -> bool {
        match self {
            OutcomeSet::One(x) => *x == o,
            OutcomeSet::Any(xs) => xs.contains(&o),
        }
    }

    /// `timeout` or `transient | permanent`.
    pub fn describe(&self) -> String {
        match self {
            OutcomeSet::One(x) => x.to_string(),
            OutcomeSet::Any(xs) => xs
                .iter()
                .map(|o| o.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }
}

/// What the op's output file must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputExpect {
    /// The reply names a file that a real JPEG decoder (zune-jpeg) decodes.
    Decodable,
    /// The reply names a file that exists.
    Present,
    /// The reply names no file.
    Absent,
}

/// `only_if = { … }` of an op's expectations: what agy must have been given while the
/// op ran for them to be judged. Every key given must hold.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgyCondition {
    /// A stdin line agy received while the op ran carries a prompt that starts with
    /// this (`"/"`: the client sent agy a slash line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_starts_with: Option<String>,
    /// No agy invocation running while the op ran has this in its argv (as `argv_has`
    /// reads it: `"--json-schema"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv_lacks: Option<String>,
    /// Every turn invocation running while the op ran was in one of these run modes
    /// (`["json", "stream_json"]`: the client read an envelope, so a status or a cut
    /// envelope is something it could see). Probes are not counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Vec<RunMode>>,
}

/// `expect = { … }` of one op.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpExpect {
    /// Outcome class (or classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeSet>,
    /// Whether the adapter must call it retryable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The adapter's own error name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_name: Option<String>,
    /// Text the error message contains (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_contains: Option<String>,
    /// The output file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputExpect>,
    /// The decoded image's width and height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_size: Option<[u32; 2]>,
    /// The turn's text, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Texts the turn's text contains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_contains: Vec<String>,
    /// Texts the turn's text must not contain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text_lacks: Vec<String>,
    /// After the reply, every agy process has ended within this (time-scaled) bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agy_gone_within: Option<GoDuration>,
    /// ACP ops: the client's restore state in the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_state: Option<AcpRestoreState>,
    /// ACP ops: exactly this many `gap` entries in the reply's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_gaps: Option<u32>,
    /// acp-agent `agent_close`: exactly this many responses the agent sent that answered
    /// no request of the client (`result.extra.stray_responses`), such as a response to
    /// the `session/cancel` notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stray_responses: Option<u32>,
    /// Retry by effect: every agy turn process that served this op is gone before the
    /// next op, and the next op's turn runs on a process started after this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_turn_on_new_process: Option<bool>,
    /// When the reply carries `result.usage`, its counters equal these (the scripted
    /// usage of this turn's own result, nothing of a late step of an earlier turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageExpect>,
    /// The checks of this table encode a seed's implementation choice, not the profile
    /// contract (`"seed 000: SIGTERM → SIGKILL"`): a miss is advice unless the adapter
    /// config asks for strict mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<String>,
    /// The checks hold only when agy was given what the scenario is about; otherwise
    /// they are not judged (a client may never send agy the line the scenario tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_if: Option<AgyCondition>,
}

/// `usage = { output_tokens = 12 }`: token counters a turn's reply must report, when it
/// reports usage at all.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageExpect {
    /// `input_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// `output_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// `total_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

/// `[expect]`: checks on the whole run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioExpect {
    /// `[expect.journal]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<JournalExpect>,
    /// `[[expect.invocation]]`.
    #[serde(default, rename = "invocation", skip_serializing_if = "Vec::is_empty")]
    pub invocations: Vec<InvocationExpect>,
    /// `[expect.history]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryExpect>,
    /// `[expect.acp]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acp: Option<AcpExpect>,
    /// `[expect.probes]`: bounds on probe invocations instead of the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<ProbeExpect>,
}

/// `[expect.probes]`: at most this many probe invocations of each kind in the scenario
/// (`--version`, `models`, a slash command such as `-p /usage`, `update`, any other
/// subcommand). Probes never count as turns; without this table the defaults of
/// [`ProbeExpect::DEFAULT`] bound them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProbeExpect {
    /// `agy --version`.
    pub version: u32,
    /// `agy models`.
    pub models: u32,
    /// `agy -p /…` slash commands.
    pub slash_commands: u32,
    /// `agy update`: replaces the binary under test.
    pub update: u32,
    /// Any other subcommand.
    pub other: u32,
    /// Persistent processes closed before any stdin line (started to see that agy
    /// starts, and closed with no turn).
    pub idle_starts: u32,
}

impl ProbeExpect {
    /// One version read, one model listing, one slash command, one idle start; never an
    /// update.
    pub const DEFAULT: ProbeExpect = ProbeExpect {
        version: 1,
        models: 1,
        slash_commands: 1,
        update: 0,
        other: 1,
        idle_starts: 1,
    };
}

impl ProbeExpect {
    /// These bounds for a run with `starts` starts of the adapter and `sessions`
    /// sessions: a start may read agy's version and models again, a session may start
    /// agy once to see it start (docs/scenario-format.md, `[expect.probes]`).
    pub fn per(self, starts: u32, sessions: u32) -> ProbeExpect {
        let per_start = |n: u32| n.saturating_mul(starts);
        ProbeExpect {
            version: per_start(self.version),
            models: per_start(self.models),
            slash_commands: per_start(self.slash_commands),
            update: per_start(self.update),
            other: per_start(self.other),
            idle_starts: self.idle_starts.saturating_mul(sessions),
        }
    }
}

impl Default for ProbeExpect {
    fn default() -> Self {
        ProbeExpect::DEFAULT
    }
}

/// `[expect.journal]`: checks over every agy invocation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalExpect {
    /// Exactly this many invocations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<u32>,
    /// At least this many invocations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations_at_least: Option<u32>,
    /// Exactly this many distinct pids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_pids: Option<u32>,
    /// The turn invocations worked on exactly this many agy conversations (as fake-agy
    /// journaled them), however many processes ran them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversations: Option<u32>,
    /// Every invocation's argv has each (a token, or `flag value` as adjacent tokens).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_has: Vec<String>,
    /// No invocation's argv has any of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_lacks: Vec<String>,
    /// Every invocation saw its stdin closed (true) or never did (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_closed: Option<bool>,
    /// At most this many agy processes ran at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u32>,
    /// At least this many agy processes ran at once at some point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_concurrency: Option<u32>,
    /// No agy process is left running when the last reply has arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_left_running: Option<bool>,
    /// The turns given these prompts (as an argv word or inside a stdin line) all
    /// worked on one agy conversation: a session's prompts continue its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub one_conversation: Vec<String>,
    /// The working directory every turn invocation ran in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd_is: Option<CwdIs>,
    /// A seed's implementation choice rather than the contract (see [`OpExpect::strict`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<String>,
}

/// `cwd_is` of `[expect.journal]`: where each agy turn must run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwdIs {
    /// In the `cwd` of an ACP session the scenario created (`agent_new`'s reply names
    /// it in `result.extra.cwd`), as fake-agy journaled its working directory.
    Session,
}

/// `[[expect.invocation]]`: checks on one invocation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvocationExpect {
    /// 1-based invocation index.
    pub nth: u32,
    /// argv has each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_has: Vec<String>,
    /// argv has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv_lacks: Vec<String>,
    /// stdin was closed (true) or not (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_closed: Option<bool>,
    /// Exactly this many stdin lines arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_lines: Option<u32>,
    /// The signals received, in order (`SIGTERM`, `SIGINT`, `SIGHUP`; SIGKILL cannot be
    /// seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<Vec<SignalName>>,
    /// Ended by an uncatchable signal (no final record, and gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed: Option<bool>,
    /// Gone within this (time-scaled) bound after its first signal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gone_within_after_signal: Option<GoDuration>,
    /// The model selected, by meaning: `--model X` with any effort, or the tiered id
    /// `X-low` (then [`InvocationExpect::effort`] is `low`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The effort selected: `--effort e`, or the tier of a tiered model id `X-e`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// This run works on the conversation of turn invocation N (a process-per-turn
    /// client continued it instead of starting a new one), judged by the conversation
    /// fake-agy journaled for each run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<u32>,
    /// A seed's implementation choice rather than the contract (see [`OpExpect::strict`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<String>,
}

/// `[expect.history]`: checks on the adapter's conversation history (the last one a
/// reply carried).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryExpect {
    /// Exactly this many turns: each user text and each successful turn's answer
    /// appear exactly once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    /// No turn's text contains the text of an earlier turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_carryover: Option<bool>,
    /// Exactly this many `gap` entries (explicit history gaps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaps: Option<u32>,
    /// Each successful turn's assistant entry is the answer the agy script gave that
    /// turn, in order (judged against the script, not the adapter's own replies).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<String>,
}

/// `[expect.acp]`: checks on the ACP traffic `fake-agy-acp` journaled (every JSON-RPC
/// message of every agent process of the scenario, in time order).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcpExpect {
    /// Exactly this many agent processes started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<u32>,
    /// These client → agent methods were called in this order (a subsequence of every
    /// request and notification the client sent, across agent processes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods_in_order: Vec<ClientMethod>,
    /// Each of these methods was called exactly this many times by the client.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub method_counts: BTreeMap<ClientMethod, u32>,
    /// The client never called these methods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods_never: Vec<ClientMethod>,
    /// No `session/new` after the first `session/load` or `session/resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_new_after_restore: Option<bool>,
    /// The `session/prompt` texts, exactly and in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<String>>,
    /// No prompt text was sent twice (no earlier prompt resent after a restore).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_sent_once: Option<bool>,
    /// The client's answers to `session/request_permission`, in order (`cancelled`, or
    /// the option id chosen, `unanswered`, `an error response`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_outcomes: Option<Vec<PermissionOutcome>>,
    /// Every permission request the agent sent while none of its prompts was
    /// outstanding (during or after a restore, after a turn's response) was answered
    /// `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_permissions_cancelled: Option<bool>,
    /// No text the `[acp]` script sends late (`[load] late`, `[resume] late`, steps
    /// after `respond`) appears in any `acp_prompt` reply's text or any assistant
    /// entry of any history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_late_text: Option<bool>,
    /// The last history has one `gap` entry per prompt the agent never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_when_pending: Option<bool>,
    /// `true`: no agent process is still running after the last reply (before the
    /// harness stops the driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_left_running: Option<bool>,
}
