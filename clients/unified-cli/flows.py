"""unified-cli 0.5.4 (its `gemini` provider, which drives agy): its flows as its record says
they go against real agy.

Each call is one `agy [--model M] [--conversation ID | --continue] --print-timeout Ns -p
PROMPT` process whose whole stdout is the answer (providers/gemini.py:150-192 and
304-324); the conversation id is the `conversations/<id>.db` agy wrote or touched
(gemini.py:251-293). The provider needs `UNIFIED_CLI_ENABLE_GEMINI=1` (README, "Disabled by
default"). Its default model is `gemini-3.5-flash` (gemini.py:97, README's model table).
"""

import os
from pathlib import Path

os.environ["UNIFIED_CLI_ENABLE_GEMINI"] = "1"

from flowkit import flow, main, workdir  # noqa: E402
from unified_cli import create  # noqa: E402

PONG = "Reply with exactly the word pong."
# The README's other Gemini model (its model table: default `gemini-3.5-flash`, strong
# `gemini-3.1-pro`); the flows past the first ask pass it as `model=` as a caller would.
PRO = "gemini-3.1-pro"
CONVERSATIONS = Path.home() / ".gemini/antigravity-cli/conversations"


def provider():
    return create("gemini", cwd=workdir())


def on_disk(session_id: str) -> bool:
    return bool(session_id) and (CONVERSATIONS / f"{session_id}.db").is_file()


@flow("ask-default-model", expect={"text": "pong", "session_on_disk": True},
      cite="README quick start: resp = create(...).chat(...); resp.text, resp.session_id; "
           "gemini.py:304-324 (stdout is the answer), gemini.py:265-293 (the .db agy wrote)")
def ask():
    r = provider().chat(PONG)
    return {"text": r.text.strip(), "session_on_disk": on_disk(r.session_id)}


@flow("resume-by-id", expect={"same_session": True, "answered": True},
      cite="__init__.py quick start: r2 = cli.chat(..., session_id=r1.session_id); gemini.py:174-175 "
           "(--conversation), gemini.py:277-281 (the requested id is returned when agy touched it)")
def resume_by_id():
    p = provider()
    r1 = p.chat("Say hello.", model=PRO)
    r2 = p.chat(PONG, session_id=r1.session_id, model=PRO)
    return {"same_session": bool(r1.session_id) and r2.session_id == r1.session_id,
            "answered": bool(r2.text.strip())}


@flow("continue-last", expect={"same_session": True, "answered": True},
      cite="gemini.py:17 ('--continue/-c resumes the most recent conversation') and 176-177")
def continue_last():
    p = provider()
    r1 = p.chat("Say hello.", model=PRO)
    r2 = p.chat(PONG, resume_last=True, model=PRO)
    return {"same_session": bool(r1.session_id) and r2.session_id == r1.session_id,
            "answered": bool(r2.text.strip())}


@flow("stream", expect={"text": "pong"},
      cite="__init__.py quick start: for message in cli.stream(...): message.kind == 'text'; "
           "gemini.py:333-534 (plain text, line-buffered)")
def stream():
    parts = [m.text for m in provider().stream(PONG, model=PRO) if m.kind == "text" and m.text]
    return {"text": "".join(parts).strip()}


if __name__ == "__main__":
    main()
