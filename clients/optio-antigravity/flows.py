"""optio-antigravity 0.3.8: the flows of its AntigravityConversation as its record says they
go against real agy.

A conversation is synthesised from one `agy -p [--conversation ID] [--model M]
--dangerously-skip-permissions TEXT` process per turn, run under a PTY (`script -qec`);
turn 1 passes no `--conversation`, and the id agy minted is then read from
`cache/last_conversations.json` (keyed by the working folder); the answer is the content
of the turn's last `PLANNER_RESPONSE` line in the conversation's
`brain/<id>/.system_generated/logs/transcript.jsonl` (conversation.py:1-52, 186-261,
386-405). It runs on optio-host's LocalHost.
"""

import asyncio
import json
import os
from pathlib import Path

from flowkit import flow, main, workdir
from flowkit_proc import wait_for_agy
from optio_antigravity.conversation import AntigravityConversation
from optio_host.host import LocalHost

PONG = "Reply with exactly the word pong."
LAST = Path.home() / ".gemini/antigravity-cli/cache/last_conversations.json"


async def conversation(**kw) -> tuple[AntigravityConversation, list[str]]:
    host = LocalHost(taskdir=workdir())
    await host.setup_workdir()
    conv = AntigravityConversation(host=host, agy_path="agy", cwd=host.workdir,
                                   home=str(Path.home()), env=dict(os.environ), **kw)
    answers: list[str] = []
    conv.on_message(lambda m: answers.append(m.text))
    return conv, answers


def minted_for(folder: str) -> str | None:
    try:
        return json.loads(LAST.read_text()).get(folder)
    except (OSError, ValueError):
        return None


@flow("first-turn", expect={"answer": "pong", "conversation_found": True},
      cite="conversation.py:9-19 (turn 1 without --conversation; the id from last_conversations.json "
           "keyed by the workdir), 20-27 and 252-256 (the answer: the last PLANNER_RESPONSE content)")
def first_turn():
    async def go():
        conv, answers = await conversation()
        await conv.send(PONG)
        found = conv._conversation_id is not None and conv._conversation_id == minted_for(conv._cwd)
        await conv.close()
        return {"answer": answers[-1].strip() if answers else None, "conversation_found": found}
    return asyncio.run(go())


@flow("second-turn-continues", expect={"answers": 2, "resumed": True, "same_conversation": True},
      cite="conversation.py:17-19 ('every later turn resumes it via --conversation <uuid> (verified: "
           "this appends to the SAME transcript and continues context)'), 395-397")
def second_turn():
    async def go():
        conv, answers = await conversation()
        await conv.send("Say hello.")
        first = conv._conversation_id
        await conv.send(PONG)
        resumed = conv.last_argv_contains(f"--conversation {first}")
        same = minted_for(conv._cwd) == first
        await conv.close()
        return {"answers": sum(1 for a in answers if a.strip()), "resumed": resumed, "same_conversation": same}
    return asyncio.run(go())


@flow("model-switch", expect={"answer": "pong"}, since="1.1.27",
      cite="conversation.py:291-301 (set_control('model'): the next turn's --model)")
def model_switch():
    async def go():
        conv, answers = await conversation()
        await conv.set_control("model", "gemini-3.8-flash-high")
        await conv.send(PONG)
        await conv.close()
        return {"answer": answers[-1].strip() if answers else None}
    return asyncio.run(go())


@flow("interrupt", expect={"raised": "RuntimeError", "message": "agy -p turn interrupted"},
      cite="conversation.py:46-48 ('interrupt() kills the in-flight -p process'), 234-236 and 270-289")
def interrupt():
    os.environ["FAKE_AGY_TURN_DURATION"] = "60s"

    async def go():
        conv, _ = await conversation()
        turn = asyncio.create_task(conv.send(PONG))
        await asyncio.to_thread(wait_for_agy)
        await conv.interrupt()
        try:
            await asyncio.wait_for(turn, 20)
        except RuntimeError as exc:
            return {"raised": "RuntimeError", "message": str(exc)}
        finally:
            await conv.close()
        return {"raised": None}
    return asyncio.run(go())


if __name__ == "__main__":
    main()
