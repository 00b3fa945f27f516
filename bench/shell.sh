#!/usr/bin/env bash
# Whole-process cost of `codesmith shell 'echo hi'` against `sh -c 'echo hi'`.
# Bar (issue #6): at most 1.5x. ROUNDS and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
# The first call creates .codesmith/; every timed call is then an ordinary call in a session.
"$BIN" shell 'echo hi' >/dev/null
echo "codesmith $("$BIN" --version | awk '{ print $2 }'), $("$BIN" tools | grep -c '"name"') tools registered"
compare "codesmith shell" "$BIN shell 'echo hi'" "sh -c" "sh -c 'echo hi'"
verdict "$RATIO" 1.5
