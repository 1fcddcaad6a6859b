#!/usr/bin/env python3
# Stand-in for `agy -p … --output-format json`, driven by STANDIN_* variables.
# Facts it imitates: one envelope on stdout (docs/agy-reference.md §2.1), the image in
# $HOME/.gemini/antigravity-cli/brain/<conversation_id>/ (docs/spike-records.md S2), the print-timeout
# envelope and stderr notice (S6c), the image-quota prose (S7 correction).
import json, os, shutil, signal, subprocess, sys, time, uuid, fcntl

def log(**rec):
    rec["pid"] = os.getpid()
    fd = os.open(os.environ["STANDIN_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(rec) + "\n").encode())
    os.close(fd)

def counter(delta):
    # Counts running stand-ins; returns (now, high-water mark).
    path = os.environ["STANDIN_LOG"] + ".running"
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        now, high = (list(map(int, f.read().split())) + [0, 0])[:2]
        now += delta
        high = max(high, now)
        f.seek(0); f.truncate(); f.write(f"{now} {high}")
        return now, high

log(event="start", argv=sys.argv[1:], cwd=os.getcwd())
mode = os.environ.get("STANDIN_MODE", "image")
conv = str(uuid.uuid4())
usage = {"input_tokens": 62753, "output_tokens": 4953, "thinking_tokens": 4459,
         "cache_read_tokens": 85548, "total_tokens": 67706}
zero = {k: 0 for k in usage}

def envelope(status="SUCCESS", response="Done.", error=None, u=usage, cid=conv):
    env = {"conversation_id": cid, "status": status, "response": response}
    if error:
        env["error"] = error
    env.update({"duration_seconds": 17.41, "num_turns": 1, "usage": u})
    print(json.dumps(env, separators=(",", ":")), flush=True)

def brain():
    d = os.path.join(os.environ["HOME"], ".gemini", "antigravity-cli", "brain", conv)
    os.makedirs(os.path.join(d, "scratch"), exist_ok=True)
    return d

if mode == "image":
    shutil.copy(os.environ["STANDIN_JPEG"], os.path.join(brain(), "image_1764480000000.jpg"))
    envelope()
elif mode == "two-images":
    shutil.copy(os.environ["STANDIN_JPEG"], os.path.join(brain(), "a_1.jpg"))
    shutil.copy(os.environ["STANDIN_JPEG"], os.path.join(brain(), "b_2.jpg"))
    envelope()
elif mode == "print-timeout":
    brain()
    sys.stderr.write("[agy] print timeout after 1s with turn in progress; returning partial output\n")
    envelope(response="", u=zero)
elif mode == "quota":
    brain()
    envelope(response="429 Too Many Requests: RESOURCE_EXHAUSTED: you have exhausted your capacity on the image model (gemini-3.1-flash-image).")
elif mode == "auth":
    envelope(status="ERROR", response="", error="authentication failed or timed out", u=zero, cid="")
    sys.exit(1)
elif mode == "garbage":
    sys.stderr.write("panic: runtime error\n")
    print("{not json", flush=True)
    sys.exit(2)
elif mode == "hang":
    signal.signal(signal.SIGTERM, lambda *_: log(event="signal", name="TERM"))
    child = subprocess.Popen(["sleep", "1000"])
    log(event="grandchild", child=child.pid)
    while True:
        time.sleep(1)
elif mode == "barrier":
    # Blocks until two stand-ins run at once (or 20 s pass), then succeeds.
    counter(+1)
    deadline = time.time() + 20
    while time.time() < deadline:
        now, high = counter(0)
        if high >= 2:
            break
        time.sleep(0.01)
    shutil.copy(os.environ["STANDIN_JPEG"], os.path.join(brain(), "image_1.jpg"))
    counter(-1)
    envelope()
