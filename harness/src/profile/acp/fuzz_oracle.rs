//! The `acp` oracle: from what the generated agent does and the ops sent, what every
//! reply must show and what the whole run must keep, following the restore contract of
//! docs/acp-profile.md (seed 003) and docs/driver-protocol.md ("The `acp` profile"):
//! a committed session is resumed, a pending prompt is loaded with one explicit gap, a
//! failed restore is surfaced and never forks the conversation with `session/new`, no
//! earlier prompt is sent again, replayed and late output joins no turn, permission
//! requests outside a turn are answered `cancelled`, agent death is a retryable
//! failure, a closed session leaves no agent running.

use crate::profile::acp::fuzz_case::{AcpCase, AcpOp, Late, TurnAgy};
use agy_protocol::driver::Outcome;

/// The word of the n-th prompt (0-based); it names the prompt's rule and texts.
pub const WORDS: [&str; 6] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];

/// The text of prompt `w`.
pub fn prompt_text(w: &str) -> String {
    format!("{w} question")
}

/// What an agent script's turn for prompt `w` says (scripted, not the default turn).
pub fn answer_text(w: &str) -> String {
    format!("answer {w}")
}

/// What a turn that is cut short says first (killed, stalled, cancelled).
pub fn partial_text(w: &str) -> String {
    format!("partial {w}")
}

/// Late text sent after prompt `w`'s response.
pub fn late_text(w: &str) -> String {
    format!("late words of {w}")
}

/// Late text number `i` of a restore (`load` or `resume`).
pub fn restore_late_text(method: &str, i: usize) -> String {
    format!("late {method} words {}", i + 1)
}

/// What the agent does with one prompt that reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleAgy {
    /// As generated.
    Turn(TurnAgy),
    /// Says something, then waits for the cancel.
    WaitsForCancel,
    /// Says something, then stops answering.
    Stalls,
}

/// The `[[acp.prompt]]` rule of one prompt that reaches the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The prompt's word (`when.contains`).
    pub word: &'static str,
    /// The prompt's number on its agent process (`when.nth`), so a prompt sent again
    /// to a new agent gets the default turn instead of this one.
    pub nth: u32,
    /// Milliseconds (script time) before the agent acts.
    pub delay_ms: u32,
    /// What it does.
    pub agy: RuleAgy,
}

/// The driver op a case step becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `acp_new`.
    New,
    /// `acp_prompt`; `concurrent` when the next op must reach the running turn.
    Prompt {
        /// The prompt text.
        text: String,
        /// Sent without waiting for its reply.
        concurrent: bool,
    },
    /// `acp_cancel`, once the journal holds `after` prompts.
    Cancel {
        /// `wait_for_acp` count of `session/prompt`.
        after: usize,
    },
    /// `acp_restart_agent`, once the journal holds `after` prompts (when set).
    RestartAgent {
        /// `wait_for_acp` count of `session/prompt`.
        after: Option<usize>,
    },
    /// The harness-side client restart.
    RestartClient,
    /// `acp_restore`.
    Restore,
    /// `acp_close`.
    Close,
}

/// One op and what its reply must show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpOpOracle {
    /// The op.
    pub action: Action,
    /// The outcome class.
    pub outcome: Option<Outcome>,
    /// `retryable`, matching the class.
    pub retryable: Option<bool>,
    /// The turn's text, exactly.
    pub text: Option<String>,
    /// Texts of other turns, late output and replays that must not appear.
    pub text_lacks: Vec<String>,
    /// The reply's `restore_state`.
    pub restore_state: Option<&'static str>,
    /// `gap` entries in the reply's history.
    pub history_gaps: Option<u32>,
}

impl AcpOpOracle {
    fn of(action: Action) -> Self {
        AcpOpOracle {
            action,
            outcome: None,
            retryable: None,
            text: None,
            text_lacks: Vec::new(),
            restore_state: None,
            history_gaps: None,
        }
    }

    fn failed(mut self, outcome: Outcome) -> Self {
        self.outcome = Some(outcome);
        self.retryable = Some(outcome == Outcome::Transient);
        self
    }
}

/// What the whole run must show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AcpOracle {
    /// Every op of the rendered scenario, in order.
    pub ops: Vec<AcpOpOracle>,
    /// The agent's prompt rules.
    pub rules: Vec<Rule>,
    /// Every `session/prompt` text, in order, across agent processes.
    pub prompts: Vec<String>,
    /// The committed turns' answers, in order (the last history's assistant entries).
    pub answers: Vec<String>,
    /// `gap` entries in the last history.
    pub gaps: u32,
    /// The case ends with a close: no agent may run after it.
    pub none_left_running: bool,
    /// Every permission request sent outside a turn reaches a client that reads it: a
    /// prompt follows on the same agent. (A request the agent sends just before it is
    /// stopped may go unread; the contract asks only that none is granted.)
    pub late_permissions_read: bool,
}

