"""Waiting on the sandbox's agy processes, for flows that act while a turn runs."""

from __future__ import annotations

import os
import time
from pathlib import Path


def sandbox_agy_pids() -> list[int]:
    """Running processes named `agy` started inside this flow's sandbox."""
    needle = f"CLIENTS_SANDBOX={os.environ['CLIENTS_SANDBOX']}\0".encode()
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if Path(cmdline[0].decode(errors="replace")).name not in ("agy", "fake-agy"):
                continue
            if needle in Path(f"/proc/{pid}/environ").read_bytes():
                pids.append(int(pid))
        except (OSError, IndexError):
            continue
    return pids


def wait_for_agy(limit_s: float = 20.0) -> bool:
    """Wait until an agy turn is running (a condition, bounded), true when one is."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if sandbox_agy_pids():
            return True
        time.sleep(0.02)
    return False
