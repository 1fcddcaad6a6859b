#!/usr/bin/env python3
"""Driver protocol v1 for wechatbridge-cli 1.7.1's agy backend (profile `text`).

JSON lines on stdin, one reply per request; each `ask` runs its own event loop in a
thread of its own. The library runs unchanged: this file turns an `ask` into one
`await wechatbridge.agy.run_agy(prompt, user_id, timeout)`, the call the bridge makes
for each message a WeChat user sends, and the reply text it returns into a reply.
Nothing the library does wrong is corrected here.

What an `ask` can say and how it reaches `run_agy()`:

- `prompt` → `prompt`; `timeout_s` → `timeout` (seconds, as given: the library has no
  time scale, adapter.toml says `scales_timeout_s = false`);
- a conversation label → `user_id`: the bridge keeps one session folder per user and
  continues that user's agy conversation with `-c` there (its HOME and working
  folder); asks of one label run one after the other, as one user's messages do; an
  ask without a label gets a user of its own;
- `model`, `effort`, `permission`, `conversation`, `workdir` and `output` have no
  parameter: model and effort are a user's preferences set by slash command, the bridge
  always passes `--dangerously-skip-permissions`, and it reads agy's plain text.

The reply: `run_agy()` returns the text the bridge would send to the user. It counts
as a failure exactly when the bridge itself does not count it a success
(wechatbridge/agy.py:366: the empty-output reply `EMPTY_REPLY`, or a ❌/🔔 bubble,
`is_bridge_formatted_reply()`); the error is then named by the bubble's title (the
bridge's own category, wechatbridge/runner_common.py:757-871), which `[errors]` in
adapter.toml maps to an outcome, and its message is the whole reply.
"""
import asyncio
import os
import sys
import threading
import uuid

# Before the adapter: moves fd 1 to stderr, replies go to a private copy of stdout.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver_loop import failure, serve  # noqa: E402

from wechatbridge.agy import run_agy  # noqa: E402
from wechatbridge.runner_common import EMPTY_REPLY, is_bridge_formatted_reply  # noqa: E402

_LABELS: dict[str, threading.Lock] = {}
_LABELS_LOCK = threading.Lock()


def title_of(text: str) -> str:
    """The bubble's title (`❌ **title** ❌`), or the first line of EMPTY_REPLY."""
    head = text.lstrip().split("\n", 1)[0].strip()
    parts = head.split("**")
    return parts[1].strip() if len(parts) >= 3 else head.lstrip("❌🔔 ").strip()


def call(req: dict, user_id: str) -> dict:
    rid = req["id"]
    try:
        text, _artifacts = asyncio.run(run_agy(req["prompt"], user_id, timeout=float(req["timeout_s"])))
    except Exception as e:  # anything unforeseen
        return failure(rid, type(e).__name__, str(e))
    if text == EMPTY_REPLY or is_bridge_formatted_reply(text):
        return failure(rid, title_of(text), text)
    return {"id": rid, "ok": True, "result": {"text": text}}


def ask(req: dict) -> dict:
    label = req.get("session")
    if label is None:
        return call(req, f"ask-{uuid.uuid4().hex}")
    with _LABELS_LOCK:
        lock = _LABELS.setdefault(label, threading.Lock())
    with lock:
        return call(req, f"label-{label}")


if __name__ == "__main__":
    serve("wechatbridge-cli 1.7.1 run_agy", ask)
