//! The reproduction as data: the profile, agy's processes and, per turn, the script
//! steps that act out what the report shows. Built from the evidence ([`build_case`]);
//! shrunk by the minimiser; rendered as a scenario with the oracle's expectations.

use super::evidence::{Evidence, Invocation, ItemKind};
use crate::capture::stdout_step;
use crate::scenario::Profile;
use agy_protocol::command_line::{invocation_kind, InvocationKind};
use agy_protocol::script::Step;
use agy_protocol::AgyVersion;

/// The reproduction.
#[derive(Debug, Clone, PartialEq)]
pub struct ReproCase {
    /// The contract the adapter implements.
    pub profile: Profile,
    /// The agy version the report shows.
    pub version: Option<AgyVersion>,
    /// agy's processes: oneshot, one generate op each; session, one per model; acp,
    /// one per agent process.
    pub processes: Vec<Process>,
    /// acp: the client's permission policy (`acp_new`'s `permission`), when the
    /// transcript shows one other than the default `allow`.
    pub permission: Option<String>,
}

/// One agy process.
#[derive(Debug, Clone, PartialEq)]
pub struct Process {
    /// `--model`, when the report gives it (session: the model the session opens or
    /// selects).
    pub model: Option<String>,
    /// oneshot: the prompt (`-p`).
    pub prompt: Option<String>,
    /// oneshot: `--print-timeout` in seconds, else the adapter's default.
    pub timeout_s: Option<u64>,
    /// The turns: oneshot exactly one; session one per stdin line.
    pub turns: Vec<Turn>,
    /// Where the report shows it (`invocation 1`).
    pub origin: String,
    /// acp: how the session was restored on this agent process (none for the first).
    pub restore: Option<Restore>,
}

/// acp: a restore of the session on a new agent process, as the agent answered it
/// (the `[acp.load]` / `[acp.resume]` script).
#[derive(Debug, Clone, PartialEq)]
pub struct Restore {
    /// `session/load` or `session/resume`.
    pub method: String,
    /// When the agent replayed the history: `before_response`, `after_response`,
    /// `none`.
    pub replay: String,
    /// The agent's error answer: code and message.
    pub error: Option<(i64, String)>,
    /// What the agent sent after its response, before the client's next request.
    pub late: Vec<ScriptStep>,
    /// Line of the transcript.
    pub line: usize,
}

/// One turn: the user's text and what agy does for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The text the user sends (session) or the prompt (oneshot).
    pub text: String,
    /// The script steps, in order.
    pub steps: Vec<ScriptStep>,
}

/// One script step and the report line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptStep {
    /// The step as a one-key TOML table (`{ envelope = { … } }`).
    pub value: toml::Value,
    /// Line of the report (0: derived from a hint or an option).
    pub line: usize,
}

impl ScriptStep {
    /// A step from a key and its value.
    pub fn new(key: &str, value: toml::Value, line: usize) -> ScriptStep {
        let mut t = toml::Table::new();
        t.insert(key.to_string(), value);
        ScriptStep {
            value: toml::Value::Table(t),
            line,
        }
    }

    /// The step's key (`envelope`, `sleep`, …).
    pub fn key(&self) -> &str {
        self.value
            .as_table()
            .and_then(|t| t.keys().next())
            .map_or("", String::as_str)
    }

    /// The step's value.
    pub fn body(&self) -> Option<&toml::Value> {
        self.value.as_table().and_then(|t| t.values().next())
    }

    /// The step's value, mutably.
    pub fn body_mut(&mut self) -> Option<&mut toml::Value> {
        self.value
            .as_table_mut()
            .and_then(|t| t.iter_mut().next().map(|(_, v)| v))
    }
}

/// What the command line adds to the evidence.
#[derive(Debug, Clone, Default)]
pub struct CaseOptions {
    /// `--profile`.
    pub profile: Option<Profile>,
    /// `--agy-version`.
    pub version: Option<AgyVersion>,
    /// `--argv`: for invocations whose argv the report does not give.
    pub argv: Option<Vec<String>>,
}

/// The reproduction and what was decided on the way (shown to the user).
#[derive(Debug, Clone)]
pub struct Built {
    /// The case.
    pub case: ReproCase,
    /// How the profile was chosen.
    pub profile_reason: String,
    /// Conversions and assumptions worth knowing.
    pub notes: Vec<String>,
}

