#!/usr/bin/env bash
# edit_file on large files: an exact edit and an indentation-level edit of one line near the end
# of a 10, 25 and 50 MB file (the worst place: the whole file is scanned). Each timed run starts
# from the original file, freshly read (hyperfine --prepare, not timed), so the figure is one
# whole `codesmith edit` process: load, freshness check, match, splice, atomic write with fsync,
# new fingerprint. The `dd (floor)` row reads and writes the same bytes with an fsync: the I/O
# any atomic rewrite pays. Bar (issue #3): each well under a second at 50 MB, growing linearly.
# SIZES (MB, space-separated) and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
runs=${RUNS:-5}
printf '%-6s %-14s %10s %10s %12s\n' "size" "level" "median ms" "mean ms" "ms per MB"
for mb in ${SIZES:-10 25 50}; do
    # ~40-byte indented lines; the target pair is 100 lines before the end.
    lines=$((mb * 1024 * 1024 / 40))
    target=$((lines - 100))
    awk -v n="$lines" 'BEGIN { for (i = 1; i <= n; i++) printf "    let v_%d = f(%d);\n", i, i % 977 }' \
        >"orig-$mb.txt"
    exact=$(printf '{"path": "big.txt", "search": "    let v_%d = f(%d);", "replace": "    let v_%d = g(0);"}' \
        "$target" $((target % 977)) "$target")
    indent=$(printf '{"path": "big.txt", "search": "let v_%d = f(%d);\\nlet v_%d = f(%d);", "replace": "let v_%d = g(1);\\nlet v_%d = g(2);"}' \
        "$target" $((target % 977)) $((target + 1)) $(((target + 1) % 977)) "$target" $((target + 1)))
    prepare="cp orig-$mb.txt big.txt && $BIN read big.txt --max-lines 1 >/dev/null"
    # Sanity: each edit must succeed at the intended level.
    eval "$prepare"
    "$BIN" edit --json "$exact" | grep -q '"match":"exact"' || { echo "exact edit failed" >&2; exit 1; }
    eval "$prepare"
    "$BIN" edit --json "$indent" | grep -q '"match":"indentation"' || { echo "indentation edit failed" >&2; exit 1; }
    for level in "dd (floor)" exact indentation; do
        case $level in
            exact) cmd="$BIN edit --json '$exact'" ;;
            indentation) cmd="$BIN edit --json '$indent'" ;;
            *) cmd="dd if=orig-$mb.txt of=copy.txt bs=4M conv=fsync status=none" ;;
        esac
        json=$(mktemp)
        hyperfine -N --runs "$runs" --style none --export-json "$json" --prepare "sh -c '$prepare'" \
            "$cmd" >/dev/null 2>&1 || fail "$prepare" "$cmd"
        python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
mb = int(sys.argv[2])
print("%-6s %-14s %10.1f %10.1f %12.2f" % (f"{mb} MB", sys.argv[3], r["median"] * 1000, r["mean"] * 1000, r["median"] * 1000 / mb))' \
            "$json" "$mb" "$level"
        rm -f "$json"
    done
done
