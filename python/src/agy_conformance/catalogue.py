"""The conformance catalogue against your adapter config, one scenario at a time.

The wheel carries the same catalogue agy-harness has built in (``catalogue/``);
:func:`catalogue` lists its scenarios for the profiles an adapter config names, and
:func:`run_scenario` runs one with ``agy-harness run --adapter CONFIG FILE`` and reads
its JSON report. :func:`conformance_params` makes them pytest parameters, so every
scenario is a pytest test of its own (``-k``, ``-x``, xfail and JUnit as usual).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agy_conformance.binaries import binary

# tomllib is in the standard library from Python 3.11; tomli is the same parser for 3.9
# and 3.10 (the wheel depends on it there).
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: The profiles, in the order the catalogue lists them (agy-harness's registry; a test
#: of the repository fails when this list lacks one).
PROFILES = ("oneshot", "session", "acp", "text", "mcp", "acp-agent")


def catalogue_dir() -> Path:
    """The catalogue folder this package carries."""
    return Path(__file__).parent / "catalogue"


@dataclass(frozen=True)
class Scenario:
    """One scenario file of the catalogue: ``oneshot/hung-agy-is-killed-after-timeout``."""

    name: str
    profile: str
    path: Path

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario's verdict: the harness's JSON report entry and its terminal text."""

    status: str
    entry: Mapping[str, Any]
    output: str

    @property
    def failed(self) -> bool:
        """Whether the status fails a run (as agy-harness counts it)."""
        return self.status in ("failed", "unexpected_pass", "error", "timed_out", "interrupted")


class ConformanceFailure(AssertionError):
    """A scenario the adapter did not conform to; the message is agy-harness's."""


def adapter_profiles(adapter: str | os.PathLike[str]) -> list[str]:
    """The profiles an adapter config implements (``[adapter] profiles``)."""
    path = Path(adapter)
    with path.open("rb") as f:
        try:
            config = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{path}: adapter config is not valid TOML: {e}") from e
    profiles = (config.get("adapter") or {}).get("profiles")
    if not isinstance(profiles, list) or not all(p in PROFILES for p in profiles):
        raise ValueError(
            f"{path}: `[adapter] profiles` should list some of {', '.join(PROFILES)}, found {profiles!r}"
        )
    return profiles


def catalogue(profiles: Iterable[str] = PROFILES, root: Path | None = None) -> list[Scenario]:
    """The scenarios of ``profiles``, sorted by name (``agy-scripts/`` is a library, not
    scenarios)."""
    root = root or catalogue_dir()
    found = []
    for profile in profiles:
        for path in sorted((root / profile).rglob("*.toml")):
            name = path.relative_to(root).with_suffix("").as_posix()
            found.append(Scenario(name=name, profile=profile, path=path))
    return found


def run_scenario(
    adapter: str | os.PathLike[str],
    scenario: Scenario,
    *,
    time_scale: float | None = None,
    timeout: float = 600,
    extra_args: Iterable[str] = (),
) -> ScenarioResult:
    """Runs one scenario against the adapter config with agy-harness and returns its
    verdict. The adapter's command runs from the config's folder, as agy-harness runs it."""
    config = Path(adapter).resolve()
    with tempfile.TemporaryDirectory(prefix="agy-conformance-") as tmp:
        report = Path(tmp) / "report.json"
        args = [
            str(binary("agy-harness")), "--color", "never", "run",
            "--adapter", str(config),
            "--scenarios", str(scenario.path.parents[len(scenario.name.split("/")) - 1]),
            "--report", f"json={report}",
            "--jobs", "1",
        ]
        if time_scale is not None:
            args += ["--time-scale", str(time_scale)]
        args += [*extra_args, str(scenario.path)]
        done = subprocess.run(
            args, cwd=config.parent, capture_output=True, text=True, timeout=timeout
        )
        output = done.stdout + done.stderr
        if not report.exists():
            raise ConformanceFailure(
                f"agy-harness ran no scenario (exit {done.returncode}):\n{output}"
            )
        results = json.loads(report.read_text(encoding="utf-8")).get("results", [])
    entry = next((r for r in results if r.get("name") == scenario.name), None)
    if entry is None:
        raise ConformanceFailure(f"agy-harness reported no result for `{scenario.name}`:\n{output}")
    return ScenarioResult(status=str(entry.get("status")), entry=entry, output=output)


def conformance_params(
    adapter: str | os.PathLike[str],
    *,
    xfail: Mapping[str, str] | None = None,
    profiles: Iterable[str] | None = None,
) -> list[Any]:
    """One ``pytest.param(scenario, id=name)`` per scenario of the adapter's profiles;
    the names in ``xfail`` are marked ``pytest.mark.xfail(reason=…, strict=True)``.

    >>> @pytest.mark.parametrize("scenario", conformance_params("adapter.toml"))
    ... def test_conformance(scenario): assert_conforms("adapter.toml", scenario)
    """
    import pytest

    xfail = dict(xfail or {})
    chosen = list(profiles) if profiles is not None else adapter_profiles(adapter)
    scenarios = catalogue(chosen)
    unknown = sorted(set(xfail) - {s.name for s in scenarios})
    if unknown:
        raise ValueError(f"xfail names no scenario of the catalogue: {', '.join(unknown)}")
    params = []
    for s in scenarios:
        marks = [pytest.mark.xfail(reason=xfail[s.name], strict=True)] if s.name in xfail else []
        params.append(pytest.param(s, id=s.name, marks=marks))
    return params
