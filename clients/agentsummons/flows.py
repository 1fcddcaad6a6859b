"""agentsummons 0.4.0 (a Go CLI bundled in the wheel, with a Python wrapper): the flows of its
`antigravity` harness as its record says they go against real agy.

`run(harness="antigravity", …)` runs `agy --add-dir DIR [--model M] [--conversation ID]
[--output-format json] -p PROMPT` once and returns an envelope: exit_code, stdout, stderr,
timed_out (wheel README, "API"; `agentsummons info`, the antigravity manifest, quoted
below as info).
"""

import json
import os
import subprocess

import agentsummons
from flowkit import flow, main, workdir

PONG = "Reply with exactly the word pong."


def run(**kw) -> dict:
    return agentsummons.run(harness="antigravity", prompt=kw.pop("prompt", PONG),
                            workdir=workdir(), timeout=kw.pop("timeout", 60), **kw)


def envelope(res: dict) -> dict:
    try:
        return json.loads(res["stdout"])
    except (TypeError, ValueError):
        return {}


@flow("ask-json", expect={"exit_code": 0, "status": "SUCCESS", "response": "pong", "has_conversation": True},
      cite="info: 'json-output --output-format json (envelope)'; 'the envelope carries conversation_id'")
def ask_json():
    res = run(json_output=True)
    env = envelope(res)
    return {"exit_code": res["exit_code"], "status": env.get("status"),
            "response": str(env.get("response", "")).strip(), "has_conversation": bool(env.get("conversation_id"))}


@flow("resume-by-conversation", expect={"exit_code": 0, "same_conversation": True},
      cite="info: 'resume --conversation <id>; in-band multi-turn with JSONOutput'; "
           "'--conversation appends to the same conversation … envelope conversation_id stability re-confirmed 1.2.11'")
def resume():
    first = envelope(run(json_output=True, prompt="Say hello."))
    res = run(json_output=True, resume=first.get("conversation_id"))
    second = envelope(res)
    return {"exit_code": res["exit_code"],
            "same_conversation": bool(first.get("conversation_id")) and
            second.get("conversation_id") == first.get("conversation_id")}


@flow("ask-text", expect={"exit_code": 0, "answered": True},
      cite="wheel README: res['exit_code'], res['stdout']; info: text-mode stdout carries the answer")
def ask_text():
    res = run()
    return {"exit_code": res["exit_code"], "answered": "pong" in res["stdout"]}


@flow("model-by-display-name", expect={"exit_code": 0, "status": "SUCCESS"}, since="1.1.13",
      cite="info: 'model --model \"<display name from agy models>\"'")
def model_by_label():
    listing = subprocess.run(["agy", "models"], capture_output=True, text=True, timeout=30).stdout
    label = next(line.split("\t", 1)[1] for line in listing.splitlines() if "\t" in line)
    res = run(json_output=True, model=label)
    return {"exit_code": res["exit_code"], "status": envelope(res).get("status")}


@flow("unknown-model-fails", expect={"exit_code_nonzero": True, "status": "ERROR"},
      cite="wheel README: 'A nonzero harness exit is data (res[\"exit_code\"])'")
def unknown_model():
    res = run(json_output=True, model="no-such-model")
    return {"exit_code_nonzero": res["exit_code"] != 0, "status": envelope(res).get("status")}


@flow("version-probe", expect={"installed": "<FAKE_AGY_VERSION>"},
      cite="info: 'version agy [--version]'; `agentsummons doctor` reports the installed version")
def version_probe():
    out = subprocess.run([agentsummons.binary_path(), "doctor", "--json"], capture_output=True,
                         text=True, timeout=30).stdout
    ant = next(h for h in json.loads(out)["harnesses"] if h["harness"] == "antigravity")
    v = os.environ["FAKE_AGY_VERSION"]
    return {"installed": "<FAKE_AGY_VERSION>" if ant.get("installed") == v else ant.get("installed")}


@flow("timeout-ends-the-run", expect={"timed_out": True},
      cite="wheel README: 'a timeout returns timed_out: True with the partial output'")
def timeout():
    os.environ["FAKE_AGY_TURN_DURATION"] = "60s"  # a turn that outlasts the caller's limit
    res = run(json_output=True, timeout=2)
    return {"timed_out": res.get("timed_out")}


if __name__ == "__main__":
    main()
