"""The pytest plugin (entry point ``pytest11``): the ``fake_agy`` fixture, the
``fake_agy`` marker that configures it, and :func:`assert_conforms`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agy_conformance.catalogue import ConformanceFailure, Scenario, run_scenario
from agy_conformance.sandbox import AGY_ACP_BIN, AGY_BIN, AGY_USER_VARS, FakeAgy


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fake_agy(script=None, version=None, calibration=None, signed_out=False, "
        "quota_exhausted=False, "
        "time_scale=None): configure the fake_agy fixture of this test",
    )


@pytest.fixture
def fake_agy(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeAgy]:
    """A :class:`FakeAgy` sandbox for this test. While the test runs, ``HOME``, ``PATH``
    (``agy`` and ``agy_acp_server`` first), ``AGY_BIN`` and ``AGY_ACP_BIN`` point into
    the sandbox and agy's credential variables are unset, so an adapter under test —
    in this process or a child — reaches fake-agy and never your real ``~/.gemini``.
    Configure it with ``@pytest.mark.fake_agy(script=…, version=…, calibration=…)`` or
    ``fake_agy.configure(…)``. Processes it left running are killed afterwards."""
    marker = request.node.get_closest_marker("fake_agy")
    options = dict(marker.kwargs) if marker else {}
    agy = FakeAgy(tmp_path / "fake-agy", **options)
    monkeypatch.setenv("HOME", str(agy.home))
    monkeypatch.setenv("PATH", agy.path)
    monkeypatch.setenv(AGY_BIN, str(agy.agy))
    monkeypatch.setenv(AGY_ACP_BIN, str(agy.acp_server))
    for name in AGY_USER_VARS:
        monkeypatch.delenv(name, raising=False)
    try:
        yield agy
    finally:
        # The folder stays under pytest's tmp_path for a failed test to be looked at.
        agy.close(remove=False)


def assert_conforms(
    adapter: str | os.PathLike[str], scenario: Scenario, *, time_scale: float | None = None
) -> None:
    """Runs ``scenario`` against the adapter config: returns when it passed, skips when
    agy-harness skipped it, xfails when the config lists it as an expected failure, and
    fails with agy-harness's explanation otherwise."""
    result = run_scenario(adapter, scenario, time_scale=time_scale)
    note = str(result.entry.get("note") or "")
    if result.status == "passed":
        return
    if result.status == "skipped":
        pytest.skip(note or "skipped by agy-harness")
    if result.status == "expected_failure":
        pytest.xfail(note or "an expected failure of the adapter config")
    raise ConformanceFailure(f"{scenario.name}: {result.status}\n{result.output}")