/// Where the modelled client stands.
#[derive(Debug, Default)]
struct State {
    live: bool,
    pending: bool,
    on_agent: u32,
    said: Vec<String>,
    /// The live agent sent a permission request outside a turn no prompt has followed.
    unread_permission: bool,
    /// An agent ended with such a request unread.
    permission_left_unread: bool,
    oracle: AcpOracle,
}

impl State {
    /// The agent is stopped or dies: a permission request it sent outside a turn may
    /// never be read.
    fn agent_ends(&mut self) {
        self.live = false;
        self.permission_left_unread |= self.unread_permission;
        self.unread_permission = false;
    }

    /// A restore on a new agent: `load` with a gap for a pending prompt, else `resume`;
    /// sets the reply's expectations. Returns whether the session is live after it.
    fn restore(&mut self, c: &AcpCase, e: &mut AcpOpOracle) -> bool {
        let (agy, gap) = if self.pending {
            (&c.load, true)
        } else {
            (&c.resume, false)
        };
        if agy.fails {
            *e = e.clone().failed(Outcome::Permanent);
            e.restore_state = Some("restorable");
            self.live = false;
            return false;
        }
        self.unread_permission = agy.late.contains(&Late::Permission);
        if gap {
            self.oracle.gaps += 1;
        }
        self.pending = false;
        self.live = true;
        self.on_agent = 0;
        e.restore_state = Some(if gap { "history_gap" } else { "restored" });
        e.history_gaps = Some(self.oracle.gaps);
        true
    }

    /// Everything the agent has said or may replay that a new turn must not hold.
    fn lacks(&self, c: &AcpCase) -> Vec<String> {
        let mut out = self.said.clone();
        for (method, r) in [("load", &c.load), ("resume", &c.resume)] {
            out.extend(
                r.late
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| **l == Late::Text)
                    .map(|(i, _)| restore_late_text(method, i)),
            );
        }
        out
    }

    /// One prompt: restore first when the agent is gone, then the turn.
    fn prompt(
        &mut self,
        c: &AcpCase,
        word: &'static str,
        delay_ms: u32,
        agy: RuleAgy,
        concurrent: bool,
    ) {
        let text = prompt_text(word);
        let mut e = AcpOpOracle::of(Action::Prompt {
            text: text.clone(),
            concurrent,
        });
        if !self.live && !self.restore(c, &mut e) {
            self.oracle.ops.push(e);
            return;
        }
        self.on_agent += 1;
        self.unread_permission = false;
        self.oracle.prompts.push(text.clone());
        let lacks = self.lacks(c);
        self.said.push(text.clone());
        self.oracle.rules.push(Rule {
            word,
            nth: self.on_agent,
            delay_ms,
            agy: agy.clone(),
        });
        let answer = match &agy {
            RuleAgy::Turn(TurnAgy::Default) => Some(format!("Received: {text}")),
            RuleAgy::Turn(TurnAgy::Answer { .. } | TurnAgy::Permission) => Some(answer_text(word)),
            RuleAgy::Turn(TurnAgy::Crash) | RuleAgy::Stalls => {
                // Acknowledged, never answered: the agent is gone, the prompt pending.
                self.said.push(partial_text(word));
                self.agent_ends();
                self.pending = true;
                e = e.failed(Outcome::Transient);
                // The agent is gone: the handle can only be restored.
                e.restore_state = Some("restorable");
                None
            }
            RuleAgy::WaitsForCancel => {
                // Committed with what it said before the cancel.
                self.said.push(partial_text(word));
                self.oracle.answers.push(partial_text(word));
                e = e.failed(Outcome::Transient);
                None
            }
        };
        if let RuleAgy::Turn(TurnAgy::Answer { late }) = &agy {
            if late.contains(&Late::Text) {
                self.said.push(late_text(word));
            }
            self.unread_permission = late.contains(&Late::Permission);
        }
        if let Some(a) = answer {
            self.said.push(a.clone());
            self.oracle.answers.push(a.clone());
            e.outcome = Some(Outcome::Success);
            e.text = Some(a);
            e.text_lacks = lacks;
        }
        self.oracle.ops.push(e);
    }

    /// `acp_restart_agent` (after `after` prompts when it rescues a stalled turn), or
    /// `acp_restore`: both restore on a new agent unless a restore finds it live.
    fn restore_op(&mut self, c: &AcpCase, action: Action) {
        let mut e = AcpOpOracle::of(action.clone());
        let restarts = matches!(action, Action::RestartAgent { .. });
        if restarts || !self.live {
            self.agent_ends();
            if self.restore(c, &mut e) {
                e.outcome = Some(Outcome::Success);
            }
        } else {
            e.outcome = Some(Outcome::Success);
        }
        self.oracle.ops.push(e);
    }
}

