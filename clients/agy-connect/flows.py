"""agy-connect 0.1.3: its flows as its record says they go against real agy.

Each prompt is one bare `agy` process (no flags) with the session's whole history written
to stdin, stdin closed, and stdout read as plain text to its end (README, "The Solution
(Batch-Mode Strategy)"; adapter.py:64-91, process.py:44-55 and 86-99, session.py:34-45).
"""

import os

from agy_connect import Chat, Config
from flowkit import flow, main, workdir

PONG = "Reply with exactly the word pong."


def chat() -> Chat:
    return Chat(Config(working_directory=workdir()))


@flow("ask", expect={"text": "pong"},
      cite="README 'Synchronous Chatbot': chat.send('Hello!') returns the response; adapter.py:99-106")
def ask():
    c = chat()
    try:
        return {"text": c.send(PONG).strip()}
    finally:
        c.close()


@flow("second-turn-carries-history", expect={"answered": True, "history_len": 4},
      cite="README 'What did I just say?' and 'prepends the entire Python-side tracked history'; session.py:34-45")
def second_turn():
    c = chat()
    try:
        c.send("Say hello.")
        # The words are the model's (the whole history is one prompt); agy's part is an answer.
        text = c.send(PONG).strip()
        return {"answered": bool(text), "history_len": len(c.history())}
    finally:
        c.close()


@flow("stream", expect={"text": "pong", "chunks_nonempty": True},
      cite="README 'Streaming Responses': for chunk in chat.stream(...); stream.py:82-117 (SafeStreamer)")
def stream():
    c = chat()
    try:
        chunks = list(c.stream(PONG))
        return {"text": "".join(chunks).strip(), "chunks_nonempty": all(chunks) and bool(chunks)}
    finally:
        c.close()


@flow("signed-out-answers-nothing", expect={"text": "", "raised": None},
      cite="adapter.py:85-91: stdout is read to its end and agy's exit status is never looked at "
           "(agy signed out writes its error on stderr, docs/agy-versions.md 'Signed out')")
def signed_out():
    os.environ["FAKE_AGY_SIGNED_OUT"] = "1"
    c = chat()
    try:
        return {"text": c.send(PONG).strip(), "raised": None}
    finally:
        c.close()


if __name__ == "__main__":
    main()
