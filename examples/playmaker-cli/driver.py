#!/usr/bin/env python3
"""Driver protocol v1 for playmaker-cli 0.14.1's agy handler (profile `text`).

JSON lines on stdin, one reply per request; each `ask` runs in a thread of its own, as
`AgyHandler.dispatch()` and `.resume()` block. The library runs unchanged: this file
only turns an `ask` into one call, as playmaker's own dispatch does
(playmaker/agents/agy.py), and its return value or exception into a reply. Nothing the
library does wrong is corrected here.

What an `ask` can say and how it reaches the handler:

- `prompt` → `prompt`; `workdir` → `cwd` (default: the driver's working folder);
- `model` → `model` (the handler checks it against `agy models` first);
- the first ask of a conversation label → `dispatch()`; a later ask of the same label →
  `resume()` with the `agent_session_id` the first returned (agy's conversation id,
  read from agy's `--log-file`); asks of one label run one after the other, as a
  chat's turns do;
- `conversation` (an agy id) → `resume()` with that id;
- `timeout_s`, `effort`, `permission`, `output` have no parameter: the handler bounds a
  run with `--print-timeout 60m` from its config, always passes
  `--dangerously-skip-permissions` unless its config says `yolo = false`, and reads
  agy's plain text;
- an exception goes back with its class name (`RuntimeError`) and message.

agy is found on `PATH`, as the handler does (`[agents.agy] binary` unset).
"""
import os
import sys
import threading
from pathlib import Path

# Before the adapter: moves fd 1 to stderr, replies go to a private copy of stdout.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver_loop import failure, serve  # noqa: E402

from playmaker.agents.agy import AgyHandler  # noqa: E402

_HANDLER = AgyHandler()
#: Conversation label → (lock, agy conversation id of its first ask).
_LABELS: dict[str, list] = {}
_LABELS_LOCK = threading.Lock()


def call(req: dict, conversation: str | None) -> tuple[dict, str | None]:
    rid = req["id"]
    cwd = Path(req["workdir"]) if req.get("workdir") else Path.cwd()
    model = req.get("model") or None
    try:
        if conversation:
            res = _HANDLER.resume(req["prompt"], cwd, conversation, model=model)
        else:
            res = _HANDLER.dispatch(req["prompt"], cwd, model=model)
    except Exception as e:  # RuntimeError, or anything unforeseen
        return failure(rid, type(e).__name__, str(e)), None
    return ({"id": rid, "ok": True, "result": {
        "text": res.initial_output, "conversation_id": res.agent_session_id}},
        res.agent_session_id)


def ask(req: dict) -> dict:
    if req.get("conversation"):
        return call(req, req["conversation"])[0]
    label = req.get("session")
    if label is None:
        return call(req, None)[0]
    with _LABELS_LOCK:
        entry = _LABELS.setdefault(label, [threading.Lock(), None])
    with entry[0]:
        out, conv = call(req, entry[1])
        if entry[1] is None and conv:
            entry[1] = conv
        return out


if __name__ == "__main__":
    serve("playmaker-cli 0.14.1 AgyHandler", ask)
