#!/usr/bin/env python3
"""Driver protocol v1 for agy-headless-bridge 1.3.0 (profile `text`).

JSON lines on stdin, one reply per request; each `ask` runs in a thread of its own, as
the library's `run()` blocks. The library runs unchanged: this file only turns an `ask`
into one `run(...)` call, as the package's README shows it, and its return value or
exception into a reply. Nothing the library does wrong is corrected here.

What an `ask` can say and how it reaches `run()`:

- `prompt` → `prompt`; `timeout_s` → `timeout` (seconds, as given: the library has no
  time scale, adapter.toml says `scales_timeout_s = false`);
- `model` → `model`; `permission = "skip"` → `skip_permissions=True`;
- `effort` → `extra_args=["--effort", …]`: `run()` has no effort parameter, and
  `extra_args` is its passthrough for agy flags it does not name;
- a later ask of the same conversation label → `extra_args=["-c"]`: the library has no
  conversation API and its output carries no conversation id; the route its README
  gives for continuing is `agy -c` ("resume the session with `agy -c`");
- `conversation` (an agy id) → `extra_args=["--conversation", id]`;
- `output` is ignored: the library reads agy's plain-text output only;
- `workdir` cannot be expressed (agy runs in the caller's cwd): such an ask is refused.

The agy binary: `$AGY_BIN`, when the harness sets it, becomes `$AGY_PATH`, the
library's documented override; otherwise it finds `agy` on `PATH`.
"""
import os
import sys
import threading

# Before the adapter: moves fd 1 to stderr, replies go to a private copy of stdout.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver_loop import failure, serve  # noqa: E402

from agy_headless_bridge import (  # noqa: E402
    AgyExitError,
    AgyTimeoutError,
    __version__,
    run,
)

#: Conversation labels that have had an ask, and one lock per label: asks of one
#: conversation run one after the other, as a chat's turns do.
_LABELS: dict[str, threading.Lock] = {}
_LABELS_LOCK = threading.Lock()


def label_lock(label: str) -> tuple[threading.Lock, bool]:
    """The label's lock, and whether an ask of this label came before."""
    with _LABELS_LOCK:
        seen = label in _LABELS
        if not seen:
            _LABELS[label] = threading.Lock()
        return _LABELS[label], seen


def extra_args(req: dict, continues: bool) -> list[str]:
    args: list[str] = []
    if req.get("effort"):
        args += ["--effort", req["effort"]]
    if req.get("conversation"):
        args += ["--conversation", req["conversation"]]
    elif continues:
        args.append("-c")
    return args


def call_run(req: dict, continues: bool) -> dict:
    rid = req["id"]
    try:
        text = run(
            req["prompt"],
            timeout=float(req["timeout_s"]),
            model=req.get("model") or None,
            extra_args=extra_args(req, continues),
            skip_permissions=req.get("permission") == "skip",
        )
    except AgyTimeoutError as e:
        return failure(rid, "AgyTimeoutError", str(e))
    except AgyExitError as e:  # and its subclass AgyQuotaError
        # What the library's own CLI shows: agy's cleaned output, then the error.
        detail = f"{e}\n{e.output}" if e.output else str(e)
        return failure(rid, type(e).__name__, detail)
    except Exception as e:  # AgyNotFoundError, ValueError, or anything unforeseen
        return failure(rid, type(e).__name__, str(e))
    return {"id": rid, "ok": True, "result": {"text": text}}


def ask(req: dict) -> dict:
    if req.get("workdir"):
        return failure(req["id"], "Unsupported",
                       "agy-headless-bridge runs agy in the caller's cwd: no workdir")
    label = req.get("session")
    if label is None:
        return call_run(req, continues=False)
    lock, seen = label_lock(label)
    with lock:
        return call_run(req, continues=seen)


if __name__ == "__main__":
    agy_bin = os.environ.get("AGY_BIN")
    if agy_bin:
        os.environ["AGY_PATH"] = agy_bin
    serve(f"agy-headless-bridge {__version__}", ask)
