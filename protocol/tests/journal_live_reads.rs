//! The journal read while invocations end: a writer thread keeps a live copy of each
//! record, appends the final record and removes the live copy (as fake-agy does), as
//! fast as it can, while the reader reads 10,000 times or more. No read may fail, see an invocation twice, or lose an
//! invocation an earlier read of the same journal saw.

use agy_protocol::journal::live::{LiveCopy, LiveEntry};
use agy_protocol::journal::{
    append_final, read_journal, ExitRecord, JournalRecord, StdinLine, StdinLog, JOURNAL_VERSION,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Reads at least so many times, and until the writer is done.
const READS: u64 = 10_000;
/// Invocations the writer starts and ends.
const INVOCATIONS: u64 = 400;
/// Invocations per journal; the writer starts a new journal after so many, so every
/// read stays small while the test runs long.
const PER_JOURNAL: u64 = 4;

fn journal(dir: &Path, round: u64) -> PathBuf {
    dir.join(format!("round-{round}")).join("journal.jsonl")
}

/// A record large enough that its final line spans several pages of the file.
fn record(n: u64) -> JournalRecord {
    JournalRecord {
        v: JOURNAL_VERSION,
        complete: false,
        invocation: n as u32 + 1,
        pid: n as u32 + 1,
        ppid: 1,
        argv: vec![
            "agy".into(),
            "-p".into(),
            format!("{n} {}", "x".repeat(5000)),
        ],
        cwd: "/".into(),
        env: BTreeMap::new(),
        mode: None,
        rule: None,
        conversation_id: None,
        continued_conversation: None,
        conversation_turn: None,
        children: Vec::new(),
        started_us: n,
        ended_us: None,
        stdin: StdinLog::default(),
        signals: Vec::new(),
        exit: None,
        files: Vec::new(),
        stdout_bytes: 0,
        stderr_bytes: 0,
        stdout_head: String::new(),
        stderr_head: String::new(),
    }
}

/// One invocation, start to end: head and a stdin line in the live copy, then the final
/// record, which removes the live copy.
fn invocation(journal: &Path, n: u64) {
    let mut rec = record(n);
    let mut copy = LiveCopy::new(journal, rec.pid, rec.started_us);
    copy.head(&rec).expect("head");
    let line = StdinLine {
        at_us: n,
        text: "x".repeat(5000),
        rule: None,
    };
    copy.append(&LiveEntry::StdinLine {
        line: line.clone(),
        bytes: 5001,
    })
    .expect("line");
    rec.stdin.lines.push(line);
    (rec.complete, rec.ended_us) = (true, Some(n + 1));
    rec.exit = Some(ExitRecord {
        code: Some(0),
        signal: None,
    });
    append_final(journal, &rec).expect("final");
}

/// The writer's progress, shared with the reader.
#[derive(Default)]
struct Progress {
    /// The journal (round) the writer writes.
    round: AtomicU64,
    /// Set once the writer wrote all its invocations; the reader sets it to stop a
    /// writer whose reader failed.
    done: AtomicBool,
}

/// Writes [`INVOCATIONS`] invocations as fast as it can, starting a new journal every
/// [`PER_JOURNAL`] and removing the journal two before the one it writes.
fn write_invocations(dir: &Path, progress: &Progress) {
    for n in 0..INVOCATIONS {
        if progress.done.load(Ordering::SeqCst) {
            return;
        }
        let round = n / PER_JOURNAL;
        if n % PER_JOURNAL == 0 {
            progress.round.store(round, Ordering::SeqCst);
            if round >= 2 {
                let old = journal(dir, round - 2);
                std::fs::remove_dir_all(old.parent().expect("round dir")).expect("old round");
            }
        }
        invocation(&journal(dir, round), n);
    }
    progress.done.store(true, Ordering::SeqCst);
}

#[test]
fn reads_while_invocations_end_never_fail_duplicate_or_lose_a_record() {
    let dir = tempfile::tempdir().expect("dir");
    let progress = Progress::default();
    std::thread::scope(|s| {
        let writer = s.spawn(|| write_invocations(dir.path(), &progress));
        let result = std::panic::catch_unwind(|| read_while_written(dir.path(), &progress));
        progress.done.store(true, Ordering::SeqCst);
        writer.join().expect("writer");
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    });
}

/// Reads the journal the writer is writing [`READS`] times, and on until the writer is
/// done; each read must succeed, hold each invocation once, and hold every invocation
/// the previous read of the same journal held (unless the writer removed that journal
/// meanwhile).
fn read_while_written(dir: &Path, progress: &Progress) {
    let mut seen: Option<(u64, BTreeSet<u32>)> = None;
    for m in 1.. {
        if m > READS && progress.done.load(Ordering::SeqCst) {
            break;
        }
        let round = progress.round.load(Ordering::SeqCst);
        let records =
            read_journal(&journal(dir, round)).unwrap_or_else(|e| panic!("read {m} failed: {e}"));
        let pids: BTreeSet<u32> = records.iter().map(|r| r.pid).collect();
        assert_eq!(
            pids.len(),
            records.len(),
            "read {m} saw an invocation twice"
        );
        if progress.round.load(Ordering::SeqCst) >= round + 2 {
            seen = None; // removed while read
            continue;
        }
        if let Some((_, before)) = seen.as_ref().filter(|(r, _)| *r == round) {
            let lost: Vec<_> = before.difference(&pids).collect();
            assert!(lost.is_empty(), "read {m} lost invocations {lost:?}");
        }
        seen = Some((round, pids));
    }
}
