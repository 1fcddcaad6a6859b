"""The journal reader: final records in order, live copies folded, torn lines ignored."""
import fcntl
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from agy_conformance.journal import read_journal


def record(pid, started, **extra):
    return {"v": 1, "complete": True, "invocation": 1, "pid": pid, "ppid": 1,
            "argv": ["agy", "-p", "hi", "--model=m"], "cwd": "/", "env": {},
            "started_us": started, "stdin": {"bytes": 0}, "stdout_bytes": 0,
            "stderr_bytes": 0, **extra}


def test_a_missing_journal_has_no_invocation(tmp_path):
    assert read_journal(tmp_path / "journal.jsonl") == []


def test_final_records_come_first_then_live_ones_by_start(tmp_path):
    journal = tmp_path / "journal.jsonl"
    journal.write_text(json.dumps(record(10, 5, exit={"code": 3})) + "\n\n", encoding="utf-8")
    live = tmp_path / "journal.jsonl.live"
    live.mkdir()
    for pid, started in ((30, 9), (20, 7)):
        head = record(pid, started, complete=False)
        lines = [
            {"head": head},
            {"stdin_line": {"line": {"at_us": 1, "text": '{"event":"user","message":{"role":"user","content":"hey"}}'}, "bytes": 60}},
            {"line_rule": {"index": 1, "rule": "turn 1"}},
            {"signal": {"signal": "SIGTERM", "at_us": 2}},
            {"file": {"path": "/b/x.jpg", "bytes": 9}},
        ]
        text = "\n".join(json.dumps(x) for x in lines) + '\n{"signal": {"sig'
        (live / f"{pid}.jsonl").write_text(text, encoding="utf-8")
    # A leftover live copy of a finished invocation is not counted twice.
    (live / "10.jsonl").write_text(json.dumps({"head": record(10, 5)}) + "\n", encoding="utf-8")
    calls = read_journal(journal)
    assert [c.pid for c in calls] == [10, 20, 30]
    done, running = calls[0], calls[1]
    assert done.complete and done.exit_code == 3 and done.prompt == "hi"
    assert done.flag_value("--model") == "m" and done.has_arg("--model m")
    assert not running.complete
    assert running.user_messages == ["hey"]
    assert running.record["stdin"]["lines"][0]["rule"] == "turn 1"
    assert running.record["stdin"]["bytes"] == 60
    assert running.signals == ["SIGTERM"]
    assert running.files == ["/b/x.jpg"]


def test_a_broken_final_record_is_reported_with_its_line(tmp_path):
    journal = tmp_path / "journal.jsonl"
    journal.write_text(json.dumps(record(1, 1)) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"journal.jsonl:2:1: journal record is not valid JSON"):
        read_journal(journal)


def test_a_final_record_still_being_appended_is_not_yet_a_record(tmp_path):
    journal = tmp_path / "journal.jsonl"
    second = json.dumps(record(2, 2, argv=["agy", "-p", "é" * 50]), ensure_ascii=False).encode()
    cut = second.index("é".encode()) + 1  # inside the é: not even UTF-8 yet
    journal.write_bytes(json.dumps(record(1, 1)).encode() + b"\n" + second[:cut])
    assert [c.pid for c in read_journal(journal)] == [1]
    journal.write_bytes(json.dumps(record(1, 1)).encode() + b"\n" + second + b"\n")
    assert [c.pid for c in read_journal(journal)] == [1, 2]


PER_JOURNAL = 4


def _journal(root, n):
    return root / f"round-{n // PER_JOURNAL}" / "journal.jsonl"


def _invocation(journal, n):
    """One invocation as fake-agy writes it: a live copy with a head and a stdin line,
    then the final record appended in one write under a lock, then the copy removed."""
    live = Path(f"{journal}.live")
    live.mkdir(parents=True, exist_ok=True)
    copy = live / f"{n + 1}-{n}.jsonl"
    head = record(n + 1, n, complete=False, argv=["agy", "-p", f"{n} " + "x" * 5000])
    line = {"at_us": n, "text": "y" * 5000}
    with copy.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"head": head}) + "\n")
        f.flush()
        f.write(json.dumps({"stdin_line": {"line": line, "bytes": 5001}}) + "\n")
    final = {**head, "complete": True, "stdin": {"bytes": 5001, "lines": [line]}, "exit": {"code": 0}}
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (json.dumps(final) + "\n").encode())
    finally:
        os.close(fd)
    copy.unlink()


def test_reads_while_invocations_end_never_fail_duplicate_or_lose_one(tmp_path):
    """A writer thread starts and ends 400 invocations as fast as it can (a new journal
    every few, the one two before removed) while this reads the journal it writes
    10,000 times or more: no read fails, sees an invocation twice, or loses one the
    previous read of the same journal saw."""
    progress = {"round": 0}
    done = threading.Event()

    def write():
        for n in range(400):
            if done.is_set():
                return
            if n % PER_JOURNAL == 0:
                progress["round"] = n // PER_JOURNAL
                if n >= 2 * PER_JOURNAL:
                    shutil.rmtree(_journal(tmp_path, n - 2 * PER_JOURNAL).parent)
            _invocation(_journal(tmp_path, n), n)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        seen = None
        reads = 0
        while reads < 10_000 or not done.is_set():
            reads += 1
            current = progress["round"]
            pids = [c.pid for c in read_journal(_journal(tmp_path, current * PER_JOURNAL))]
            assert len(set(pids)) == len(pids), f"read {reads} saw an invocation twice: {pids}"
            if progress["round"] >= current + 2:
                seen = None  # removed while read
                continue
            if seen is not None and seen[0] == current:
                lost = seen[1] - set(pids)
                assert not lost, f"read {reads} lost invocations {sorted(lost)}"
            seen = (current, set(pids))
    finally:
        done.set()
        writer.join()
