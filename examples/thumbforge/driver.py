#!/usr/bin/env python3
"""Driver protocol v1 for thumbforge 0.1.1's `AntigravityProvider` (oneshot profile).

JSON lines on stdin, one reply per request, requests handled concurrently (the provider
allows two generations at once). The provider runs unchanged; this file only translates
requests into `GenerationRequest`s and thumbforge's `ProviderError`s into replies.
"""
import asyncio
import json
import math
import os
import sys

# Libraries log to stdout: structlog's default logger prints there, and the provider
# warns through it. Keep a private copy of the real stdout for the protocol and point
# file descriptor 1 (and `sys.stdout`) at stderr before anything else is imported.
_PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr

from pathlib import Path  # noqa: E402

from thumbforge.core.errors import ProviderError  # noqa: E402
from thumbforge.core.providers import GenerationRequest  # noqa: E402
from thumbforge.providers.antigravity import AntigravityProvider  # noqa: E402

#: One provider per distinct configuration, kept for the driver's life as thumbforge
#: keeps one per provider profile (its `agy --version` cache lives on the instance).
_PROVIDERS: dict[tuple, AntigravityProvider] = {}


def reply(obj: dict) -> None:
    _PROTOCOL.write(json.dumps(obj) + "\n")
    _PROTOCOL.flush()


def provider_for(req: dict) -> AntigravityProvider:
    settings = req.get("settings") or {}
    # thumbforge reads `timeout_s` as whole seconds; the harness may send a fraction.
    timeout = req.get("timeout_s", settings.get("timeout_s", 600))
    config = {
        "binary": os.environ.get("AGY_BIN") or "agy",
        "model": settings.get("model") or "",
        "effort": settings.get("effort") or "low",
        "timeout_s": max(1, math.ceil(float(timeout))),
        "skip_permissions": settings.get("skip_permissions") is True,
        "brain_dir": str(Path.home() / ".gemini" / "antigravity-cli" / "brain"),
    }
    key = tuple(sorted(config.items()))
    if key not in _PROVIDERS:
        _PROVIDERS[key] = AntigravityProvider(config)
    return _PROVIDERS[key]


def size_of(aspect: str | None) -> tuple[int, int]:
    """A thumbforge request states a size; the aspect's ratio is what the provider reads."""
    try:
        w, h = (int(x) for x in (aspect or "16:9").split(":"))
        return w * 120, h * 120
    except ValueError:
        return 1920, 1080


#: thumbforge's callers run at most `capabilities.max_concurrency` generations of a
#: provider at once (its batch service does); the driver keeps the same limit.
_SLOTS: asyncio.Semaphore | None = None


async def generate(req: dict) -> dict:
    global _SLOTS
    provider = provider_for(req)
    if _SLOTS is None:
        _SLOTS = asyncio.Semaphore(provider.capabilities.max_concurrency)
    async with _SLOTS:
        return await generate_now(provider, req)


async def generate_now(provider: AntigravityProvider, req: dict) -> dict:
    rid = req["id"]
    width, height = size_of(req.get("aspect"))
    work = Path(os.environ.get("AGY_DRIVER_WORK_DIR", ".")) / f"request-{rid}"
    request = GenerationRequest(
        prompt=req["prompt"],
        width=width,
        height=height,
        reference_images=tuple(Path(p) for p in req.get("references") or ()),
        idempotency_key=f"request-{rid}",
    )
    try:
        result = await provider.generate(request, workdir=work)
    except ProviderError as e:
        return {
            "id": rid,
            "ok": False,
            "retryable": e.retryable,
            "error": {"name": type(e).__name__, "message": e.message, "hint": e.hint},
        }
    usage = result.cost
    return {
        "id": rid,
        "ok": True,
        "result": {
            "image": str(result.image_path),
            "usage": {
                "input_tokens": usage.tokens_in if usage else None,
                "output_tokens": usage.tokens_out if usage else None,
            },
        },
    }


def outcome(rid, task: asyncio.Task) -> dict:
    """The reply for a finished generation. An exception that is not a thumbforge
    ProviderError is answered too, with its type, so the run fails with the evidence
    instead of waiting for a reply that never comes."""
    if task.cancelled():
        return {"id": rid, "ok": False,
                "error": {"name": "Cancelled", "message": "the generation was cancelled"}}
    error = task.exception()
    if error is not None:
        return {"id": rid, "ok": False,
                "error": {"name": type(error).__name__, "message": repr(error)}}
    return task.result()


async def main() -> None:
    loop = asyncio.get_running_loop()
    tasks = set()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        req = json.loads(line)
        rid, op = req["id"], req["op"]
        if op == "hello":
            reply({"id": rid, "ok": True,
                   "result": {"driver": "thumbforge 0.1.1", "profiles": ["oneshot"]}})
        elif op == "shutdown":
            await asyncio.gather(*tasks)
            reply({"id": rid, "ok": True})
            return
        elif op == "generate":
            task = asyncio.create_task(generate(req))
            task.add_done_callback(lambda t, rid=rid: reply(outcome(rid, t)))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        else:
            reply({"id": rid, "ok": False,
                   "error": {"name": "Unsupported", "message": f"op `{op}`"}})
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(main())
