//! What the runner saw in one scenario: each op's reply, the journal, when each agy
//! process ended, and what the driver wrote that was not protocol.

use crate::driver_client::{DriverError, ProtocolViolation};
use agy_process::is_running;
use agy_protocol::acp::{read_acp_journal, AcpJournalEntry};
use agy_protocol::driver::{Outcome, Reply};
use agy_protocol::journal::{now_us, read_journal, JournalRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// One op as it happened.
#[derive(Debug, Clone)]
pub struct OpObservation {
    /// 1-based op index.
    pub index: usize,
    /// The op's name.
    pub name: &'static str,
    /// When it was sent (µs since the epoch).
    pub sent_us: u64,
    /// When the reply arrived.
    pub replied_us: u64,
    /// The reply, or why there was none.
    pub reply: Result<Reply, DriverError>,
    /// The outcome class: the reply's own, else its error name mapped by the adapter
    /// config, else `success` for an `ok` reply with neither.
    pub outcome: Option<Outcome>,
    /// For `agy_gone_within`: agy pids still running when the bound ran out.
    pub still_running: Option<Vec<u32>>,
}

/// The whole run of one scenario.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    /// Ops in order.
    pub ops: Vec<OpObservation>,
    /// The journal, read after the last reply (before the harness stopped anything).
    pub journal: Vec<JournalRecord>,
    /// Why the journal could not be read.
    pub journal_error: Option<String>,
    /// pid → when it was first seen ended (µs since the epoch).
    pub ended_us: BTreeMap<u32, u64>,
    /// agy pids still running after the last reply.
    pub running_at_end: Vec<u32>,
    /// fake-agy-acp's journal of ACP traffic, read after every process has ended.
    pub acp_journal: Vec<AcpJournalEntry>,
    /// Why the ACP journal could not be read.
    pub acp_journal_error: Option<String>,
    /// ACP agent pids still running after the last reply.
    pub acp_running_at_end: Vec<u32>,
    /// Lines the driver wrote that were not protocol.
    pub violations: Vec<ProtocolViolation>,
    /// The end of the driver's stderr.
    pub driver_stderr_tail: String,
}

impl Observation {
    /// Reads the journal and notes which agy processes have ended; returns the pids
    /// still running, the tool children agy started included.
    pub fn probe(&mut self, journal: &Path, marker: &str) -> Vec<u32> {
        match read_journal(journal) {
            Ok(records) => {
                self.journal = records;
                self.journal_error = None;
            }
            Err(e) => self.journal_error = Some(e.to_string()),
        }
        let now = now_us();
        let mut running = Vec::new();
        for r in &self.journal {
            if self.ended_us.contains_key(&r.pid) {
                continue;
            }
            if r.complete {
                self.ended_us.insert(r.pid, r.ended_us.unwrap_or(now));
            } else if is_running(r.pid, Some(marker)) {
                running.push(r.pid);
            } else {
                self.ended_us.insert(r.pid, now);
            }
        }
        running.extend(self.running_children(marker));
        running
    }

    /// The tool children the journal names (fake-agy's `tool_child` steps) that still
    /// run: a process an agy started in its own group is agy's as far as leftovers go.
    fn running_children(&self, marker: &str) -> Vec<u32> {
        self.journal
            .iter()
            .flat_map(|r| r.children.iter().map(|c| c.pid))
            .filter(|pid| is_running(*pid, Some(marker)))
            .collect()
    }
}

impl Observation {
    /// The ACP agents (pids from fake-agy-acp's journal) still running.
    pub fn probe_acp(&mut self, journal: &Path, marker: &str) {
        let mut pids: Vec<u32> = read_acp_journal(journal)
            .map(|j| j.iter().map(|e| e.pid).collect())
            .unwrap_or_default();
        pids.sort_unstable();
        pids.dedup();
        self.acp_running_at_end = pids
            .into_iter()
            .filter(|p| is_running(*p, Some(marker)))
            .collect();
    }

    /// Reads fake-agy-acp's journal.
    pub fn read_acp(&mut self, journal: &Path) {
        match read_acp_journal(journal) {
            Ok(entries) => self.acp_journal = entries,
            Err(e) => self.acp_journal_error = Some(e.to_string()),
        }
    }
}

/// The outcome class of a reply under the adapter's error-name mapping.
pub fn classify(reply: &Reply, errors: &BTreeMap<String, Outcome>) -> Option<Outcome> {
    if let Some(o) = reply.outcome {
        return Some(o);
    }
    if let Some(e) = &reply.error {
        return errors.get(&e.name).copied();
    }
    reply.ok.then_some(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_process::MARKER_ENV;
    use agy_protocol::journal::{append_final, ChildRecord, ExitRecord, StdinLog};

    fn finished_agy_with_child(pid: u32, child: u32) -> JournalRecord {
        JournalRecord {
            v: agy_protocol::journal::JOURNAL_VERSION,
            complete: true,
            invocation: 1,
            pid,
            ppid: 1,
            argv: vec!["agy".into(), "-p".into(), "hi".into()],
            cwd: "/".into(),
            env: BTreeMap::new(),
            mode: None,
            rule: None,
            conversation_id: None,
            continued_conversation: None,
            conversation_turn: None,
            children: vec![ChildRecord {
                pid: child,
                label: "run_command".into(),
                started_us: 1,
                outlives: true,
            }],
            started_us: 1,
            ended_us: Some(2),
            stdin: StdinLog::default(),
            signals: Vec::new(),
            exit: Some(ExitRecord {
                code: Some(0),
                signal: None,
            }),
            files: Vec::new(),
            stdout_bytes: 0,
            stderr_bytes: 0,
            stdout_head: String::new(),
            stderr_head: String::new(),
        }
    }

    #[test]
    fn a_journalled_tool_child_still_running_is_a_leftover_of_its_finished_agy() {
        let dir = tempfile::tempdir().expect("dir");
        let marker = dir.path().display().to_string();
        // A shell that says it runs, then waits on a stdin nobody writes: once its line
        // arrived the exec is over and `/proc` shows its environment.
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "echo started; read x"])
            .env(MARKER_ENV, &marker)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawns");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("reads");
        assert_eq!(line, "started\n");
        let journal = dir.path().join("journal.jsonl");
        append_final(&journal, &finished_agy_with_child(u32::MAX - 1, child.id()))
            .expect("journal");
        let mut obs = Observation::default();
        let running = obs.probe(&journal, &marker);
        assert_eq!(running, vec![child.id()]);
        let _ = child.kill();
        let _ = child.wait();
        assert!(obs.probe(&journal, &marker).is_empty());
    }
}
