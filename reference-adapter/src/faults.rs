//! Fault switches: each one turns the correct adapter into one that ships a real bug.
//!
//! The names are a contract with the scenario catalogue; `--list-faults` prints them, one
//! JSON object per line. Every fault is documented in `docs/reference-adapter.md` with the
//! bug it reproduces and its source.

use agy_protocol::{FaultInfo, Profile};
use std::collections::BTreeSet;

/// One fault switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Fault {
    /// oneshot: exit 0 + `SUCCESS` is success, without the timeout row or the image check.
    TrustsSuccess,
    /// oneshot: the missing-output row is evaluated before the print-timeout row.
    MissingOutputBeforeTimeout,
    /// oneshot: image-quota 429 prose in a `SUCCESS` envelope is not recognised.
    NoQuotaDetection,
    /// oneshot: `--dangerously-skip-permissions` is passed unless settings say otherwise.
    SkipPermissionsByDefault,
    /// oneshot: with several images in the brain directory, the first one is delivered.
    FirstOfManyImages,
    /// oneshot: the image is looked for only in the run's own brain directory, never in
    /// the image-generator subagent's (agy 1.2.16 on).
    ImageInParentBrainOnly,
    /// oneshot: a hung agy is waited for forever instead of killed after timeout + 30 s.
    NeverKillsHungAgy,
    /// session: a new agy process per turn, stdin closed after every turn.
    ProcessPerTurn,
    /// session: replayed results are taken as the new turn's result.
    NoReplayFilter,
    /// session: the process is kept after a failed turn.
    KeepsProcessAfterFailure,
    /// session: the process is kept after a different model/effort/permission selection.
    KeepsProcessAfterModelChange,
    /// session: release sends SIGTERM and never escalates to SIGKILL.
    SigtermWithoutSigkill,
    /// session: a late step of an earlier turn is attributed to the current turn.
    LateStepToCurrentTurn,
    /// session: the usage of a late step of an earlier turn is added to the current
    /// turn's usage (its text stays out).
    LateUsageToCurrentTurn,
    /// acp: the history-gap quarantine is lifted before the checkpoint write completes.
    AcpQuarantineLiftedEarly,
    /// acp: a failed restore falls back to `session/new`.
    AcpFallsBackToSessionNew,
    /// acp: `session/load` replay is appended to the canonical history.
    AcpAppendsLoadReplay,
    /// acp: the last prompt is sent again after a restart.
    AcpResendsLastPrompt,
    /// text: a print timeout (SUCCESS with an empty or partial response) is the answer.
    TextPrintTimeoutAsAnswer,
    /// text: stderr is merged into the answer, as a pty merges it (text mode).
    TextMergesStderr,
    /// text: stdout and stderr are read as one stream in json and stream-json modes,
    /// and what is not JSON joins the answer.
    TextJsonMergesStderr,
    /// text: CANCELED, WAITING or RUNNING with exit 0 is an empty success.
    TextStatusIgnored,
    /// text: the exit code is ignored whenever stdout had text.
    TextExitCodeIgnored,
    /// text: auth, quota and a rejected model are one error class.
    TextOneErrorClass,
    /// text: a hung agy is waited for forever.
    TextNeverKillsHungAgy,
    /// text: the timeout kills agy's pid alone, leaving what agy started.
    TextKillsOnlyAgyPid,
    /// text: `--dangerously-skip-permissions` is always passed.
    TextSkipPermissionsAlways,
    /// text: a continued conversation passes a client-minted id, which agy 1.2 on
    /// ignores, starting a new conversation.
    TextNewConversationEachAsk,
    /// text: a continued conversation answers with the previous turn's text.
    TextEarlierTurnAnswer,
    /// text: a result's usage (the whole conversation's) is reported as the turn's.
    TextCumulativeUsage,
    /// text: no `--print-timeout` is passed, and agy's print-timeout notice is looked
    /// for only when the client set one, so a partial answer at agy's own default is the
    /// answer.
    TextDefaultPrintTimeoutAsAnswer,
    /// text: no `--print-timeout` and no kill of its own: every run is left to agy's
    /// default print timeout, so an agy that hangs past it is waited for forever.
    TextNoBoundOfItsOwn,
    /// mcp: every agy failure is returned as a success whose text is the error.
    McpFailureAsSuccess,
    /// mcp: every agy failure is `isError` with one generic text (auth and quota look
    /// alike).
    McpGenericFailureText,
    /// mcp: agy's print timeout (SUCCESS, empty response) is returned as an empty
    /// success.
    McpEmptySuccess,
    /// mcp: a hung agy is waited for forever: the call never ends.
    McpNoTimeout,
    /// mcp: a hung agy gets SIGTERM on its pid only, and the call ends without waiting
    /// for it to go.
    McpKillsPidOnly,
    /// mcp: the conversation argument is ignored: every call starts a new conversation.
    McpNewConversation,
    /// mcp: the model argument is not passed to agy.
    McpDropsModel,
    /// mcp: the timeout kills agy's pid alone, leaving what agy started.
    McpKillsOnlyAgyPid,
    /// mcp: agy's print timeout is recognised only by its empty shape, so a partial
    /// answer with agy's notice is the tool's answer.
    McpPartialTimeoutAsAnswer,
    /// mcp: a prompt starting with `/` is passed without `--disable-slash-commands`, so
    /// agy runs it as one of its slash commands.
    McpRunsSlashPrompts,
    /// acp-agent: every non-SUCCESS result is one generic JSON-RPC error.
    AgentGenericErrors,
    /// acp-agent: the agent exits at start-up when agy is signed out.
    AgentDiesWhenSignedOut,
    /// acp-agent: agy's own CANCELED result is reported as stopReason `cancelled`.
    AgentCanceledAsCancelled,
    /// acp-agent: an empty SUCCESS (agy's print-timeout shape) ends as `end_turn`.
    AgentEmptySuccessAsEndTurn,
    /// acp-agent: a finished turn is an error when agy is slow to exit after it.
    AgentSlowExitIsError,
    /// acp-agent: a quota stop (exit 3) is a generic error.
    AgentQuotaAsGeneric,
    /// acp-agent: agy is killed when no output came within a fixed deadline, so a slow
    /// but healthy turn ends in an error.
    AgentFirstTextDeadline,
    /// acp-agent: a model id named in the prompt text is passed to agy as `--model`.
    AgentModelFromPromptText,
    /// acp-agent: agy runs in the agent's own folder, not the session's `cwd`.
    AgentIgnoresSessionCwd,
    /// acp-agent: the `session/cancel` notification is answered with a response.
    AgentAnswersCancelNotification,
    /// acp-agent: a later prompt continues with `--continue`, agy's most recent
    /// conversation, not the session's own.
    AgentContinuesLatestConversation,
}

