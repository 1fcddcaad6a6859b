"""The few functions every client's flows.py uses.

A flows.py declares its flows with `@flow(...)`: each names what the client's own record
says happens against real agy (`expect`, a dict of facts) and where it says so (`cite`:
the client's file:line or doc). The function drives the client, unchanged, and returns
what happened as the same kind of dict. `main()` lists the flows (`--list`) or runs one
(`NAME`) and prints one JSON line: the flow, what was expected, what was observed, and
whether they agree on every expected key.

The runner (clients/runner.py) gives each flow its own sandbox: HOME, TMPDIR and the
working folder are fresh, fake-agy is first on PATH as `agy`, FAKE_AGY_VERSION is set.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable

FLOWS: dict[str, dict[str, Any]] = {}


def flow(name: str, *, expect: dict[str, Any], cite: str, since: str | None = None):
    """Declare a flow: what the client's record expects of agy, and where it says so.

    `since` is the first agy version the flow applies to, when it needs a behaviour
    (a flag, a file) that earlier versions lack; before it the flow is not run.
    """

    def register(fn: Callable[[], dict[str, Any]]):
        FLOWS[name] = {"fn": fn, "expect": expect, "cite": cite, "since": since}
        return fn

    return register


def workdir() -> str:
    """The flow's own working folder, inside the sandbox."""
    return os.environ["CLIENTS_WORKDIR"]


def agy_version() -> tuple[int, ...]:
    """The agy version fake-agy models in this run."""
    return tuple(int(p) for p in os.environ["FAKE_AGY_VERSION"].split("."))


def raised(exc: BaseException) -> str:
    """How a flow records an exception the client raised: its class name."""
    return type(exc).__name__


def agrees(expect: dict[str, Any], observed: dict[str, Any]) -> bool:
    return all(observed.get(k, "<absent>") == v for k, v in expect.items())


def _applies(since: str | None) -> bool:
    if since is None:
        return True
    return agy_version() >= tuple(int(p) for p in since.split("."))


def _run(name: str) -> dict[str, Any]:
    entry = FLOWS[name]
    record: dict[str, Any] = {"flow": name, "expect": entry["expect"], "cite": entry["cite"]}
    if not _applies(entry["since"]):
        record.update(applies=False, since=entry["since"])
        return record
    try:
        observed = entry["fn"]()
    except Exception as exc:  # the client's own exception is an observation
        observed = {"raised": raised(exc), "message": str(exc)[-400:]}
        observed["trace"] = traceback.format_exc(limit=4)[-1200:]
    record.update(applies=True, observed=observed, as_real=agrees(entry["expect"], observed))
    return record


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: flows.py --list | FLOW")
    if sys.argv[1] == "--list":
        print("\n".join(FLOWS))
        return
    print(json.dumps(_run(sys.argv[1]), default=str), flush=True)
