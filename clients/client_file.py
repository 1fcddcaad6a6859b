"""Reads a client's `client.toml` and reports every problem in it, each with
file:line:col and a hint, before anything runs.

[client]: name, registry, package, version, licence, shape, since (optional).
[[known]]: flow, versions ("all" or a list), kind, evidence.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

CLIENT_KEYS = ("name", "registry", "package", "version", "licence", "shape", "since")
CLIENT_REQUIRED = ("name", "registry", "package", "version", "licence", "shape")
KNOWN_KEYS = ("flow", "versions", "kind", "evidence")
KNOWN_KINDS = ("client bug", "unverified", "fake infidelity")
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


@dataclass
class Problem:
    path: Path
    line: int
    col: int
    message: str
    hint: str

    def __str__(self) -> str:
        return f"error: {self.message}\n  --> {self.path}:{self.line}:{self.col}\nhelp: {self.hint}"


def _did_you_mean(word: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    listed = ", ".join(f"`{c}`" for c in choices)
    return f"expected one of {listed}" + (f"; did you mean `{close[0]}`?" if close else "")


class _Locator:
    """Finds where a table and its keys start in the file's text."""

    def __init__(self, text: str):
        self.lines = text.splitlines()

    def table(self, header: str, nth: int = 0) -> int:
        seen = -1
        for i, line in enumerate(self.lines):
            if line.strip() == header:
                seen += 1
                if seen == nth:
                    return i
        return 0

    def key(self, start: int, key: str) -> tuple[int, int]:
        for i in range(start + 1, len(self.lines)):
            line = self.lines[i]
            if line.lstrip().startswith("["):
                break
            if re.match(rf"\s*{re.escape(key)}\s*=", line):
                return i + 1, line.index(key) + 1
        return start + 1, 1


def _check_table(path, loc, table, start, allowed, required) -> list[Problem]:
    problems = []
    for key in table:
        if key not in allowed:
            line, col = loc.key(start, key)
            problems.append(Problem(path, line, col, f"unknown key `{key}`", _did_you_mean(key, allowed)))
    for key in required:
        if key not in table:
            problems.append(Problem(path, start + 1, 1, f"missing key `{key}`", f"add `{key} = …` here"))
    return problems


def _check_known(path, loc, i, known, flows) -> list[Problem]:
    start = loc.table("[[known]]", i)
    problems = _check_table(path, loc, known, start, KNOWN_KEYS, KNOWN_KEYS[:1] + KNOWN_KEYS[2:])
    if "kind" in known and known["kind"] not in KNOWN_KINDS:
        line, col = loc.key(start, "kind")
        problems.append(Problem(path, line, col, f"unknown kind `{known['kind']}`",
                                _did_you_mean(str(known["kind"]), KNOWN_KINDS)))
    if flows is not None and "flow" in known and known["flow"] not in flows:
        line, col = loc.key(start, "flow")
        problems.append(Problem(path, line, col, f"no flow `{known['flow']}` in flows.py",
                                _did_you_mean(str(known["flow"]), tuple(flows))))
    versions = known.get("versions", "all")
    if versions != "all" and not (isinstance(versions, list) and all(VERSION.match(str(v)) for v in versions)):
        line, col = loc.key(start, "versions")
        problems.append(Problem(path, line, col, "`versions` must be \"all\" or a list of versions",
                                'write `versions = ["1.2.6", …]` or leave it out for every version'))
    return problems


def load(path: Path, flows: list[str] | None = None) -> tuple[dict, list[Problem]]:
    """The client file and every problem found in it (none: it can run)."""
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+), column (\d+)", str(exc))
        line, col = (int(m[1]), int(m[2])) if m else (1, 1)
        return {}, [Problem(path, line, col, f"invalid TOML: {exc}", "fix the syntax at this place")]
    loc = _Locator(text)
    problems = []
    for key in data:
        if key not in ("client", "known"):
            problems.append(Problem(path, 1, 1, f"unknown table `{key}`", _did_you_mean(key, ("client", "known"))))
    start = loc.table("[client]")
    problems += _check_table(path, loc, data.get("client", {}), start, CLIENT_KEYS, CLIENT_REQUIRED)
    since = data.get("client", {}).get("since")
    if since is not None and not VERSION.match(str(since)):
        line, col = loc.key(start, "since")
        problems.append(Problem(path, line, col, f"`since` is not a version: `{since}`", 'write it as `"1.1.9"`'))
    for i, known in enumerate(data.get("known", [])):
        problems += _check_known(path, loc, i, known, flows)
    return data, problems
