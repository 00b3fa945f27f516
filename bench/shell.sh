#!/usr/bin/env bash
# Whole-process cost of `codesmith shell true` against the two-program floor: a shell that
# starts a second shell and waits for it (`sh -c "sh -c true; :"`; the `; :` keeps the outer
# shell from replacing itself with the inner one). Any tool that runs `sh` as a second program
# pays at least that. Bar: at most 1.6x the floor with the kernel sandbox on.
# The same run times codesmith with the sandbox off ([shell] sandbox = "off" in a second
# workspace), so the sandbox's own share shows. ROUNDS and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
mkdir confined unconfined
mkdir -p unconfined/.codesmith
printf '[shell]\nsandbox = "off"\n' > unconfined/.codesmith/config.toml
# The first call creates .codesmith/; every timed call is then an ordinary call in a session.
"$BIN" --workspace confined shell true >/dev/null
"$BIN" --workspace unconfined shell true >/dev/null
echo "codesmith $("$BIN" --version | awk '{ print $2 }'); sandbox here: $("$BIN" --workspace confined shell true | grep -o '"filesystem":{[^}]*}')"
floor="sh -c \"sh -c true; :\""
echo "confined codesmith against the two-program floor:"
compare "codesmith shell (confined)" "$BIN --workspace confined shell true" "sh starting sh" "$floor"
confined=$RATIO
verdict "$confined" 1.6
echo "unconfined codesmith against the two-program floor:"
compare "codesmith shell (sandbox off)" "$BIN --workspace unconfined shell true" "sh starting sh" "$floor"
unconfined=$RATIO
echo "summary: confined/floor $confined (bar 1.6); unconfined/floor $unconfined"
