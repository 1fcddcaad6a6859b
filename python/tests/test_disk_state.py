"""What agy leaves on disk, read the way Python clients read it: the conversation's
SQLite database (a chat library's resume flow), the `--log-file` line naming the
conversation, and the sign-in token that only a signed-in agy leaves."""
import json
import re
import sqlite3

import pytest


def _conversations(fake_agy):
    return fake_agy.home / ".gemini" / "antigravity-cli" / "conversations"


def _print_json(fake_agy, *extra):
    done = fake_agy.run(["-p", "say hello", "--output-format", "json", *extra])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_chat_library_finds_the_conversation_by_id_and_resumes_it(fake_agy):
    first = _print_json(fake_agy)
    conversation = first["conversation_id"]
    db = _conversations(fake_agy) / f"{conversation}.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        [(cascade,)] = conn.execute("SELECT cascade_id FROM trajectory_meta").fetchall()
        rows = conn.execute("SELECT idx, step_type FROM steps ORDER BY idx ASC").fetchall()
    assert cascade == conversation
    assert rows == [(0, 14), (1, 15)]
    second = _print_json(fake_agy, "--conversation", conversation)
    assert second["conversation_id"] == conversation
    assert second["num_turns"] == 2


def test_the_log_file_names_the_conversation(fake_agy):
    log = fake_agy.work_dir / "agy.log"
    env = _print_json(fake_agy, "--log-file", str(log))
    found = re.findall(r"Print mode: conversation=([0-9a-f-]{36})", log.read_text())
    assert found == [env["conversation_id"]]


def test_a_signed_in_agy_leaves_its_token_file(fake_agy):
    _print_json(fake_agy)
    token = fake_agy.home / ".gemini" / "antigravity-cli" / "antigravity-oauth-token"
    assert json.loads(token.read_text())["token"]["access_token"]


@pytest.mark.fake_agy(signed_out=True)
def test_a_signed_out_agy_leaves_no_token_and_no_conversation(fake_agy):
    assert fake_agy.run(["-p", "hi", "--output-format", "json"]).returncode == 1
    profile = fake_agy.home / ".gemini" / "antigravity-cli"
    assert not (profile / "antigravity-oauth-token").exists()
    assert not (profile / "conversations").exists()
