"""The `fake_agy` fixture: the sandbox, its knobs, and strays killed."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest


def test_agy_on_path_is_the_sandboxs_and_home_is_the_sandboxs(fake_agy):
    assert Path(os.environ["HOME"]) == fake_agy.home
    assert os.environ["PATH"].split(os.pathsep)[0] == str(fake_agy.bin_dir)
    done = subprocess.run(["agy", "-p", "hello", "--output-format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [call] = fake_agy.invocations()
    assert call.prompt == "hello"
    assert call.record["env"]["HOME"] == str(fake_agy.home)


@pytest.mark.fake_agy(version="1.2.16")
def test_the_marker_picks_the_modelled_version(fake_agy):
    assert fake_agy.run(["--version"]).stdout.strip() == "1.2.16"


@pytest.mark.fake_agy(signed_out=True)
def test_signed_out_agy_fails_for_want_of_credentials(fake_agy):
    done = fake_agy.run(["-p", "hi", "--output-format", "json"])
    assert done.returncode == 1
    assert "authentication" in json.loads(done.stdout)["error"]


def test_configure_changes_the_next_invocations_and_keeps_the_journal(fake_agy):
    assert fake_agy.run(["-p", "one", "--output-format", "json"]).returncode == 0
    fake_agy.configure(quota_exhausted=True, time_scale=0.5)
    done = fake_agy.run(["-p", "two", "--output-format", "json"])
    assert done.returncode == 1
    assert "quota" in json.loads(done.stdout)["error"]
    assert [c.prompt for c in fake_agy.invocations()] == ["one", "two"]
    assert fake_agy.knobs()["FAKE_AGY_TIME_SCALE"] == "0.5"


def test_a_broken_script_breaks_the_fake_with_its_location(fake_agy):
    fake_agy.configure(script="[[invocation]]\nsteps = [{ no_such_step = true }]\n")
    done = fake_agy.run(["-p", "hi", "--output-format", "json"])
    assert done.returncode == 70
    assert "script.toml:2:" in done.stderr


def test_a_hung_agy_left_running_is_killed(fake_agy):
    fake_agy.configure(script="[[invocation]]\nsteps = [{ hang = true }]\n")
    child = subprocess.Popen([str(fake_agy.agy), "-p", "hi", "--output-format", "json"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not fake_agy.invocations() and time.monotonic() < deadline:
            time.sleep(0.02)  # polling the journal for the live record, bounded
        [running] = fake_agy.invocations()
        assert not running.complete and running.pid == child.pid
        assert fake_agy.kill_strays() == [child.pid]
        assert child.wait(timeout=30) == -9
    finally:
        child.kill()
        child.wait()


def test_agy_acp_server_on_path_is_fake_agy_acp_and_credentials_are_dropped(tmp_path, monkeypatch):
    from agy_conformance.sandbox import AGY_USER_VARS, FakeAgy

    monkeypatch.setenv("GEMINI_API_KEY", "a-real-key")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/home/u/adc.json")
    with FakeAgy(tmp_path / "sandbox") as agy:
        which = lambda name: subprocess.run(  # noqa: E731
            ["/bin/sh", "-c", f"command -v {name}"], env=agy.env, capture_output=True, text=True
        ).stdout.strip()
        assert which("agy") == str(agy.agy)
        assert which("agy_acp_server") == str(agy.acp_server)
        assert agy.acp_server.read_text().splitlines()[-1].startswith("exec ")
        assert "fake-agy-acp" in agy.acp_server.read_text()
        for name in AGY_USER_VARS:
            assert name not in agy.env, name
        assert agy.env["AGY_ACP_BIN"] == str(agy.acp_server)


def test_the_fixture_unsets_agy_credentials(fake_agy):
    assert os.environ["AGY_ACP_BIN"] == str(fake_agy.acp_server)
