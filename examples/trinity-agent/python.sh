#!/bin/sh
# The Python that has trinity-agent installed: the virtual environment that
# examples/trinity-agent/run creates under target/.
exec "$(dirname "$0")/../../target/trinity-agent-venv/bin/python" "$@"
