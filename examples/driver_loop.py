"""The driver protocol v1 loop the Python example drivers share (docs/driver-protocol.md).

Importing it moves fd 1 to stderr and keeps a private copy of stdout for the replies, so
an adapter library that prints cannot break a reply line: import it before the adapter.
`serve(driver, ask)` answers `hello` and `shutdown` itself, runs each `ask` on a thread
of its own (two asks at once are two runs) and waits for them before the shutdown reply.
"""
import json
import os
import sys
import threading

_OUT_FILE = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
_OUT = threading.Lock()


def reply(obj: dict) -> None:
    with _OUT:
        _OUT_FILE.write(json.dumps(obj, ensure_ascii=False) + "\n")
        _OUT_FILE.flush()


def failure(rid, name: str, message: str) -> dict:
    return {"id": rid, "ok": False, "error": {"name": name, "message": message}}


def serve(driver: str, ask) -> None:
    threads = []
    shutdown_id = None
    for line in sys.stdin:
        req = json.loads(line)
        rid, op = req["id"], req["op"]
        if op == "hello":
            reply({"id": rid, "ok": True, "result": {"driver": driver, "profiles": ["text"]}})
        elif op == "shutdown":
            shutdown_id = rid
            break
        elif op == "ask":
            t = threading.Thread(target=lambda r=req: reply(ask(r)), daemon=True)
            t.start()
            threads.append(t)
        else:
            reply(failure(rid, "Unsupported", f"op `{op}`"))
    for t in threads:
        t.join()
    if shutdown_id is not None:
        reply({"id": shutdown_id, "ok": True})
