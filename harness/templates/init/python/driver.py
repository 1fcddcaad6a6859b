#!/usr/bin/env python3
"""Driver protocol v1 (docs/driver-protocol.md) for an adapter of the __PROFILE__ profile.

Written by `agy-harness init`. agy-harness starts this program with the command of
__CONFIG__ and sends one JSON request per line on stdin; each `op_*` function below
answers one op by calling your adapter. Until you fill one in, it fails its op with
the error `NotImplemented`.

The environment (docs/driver-protocol.md, "Process and environment"): `HOME` is a
sandbox, `PATH` starts with fake-agy installed as `agy` (`AGY_BIN` overrides it),
`AGY_DRIVER_WORK_DIR` is the adapter's workspace and the cwd, `AGY_DRIVER_STATE_DIR`
survives a restart, and `AGY_HARNESS_TIME_SCALE` multiplies the adapter's own waits.
"""
import json
import os
import sys

PROFILES = ["__PROFILE__"]


class OpError(Exception):
    """A failed op. `name` is your adapter's error name, mapped to an outcome class by
    `[errors]` in the adapter config unless `outcome` is given here."""

    def __init__(self, name, message, outcome=None, retryable=None):
        super().__init__(message)
        self.name, self.outcome, self.retryable = name, outcome, retryable


def not_implemented(op, function):
    return OpError("NotImplemented", f"op `{op}` is not implemented yet: fill in {function} in driver.py")

__STUBS__
OPS = {
__DISPATCH__}


def answer(req):
    op = req.get("op")
    if op == "hello":
        return {"driver": "__NAME__", "profiles": PROFILES}
    if op == "shutdown":
        return {}
    handler = OPS.get(op)
    if handler is None:
        raise OpError("Unsupported", f"op `{op}` is not one this driver implements", outcome="permanent")
    return handler(req)


def main():
    # Replies go to a private copy of stdout; fd 1 then points at stderr, so whatever a
    # library prints cannot corrupt the protocol stream.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    # One request at a time: the next line is read once this one is answered. The
    # harness may send requests together (oneshot's two-concurrent-generations): to
    # serve them at once, answer each on its own thread (replies go by `id`, in any
    # order, one whole line per write).
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        reply = {"id": req.get("id")}
        try:
            result = answer(req)
            reply.update({"ok": True, "result": result or {}})
        except OpError as e:
            reply.update({"ok": False, "error": {"name": e.name, "message": str(e)}})
            if e.outcome is not None:
                reply["outcome"] = e.outcome
            if e.retryable is not None:
                reply["retryable"] = e.retryable
        out.write(json.dumps(reply) + "\n")
        out.flush()
        if req.get("op") == "shutdown":
            return


if __name__ == "__main__":
    main()
