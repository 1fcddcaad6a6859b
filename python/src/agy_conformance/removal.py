""":class:`Made`: what a sandbox made in its folder, and its removal, which removes
nothing else and never follows a link.

A sandbox given a folder that did not exist made it (and any parent it had to make):
that folder goes whole. A sandbox given a folder that was there (``FakeAgy(".")`` in a
project) made only the entries of its layout that were not there yet: those go, and
everything else in the folder stays. Every removal goes through descriptors, each folder
opened from the one before it with ``O_NOFOLLOW``: a link met on the way is removed, never
entered.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

#: The entries a sandbox makes in its folder, a folder's own entries before it.
LAYOUT = (
    "bin/agy",
    "bin/.agy.tmp",
    "bin/agy_acp_server",
    "bin/.agy_acp_server.tmp",
    "script.toml",
    "journal.jsonl",
    "journal.jsonl.live",
    "home",
    "work",
    "bin",
    "state",
)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Made:
    """What a sandbox about to lay itself out in ``root`` will have made: call before it
    makes anything, then :meth:`remove` to take it away again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        missing = root
        while not missing.parent.exists() and missing.parent != missing:
            missing = missing.parent
        #: The outermost folder the sandbox makes, when ``root`` is not there yet.
        self.top: Path | None = None if os.path.lexists(root) else missing
        #: The entries of :data:`LAYOUT` that ``root`` does not hold yet.
        self.entries = [] if self.top else [e for e in LAYOUT if not os.path.lexists(root / e)]

    def remove(self) -> None:
        """Removes what the sandbox made; what it cannot reach without a link stays."""
        if self.top is not None:
            _remove_at(self.top.parent, [self.top.name])
        else:
            for entry in self.entries:
                _remove_at(self.root, entry.split("/"))


def _remove_at(folder: Path, parts: list[str]) -> None:
    """Removes ``folder/parts…`` reached from ``folder`` without following a link."""
    try:
        fd = os.open(folder, _DIR_FLAGS)
    except OSError:
        return
    try:
        for part in parts[:-1]:
            inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        mode = os.lstat(parts[-1], dir_fd=fd).st_mode
        if stat.S_ISDIR(mode):
            _rmtree_at(parts[-1], fd)
        else:
            os.unlink(parts[-1], dir_fd=fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _rmtree_at(name: str, dir_fd: int) -> None:
    """Removes the folder ``name`` of ``dir_fd`` with everything in it, by descriptor."""
    if sys.version_info >= (3, 11):
        # rmtree with dir_fd walks by descriptor and never follows a link.
        shutil.rmtree(name, dir_fd=dir_fd)
    else:  # pragma: no cover
        _rmtree_by_descriptor(name, dir_fd)


def _rmtree_by_descriptor(name: str, dir_fd: int) -> None:
    """``shutil.rmtree(name, dir_fd=…)`` for Python 3.9 and 3.10, which lack ``dir_fd``:
    each folder opened from its parent with ``O_NOFOLLOW``, a link unlinked, never entered."""
    fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        for entry in os.listdir(fd):
            if stat.S_ISDIR(os.lstat(entry, dir_fd=fd).st_mode):
                _rmtree_by_descriptor(entry, fd)
            else:
                os.unlink(entry, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)