impl Fault {
    /// Every fault, in catalogue order.
    pub const ALL: [Fault; 53] = [
        Fault::TrustsSuccess,
        Fault::MissingOutputBeforeTimeout,
        Fault::NoQuotaDetection,
        Fault::SkipPermissionsByDefault,
        Fault::FirstOfManyImages,
        Fault::ImageInParentBrainOnly,
        Fault::NeverKillsHungAgy,
        Fault::ProcessPerTurn,
        Fault::NoReplayFilter,
        Fault::KeepsProcessAfterFailure,
        Fault::KeepsProcessAfterModelChange,
        Fault::SigtermWithoutSigkill,
        Fault::LateStepToCurrentTurn,
        Fault::LateUsageToCurrentTurn,
        Fault::AcpQuarantineLiftedEarly,
        Fault::AcpFallsBackToSessionNew,
        Fault::AcpAppendsLoadReplay,
        Fault::AcpResendsLastPrompt,
        Fault::TextPrintTimeoutAsAnswer,
        Fault::TextMergesStderr,
        Fault::TextJsonMergesStderr,
        Fault::TextStatusIgnored,
        Fault::TextExitCodeIgnored,
        Fault::TextOneErrorClass,
        Fault::TextNeverKillsHungAgy,
        Fault::TextKillsOnlyAgyPid,
        Fault::TextSkipPermissionsAlways,
        Fault::TextNewConversationEachAsk,
        Fault::TextEarlierTurnAnswer,
        Fault::TextCumulativeUsage,
        Fault::TextDefaultPrintTimeoutAsAnswer,
        Fault::TextNoBoundOfItsOwn,
        Fault::McpFailureAsSuccess,
        Fault::McpGenericFailureText,
        Fault::McpEmptySuccess,
        Fault::McpNoTimeout,
        Fault::McpKillsPidOnly,
        Fault::McpNewConversation,
        Fault::McpDropsModel,
        Fault::McpKillsOnlyAgyPid,
        Fault::McpPartialTimeoutAsAnswer,
        Fault::McpRunsSlashPrompts,
        Fault::AgentGenericErrors,
        Fault::AgentDiesWhenSignedOut,
        Fault::AgentCanceledAsCancelled,
        Fault::AgentEmptySuccessAsEndTurn,
        Fault::AgentSlowExitIsError,
        Fault::AgentQuotaAsGeneric,
        Fault::AgentFirstTextDeadline,
        Fault::AgentModelFromPromptText,
        Fault::AgentIgnoresSessionCwd,
        Fault::AgentAnswersCancelNotification,
        Fault::AgentContinuesLatestConversation,
    ];