/// The oracle of `c`.
pub fn acp_oracle(c: &AcpCase) -> AcpOracle {
    let mut s = State::default();
    let mut new = AcpOpOracle::of(Action::New);
    new.outcome = Some(Outcome::Success);
    new.restore_state = Some("ready");
    s.oracle.ops.push(new);
    s.live = true;
    let mut words = WORDS.iter();
    for op in &c.ops {
        match op {
            AcpOp::Prompt { delay_ms, agy } => {
                let Some(w) = words.next() else { break };
                s.prompt(c, w, *delay_ms, RuleAgy::Turn(agy.clone()), false);
            }
            AcpOp::CancelledPrompt => {
                let Some(w) = words.next() else { break };
                s.prompt(c, w, 0, RuleAgy::WaitsForCancel, true);
                let after = s.oracle.prompts.len();
                let mut e = AcpOpOracle::of(Action::Cancel { after });
                e.outcome = Some(Outcome::Success);
                s.oracle.ops.push(e);
            }
            AcpOp::StalledPrompt => {
                let Some(w) = words.next() else { break };
                s.prompt(c, w, 0, RuleAgy::Stalls, true);
                let after = Some(s.oracle.prompts.len());
                s.restore_op(c, Action::RestartAgent { after });
            }
            AcpOp::RestartClient => {
                s.agent_ends();
                s.oracle.ops.push(AcpOpOracle::of(Action::RestartClient));
            }
            AcpOp::RestartAgent => s.restore_op(c, Action::RestartAgent { after: None }),
            AcpOp::Restore => s.restore_op(c, Action::Restore),
            AcpOp::Close => close(&mut s),
        }
    }
    if c.close_at_end {
        close(&mut s);
        s.oracle.none_left_running = true;
    }
    s.agent_ends();
    s.oracle.late_permissions_read = !s.permission_left_unread;
    s.oracle
}

fn close(s: &mut State) {
    let mut e = AcpOpOracle::of(Action::Close);
    e.outcome = Some(Outcome::Success);
    e.restore_state = Some("restorable");
    s.agent_ends();
    s.oracle.ops.push(e);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::acp::fuzz_case::{Replay, RestoreAgy};

    fn agent(load_fails: bool, resume_fails: bool) -> (RestoreAgy, RestoreAgy) {
        let r = |fails| RestoreAgy {
            replay: Replay::Before,
            late: Vec::new(),
            fails,
        };
        (r(load_fails), r(resume_fails))
    }

    fn case(ops: Vec<AcpOp>, load_fails: bool, resume_fails: bool) -> AcpCase {
        let (load, resume) = agent(load_fails, resume_fails);
        AcpCase {
            load,
            resume,
            ops,
            close_at_end: true,
        }
    }

    fn prompt(agy: TurnAgy) -> AcpOp {
        AcpOp::Prompt { delay_ms: 0, agy }
    }

    #[test]
    fn agent_death_is_retryable_and_the_next_prompt_loads_with_one_gap() {
        let o = acp_oracle(&case(
            vec![prompt(TurnAgy::Crash), prompt(TurnAgy::Default)],
            false,
            false,
        ));
        assert_eq!(o.ops[1].outcome, Some(Outcome::Transient));
        assert_eq!(o.ops[1].retryable, Some(true));
        assert_eq!(o.ops[2].restore_state, Some("history_gap"));
        assert_eq!(o.ops[2].text.as_deref(), Some("Received: bravo question"));
        assert!(o.ops[2].text_lacks.contains(&partial_text("alpha")));
        assert_eq!((o.gaps, o.answers.len()), (1, 1));
        // The prompt after the restore is the new agent's first.
        assert_eq!(o.rules[1].nth, 1);
        assert!(o.none_left_running);
    }

    #[test]
    fn a_failed_resume_is_permanent_and_sends_no_prompt() {
        let o = acp_oracle(&case(
            vec![
                prompt(TurnAgy::Default),
                AcpOp::RestartClient,
                prompt(TurnAgy::Default),
            ],
            false,
            true,
        ));
        assert_eq!(o.ops[3].outcome, Some(Outcome::Permanent));
        assert_eq!(o.ops[3].retryable, Some(false));
        assert_eq!(o.ops[3].restore_state, Some("restorable"));
        assert_eq!(o.prompts, ["alpha question"]);
    }

    #[test]
    fn a_restore_of_a_live_session_restores_nothing() {
        let o = acp_oracle(&case(vec![AcpOp::Restore], false, false));
        assert_eq!(o.ops[1].outcome, Some(Outcome::Success));
        assert_eq!(o.ops[1].restore_state, None);
    }

    #[test]
    fn a_cancelled_turn_is_committed_with_what_it_said() {
        let o = acp_oracle(&case(vec![AcpOp::CancelledPrompt], false, false));
        assert_eq!(o.ops[1].outcome, Some(Outcome::Transient));
        assert_eq!(o.ops[2].action, Action::Cancel { after: 1 });
        assert_eq!(o.answers, [partial_text("alpha")]);
    }
}
