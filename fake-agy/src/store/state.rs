//! Cross-invocation state of one scenario: how many invocations ran and how often each
//! rule served, kept in `<state dir>/state.json` and updated under an exclusive file
//! lock, so concurrent invocations each get their own index and rule.

use crate::error::FakeError;
use agy_protocol::command_line::InvocationKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The persisted counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioState {
    /// Invocations started so far.
    pub invocations: u32,
    /// Turn invocations started so far (what `nth` counts for a turn).
    #[serde(default)]
    pub turns: u32,
    /// Probes started so far (what `nth` counts for a probe).
    #[serde(default)]
    pub probes: u32,
    /// Uses per rule key (`invocation 1`, …).
    pub rules: BTreeMap<String, u32>,
}

/// Claims the next invocation index and, through `choose`, a rule for it, all under the
/// lock. `choose` gets the new 1-based index among invocations of `kind` and the current
/// use counts and returns the (0-based) index of the rule it picked, whose count (under
/// [`invocation_key`]) is then incremented. Returns the 1-based index among all
/// invocations and the rule's index.
pub fn claim_invocation(
    dir: &Path,
    kind: InvocationKind,
    choose: impl FnOnce(u32, &BTreeMap<String, u32>) -> Option<usize>,
) -> Result<(u32, Option<usize>), FakeError> {
    let mut claimed = (0, None);
    update_state(dir, |state| {
        state.invocations += 1;
        let n = state.invocations;
        let of_kind = match kind {
            InvocationKind::Turn => &mut state.turns,
            InvocationKind::Probe => &mut state.probes,
        };
        *of_kind += 1;
        let chosen = choose(*of_kind, &state.rules);
        if let Some(i) = chosen {
            *state.rules.entry(invocation_key(i)).or_insert(0) += 1;
        }
        claimed = (n, chosen);
    })?;
    Ok(claimed)
}

/// Reads the state, changes it with `change` and writes it back, all under the file's
/// exclusive lock.
fn update_state(dir: &Path, change: impl FnOnce(&mut ScenarioState)) -> Result<(), FakeError> {
    fs::create_dir_all(dir).map_err(|e| FakeError::io("create state dir", dir, e))?;
    let path = dir.join("state.json");
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| FakeError::io("open state file", &path, e))?;
    f.lock()
        .map_err(|e| FakeError::io("lock state file", &path, e))?;
    let mut text = String::new();
    f.read_to_string(&mut text)
        .map_err(|e| FakeError::io("read state file", &path, e))?;
    let mut state: ScenarioState = if text.trim().is_empty() {
        ScenarioState::default()
    } else {
        serde_json::from_str(&text)
            .map_err(|e| FakeError::io("parse state file", &path, std::io::Error::other(e)))?
    };
    change(&mut state);
    let mut body = serde_json::to_vec(&state).unwrap_or_default();
    // Overwrite in place, padding with spaces (valid trailing JSON whitespace) instead
    // of truncating: ext4 flushes a file truncated to zero and rewritten on close
    // (auto_da_alloc), which would cost every invocation a disk wait.
    if body.len() < text.len() {
        body.resize(text.len(), b' ');
    }
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.write_all(&body))
        .map_err(|e| FakeError::io("write state file", &path, e))?;
    let _ = f.unlock();
    Ok(())
}

/// Gives back the claim of a turn invocation that ran no turn (an idle start): one turn
/// fewer, and one use fewer of `rule`, under the lock.
pub fn release_turn(dir: &Path, rule: Option<usize>) -> Result<(), FakeError> {
    update_state(dir, |state| {
        state.turns = state.turns.saturating_sub(1);
        if let Some(i) = rule {
            if let Some(uses) = state.rules.get_mut(&invocation_key(i)) {
                *uses = uses.saturating_sub(1);
            }
        }
    })
}

/// The state key of invocation rule `i` (0-based).
pub fn invocation_key(i: usize) -> String {
    format!("invocation {}", i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_claim_gets_the_next_index_and_counts_its_rule() {
        let dir = tempfile::tempdir().expect("temp");
        let turn = InvocationKind::Turn;
        let (n1, r1) = claim_invocation(dir.path(), turn, |_, _| Some(1)).expect("claims");
        let (n2, _) = claim_invocation(dir.path(), turn, |_, counts| {
            assert_eq!(counts.get("invocation 2"), Some(&1));
            None
        })
        .expect("claims");
        assert_eq!((n1, r1, n2), (1, Some(1), 2));
    }

    #[test]
    fn probes_and_turns_are_counted_apart() {
        let dir = tempfile::tempdir().expect("temp");
        let mut seen = vec![];
        for kind in [
            InvocationKind::Probe,
            InvocationKind::Turn,
            InvocationKind::Probe,
        ] {
            let (n, _) = claim_invocation(dir.path(), kind, |k, _| {
                seen.push(k);
                None
            })
            .expect("claims");
            seen.push(n);
        }
        // (index among its kind, index among all) per claim.
        assert_eq!(seen, vec![1, 1, 1, 2, 2, 3]);
    }
}
