"""A calibration for the fake: the ``calibration=`` marker option and
``FakeAgy(calibration=…)`` give fake-agy ``FAKE_AGY_CALIBRATION``."""
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agy_conformance import FakeAgy
from agy_conformance.binaries import binary

ULTRA = "gemini-9-ultra-high\tGemini 9 Ultra (High)"
# Made by the module's fixture before any test of it runs (a marker's arguments are
# fixed when the module is collected).
FOLDER = Path(tempfile.mkdtemp(prefix="agy-calibration-"))
CALIBRATION = FOLDER / "ultra.toml"


@pytest.fixture(scope="module", autouse=True)
def ultra_calibration():
    """A calibration learned, as a user would, from one recorded ``agy models`` that
    lists a model no built-in calibration has."""
    records = FOLDER / "records"
    records.mkdir()
    (records / "models.jsonl").write_text(
        '{"trace":1,"agy_version":"1.3.2","recorded":"2026-12-01","platform":"linux",'
        '"source":"a test"}\n'
        '{"invocation":{"argv":["agy","models"]}}\n'
        '{"t":0.0,"stdout":"gemini-9-ultra-high\\tGemini 9 Ultra (High)\\n"}\n'
        '{"t":0.0,"exit":{"code":0}}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(binary("agy-harness")), "learn", "--traces", str(records), "--out", str(CALIBRATION)],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    yield CALIBRATION
    shutil.rmtree(FOLDER, ignore_errors=True)


def models(agy: FakeAgy) -> list[str]:
    done = agy.run(["models"])
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_without_a_calibration_the_built_in_catalogue_is_listed(fake_agy):
    assert ULTRA not in models(fake_agy)


@pytest.mark.fake_agy(calibration=str(CALIBRATION))
def test_the_marker_gives_the_fake_its_calibration(fake_agy):
    assert models(fake_agy) == [ULTRA]
    assert fake_agy.knobs()["FAKE_AGY_CALIBRATION"] == str(CALIBRATION.resolve())


def test_configure_gives_the_next_invocations_a_calibration(fake_agy):
    fake_agy.configure(calibration=CALIBRATION)
    assert models(fake_agy) == [ULTRA]


def test_a_calibration_that_names_no_file_is_refused_at_once(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.toml"):
        FakeAgy(tmp_path / "agy", calibration=tmp_path / "nowhere.toml")


def test_a_malformed_calibration_breaks_the_fake_with_its_location(fake_agy, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[calibration]\nagy = \"one\"\n", encoding="utf-8")
    fake_agy.configure(calibration=bad)
    done = fake_agy.run(["models"])
    assert done.returncode == 70
    assert "bad.toml:2:" in done.stderr
