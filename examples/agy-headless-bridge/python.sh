#!/bin/sh
# The Python that has agy-headless-bridge installed: the virtual environment that
# examples/agy-headless-bridge/run creates under target/.
exec "$(dirname "$0")/../../target/agy-headless-bridge-venv/bin/python" "$@"
