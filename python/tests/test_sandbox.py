"""`FakeAgy(folder)`: closing removes what the sandbox made and nothing else."""
import os
from pathlib import Path

from agy_conformance import FakeAgy


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('mine')\n")
    (root / "README.md").write_text("my project\n")
    return root


def _used(agy: FakeAgy) -> None:
    done = agy.run(["-p", "hello", "--output-format", "json"])
    assert done.returncode == 0, done.stderr
    assert agy.journal_path.is_file() and agy.home.is_dir()


def test_a_sandbox_in_a_project_removes_what_it_made_and_leaves_the_project(tmp_path):
    project = _project(tmp_path / "project")
    with FakeAgy(project, script="[[invocation]]\nsteps = [{ default = {} }]\n") as agy:
        _used(agy)
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "src"]
    assert (project / "src" / "main.py").read_text() == "print('mine')\n"


def test_the_current_folder_as_the_sandbox_stays(tmp_path, monkeypatch):
    project = _project(tmp_path / "project")
    monkeypatch.chdir(project)
    with FakeAgy(Path(".")) as agy:
        _used(agy)
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "src"]


def test_folders_of_the_layout_that_were_there_keep_what_was_in_them(tmp_path):
    project = _project(tmp_path / "project")
    (project / "bin").mkdir()
    (project / "bin" / "tool").write_text("#!/bin/sh\n")
    (project / "work").mkdir()
    (project / "work" / "draft.txt").write_text("draft\n")
    with FakeAgy(project) as agy:
        _used(agy)
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "bin", "src", "work"]
    assert [p.name for p in (project / "bin").iterdir()] == ["tool"]
    assert (project / "work" / "draft.txt").read_text() == "draft\n"


def test_a_folder_the_sandbox_made_goes_whole_with_the_parents_it_made(tmp_path):
    agy = FakeAgy(tmp_path / "made" / "sandbox")
    _used(agy)
    agy.close()
    assert list(tmp_path.iterdir()) == []


def test_a_link_in_the_sandbox_is_removed_and_what_it_names_stays(tmp_path):
    outside = tmp_path / "real-home"
    token = outside / ".gemini" / "antigravity-cli" / "antigravity-oauth-token"
    token.parent.mkdir(parents=True)
    token.write_text("real token")
    for root in (tmp_path / "new", _project(tmp_path / "project")):
        agy = FakeAgy(root)
        os.rmdir(agy.home)
        agy.home.symlink_to(outside)
        agy.close()
        assert not os.path.lexists(agy.home), root
        assert token.read_text() == "real token", root
