#!/usr/bin/env python3
"""A stand-in driver for the harness's own tests: speaks driver protocol v1 and
misbehaves on request. Mode is argv[1]:

  ok             answer every op; `generate` succeeds with no image
  hang           answer `hello`, then never answer again
  ignore-term    like `hang`, and ignore SIGTERM
  grandchildren  like `hang`, after starting two grandchildren in new sessions
  escape         like `hang`, after starting a child in its own group and an orphaned
                 grandchild in a new session with an empty environment (no sandbox
                 marker)
  touch-home     write into $HOME/.gemini, then answer like `ok`
  count-starts   note each start in $AGY_DRIVER_STATE_DIR/starts; `generate` succeeds
                 only once the driver has been started twice (after a restart)
  init-first     `open` starts a persistent agy and waits up to 3 s for its `init`
                 line before it would write one (an adapter relying on `init` at
                 start); it fails the op when none came, closes agy's stdin otherwise

If STANDIN_READY names a FIFO, the driver writes one line there once it is
misbehaving: its pid and the pids of its grandchildren, space-separated.
"""
import json
import os
import select
import signal
import subprocess
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
children = []


def ready():
    path = os.environ.get("STANDIN_READY")
    if path:
        with open(path, "w") as f:
            f.write(" ".join(str(p) for p in [os.getpid()] + children) + "\n")


def open_waiting_for_init():
    """Starts a persistent agy and reads stdout until its `init` line (3 s at most)."""
    agy = subprocess.Popen(
        [os.environ.get("AGY_BIN", "agy"), "--input-format", "stream-json",
         "--output-format", "stream-json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ready, _, _ = select.select([agy.stdout], [], [], 3.0)
    line = agy.stdout.readline() if ready else b""
    agy.stdin.close()
    agy.wait()
    return b'"init"' in line


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


if mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "grandchildren":
    for _ in range(2):
        p = subprocess.Popen(["sleep", "1000"], start_new_session=True)
        children.append(p.pid)
if mode == "escape":
    children.append(subprocess.Popen(["sleep", "1000"]).pid)
    # The shell starts the grandchild and exits: the grandchild is an orphan in a
    # session of its own, with none of the sandbox's environment.
    shell = subprocess.run(
        ["/bin/sh", "-c", "/bin/sleep 1000 </dev/null >/dev/null 2>&1 & echo $!"],
        start_new_session=True, env={}, capture_output=True, text=True)
    children.append(int(shell.stdout.strip()))
if mode == "touch-home":
    home = os.environ["HOME"]
    os.makedirs(os.path.join(home, ".gemini", "antigravity-cli"), exist_ok=True)
    with open(os.path.join(home, ".gemini", "antigravity-cli", "touched"), "w") as f:
        f.write("x")

starts = 0
if mode == "count-starts":
    path = os.path.join(os.environ["AGY_DRIVER_STATE_DIR"], "starts")
    with open(path, "a") as f:
        f.write("start\n")
    with open(path) as f:
        starts = len(f.read().splitlines())

for line in sys.stdin:
    req = json.loads(line)
    op = req.get("op")
    if op == "hello":
        reply({"id": req["id"], "ok": True, "result": {"driver": "standin", "profiles": ["oneshot", "session"]}})
        continue
    if mode in ("hang", "ignore-term", "grandchildren", "escape"):
        ready()
        while True:
            signal.pause()
    if op == "shutdown":
        reply({"id": req["id"], "ok": True})
        break
    if op == "generate" and mode == "count-starts" and starts < 2:
        reply({"id": req["id"], "ok": False, "outcome": "transient", "retryable": True,
               "error": {"name": "NotRestarted", "message": f"{starts} start(s)"}})
    elif op == "open" and mode == "init-first" and not open_waiting_for_init():
        reply({"id": req["id"], "ok": False, "outcome": "timeout", "retryable": True,
               "error": {"name": "InitTimeout", "message": "no init before the first line"}})
    elif op == "generate":
        reply({"id": req["id"], "ok": True, "outcome": "success", "retryable": False})
    else:
        reply({"id": req["id"], "ok": True})
