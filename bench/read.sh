#!/usr/bin/env bash
# Whole-process cost of `codesmith read` of a small file against `cat` of the same file.
# Bar (issue #2): at most 2.5x. ROUNDS and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
for i in $(seq 1 40); do echo "line $i of a small text file"; done >small.txt
# The first read creates .codesmith/; every timed call is then an ordinary re-read.
"$BIN" read small.txt >/dev/null
echo "codesmith $("$BIN" --version | awk '{ print $2 }'), $("$BIN" tools | grep -c '"name"') tools registered"
compare "codesmith read" "$BIN read small.txt" "cat" "cat small.txt"
verdict "$RATIO" 2.5
