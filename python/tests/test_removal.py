"""The removal that Python 3.9 and 3.10 use in place of ``shutil.rmtree(dir_fd=…)``,
tested here on any Python."""

import os

from agy_conformance.removal import _DIR_FLAGS, _rmtree_by_descriptor


def test_the_descriptor_walk_removes_a_tree_and_never_enters_a_link(tmp_path):
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "precious.txt").write_text("stays")
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "deep.txt").write_text("goes")
    (tree / "top.txt").write_text("goes")
    (tree / "a" / "link").symlink_to(kept)
    fd = os.open(tmp_path, _DIR_FLAGS)
    try:
        _rmtree_by_descriptor("tree", fd)
    finally:
        os.close(fd)
    assert not os.path.lexists(tree)
    assert (kept / "precious.txt").read_text() == "stays"
