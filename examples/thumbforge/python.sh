#!/bin/sh
# The Python that has thumbforge installed: the virtual environment that
# examples/thumbforge/run creates under target/.
exec "$(dirname "$0")/../../target/thumbforge-venv/bin/python" "$@"
