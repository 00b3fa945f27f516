#!/usr/bin/env bash
# Whole-process timing of grep_files against ripgrep and file_search against fd, on a large real
# tree built from the local cargo registry sources (several copies: hundreds of MB, tens of
# thousands of files), with the same skip rules on both sides.
#
#   bench/search.sh            build the tree if needed, check agreement, then time
#   COPIES=6 ROUNDS=7 bench/search.sh
#
# Runs alternate: every round runs each pair (codesmith, then the reference) a few times, and
# the medians are taken over all rounds, so load from other processes falls on both sides.
# Needs: rg, fd (fdfind on Debian), hyperfine, python3, a release build (made here unless BIN names one).
set -euo pipefail
cd "$(dirname "$0")/.."

COPIES=${COPIES:-4}
ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-3}
TREE=${TREE:-/tmp/codesmith-bench/tree}
if [[ -z ${BIN:-} ]]; then source bench/common.sh; build_release; fi
OUT=${OUT:-/tmp/codesmith-bench/results}
FD=$(command -v fdfind || command -v fd || true)

for tool in rg hyperfine python3; do
  command -v "$tool" >/dev/null || { echo "bench/search.sh needs $tool" >&2; exit 1; }
done
[ -n "$FD" ] || { echo "bench/search.sh needs fd (fdfind)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 1; }

# The tree: COPIES copies of every crate in the local registry, plus what the skip rules are
# for (a node_modules, a dist, minified files, a file over 10 MB, binary files). It is a git
# repository (git init, nothing committed) so that fd, which has no --no-require-git, reads the
# .gitignore files in the crates just as codesmith and `rg --no-require-git` do.
if [ ! -f "$TREE/.built-$COPIES" ]; then
  rm -rf "$TREE"
  mkdir -p "$TREE"
  src=$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)
  for i in $(seq 1 "$COPIES"); do
    mkdir -p "$TREE/copy$i"
    cp -r "$src"/. "$TREE/copy$i/"
  done
  mkdir -p "$TREE/web/node_modules/lib" "$TREE/web/dist" "$TREE/web/src"
  cp -r "$src"/$(ls "$src" | head -1)/. "$TREE/web/node_modules/lib/"
  printf 'function f(){return 1}\n' > "$TREE/web/dist/app.js"
  printf 'var HashMap=1;\n' > "$TREE/web/src/app.min.js"
  head -c 12000000 /dev/zero | tr '\0' 'a' > "$TREE/web/huge.txt"
  printf 'HashMap\0binary\n' > "$TREE/web/blob.bin"
  (cd "$TREE" && git init -q . 2>/dev/null || mkdir -p .git)
  touch "$TREE/.built-$COPIES"
fi
echo "tree: $TREE ($(find "$TREE" -type f -not -path '*/.git/*' | wc -l) files, $(du -sh --exclude=.git "$TREE" | cut -f1))"

SKIP=(-g '!.git/' -g '!node_modules/' -g '!target/' -g '!dist/' -g '!build/' -g '!__pycache__/'
      -g '!.venv/' -g '!venv/' -g '!.codesmith/' -g '!*.min.js' -g '!*.min.css')
RG=(rg --hidden --no-require-git --max-filesize 10M "${SKIP[@]}")
FDX=(-E .git/ -E node_modules/ -E target/ -E dist/ -E build/ -E __pycache__/ -E .venv/ -E venv/
     -E .codesmith/ -E '*.min.js' -E '*.min.css')
CS=("$BIN" --workspace "$TREE")

# Agreement first: timing two tools that answer differently would mean nothing.
BIN="$BIN" TREE="$TREE" bash bench/search-check.sh

mkdir -p "$OUT"
q() { printf '%q ' "$@"; }
declare -a NAMES CMDS_A CMDS_B
add() { NAMES+=("$1"); CMDS_A+=("$2"); CMDS_B+=("$3"); }
add "literal HashMap"        "$(q "${CS[@]}" grep HashMap)"                       "$(q "${RG[@]}" -n HashMap "$TREE")"
add "regex [A-Z][a-z]+Error" "$(q "${CS[@]}" grep '[A-Z][a-z]+Error\b')"          "$(q "${RG[@]}" -n '[A-Z][a-z]+Error\b' "$TREE")"
add "case-insensitive"       "$(q "${CS[@]}" grep deprecated --case-insensitive)" "$(q "${RG[@]}" -n -i deprecated "$TREE")"
add "count HashMap"          "$(q "${CS[@]}" grep HashMap --output-mode count)"   "$(q "${RG[@]}" -c HashMap "$TREE")"
add "glob *.rs (find vs fd)" "$(q "${CS[@]}" find '*.rs')"                        "$(q "$FD" --hidden -g '*.rs' "${FDX[@]}" . "$TREE")"

echo "load: $(uptime)"
for round in $(seq 1 "$ROUNDS"); do
  for i in "${!NAMES[@]}"; do
    hyperfine -N --style none --output=pipe --warmup 1 --runs "$RUNS" \
      --export-json "$OUT/r$round-$i.json" "${CMDS_A[$i]}" "${CMDS_B[$i]}" >/dev/null
  done
  echo "round $round/$ROUNDS done"
done
echo "load: $(uptime)"

python3 - "$OUT" "$ROUNDS" "${NAMES[@]}" <<'EOF'
import json, statistics, sys
out, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"{'query':26} {'codesmith ms':>12} {'reference ms':>12} {'ratio':>6}   {'cpu ratio':>9}")
worst = 0.0
for i, name in enumerate(names):
    a, b, cpu_a, cpu_b = [], [], [], []
    for r in range(1, rounds + 1):
        res = json.load(open(f"{out}/r{r}-{i}.json"))["results"]
        a += res[0]["times"]; b += res[1]["times"]
        cpu_a.append(res[0]["user"] + res[0]["system"]); cpu_b.append(res[1]["user"] + res[1]["system"])
    ma, mb = statistics.median(a), statistics.median(b)
    ratio = ma / mb
    if i != 3:
        worst = max(worst, ratio)
    cpu = statistics.median(cpu_a) / statistics.median(cpu_b)
    print(f"{name:26} {ma*1000:12.1f} {mb*1000:12.1f} {ratio:6.2f}   {cpu:9.2f}")
print(f"worst wall-clock median ratio on the bar queries (all but count): {worst:.2f} (bar: 1.25)")
print("cpu ratio: user+system time, median over rounds (less sensitive to other load)")
EOF
