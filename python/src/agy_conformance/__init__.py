"""agy-conformance for Python: fake-agy and agy-harness on your PATH, and pytest fixtures.

- :class:`FakeAgy` (the ``fake_agy`` pytest fixture): a sandbox with fake-agy as ``agy``
  acting out your script, and the journal of what it saw as :class:`Invocation` objects.
- :func:`conformance_params` and :func:`run_scenario`: the conformance catalogue against
  your adapter config, one pytest test per scenario.

See docs/python.md in the agy-conformance repository.
"""

from agy_conformance.binaries import BinaryNotFound, binary
from agy_conformance.catalogue import (
    ConformanceFailure,
    Scenario,
    ScenarioResult,
    adapter_profiles,
    catalogue,
    conformance_params,
    run_scenario,
)
from agy_conformance.journal import Invocation, read_journal
from agy_conformance.plugin import assert_conforms
from agy_conformance.sandbox import FakeAgy
from agy_conformance.script import render_script

__all__ = [
    "BinaryNotFound",
    "ConformanceFailure",
    "FakeAgy",
    "Invocation",
    "Scenario",
    "ScenarioResult",
    "adapter_profiles",
    "assert_conforms",
    "binary",
    "catalogue",
    "conformance_params",
    "read_journal",
    "render_script",
    "run_scenario",
]
