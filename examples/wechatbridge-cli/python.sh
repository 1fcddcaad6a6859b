#!/bin/sh
# The Python that has wechatbridge-cli installed: the virtual environment that
# examples/wechatbridge-cli/run creates under target/.
exec "$(dirname "$0")/../../target/wechatbridge-cli-venv/bin/python" "$@"
