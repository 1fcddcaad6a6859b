#!/bin/sh
# The Python that has agent-loop-tool installed: the virtual environment that
# examples/agent-loop-tool/run creates under target/.
exec "$(dirname "$0")/../../target/agent-loop-tool-venv/bin/python" "$@"
