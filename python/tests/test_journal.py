"""The journal reader: final records in order, live copies folded, torn lines ignored."""
import json

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
