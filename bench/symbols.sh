#!/usr/bin/env bash
# find_symbol against `rg -w NAME` on a large real tree, in one run:
#   - cold: the first find_symbol (no index) — wall time, CPU time, throughput over the source
#     bytes it parsed (MB/s per core of CPU time), peak RSS (/usr/bin/time -v);
#   - warm: later find_symbol calls against `rg -w NAME` with the same walk rules (hyperfine,
#     alternating rounds; bar: at most 1.0x);
#   - incremental: a query right after one file was edited, against the same rg;
#   - peak RSS of a warm query.
#
#   REPOS="/path/a.git /path/b.git" COPIES=6 bench/symbols.sh
#
# REPOS are git directories of public repositories (bare mirrors work: each is exported with
# `git archive HEAD`), copied COPIES times into the scratch tree outside the repository. Copy i
# gets i extra newlines at the end of every file, so no two copies share content: the index
# cannot reuse records across copies and the cold build really parses every byte. Without
# REPOS the local cargo registry sources are used. REGISTRY=1 adds one copy of them either way.
# Needs: rg, hyperfine, git, python3, /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh

COPIES=${COPIES:-6}
TREE=${TREE:-/tmp/codesmith-bench/symbols-tree}
NAMES=${NAMES:-"Searcher processCommand Flask spawn_blocking"}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
for tool in rg hyperfine git python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/symbols.sh needs $tool" >&2; exit 1; }
done
build_release

if [ ! -f "$TREE/.built" ]; then
  rm -rf "$TREE"
  mkdir -p "$TREE/src"
  if [ -n "${REPOS:-}" ]; then
    for repo in $REPOS; do
      name=$(basename "$(dirname "$repo")")
      mkdir -p "$TREE/src/$name"
      git --git-dir="$repo" archive HEAD | tar -x -C "$TREE/src/$name"
    done
  else
    cp -r "$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)"/. "$TREE/src/"
  fi
  for i in $(seq 1 "$COPIES"); do
    cp -r "$TREE/src" "$TREE/copy$i"
    python3 - "$TREE/copy$i" "$i" <<'PY'
import os, sys
root, pad = sys.argv[1], "\n" * int(sys.argv[2])
for dirpath, _, names in os.walk(root):
    for name in names:
        with open(os.path.join(dirpath, name), "a") as f:
            f.write(pad)
PY
  done
  rm -rf "$TREE/src"
  if [ "${REGISTRY:-0}" = 1 ] && [ -n "${REPOS:-}" ]; then
    mkdir -p "$TREE/registry"
    cp -r "$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)"/. "$TREE/registry/"
  fi
  touch "$TREE/.built"
fi

SKIP=(-g '!.git/' -g '!node_modules/' -g '!target/' -g '!dist/' -g '!build/' -g '!__pycache__/'
      -g '!.venv/' -g '!venv/' -g '!.codesmith/' -g '!*.min.js' -g '!*.min.css')
RG=(rg --hidden --no-require-git --max-filesize 10M "${SKIP[@]}")
CS=("$BIN" --workspace "$TREE")
q() { printf '%q ' "$@"; }

total_mb=$(du -sm --exclude=.codesmith "$TREE" | cut -f1)
files=$(find "$TREE" -type f -not -path '*/.codesmith/*' | wc -l)
echo "tree: $TREE ($files files, $total_mb MB)"

# Cold: no index.
rm -rf "$TREE/.codesmith"
sync
first=${NAMES%% *}
/usr/bin/time -v "${CS[@]}" symbol "$first" >"$TREE.cold.json" 2>"$TREE.cold.time"
python3 - "$TREE" <<'PY'
import json, re, sys
tree = sys.argv[1]
out = json.load(open(tree + ".cold.json"))
t = open(tree + ".cold.time").read()
def field(name):
    return re.search(re.escape(name) + r": (.*)", t).group(1).strip()
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
index = out["data"]["index"]
import os
manifest = open(os.path.join(tree, ".codesmith/index/manifest")).read().splitlines()[1:]
entries = [line.split("\t") for line in manifest]
source_mb = sum(int(e[1]) for e in entries) / 1e6
unique_mb = sum(int(size) for size in {e[0]: e[1] for e in entries}.values()) / 1e6
print(f"cold: {index['files']} source files ({source_mb:.0f} MB), {index['parsed']} parsed "
      f"({unique_mb:.0f} MB of distinct contents), wall {wall:.1f} s, cpu {cpu:.1f} s, "
      f"{unique_mb / wall:.1f} MB/s wall, {unique_mb / cpu:.1f} MB/s per core (cpu time), "
      f"peak RSS {rss:.0f} MB")
PY
du -sh "$TREE/.codesmith/index" | sed 's/^/index size: /'

for name in $NAMES; do
  unset PREPARE_A PREPARE_B
  echo "== warm find_symbol $name vs rg -w $name"
  compare "find_symbol" "$(q "${CS[@]}" symbol "$name")" "rg -w" "$(q "${RG[@]}" -w "$name" "$TREE")"
  echo "$name warm ratio: $RATIO"
  verdict "$RATIO" 1.0
done

# Incremental: every timed query follows an edit of one file (untimed --prepare).
edited=$(find "$TREE/copy1" -name '*.rs' -print -quit)
printf '#!/bin/sh\nprintf "\\nfn bench_edit_%%s() {}\\n" "$$" >> %q\n' "$edited" > "$TREE.edit.sh"
PREPARE_A="sh $TREE.edit.sh"
PREPARE_B="true"
echo "== find_symbol after editing one file vs rg -w $first"
compare "find_symbol" "$(q "${CS[@]}" symbol "$first")" "rg -w" "$(q "${RG[@]}" -w "$first" "$TREE")"
echo "after-edit ratio: $RATIO"
"${CS[@]}" symbol "$first" | python3 -c 'import json,sys; print("index after the edits:", json.load(sys.stdin)["data"]["index"])'

/usr/bin/time -v "${CS[@]}" symbol "$first" >/dev/null 2>"$TREE.warm.time"
echo "warm peak RSS: $(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2/1024}' "$TREE.warm.time")"
/usr/bin/time -v "${RG[@]}" -w "$first" "$TREE" >/dev/null 2>"$TREE.rg.time" || true
echo "rg peak RSS: $(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2/1024}' "$TREE.rg.time")"