    /// The switch name.
    pub fn name(self) -> &'static str {
        self.parts().0
    }

    /// Name, profile and the bug reproduced, as `--list-faults` prints them.
    pub fn info(self) -> FaultInfo {
        let (name, profile, bug) = self.parts();
        FaultInfo {
            name: name.into(),
            profile,
            bug: bug.into(),
        }
    }

    fn parts(self) -> (&'static str, Profile, &'static str) {
        // FAULTS is in declaration order; a test holds it there.
        let (_, name, profile, bug) = FAULTS[self as usize];
        (name, profile, bug)
    }
}

/// Each fault's switch name, profile and the bug it reproduces, in declaration order.
const FAULTS: [(Fault, &str, Profile, &str); 53] = [
    (Fault::TrustsSuccess, "trusts-success", Profile::Oneshot, "treats exit 0 + SUCCESS as success without the print-timeout row or the image check, so a --print-timeout expiry (docs/spike-records.md S6c) or a missing image is reported as a delivered image"),
    (Fault::MissingOutputBeforeTimeout, "missing-output-before-timeout", Profile::Oneshot, "evaluates the missing-output row before the print-timeout row, so every agy print timeout (S6c) becomes a permanent ProviderOutputMissingError and the batch item is abandoned (ADR 0013 decision 4)"),
    (Fault::NoQuotaDetection, "no-quota-detection", Profile::Oneshot, "ignores the image-model 429 RESOURCE_EXHAUSTED prose of a SUCCESS envelope, so an exhausted image quota is a permanent missing output instead of a retryable transient error (docs/spike-records.md S7 correction)"),
    (Fault::SkipPermissionsByDefault, "skip-permissions-by-default", Profile::Oneshot, "passes --dangerously-skip-permissions by default, as ADR 0013's superseded decision D4 did before S5 showed generate_image needs no permission"),
    (Fault::FirstOfManyImages, "first-of-many-images", Profile::Oneshot, "delivers the first of several images in brain/<conversation_id>/ instead of requiring exactly one (ADR 0013 decision 3)"),
    (Fault::ImageInParentBrainOnly, "image-in-parent-brain-only", Profile::Oneshot, "looks for the image only in brain/<conversation_id>/ of the run, so from agy 1.2.16, where the image-generator subagent saves it in its own conversation's brain directory, every delivered image is reported as missing output (docs/agy-versions.md, ImageSubagent; cp-1.2.16-image-subagent)"),
    (Fault::NeverKillsHungAgy, "never-kills-hung-agy", Profile::Oneshot, "waits for a hung agy forever instead of killing its process group after timeout + 30 s (ADR 0013 error table, last-but-one row)"),
    (Fault::ProcessPerTurn, "process-per-turn", Profile::Session, "spawns agy for every turn and closes its stdin after every turn, repaying the CLI start-up cost each time (seed 000, the behaviour it replaced)"),
    (Fault::NoReplayFilter, "no-replay-filter", Profile::Session, "takes the first result after a new stdin line as the turn's result, so a replayed earlier result is reported again as the new turn (seed 000, replayed native output)"),
    (Fault::KeepsProcessAfterFailure, "keeps-process-after-failure", Profile::Session, "keeps the agy process after a failed turn, so the next turn runs on a process in an unknown state (seed 000, every other outcome releases the driver)"),
    (Fault::KeepsProcessAfterModelChange, "keeps-process-after-model-change", Profile::Session, "keeps the agy process after a different model/effort/permission selection, so later turns silently run with the old flags (seed 000)"),
    (Fault::SigtermWithoutSigkill, "sigterm-without-sigkill", Profile::Session, "sends SIGTERM on release and never escalates, so an agy that ignores SIGTERM outlives its session (seed 000, SIGTERM -> SIGKILL within the grace)"),
    (Fault::LateStepToCurrentTurn, "late-step-to-current-turn", Profile::Session, "attributes a step of an earlier turn that arrives late to the current turn, so old text appears in a new turn (seed 000, steps only at or beyond the new turn's first index)"),
    (Fault::LateUsageToCurrentTurn, "late-usage-to-current-turn", Profile::Session, "adds the usage of a late step of an earlier turn to the current turn's usage, so the cost record charges one turn for another's tokens (seed 000, steps only at or beyond the new turn's first index)"),
    (Fault::AcpQuarantineLiftedEarly, "acp-quarantine-lifted-early", Profile::Acp, "lifts the restore quarantine of a history-gap session/load before the checkpoint write completes, so late text of the old session leaks into the new turn (seed 003, P2 of the restore state-machine review, corroborated by a second review)"),
    (Fault::AcpFallsBackToSessionNew, "acp-falls-back-to-session-new", Profile::Acp, "calls session/new when session/load or session/resume fails, silently forking the conversation (seed 003: restoration never falls back to session/new; docs/agy-acp-reference.md §4 item 13, openab #952)"),
    (Fault::AcpAppendsLoadReplay, "acp-appends-load-replay", Profile::Acp, "appends the session/load replay to the canonical history, so earlier turns appear twice (seed 003: load replay is kept outside the canonical conversation; docs/agy-acp-reference.md §4 items 1-2)"),
    (Fault::AcpResendsLastPrompt, "acp-resends-last-prompt", Profile::Acp, "sends the last (or pending) prompt again after a restart, so the agent runs it twice (seed 003: no earlier prompt is resent)"),
    (Fault::TextPrintTimeoutAsAnswer, "text-print-timeout-as-answer", Profile::Text, "returns agy's print timeout (exit 0, SUCCESS, an empty or partial response, docs/agy-reference.md §2.4) as the answer, as print-mode clients that check only the exit code and the status do"),
    (Fault::TextMergesStderr, "text-merges-stderr", Profile::Text, "reads agy's text output with stderr merged into it, as a pty merges it, so the `[agy] print timeout … returning partial output` notice (docs/agy-reference.md §2.4) is returned as the answer"),
    (Fault::TextJsonMergesStderr, "text-json-merges-stderr", Profile::Text, "reads agy's stdout and stderr as one stream in json and stream-json modes (stderr=STDOUT) and keeps each line that is not JSON as answer text, so a warning agy printed on stderr (`You are not logged into Antigravity.`, docs/agy-reference.md §2.3) is returned inside the answer"),
    (Fault::TextStatusIgnored, "text-status-ignored", Profile::Text, "reads only the response and the exit code, so a CANCELED run (exit 0 in the record, docs/agy-reference.md §2.3) and a WAITING or RUNNING one become an empty success"),
    (Fault::TextExitCodeIgnored, "text-exit-code-ignored", Profile::Text, "ignores the exit code whenever stdout had text, so a crash or a non-zero exit after some text streamed is returned as a success"),
    (Fault::TextOneErrorClass, "text-one-error-class", Profile::Text, "raises one error type for every failed run, so authentication, quota (exit 3 and `AGY_ERROR:`, docs/agy-reference.md §2.2 item 5) and a rejected model (§1.4) cannot be told apart"),
    (Fault::TextNeverKillsHungAgy, "text-never-kills-hung-agy", Profile::Text, "has no timeout of its own, so a hung agy is never killed and the caller waits forever"),
    (Fault::TextKillsOnlyAgyPid, "text-kills-only-agy-pid", Profile::Text, "kills agy's own pid at the timeout (child.kill()), so the shells and servers agy started in its process group keep running after the call returned"),
    (Fault::TextSkipPermissionsAlways, "text-skip-permissions-always", Profile::Text, "passes --dangerously-skip-permissions on every run, hard-wired, though the caller did not ask for it"),
    (Fault::TextNewConversationEachAsk, "text-new-conversation-each-ask", Profile::Text, "continues a conversation with an id it minted itself, which agy 1.1.x accepted; from 1.2 agy ignores an unknown id with a warning and starts a new conversation every time (docs/agy-reference.md §1.3)"),
    (Fault::TextEarlierTurnAnswer, "text-earlier-turn-answer", Profile::Text, "answers a continued conversation with the previous turn's text from its own transcript (an off-by-one), not with this run's response"),
    (Fault::TextCumulativeUsage, "text-cumulative-usage", Profile::Text, "reports a resumed run's usage as the turn's, though agy's result counts the whole conversation (docs/agy-reference.md §3.4), so the cost record charges every earlier turn again"),
    (Fault::TextDefaultPrintTimeoutAsAnswer, "text-default-print-timeout-as-answer", Profile::Text, "passes no --print-timeout, leaving agy's default (5m, docs/agy-reference.md §1.2), and looks for agy's print-timeout notice only when it set a timeout itself, so the partial answer agy returns when its own default expires (SUCCESS, §2.4) is returned as the answer"),
    (Fault::TextNoBoundOfItsOwn, "text-no-bound-of-its-own", Profile::Text, "passes no --print-timeout and has no timeout of its own, trusting agy's default print timeout (5m, docs/agy-reference.md §1.2) to end every run, so an agy that hangs without ever printing its timeout (agy -p hanging, changelog 1.1.1, §1.1 item 4) is waited for forever and never killed"),
    (Fault::McpFailureAsSuccess, "mcp-failure-as-success", Profile::Mcp, "returns every agy failure as a successful tool result whose text is the error, so a host takes a sign-in prompt or a quota notice for agy's answer (the MCP bridges of agy described in docs/contract.md, \"mcp\")"),
    (Fault::McpGenericFailureText, "mcp-generic-failure-text", Profile::Mcp, "returns every agy failure as isError with one generic text (`agy failed (exit code N)`), so auth, quota and a rejected model look alike to the host (docs/contract.md, \"mcp\")"),
    (Fault::McpEmptySuccess, "mcp-empty-success", Profile::Mcp, "returns agy's print timeout (exit 0, SUCCESS, empty response, zero usage: docs/agy-reference.md §2.4, S6c) as an empty success"),
    (Fault::McpNoTimeout, "mcp-no-timeout", Profile::Mcp, "waits for agy with no timeout of its own, so a hung agy hangs the tool call and the host (docs/contract.md, \"mcp\")"),
    (Fault::McpKillsPidOnly, "mcp-kills-pid-only", Profile::Mcp, "on a timeout sends SIGTERM to agy's pid alone and answers without waiting, so an agy that ignores SIGTERM outlives the call (docs/contract.md, \"mcp\")"),
    (Fault::McpNewConversation, "mcp-new-conversation", Profile::Mcp, "ignores the conversation argument and starts a new agy conversation on every call (no `--conversation`), so a host's follow-up loses its context (docs/contract.md, \"mcp\")"),
    (Fault::McpDropsModel, "mcp-drops-model", Profile::Mcp, "does not pass the model argument to agy, so every call runs on the account's default model (docs/contract.md, \"mcp\")"),
    (Fault::McpKillsOnlyAgyPid, "mcp-kills-only-agy-pid", Profile::Mcp, "kills agy's own pid at the call's timeout (child.kill()) and waits for it, so the shells and servers agy started in its process group keep running after the tool call returned (docs/fake-agy.md \"Tool children\")"),
    (Fault::McpPartialTimeoutAsAnswer, "mcp-partial-timeout-as-answer", Profile::Mcp, "recognises agy's print timeout only by its empty shape (SUCCESS, empty response, zero usage), so the partial answer agy 1.2.x returns with its `[agy] print timeout … returning partial output` notice (docs/agy-reference.md §2.4) is the tool's successful answer"),
    (Fault::McpRunsSlashPrompts, "mcp-runs-slash-prompts", Profile::Mcp, "passes the host's prompt to `agy -p` as given, without --disable-slash-commands (docs/agy-reference.md §1.2), so a prompt starting with `/` is run as an agy slash command: `/clear` is refused with exit 2 (capture jc-1.1.26-slash-clear) and never reaches the model"),
    (Fault::AgentGenericErrors, "agent-generic-errors", Profile::AcpAgent, "maps every non-SUCCESS agy result to one generic JSON-RPC internal error, so an editor cannot tell auth from quota from a timeout (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentDiesWhenSignedOut, "agent-dies-when-signed-out", Profile::AcpAgent, "checks agy at start-up and exits when it is signed out, so the editor sees a dead agent instead of ACP's auth_required (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentCanceledAsCancelled, "agent-canceled-as-cancelled", Profile::AcpAgent, "reports agy's own CANCELED result as stopReason cancelled though the client never cancelled (published ACP agents in front of agy (docs/contract.md, acp-agent); docs/agy-reference.md §2.1)"),
    (Fault::AgentEmptySuccessAsEndTurn, "agent-empty-success-as-end-turn", Profile::AcpAgent, "ends an empty SUCCESS (agy's print-timeout shape, S6c) as end_turn with no text (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentSlowExitIsError, "agent-slow-exit-is-error", Profile::AcpAgent, "waits for agy to exit after its result and turns a finished turn into an error when agy is slow to exit (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentQuotaAsGeneric, "agent-quota-as-generic", Profile::AcpAgent, "reports a quota stop (exit 3, docs/agy-reference.md §2.2 item 5) as a generic error that does not name quota (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentFirstTextDeadline, "agent-first-text-deadline", Profile::AcpAgent, "kills agy when it printed nothing within a fixed 60 s and ends the prompt with a timeout error, though agy in json mode prints its result only at the end of a turn that may take minutes (its own default print timeout is 5m, docs/agy-reference.md §1.2, and drivers raise it to hours; one image took 39.9 s, a recorded turn ran 305 s: §6), so a slow but healthy turn never completes"),
    (Fault::AgentModelFromPromptText, "agent-model-from-prompt-text", Profile::AcpAgent, "reads a model id out of the prompt's text (a word starting `gemini-`) and runs agy with it as --model, so a user who only names a model in a question switches the session's model; ACP selects a model through the session's config options, never through the prompt (published ACP agents in front of agy (docs/contract.md, acp-agent))"),
    (Fault::AgentIgnoresSessionCwd, "agent-ignores-session-cwd", Profile::AcpAgent, "runs agy in the agent's own working directory instead of the `cwd` the client gave session/new (the session's working directory, an absolute path: ACP schema NewSessionRequest), so agy runs, and reports its init.cwd (docs/agy-reference.md §3.2), in the folder the editor started the agent in rather than the session's project"),
    (Fault::AgentAnswersCancelNotification, "agent-answers-cancel-notification", Profile::AcpAgent, "answers the session/cancel notification with a response (id null), as an agent that answers every message it reads; a notification has no id and gets no response (JSON-RPC 2.0; ACP schema: session/cancel is a notification), so the client receives a response to no request of its own, which a strict client rejects"),
    (Fault::AgentContinuesLatestConversation, "agent-continues-latest-conversation", Profile::AcpAgent, "continues a session's later prompt with --continue instead of --conversation ID; --continue resumes the workspace's most recent conversation (cache/last_conversations.json, docs/agy-reference.md §1.2, §5), so with two sessions in one folder a prompt continues whichever session ran last"),
];

/// The faults switched on for this run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultSet(BTreeSet<Fault>);

impl FaultSet {
    /// No fault: the correct adapter.
    pub fn none() -> FaultSet {
        FaultSet::default()
    }

    /// The given faults.
    pub fn of(faults: impl IntoIterator<Item = Fault>) -> FaultSet {
        FaultSet(faults.into_iter().collect())
    }

    /// True when `fault` is switched on.
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    /// The faults switched on, in order.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }
}

/// The `--list-faults` output: one JSON object per line.
pub fn render_fault_list() -> String {
    let faults: Vec<FaultInfo> = Fault::ALL.iter().map(|f| f.info()).collect();
    agy_protocol::fault::render_fault_list(&faults)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn all_lists_every_variant_in_declaration_order_and_the_table_follows_it() {
        // clap's derive lists every variant of the enum: a variant missing from `ALL`
        // or from `FAULTS` (or out of order there) fails here.
        let variants = Fault::value_variants();
        assert_eq!(Fault::ALL.as_slice(), variants);
        assert_eq!(FAULTS.len(), variants.len());
        for (row, fault) in FAULTS.iter().zip(variants) {
            assert_eq!(row.0, *fault);
        }
    }

    #[test]
    fn every_fault_name_matches_its_clap_spelling() {
        for fault in Fault::ALL {
            let value = fault.to_possible_value().expect("not skipped");
            assert_eq!(value.get_name(), fault.name());
        }
    }

    #[test]
    fn fault_names_are_the_agreed_contract() {
        let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "trusts-success",
                "missing-output-before-timeout",
                "no-quota-detection",
                "skip-permissions-by-default",
                "first-of-many-images",
                "image-in-parent-brain-only",
                "never-kills-hung-agy",
                "process-per-turn",
                "no-replay-filter",
                "keeps-process-after-failure",
                "keeps-process-after-model-change",
                "sigterm-without-sigkill",
                "late-step-to-current-turn",
                "late-usage-to-current-turn",
                "acp-quarantine-lifted-early",
                "acp-falls-back-to-session-new",
                "acp-appends-load-replay",
                "acp-resends-last-prompt",
                "text-print-timeout-as-answer",
                "text-merges-stderr",
                "text-json-merges-stderr",
                "text-status-ignored",
                "text-exit-code-ignored",
                "text-one-error-class",
                "text-never-kills-hung-agy",
                "text-kills-only-agy-pid",
                "text-skip-permissions-always",
                "text-new-conversation-each-ask",
                "text-earlier-turn-answer",
                "text-cumulative-usage",
                "text-default-print-timeout-as-answer",
                "text-no-bound-of-its-own",
                "mcp-failure-as-success",
                "mcp-generic-failure-text",
                "mcp-empty-success",
                "mcp-no-timeout",
                "mcp-kills-pid-only",
                "mcp-new-conversation",
                "mcp-drops-model",
                "mcp-kills-only-agy-pid",
                "mcp-partial-timeout-as-answer",
                "mcp-runs-slash-prompts",
                "agent-generic-errors",
                "agent-dies-when-signed-out",
                "agent-canceled-as-cancelled",
                "agent-empty-success-as-end-turn",
                "agent-slow-exit-is-error",
                "agent-quota-as-generic",
                "agent-first-text-deadline",
                "agent-model-from-prompt-text",
                "agent-ignores-session-cwd",
                "agent-answers-cancel-notification",
                "agent-continues-latest-conversation",
            ]
        );
    }

    #[test]
    fn fault_list_has_one_parsable_object_per_fault() {
        let text = render_fault_list();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect();
        assert_eq!(lines.len(), Fault::ALL.len());
        for line in &lines {
            let profile = line["profile"].as_str().expect("profile");
            assert!(Profile::ALL.iter().any(|p| p.as_str() == profile), "{line}");
            assert!(!line["bug"].as_str().expect("bug").is_empty());
        }
    }
}
