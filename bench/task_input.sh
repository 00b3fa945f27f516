#!/usr/bin/env bash
# What typing into an interactive task costs per call: `task_input` (one line into a `cat` on a
# terminal, wait_ms=0, so no settling is timed) against `task_output` of the same task, the
# floor of any call that reports a task. Bar: at most 1.3x. ROUNDS and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
"$BIN" shell --background --interactive cat >/dev/null
trap '"$BIN" task_cancel task-1 >/dev/null 2>&1; rm -rf "$work"' EXIT
compare "task_input" "$BIN task_input task-1 --input x --wait-ms 0" \
    "task_output" "$BIN task_output task-1"
verdict "$RATIO" 1.3