/// Builds the reproduction; `Err` says which evidence is missing.
pub fn build_case(e: &Evidence, opts: &CaseOptions) -> Result<Built, String> {
    let mut notes = Vec::new();
    let mut turns: Vec<Invocation> = Vec::new();
    for (i, inv) in e.invocations.iter().enumerate() {
        let mut inv = inv.clone();
        if inv.argv.is_none() {
            inv.argv.clone_from(&opts.argv);
        }
        let kind = inv.argv.as_deref().map(invocation_kind);
        if matches!(kind, Some(k) if k != InvocationKind::Turn) {
            notes.push(format!(
                "invocation {} is a probe (`{}`), not a turn: left to fake-agy's modelled agy",
                i + 1,
                inv.argv.as_deref().unwrap_or_default().join(" ")
            ));
            continue;
        }
        turns.push(inv);
    }
    if turns.is_empty() {
        return Err(
            "the report shows no agy turn: paste agy's output for the run that misbehaved".into(),
        );
    }
    let (profile, profile_reason) = match opts.profile {
        Some(p) => (p, "given with --profile".to_string()),
        None => infer_profile(&turns)?,
    };
    let processes = match profile {
        Profile::Oneshot => turns
            .iter()
            .enumerate()
            .map(|(i, inv)| super::convert::oneshot_process(i, inv, &mut notes))
            .collect(),
        Profile::Session => super::convert::session_processes(&turns, &mut notes),
        Profile::Acp => {
            return Err("agy's own output is a oneshot or session report; for `--profile acp` paste the ACP JSON-RPC transcript of `agy_acp_server` (docs/reproduce-a-bug.md)".into())
        }
    };
    Ok(Built {
        case: ReproCase {
            profile,
            version: opts.version.or_else(|| e.version.as_ref().map(|v| v.0)),
            processes,
            permission: None,
        },
        profile_reason,
        notes,
    })
}

/// The profile the evidence shows: stdin user lines or `--input-format stream-json`
/// make a session; a json envelope or `-p` a oneshot.
fn infer_profile(invs: &[Invocation]) -> Result<(Profile, String), String> {
    let stdin = invs
        .iter()
        .any(|i| i.items.iter().any(|x| matches!(x.kind, ItemKind::Stdin(_))));
    if stdin {
        return Ok((Profile::Session, "the report shows stdin user lines".into()));
    }
    if invs
        .iter()
        .any(|i| i.flag("--input-format") == Some("stream-json"))
    {
        return Ok((
            Profile::Session,
            "agy ran with --input-format stream-json".into(),
        ));
    }
    let results = |i: &Invocation| {
        i.items
            .iter()
            .filter(|x| matches!(&x.kind, ItemKind::Stdout(l) if l.starts_with("{\"event\":\"result\"")))
            .count()
    };
    if invs.iter().any(|i| results(i) > 1) {
        return Ok((
            Profile::Session,
            "one agy process printed several results".into(),
        ));
    }
    if invs
        .iter()
        .any(|i| i.flag("--output-format") == Some("json"))
    {
        return Ok((Profile::Oneshot, "agy ran with --output-format json".into()));
    }
    let envelope = invs.iter().any(|i| {
        i.items
            .iter()
            .any(|x| matches!(&x.kind, ItemKind::Stdout(l) if l.starts_with('{') && !l.contains("\"event\"")))
    });
    if envelope {
        return Ok((Profile::Oneshot, "agy printed a json envelope".into()));
    }
    if invs
        .iter()
        .any(|i| i.flag("-p").is_some() || i.flag("--print").is_some())
    {
        return Ok((Profile::Oneshot, "agy ran in print mode (-p)".into()));
    }
    Err("the report does not show which profile it is (no stdin lines, no envelope, no `$ agy -p …` line): pass `--profile oneshot` or `--profile session`".into())
}

/// A step of the script format as a [`ScriptStep`].
pub fn typed_step(step: &Step, line: usize) -> Option<ScriptStep> {
    toml::Value::try_from(step)
        .ok()
        .map(|value| ScriptStep { value, line })
}

/// A stdout line as a typed step (init, step_update, envelope), or a plain `stdout`
/// step when the script format cannot say it field by field.
pub fn stdout_script_step(line: &str, n: usize) -> ScriptStep {
    let typed = stdout_step(format!("{line}\n").as_bytes())
        .ok()
        .and_then(|s| typed_step(&s, n));
    typed.unwrap_or_else(|| ScriptStep::new("stdout", toml::Value::String(line.to_string()), n))
}
