"""antigravitystreaming 0.1.0: its flows as its record says they go against real agy.

Each call is one `agy --output-format stream-json --dangerously-skip-permissions
--disable-slash-commands [--model M] [--effort E] --print PROMPT` process; text comes from
the `agent_response` steps' `text_delta` (README, "stream_text"; stream.py:198-213).
"""

import asyncio
import os

import antigravitystreaming as ags
from flowkit import flow, main
from flowkit_proc import wait_for_agy

PONG = "Reply with exactly the word pong."


def collect(**kw) -> str:
    return asyncio.run(ags.collect_text(follow_up=PONG, **kw))


@flow("ask", expect={"text": "pong"},
      cite="README: 'collect_text … returns the joined text'; stream.py:198-213 (text_delta of agent_response)")
def ask():
    return {"text": collect().strip()}


@flow("model-choice", expect={"text": "pong"}, since="1.1.27",
      cite="stream.py:22 and README: 'Pass model=\"gemini-3.8-flash-high\" … to pin one'")
def model_choice():
    return {"text": collect(model="gemini-3.8-flash-high").strip()}


@flow("effort", expect={"text": "pong"},
      cite="README: 'Pass effort=\"high\" (or low, medium, xhigh, max)'; stream.py:178-179")
def effort():
    return {"text": collect(effort="high").strip()}


@flow("unknown-model-is-an-error", expect={"raised": "AntigravityError"},
      cite="stream.py:376-380: a result with status ERROR raises AntigravityError(error)")
def unknown_model():
    collect(model="no-such-model")
    return {"raised": None}


@flow("signed-out-is-an-error", expect={"raised": "AntigravityError"},
      cite="stream.py:47-48 ('a turn failed before any text'), stream.py:376-380 and 401-404")
def signed_out():
    os.environ["FAKE_AGY_SIGNED_OUT"] = "1"
    collect()
    return {"raised": None}


@flow("cancel-stops-the-turn", expect={"ended": True, "text": ""},
      cite="README: 'Cancel an in-flight stream by setting the asyncio.Event passed as cancel_event'; "
           "stream.py:363-364 and 406 (_stop_process)")
def cancel():
    os.environ["FAKE_AGY_TURN_DURATION"] = "60s"

    async def go():
        cancel_event = asyncio.Event()
        task = asyncio.create_task(ags.collect_text(follow_up=PONG, cancel_event=cancel_event))
        started = await asyncio.to_thread(wait_for_agy)
        cancel_event.set()
        text = await asyncio.wait_for(task, 20)
        return {"ended": started, "text": text}

    return asyncio.run(go())


if __name__ == "__main__":
    main()
