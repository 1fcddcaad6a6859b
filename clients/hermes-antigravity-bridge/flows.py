"""hermes-antigravity-bridge 0.1.0 (an OpenAI-compatible HTTP bridge in front of agy): the
flows of its Antigravity backend as its record says they go against real agy.

The backend checks agy with `--help` (the flags it needs), `--version` and `agy models`
(backends/antigravity.py:245-300), then runs one `agy --input-format text --output-format
stream-json --disable-slash-commands --sandbox --mode plan --print-timeout Ns --model M`
per request with the prompt on stdin (antigravity.py:185-205, 324-432), in a home of its
own whose settings.json must say `toolPermission: strict` (README, "Strict Permission
Verification"; antigravity.py:153-173).
"""

import json
import os
from pathlib import Path

from flowkit import flow, main
from hermes_antigravity_bridge.backends.antigravity import AntigravityBackend
from hermes_antigravity_bridge.config import AntigravityConfig

PONG = "Reply with exactly the word pong."
MODEL = "gemini-3.8-flash-high"  # config.py:89, its default model


def backend() -> AntigravityBackend:
    home = Path.home() / "bridge-home"
    settings = home / ".gemini/antigravity-cli/settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"toolPermission": "strict"}))
    # The version under test is the validated one: the bridge's documented setting
    # (config.py:102, `antigravity.validated_versions`).
    config = AntigravityConfig(binary=Path("agy"), home=home,
                               runtime_dir=Path(os.environ["TMPDIR"]) / "bridge-runtime",
                               validated_versions=(os.environ["FAKE_AGY_VERSION"],),
                               timeout_seconds=60, max_attempts=1)
    return AntigravityBackend(config)


@flow("readiness", expect={"status": "ready", "agy_version": "<FAKE_AGY_VERSION>", "has_model": True},
      cite="antigravity.py:245-300: --help lists every flag of _REQUIRED_FLAGS (31-39), "
           "--version's first line is the version, `agy models` lists ids before a tab (75-82)")
def readiness():
    r = backend().readiness()
    version = os.environ["FAKE_AGY_VERSION"]
    return {"status": r["status"], "agy_version": "<FAKE_AGY_VERSION>" if r["agy_version"] == version
            else r["agy_version"], "has_model": MODEL in r["models"]}


@flow("generate", expect={"response": "pong", "status": "SUCCESS", "has_conversation": True},
      cite="antigravity.py:434-462 and 411-432: the stream-json `result` SUCCESS with a response")
def generate():
    r = backend().generate(PONG, MODEL)
    return {"response": r.response, "status": r.status, "has_conversation": bool(r.conversation_id)}


@flow("generate-stream", expect={"deltas": "pong", "response": "pong"},
      cite="antigravity.py:464-535 and 396-401: text_delta of step_update events, then the result")
def generate_stream():
    deltas, response = [], None
    for item in backend().generate_stream(PONG, MODEL):
        if item["type"] == "delta":
            deltas.append(item["content"])
        elif item["type"] == "result":
            response = item["response"].response
    return {"deltas": "".join(deltas).strip(), "response": response}


@flow("unknown-model-is-refused", expect={"raised": "UnknownModel"},
      cite="antigravity.py:232-242: a model `agy models` does not list raises UnknownModel")
def unknown_model():
    backend().resolve_model("no-such-model")
    return {"raised": None}


@flow("signed-out-is-an-error", expect={"raised": "BackendError"},
      cite="antigravity.py:417-419: a non-zero exit raises BackendError with agy's output")
def signed_out():
    os.environ["FAKE_AGY_SIGNED_OUT"] = "1"
    backend().generate(PONG, MODEL)
    return {"raised": None}


if __name__ == "__main__":
    main()
