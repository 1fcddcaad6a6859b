#!/usr/bin/env python3
# Stand-in for persistent `agy --input-format stream-json --output-format stream-json`.
# Each stdin line is one turn with its own steps and result (docs/agy-reference.md §4.3); step_index
# continues across turns; num_turns advances; init comes after the first line (§3.2).
# Quirks switched on by STANDIN_*: replaying the previous result and steps before a new
# turn (seed 000), a late step of the previous turn, failing a turn, hanging a turn,
# ignoring SIGTERM and EOF.
import json, os, signal, sys, time, uuid

def log(**rec):
    rec["pid"] = os.getpid()
    fd = os.open(os.environ["STANDIN_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(rec) + "\n").encode())
    os.close(fd)

def emit(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()

ignore_term = os.environ.get("STANDIN_IGNORE_TERM") == "1"
def on_term(*_):
    log(event="signal", name="TERM")
    if not ignore_term:
        sys.exit(143)
signal.signal(signal.SIGTERM, on_term)

log(event="start", argv=sys.argv[1:])
argv = sys.argv[1:]
conv = argv[argv.index("--conversation") + 1] if "--conversation" in argv else str(uuid.uuid4())
fail_turn = int(os.environ.get("STANDIN_FAIL_TURN", "0"))
hang_text = os.environ.get("STANDIN_HANG_ON", "\0")
turns, step, prev = 0, 0, []

def step_update(index, kind, text=None):
    s = {"conversation_id": conv, "step_index": index, "state": "DONE", "step_type": kind}
    if text is not None:
        s["text_delta"] = text
    return {"event": "step_update", "step_update": s}

for line in sys.stdin:
    msg = json.loads(line)["message"]["content"]
    log(event="line", text=msg)
    if turns == 0:
        emit({"event": "init", "conversation_id": conv,
              "init": {"cwd": os.getcwd(), "tools": ["generate_image"], "permission_mode": "request-review"}})
    if prev and os.environ.get("STANDIN_REPLAY") == "1":
        for ev in prev:
            emit(ev)
    if prev and os.environ.get("STANDIN_LATE") == "1":
        emit(step_update(step - 1, "agent_response", "LATE from turn %d. " % turns))
    if msg == hang_text:
        while True:
            time.sleep(1)
    turns += 1
    events = [step_update(step, "user_input"), step_update(step + 1, "agent_response", "answer to: " + msg)]
    step += 2
    if turns == fail_turn:
        result = {"conversation_id": conv, "status": "ERROR", "response": "", "error": "Individual quota reached.",
                  "duration_seconds": 1.0, "num_turns": turns, "usage": {"input_tokens": 1, "output_tokens": 1,
                  "thinking_tokens": 0, "cache_read_tokens": 0, "total_tokens": 2}}
    else:
        result = {"conversation_id": conv, "status": "SUCCESS", "response": "answer to: " + msg,
                  "duration_seconds": 1.5, "num_turns": turns, "usage": {"input_tokens": 100 * turns,
                  "output_tokens": 10, "thinking_tokens": 0, "cache_read_tokens": 0, "total_tokens": 100 * turns + 10}}
    events.append({"event": "result", "result": result})
    if os.environ.get("STANDIN_GARBAGE") == "1":
        sys.stdout.flush()
        sys.stdout.buffer.write(b"\xff\xfe not json\n")
        sys.stdout.buffer.flush()
    for ev in events:
        emit(ev)
    prev = events

log(event="eof")
if ignore_term:
    while True:
        time.sleep(1)
