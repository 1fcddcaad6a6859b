#!/usr/bin/env python3
"""Driver protocol v1 for agent-loop-tool 0.2.0's antigravity provider (profile `text`).

JSON lines on stdin, one reply per request; each `ask` runs in a thread of its own, as
`Provider.run_captured()` blocks. The library runs unchanged: this file turns an `ask`
into the calls `agent-loop init` makes (agent_loop/cli.py:299-300,
agent_loop/plan_init.py:225), `get_provider("antigravity", model)`, `preflight()` and
`run_captured(prompt, timeout)`, and the `CapturedResult` into a reply. Nothing the
library does wrong is corrected here.

What an `ask` can say and how it reaches the provider:

- `prompt` → `prompt`; `timeout_s` → `timeout` (seconds, as given: the library has no
  time scale, adapter.toml says `scales_timeout_s = false`);
- `model` → `get_provider(..., model)`;
- `effort`, `permission`, `conversation`, `session`, `output`, `workdir` have no
  parameter: the provider runs `agy -p <prompt> [--model m]` in the caller's folder,
  passes `--dangerously-skip-permissions` only when the process environment has
  `ALLOW_AUTO_MODE_ANTIGRAVITY=1` (not set here), and reads agy's plain text. An ask
  with a `workdir` is refused.

The reply is what the `CapturedResult` says: `timed_out` → error `timed_out`; a
non-zero `returncode` → error `exit_code` with agy's stderr, as `agent-loop init`
reports it (plan_init.py:226-235); otherwise the answer is `stdout`, as returned.
"""
import os
import sys

# Before the adapter: moves fd 1 to stderr, replies go to a private copy of stdout.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver_loop import failure, serve  # noqa: E402

from agent_loop.providers import ProviderError, get_provider  # noqa: E402


def ask(req: dict) -> dict:
    rid = req["id"]
    if req.get("workdir"):
        return failure(rid, "Unsupported", "the provider runs agy in the caller's folder: no workdir")
    try:
        provider = get_provider("antigravity", req.get("model") or None)
        provider.preflight()
        result = provider.run_captured(req["prompt"], timeout=float(req["timeout_s"]))
    except ProviderError as e:
        return failure(rid, "ProviderError", str(e))
    except Exception as e:  # anything unforeseen
        return failure(rid, type(e).__name__, str(e))
    if result.timed_out:
        return failure(rid, "timed_out", f"antigravity timed out after {req['timeout_s']}s")
    if result.returncode != 0:
        detail = result.stderr.strip()
        return failure(rid, "exit_code",
                       f"antigravity exited with code {result.returncode}" + (f": {detail}" if detail else ""))
    return {"id": rid, "ok": True, "result": {"text": result.stdout}}


if __name__ == "__main__":
    serve("agent-loop-tool 0.2.0 antigravity provider", ask)
