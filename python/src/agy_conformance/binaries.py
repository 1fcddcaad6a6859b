"""Where the kit's binaries are: installed by this wheel next to the Python that runs it."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

#: The four programs the wheel installs.
BINARIES = ("agy-harness", "fake-agy", "fake-agy-acp", "agy-reference-adapter")


class BinaryNotFound(FileNotFoundError):
    """A kit binary is in none of the places looked at; the message lists them."""


def binary(name: str) -> Path:
    """The path of one of :data:`BINARIES`.

    Looked for in ``$AGY_CONFORMANCE_BIN_DIR`` (a folder, for a kit built from source),
    then in this environment's scripts folder (where ``pip install`` put it), then on
    ``PATH``.
    """
    if name not in BINARIES:
        raise ValueError(f"unknown binary `{name}`; expected one of {', '.join(BINARIES)}")
    tried: list[str] = []
    folders = []
    override = os.environ.get("AGY_CONFORMANCE_BIN_DIR")
    if override:
        folders.append(("$AGY_CONFORMANCE_BIN_DIR", Path(override)))
    folders.append(("this environment's scripts", Path(sysconfig.get_path("scripts"))))
    folders.append(("the Python's own folder", Path(sys.executable).parent))
    for label, folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
        tried.append(f"{label} `{candidate}`")
    found = shutil.which(name)
    if found:
        return Path(found)
    tried.append("PATH")
    raise BinaryNotFound(
        f"failed to find `{name}`: looked in {'; '.join(tried)}\n"
        "help: `pip install agy-conformance` installs it into the environment's bin/"
    )
