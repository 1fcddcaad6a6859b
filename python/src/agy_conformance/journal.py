"""What fake-agy saw: its journal read into :class:`Invocation` objects.

fake-agy appends one JSON record per invocation when it ends (``journal.jsonl``), and
keeps a live copy of each running invocation in
``journal.jsonl.live/<pid>-<started_us>.jsonl``, so
a process still running or killed by SIGKILL is reported too (``complete`` false).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Invocation:
    """One agy process, as fake-agy journalled it."""

    #: The whole journal record (docs/fake-agy.md, "Journal").
    record: dict[str, Any] = field(repr=False)

    @property
    def argv(self) -> list[str]:
        """The full command line, ``argv[0]`` included."""
        return list(self.record.get("argv", []))

    @property
    def args(self) -> list[str]:
        """The command line without ``argv[0]``."""
        return self.argv[1:]

    @property
    def pid(self) -> int:
        """The process id."""
        return int(self.record.get("pid", 0))

    @property
    def complete(self) -> bool:
        """False while the process runs, or when it was killed before its final record."""
        return bool(self.record.get("complete", False))

    @property
    def stdin_lines(self) -> list[str]:
        """Every line that arrived on stdin, in order."""
        return [line["text"] for line in self.record.get("stdin", {}).get("lines", [])]

    @property
    def stdin_closed(self) -> bool:
        """Whether the client closed agy's stdin."""
        return self.record.get("stdin", {}).get("closed_us") is not None

    @property
    def user_messages(self) -> list[str]:
        """The texts of the stream-json user lines on stdin."""
        return [t for t in map(_user_text, self.stdin_lines) if t is not None]

    @property
    def signals(self) -> list[str]:
        """The signals received, in order (``["SIGTERM"]``)."""
        return [s["signal"] for s in self.record.get("signals", [])]

    @property
    def exit_code(self) -> int | None:
        """The exit code, or None when the process died by a signal or still runs."""
        return (self.record.get("exit") or {}).get("code")

    @property
    def exit_signal(self) -> str | None:
        """The signal the process died by, if it did."""
        return (self.record.get("exit") or {}).get("signal")

    @property
    def files(self) -> list[str]:
        """Files fake-agy wrote (images in the brain folder, scripted files, cache)."""
        return [f["path"] for f in self.record.get("files", [])]

    @property
    def prompt(self) -> str | None:
        """The print-mode prompt (``-p`` / ``--print``)."""
        value = self.flag_value("-p")
        return value if value is not None else self.flag_value("--print")

    def has_arg(self, token: str) -> bool:
        """Whether the command line has ``token``; ``"--flag value"`` matches both
        ``--flag value`` and ``--flag=value``."""
        args = self.args
        flag, sep, value = token.partition(" ")
        if not sep:
            return token in args
        pairs = zip(args, args[1:])
        return any(a == flag and b == value for a, b in pairs) or f"{flag}={value}" in args

    def flag_value(self, flag: str) -> str | None:
        """The value of ``flag`` (``--flag value`` or ``--flag=value``), the first given."""
        args = self.args
        for i, arg in enumerate(args):
            if arg == flag:
                return args[i + 1] if i + 1 < len(args) else None
            if arg.startswith(flag + "="):
                return arg[len(flag) + 1 :]
        return None


def _user_text(line: str) -> str | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or event.get("event") != "user":
        return None
    content = (event.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return None


def read_journal(journal: Path) -> list[Invocation]:
    """Every invocation of ``journal``: finished ones in the order they ended, then the
    ones still running (or killed) by start time. A missing journal means no invocation.

    fake-agy writes while this reads, so it reads what its protocol lets be seen: a last
    line without its newline is a final record still being appended, not yet a record;
    a live copy removed between listing and reading has ended. Live copies are read
    before final records, so an invocation ending meanwhile (final record appended,
    then live copy removed) is seen once, as one or the other, and never missed."""
    running = _read_live(journal)
    invocations = [Invocation(r) for r in _read_final(journal)]
    finished = {(i.pid, i.record.get("started_us")) for i in invocations}
    # A live copy of a finished invocation is a leftover of the moment between its
    # final record and the copy's removal.
    running = [r for r in running if (r.get("pid"), r.get("started_us")) not in finished]
    running.sort(key=lambda r: int(r.get("started_us", 0)))
    return invocations + [Invocation(r) for r in running]


def _complete_lines(data: bytes) -> bytes:
    """What a writer has finished of ``data``: everything up to its last newline (a line
    is written with its newline in one write call)."""
    return data[: data.rfind(b"\n") + 1]


def _read_final(journal: Path) -> list[dict[str, Any]]:
    try:
        data = journal.read_bytes()
    except FileNotFoundError:
        return []
    lines = _complete_lines(data).split(b"\n")
    return [_parse(line, journal, n) for n, line in enumerate(lines, 1) if line.strip()]


def _read_live(journal: Path) -> list[dict[str, Any]]:
    try:
        names = os.listdir(f"{journal}.live")
    except (FileNotFoundError, NotADirectoryError):
        return []
    records = []
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        try:
            data = Path(f"{journal}.live", name).read_bytes()
        except FileNotFoundError:
            continue  # it ended between the listing and the read
        record = _fold_live(data)
        if record is not None:
            records.append(record)
    return records


def _parse(line: bytes, path: Path, number: int) -> dict[str, Any]:
    try:
        value = json.loads(line.decode("utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}:{number}:1: journal record is not valid JSON: {e}") from e
    if not isinstance(value, dict):
        raise ValueError(f"{path}:{number}:1: journal record is not a JSON object")
    return value


def _fold_live(data: bytes) -> dict[str, Any] | None:
    """A live copy's entries folded into one record, as agy-protocol's reader does: the
    latest head, then the stdin lines, signals and files appended after it. A line torn
    by a kill is ignored."""
    record: dict[str, Any] | None = None
    lines: list[dict[str, Any]] = []
    signals: list[Any] = []
    files: list[Any] = []
    stdin_bytes = 0
    for text in _complete_lines(data).decode("utf-8", errors="replace").split("\n"):
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        if not isinstance(entry, dict) or len(entry) != 1:
            continue
        ((kind, body),) = entry.items()
        if kind == "head":
            record = dict(body)
            stdin_bytes = max(stdin_bytes, int(body.get("stdin", {}).get("bytes", 0)))
        elif kind == "stdin_line":
            lines.append(dict(body["line"]))
            stdin_bytes = max(stdin_bytes, int(body.get("bytes", 0)))
        elif kind == "line_rule" and 1 <= body.get("index", 0) <= len(lines):
            lines[body["index"] - 1]["rule"] = body.get("rule")
        elif kind == "signal":
            signals.append(body)
        elif kind == "file":
            files.append(body)
    if record is None:
        return None
    record["complete"] = False
    record["stdin"] = {**record.get("stdin", {}), "lines": lines, "bytes": stdin_bytes}
    record["signals"] = signals
    record["files"] = files
    return record
