#!/usr/bin/env bash
# A call over MCP pays no process start: 1,000 sequential read_file calls through one
# `codesmith mcp` session (driven by the official MCP Python SDK, and by a bare JSON-RPC loop)
# against 1,000 `codesmith read` invocations, and the server's idle memory. Needs python3 with
# venv; the SDK goes into target/mcp-venv as in .ci/run. CALLS changes the count.
set -euo pipefail
source "$(dirname "$0")/common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
build_release
venv="$root/target/mcp-venv"
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check mcp
fi
enter_scratch
for i in $(seq 1 40); do echo "line $i of a small text file"; done >small.txt
"$BIN" read small.txt >/dev/null
"$venv/bin/python" "$root/bench/mcp_reads.py" "$BIN" "$work" "${CALLS:-1000}"
