#!/usr/bin/env bash
# Whole-process cost of `codesmith shell 'echo hi'` against `sh -c 'echo hi'`.
# Bar (issue #6): at most 1.5x. ROUNDS and RUNS tune the effort.
#
# codesmith runs `sh` as a second program, so the same run also times the floor of any tool that
# does: a shell that starts a second shell and waits for it (`sh -c "sh -c 'echo hi'; :"`; the
# `; :` keeps the outer shell from replacing itself with the inner one), and codesmith against it.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
# The first call creates .codesmith/; every timed call is then an ordinary call in a session.
"$BIN" shell 'echo hi' >/dev/null
echo "codesmith $("$BIN" --version | awk '{ print $2 }'), $("$BIN" tools | grep -c '"name"') tools registered"
compare "codesmith shell" "$BIN shell 'echo hi'" "sh -c" "sh -c 'echo hi'"
verdict "$RATIO" 1.5
bar_ratio=$RATIO
echo "the two-program floor against sh -c:"
compare "sh starting sh" "sh -c \"sh -c 'echo hi'; :\"" "sh -c" "sh -c 'echo hi'"
floor_ratio=$RATIO
echo "codesmith against the two-program floor:"
compare "codesmith shell" "$BIN shell 'echo hi'" "sh starting sh" "sh -c \"sh -c 'echo hi'; :\""
echo "summary: codesmith/sh -c $bar_ratio (bar 1.5); floor/sh -c $floor_ratio; codesmith/floor $RATIO"
