#!/usr/bin/env bash
# A 1,000-hunk unified patch (real `diff -u` output) on a 100,000-line file: `codesmith patch`
# against GNU `patch` on the same input, in one hyperfine run, each run on a fresh copy of the
# tree (--prepare). Bar (issue #4): codesmith at least as fast as GNU patch (ratio <= 1.0).
# LINES, HUNKS, RUNS (per round) and ROUNDS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
lines=${LINES:-100000}
hunks=${HUNKS:-1000}
runs=${RUNS:-20}
enter_scratch
mkdir orig
awk -v n="$lines" 'BEGIN { for (i = 1; i <= n; i++) printf "line %06d: the quick brown fox jumps over the lazy dog\n", i }' >orig/big.txt
step=$((lines / hunks))
awk -v step="$step" '{ if (NR % step == step / 2) print $0 " (changed)"; else print }' orig/big.txt >want.txt
(cd orig && diff -u big.txt ../want.txt | sed '1s|.*|--- a/big.txt|;2s|.*|+++ b/big.txt|') >big.patch || true
count=$(grep -c '^@@' big.patch)
[ "$count" -eq "$hunks" ] || { echo "expected $hunks hunks, got $count" >&2; exit 1; }
python3 -c 'import json,sys; print(json.dumps({"patch": open("big.patch").read()}))' >big.json
# codesmith's freshness gate wants the file read first: read it once in the template tree;
# `cp -a` keeps the mtime, so every fresh copy is still "read and unchanged".
"$BIN" --workspace orig read big.txt >/dev/null
# Both tools must produce the same bytes.
rm -rf run && cp -a orig run && "$BIN" --workspace run patch <big.json >/dev/null && cmp run/big.txt want.txt
rm -rf run && cp -a orig run && patch -s -p1 -d run <big.patch && cmp run/big.txt want.txt
echo "file: $lines lines, $(wc -c <orig/big.txt) bytes; patch: $hunks hunks, $(wc -c <big.patch) bytes"
# Each round is one hyperfine run of both commands on fresh copies (--prepare); the order
# alternates between rounds, so load drifting on a shared machine hits both alike. Reported:
# each round's medians and CPU times, then the median over rounds of the median ratio.
rounds=${ROUNDS:-5}
csv=$(mktemp)
ratios=()
cpu_ratios=()
for round in $(seq 1 "$rounds"); do
    a_cmd=("-n" "codesmith patch" "$BIN --workspace run patch <big.json >/dev/null")
    b_cmd=("-n" "GNU patch" "patch -s -p1 -d run <big.patch")
    if ((round % 2)); then order=("${a_cmd[@]}" "${b_cmd[@]}"); else order=("${b_cmd[@]}" "${a_cmd[@]}"); fi
    hyperfine --warmup 3 --runs "$runs" --style none --export-csv "$csv" \
        --prepare 'rm -rf run && cp -a orig run' "${order[@]}" >/dev/null 2>&1 ||
        fail "$BIN --workspace run patch <big.json" "patch -s -p1 -d run <big.patch"
    # CSV columns: command,mean,stddev,median,user,system,min,max
    a=$(awk -F, '$1 == "codesmith patch" { print $4 }' "$csv")
    b=$(awk -F, '$1 == "GNU patch" { print $4 }' "$csv")
    a_cpu=$(awk -F, '$1 == "codesmith patch" { print $5 + $6 }' "$csv")
    b_cpu=$(awk -F, '$1 == "GNU patch" { print $5 + $6 }' "$csv")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')")
    cpu_ratios+=("$(awk -v a="$a_cpu" -v b="$b_cpu" 'BEGIN { printf "%.3f", a / b }')")
    printf 'round %d: codesmith %.2f ms (cpu %.2f ms), GNU patch %.2f ms (cpu %.2f ms), ratio %s (cpu %s)\n' \
        "$round" "$(awk -v x="$a" 'BEGIN { print x * 1000 }')" "$(awk -v x="$a_cpu" 'BEGIN { print x * 1000 }')" \
        "$(awk -v x="$b" 'BEGIN { print x * 1000 }')" "$(awk -v x="$b_cpu" 'BEGIN { print x * 1000 }')" \
        "${ratios[-1]}" "${cpu_ratios[-1]}"
done
rm -f "$csv"
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "median cpu ratio (user+sys): $(median "${cpu_ratios[@]}")"
verdict "$(median "${ratios[@]}")" 1.0
