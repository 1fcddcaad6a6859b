#!/usr/bin/env python3
"""Driver protocol v1 for trinity-agent 1.0.1163's Antigravity invoker (profile `text`).

JSON lines on stdin, one reply per request; each `ask` runs its own event loop in a
thread of its own. The library runs unchanged: this file turns an `ask` into one
`AntigravityPrintInvoker().invoke(PromptRequest(...))` (trinity/providers/invoker.py),
as trinity's own `AntigravityPrintAgent.send_and_wait()` does
(trinity/agents/antigravity_agent.py), and the `ProviderTurnResult` into a reply.
Nothing the library does wrong is corrected here.

What an `ask` can say and how it reaches the request:

- `prompt` → `prompt`; `timeout_s` → `timeout_seconds` (as given: the library has no
  time scale, adapter.toml says `scales_timeout_s = false`); `workdir` → `cwd`
  (default: the driver's working folder);
- `model` → `model` (none: `"default"`, which passes no `--model`);
- a later ask of the same conversation label → `provider_session_id`, the
  `provider_session.provider_session_id` the label's last result carried, as
  `AgentWrapper._remember_provider_session()` keeps it (trinity/agents/base.py:105-112);
  asks of one label run one after the other, as a chat's turns do;
- `conversation` (an agy id) → `provider_session_id`;
- `effort`, `permission`, `output` have no field: the request's `access` stays
  trinity's default, read-only (`--sandbox`), and agy's plain text is read.

The reply: status `ok` → the answer is `content`; any other status → an error named
by the status (`timeout`, `auth_required`, `empty`, `invalid`, …) whose message is
`content` and `raw_output`; `[errors]` in adapter.toml maps each to an outcome.
"""
import asyncio
import os
import sys
import threading
from pathlib import Path

# Before the adapter: moves fd 1 to stderr, replies go to a private copy of stdout.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver_loop import failure, serve  # noqa: E402

from trinity.models import Provider, ResponseStatus  # noqa: E402
from trinity.providers.invoker import AntigravityPrintInvoker, PromptRequest  # noqa: E402

#: Conversation label → [lock, provider session id of its last result].
_LABELS: dict[str, list] = {}
_LABELS_LOCK = threading.Lock()


def call(req: dict, session_id: str) -> tuple[dict, str]:
    rid = req["id"]
    request = PromptRequest(
        agent_name="agy",
        provider=Provider.ANTIGRAVITY_CLI,
        cli_command="agy",
        prompt=req["prompt"],
        cwd=Path(req["workdir"]) if req.get("workdir") else Path.cwd(),
        timeout_seconds=float(req["timeout_s"]),
        request_id=str(rid),
        model=req.get("model") or "default",
        provider_session_id=session_id,
        continuity_enabled=True,
    )
    try:
        result = asyncio.run(AntigravityPrintInvoker().invoke(request))
    except Exception as e:  # anything unforeseen
        return failure(rid, type(e).__name__, str(e)), ""
    session = result.metadata.get("provider_session") if isinstance(result.metadata, dict) else None
    new_id = str((session or {}).get("provider_session_id") or "").strip()
    if result.status != ResponseStatus.OK:
        detail = result.content + (f"\n{result.raw_output}" if result.raw_output else "")
        return failure(rid, result.status.value, detail), new_id
    out = {"text": result.content}
    if new_id:
        out["conversation_id"] = new_id
    return {"id": rid, "ok": True, "result": out}, new_id


def ask(req: dict) -> dict:
    if req.get("conversation"):
        return call(req, req["conversation"])[0]
    label = req.get("session")
    if label is None:
        return call(req, "")[0]
    with _LABELS_LOCK:
        entry = _LABELS.setdefault(label, [threading.Lock(), ""])
    with entry[0]:
        out, new_id = call(req, entry[1])
        if new_id:
            entry[1] = new_id
        return out


if __name__ == "__main__":
    serve("trinity-agent 1.0.1163 AntigravityPrintInvoker", ask)
