"""Scripts given as mappings are rendered to TOML that reads back as the same values."""
import math
import tomllib

import pytest

from agy_conformance.script import render_script, script_text


@pytest.mark.parametrize(
    "script",
    [
        {"invocation": [{"steps": [{"default": {"response": "a purple hexagon"}}]}]},
        {"script": {"agy": "1.2.16"}, "invocation": [{"when": {"prompt_contains": "x"}, "steps": [{"exit": 1}]}]},
        {"odd key": "quote \" backslash \\ newline \n tab \t del \x7f nul \x00 emoji 🦀 é"},
        {"numbers": [0, -7, 2**40, 0.5, -1e-9, 1e300], "flags": [True, False], "empty": [], "table": {}},
    ],
)
def test_a_rendered_script_reads_back_as_the_same_values(script):
    assert tomllib.loads(render_script(script)) == script


def test_special_floats_are_toml_floats():
    back = tomllib.loads(render_script({"a": math.inf, "b": -math.inf, "c": math.nan}))
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])


def test_text_is_kept_and_a_path_is_read(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[[invocation]]\n", encoding="utf-8")
    assert script_text("x = 1\n") == "x = 1\n"
    assert script_text(path) == "[[invocation]]\n"


@pytest.mark.parametrize("bad", [{"a": object()}, {1: "x"}, {"a": {"b": None}}])
def test_a_value_toml_cannot_hold_is_a_type_error(bad):
    with pytest.raises(TypeError):
        render_script(bad)
