"""The conformance catalogue against the python-oneshot example's adapter config, one
pytest test per scenario: `pytest -k hung`, `-x` and `--junitxml` work as usual, and the
config's expected failures show as xfail."""
from pathlib import Path

import pytest

from agy_conformance import conformance_params
from agy_conformance.plugin import assert_conforms

ADAPTER = Path(__file__).resolve().parent.parent / "python-oneshot" / "adapter.toml"


@pytest.mark.parametrize("scenario", conformance_params(ADAPTER))
def test_conformance(scenario):
    assert_conforms(ADAPTER, scenario)
