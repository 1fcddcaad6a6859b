#!/usr/bin/env python3
"""Driver protocol v1 for adapter.py: JSON lines on stdin, one reply per request.

The reply leaves out `outcome`: adapter.toml maps the adapter's error names to outcome
classes, as a driver for an existing adapter would.
"""
import json
import os
import sys

from adapter import AntigravityProvider, ProviderError


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    provider = AntigravityProvider(
        binary=os.environ.get("AGY_BIN", "agy"),
        workdir=os.environ.get("AGY_DRIVER_WORK_DIR", "."),
        time_scale=float(os.environ.get("AGY_HARNESS_TIME_SCALE", "1")),
    )
    for line in sys.stdin:
        req = json.loads(line)
        rid, op = req["id"], req["op"]
        if op == "hello":
            reply({"id": rid, "ok": True, "result": {"driver": "python-oneshot", "profiles": ["oneshot"]}})
        elif op == "shutdown":
            reply({"id": rid, "ok": True})
            return
        elif op == "generate":
            settings = req.get("settings") or {}
            try:
                path = provider.generate(
                    req["prompt"], aspect=req.get("aspect"), timeout_s=req.get("timeout_s", 600),
                    model=settings.get("model"), effort=settings.get("effort"),
                    skip_permissions=bool(settings.get("skip_permissions")))
                reply({"id": rid, "ok": True, "result": {"image": path}})
            except ProviderError as e:
                reply({"id": rid, "ok": False, "retryable": e.retryable,
                       "error": {"name": type(e).__name__, "message": str(e)}})
        else:
            reply({"id": rid, "ok": False, "error": {"name": "Unsupported", "message": f"op `{op}`"}})


if __name__ == "__main__":
    main()
