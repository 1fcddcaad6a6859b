#!/bin/sh
# The Python that has playmaker-cli installed: the virtual environment that
# examples/playmaker-cli/run creates under target/.
exec "$(dirname "$0")/../../target/playmaker-cli-venv/bin/python" "$@"
