"""fake-agy scripts given as TOML text, a file, or Python values rendered to TOML.

The format is docs/script-format.md; fake-agy reads and checks it, reporting every
problem as ``script.toml:line:col`` on stderr (exit 70) when the script is broken.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any, Union

#: A script: TOML text, the path of a script file, or a mapping rendered to TOML.
ScriptSource = Union[str, "PathLike[str]", Mapping[str, Any]]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def script_text(script: ScriptSource) -> str:
    """The TOML text of ``script``: a path is read, a mapping rendered, text kept."""
    if isinstance(script, Mapping):
        return render_script(script)
    if isinstance(script, PathLike):
        return Path(script).read_text(encoding="utf-8")
    if isinstance(script, str):
        return script
    raise TypeError(f"a script is TOML text, a path or a mapping, not {type(script).__name__}")


def render_script(script: Mapping[str, Any]) -> str:
    """``script`` as TOML: one ``key = value`` line per top-level key, every table and
    array inline, so ``{"invocation": [{"steps": [...]}]}`` means ``[[invocation]]``."""
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in script.items())


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a script key is a string, not {type(key).__name__} `{key!r}`")
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    # JSON's escapes are TOML's, except that TOML also forbids a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, PathLike):
        return _string(str(value))
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"a script value is a string, number, bool, list or mapping, not {type(value).__name__}")
