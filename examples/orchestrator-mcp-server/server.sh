#!/bin/sh
# Starts orchestrator-mcp-server with the config beside this file: the server reads its
# config from ORCHESTRATOR_CONFIG only, and a run starts it in a sandbox folder, where a
# relative path in adapter.toml's `env` would not name this folder's file.
here=$(cd "$(dirname "$0")" && pwd)
ORCHESTRATOR_CONFIG="$here/config.yaml" exec "$here/../../target/orchestrator-mcp-server-venv/bin/orchestrator-mcp-server" "$@"
