""":class:`FakeAgy`: a sandbox folder with fake-agy installed as ``agy``.

The same sandbox as the Rust ``fake_agy::mock::MockAgy`` (docs/fake-agy-mock.md):
``home/`` (agy's brain folder lands under it; your real ``~/.gemini`` is never
touched), ``work/`` (a scratch folder, the adapter's ``--add-dir``), ``bin/agy`` (a
two-line shell script that exports the sandbox's knobs and ``exec``s fake-agy: same pid,
same signals) and ``journal.jsonl``.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agy_conformance.binaries import binary
from agy_conformance.journal import Invocation, read_journal
from agy_conformance.removal import Made
from agy_conformance.script import ScriptSource, script_text

# fake-agy's knobs (agy-protocol's env list, docs/fake-agy.md).
FAKE_AGY_SCRIPT = "FAKE_AGY_SCRIPT"
FAKE_AGY_JOURNAL = "FAKE_AGY_JOURNAL"
FAKE_AGY_STATE_DIR = "FAKE_AGY_STATE_DIR"
FAKE_AGY_VERSION = "FAKE_AGY_VERSION"
FAKE_AGY_CALIBRATION = "FAKE_AGY_CALIBRATION"
FAKE_AGY_TIME_SCALE = "FAKE_AGY_TIME_SCALE"
FAKE_AGY_SIGNED_OUT = "FAKE_AGY_SIGNED_OUT"
FAKE_AGY_QUOTA_EXHAUSTED = "FAKE_AGY_QUOTA_EXHAUSTED"
#: What an adapter reads to find agy (docs/driver-protocol.md).
AGY_BIN = "AGY_BIN"
#: What an ACP client reads to find Antigravity's ACP server.
AGY_ACP_BIN = "AGY_ACP_BIN"
#: The name ACP clients look for on ``PATH`` (docs/agy-acp-reference.md §2.2).
AGY_ACP_SERVER = "agy_acp_server"
#: The variables that give agy the user's credentials or point it at the user's
#: profile (agy-protocol's ``AGY_USER_VARS``, docs/agy-reference.md §5.1):
#: :attr:`FakeAgy.env` drops them.
AGY_USER_VARS = (
    "ANTIGRAVITY_APP_DATA_DIR",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "CLOUDSDK_CONFIG",
)


class FakeAgy:
    """A sandbox with fake-agy as ``agy``, acting out a script (or its default
    behaviour), and the journal of every invocation.

    ``script`` is TOML text (docs/script-format.md), the path of a script file, or a
    mapping rendered to TOML; ``version`` models an agy version (docs/agy-versions.md);
    ``calibration`` is the path of a calibration file (docs/calibration-format.md, e.g.
    what ``agy-harness calibrate … --out agy.toml`` wrote) that fake-agy presents as agy,
    over ``version``;
    ``signed_out`` plays an agy without credentials; ``quota_exhausted`` an account whose
    quota is used up; ``time_scale`` multiplies every scripted delay.
    """

    def __init__(
        self,
        root: Path,
        *,
        script: ScriptSource | None = None,
        version: str | None = None,
        calibration: str | os.PathLike[str] | None = None,
        signed_out: bool = False,
        quota_exhausted: bool = False,
        time_scale: float | None = None,
        fake_agy: Path | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self._made = Made(self.root)
        for sub in ("home", "work", "bin", "state"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._fake = Path(fake_agy or binary("fake-agy")).resolve()
        self._fake_acp = Path(binary("fake-agy-acp")).resolve()
        self._knobs: dict[str, str] = {}
        self.configure(
            script=script,
            version=version,
            calibration=calibration,
            signed_out=signed_out,
            quota_exhausted=quota_exhausted,
            time_scale=time_scale,
        )

    def configure(
        self,
        *,
        script: ScriptSource | None = None,
        version: str | None = None,
        calibration: str | os.PathLike[str] | None = None,
        signed_out: bool = False,
        quota_exhausted: bool = False,
        time_scale: float | None = None,
    ) -> FakeAgy:
        """Sets the script and knobs for the next invocations (``bin/agy`` is rewritten;
        the journal and fake-agy's state are kept). A ``calibration`` that names no file
        raises :class:`FileNotFoundError`; a malformed one makes fake-agy fail with its
        problems located in it."""
        knobs = {
            "HOME": str(self.home),
            FAKE_AGY_JOURNAL: str(self.journal_path),
            FAKE_AGY_STATE_DIR: str(self.root / "state"),
        }
        if script is not None:
            path = self.root / "script.toml"
            path.write_text(script_text(script), encoding="utf-8")
            knobs[FAKE_AGY_SCRIPT] = str(path)
        if version is not None:
            knobs[FAKE_AGY_VERSION] = version
        if calibration is not None:
            knobs[FAKE_AGY_CALIBRATION] = str(_calibration_file(calibration))
        if signed_out:
            knobs[FAKE_AGY_SIGNED_OUT] = "1"
        if quota_exhausted:
            knobs[FAKE_AGY_QUOTA_EXHAUSTED] = "1"
        if time_scale is not None:
            knobs[FAKE_AGY_TIME_SCALE] = repr(float(time_scale))
        self._knobs = knobs
        self._write_wrapper()
        return self

    def _write_wrapper(self) -> None:
        lines = ["#!/bin/sh", "# fake-agy in an agy-conformance sandbox"]
        lines += [f"export {k}={shlex.quote(v)}" for k, v in self._knobs.items()]
        lines.append(f'exec {shlex.quote(str(self._fake))} "$@"')
        _write_script(self.agy, lines)
        # fake-agy-acp as ``agy_acp_server``: a real Antigravity ACP server later on
        # PATH is never the one an ACP client finds by name.
        _write_script(
            self.acp_server,
            [
                "#!/bin/sh",
                "# fake-agy-acp in an agy-conformance sandbox",
                f"export HOME={shlex.quote(str(self.home))}",
                f'exec {shlex.quote(str(self._fake_acp))} "$@"',
            ],
        )

    @property
    def acp_server(self) -> Path:
        """``bin/agy_acp_server``: fake-agy-acp, first on :attr:`path`."""
        return self.root / "bin" / AGY_ACP_SERVER

    @property
    def agy(self) -> Path:
        """``bin/agy``: give it to your adapter as its agy binary."""
        return self.root / "bin" / "agy"

    @property
    def bin_dir(self) -> Path:
        """The folder holding ``agy``."""
        return self.root / "bin"

    @property
    def home(self) -> Path:
        """The sandbox's HOME: agy's brain folder
        (``.gemini/antigravity-cli/brain/<conversation_id>/``, where images land) is under it."""
        return self.root / "home"

    @property
    def brain_dir(self) -> Path:
        """agy's brain folder in the sandbox's HOME."""
        return self.home / ".gemini" / "antigravity-cli" / "brain"

    @property
    def work_dir(self) -> Path:
        """A scratch folder for the adapter (its ``--add-dir``)."""
        return self.root / "work"

    @property
    def journal_path(self) -> Path:
        """The journal file (JSON lines, one record per invocation)."""
        return self.root / "journal.jsonl"

    @property
    def path(self) -> str:
        """``PATH`` with :attr:`bin_dir` first, for a child that runs ``agy`` by name."""
        rest = os.environ.get("PATH", "")
        return os.pathsep.join([str(self.bin_dir)] + ([rest] if rest else []))

    @property
    def env(self) -> dict[str, str]:
        """This process's environment without agy's credential variables
        (:data:`AGY_USER_VARS`), with the sandbox's ``HOME``, ``PATH`` (``agy`` and
        ``agy_acp_server`` first), ``AGY_BIN`` and ``AGY_ACP_BIN``: pass it to an adapter
        run as a child process."""
        kept = {k: v for k, v in os.environ.items() if k not in AGY_USER_VARS}
        return {
            **kept,
            "HOME": str(self.home),
            "PATH": self.path,
            AGY_BIN: str(self.agy),
            AGY_ACP_BIN: str(self.acp_server),
        }

    def run(
        self, args: Sequence[str], *, input: str | None = None, timeout: float = 60, **kwargs: Any
    ) -> subprocess.CompletedProcess[str]:
        """Runs ``agy ARGS`` in the work folder and returns what it did (text mode)."""
        return subprocess.run(
            [str(self.agy), *args],
            cwd=self.work_dir,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    def invocations(self) -> list[Invocation]:
        """Every invocation so far, in the order they ended; those still running (or
        killed) last, with ``complete`` false."""
        return read_journal(self.journal_path)

    def invocations_where(self, predicate: Callable[[Invocation], bool]) -> list[Invocation]:
        """The invocations for which ``predicate`` holds."""
        return [i for i in self.invocations() if predicate(i)]

    def images(self) -> list[Path]:
        """Every image file under the brain folder, sorted by path."""
        if not self.brain_dir.is_dir():
            return []
        suffixes = {".jpg", ".jpeg", ".png", ".webp"}
        return sorted(p for p in self.brain_dir.rglob("*") if p.suffix.lower() in suffixes)

    def kill_strays(self) -> list[int]:
        """SIGKILLs the fake-agy processes of this sandbox that still run (found by their
        journal's live records, checked against the process environment); returns their pids."""
        marker = f"{FAKE_AGY_JOURNAL}={self.journal_path}".encode()
        killed = []
        for invocation in self.invocations():
            if invocation.complete:
                continue
            try:
                environ = Path(f"/proc/{invocation.pid}/environ").read_bytes()
            except OSError:
                continue
            if marker in environ.split(b"\0"):
                try:
                    os.kill(invocation.pid, signal.SIGKILL)
                    killed.append(invocation.pid)
                except ProcessLookupError:
                    pass
        return killed

    def close(self, *, remove: bool = True) -> None:
        """Kills this sandbox's strays and (by default) removes what the sandbox made: the
        folder when it made it, else only the entries of its layout it added (``home/``,
        ``work/``, ``bin/agy``, the journal, …), never anything reached through a link."""
        self.kill_strays()
        if remove:
            self._made.remove()

    def __enter__(self) -> FakeAgy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def knobs(self) -> Mapping[str, str]:
        """The variables ``bin/agy`` exports before it runs fake-agy."""
        return dict(self._knobs)


def _write_script(path: Path, lines: list[str]) -> None:
    """Writes an executable shell script at ``path``, replacing it atomically."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.chmod(0o755)
    tmp.replace(path)


def _calibration_file(path: str | os.PathLike[str]) -> Path:
    """The calibration file, absolute (fake-agy runs in other folders)."""
    file = Path(path).resolve()
    if not file.is_file():
        raise FileNotFoundError(
            f"failed to find the calibration `{path}`: no file at `{file}`\n"
            "help: write one with `agy-harness calibrate … --out agy.toml` or "
            "`agy-harness learn`"
        )
    return file
