#!/usr/bin/env bash
# What checkpoints cost.
#
# 1. edit_file of a small source file with its checkpoint, against the same edit by a binary
#    without checkpoints (BASE_BIN, e.g. a release build of the commit before them). Each run
#    starts from the original file with a unique last line, freshly read (prepare, not timed),
#    so both of its blobs are new: the worst case (in a session, the "before" of an edit is
#    usually the "after" of the one before, already stored). Bar: at most 1.1x.
# 2. The exec_shell snapshot, per call, in a clean 100,000-file git checkout and in a plain tree
#    of the same size: `codesmith shell 'touch t.txt'` with `[history] shell = true` minus the
#    same call with `shell = false`, against `git status --porcelain` on the checkout. Bar: at
#    most 1.5x. The first snapshot of a tree (the shadow index is built) is timed once, apart.
#
# BASE_BIN is required for part 1 (skipped without it); PARTS (default "edit shell") picks the
# parts; FILES (default 100000) and RUNS tune the effort. FILL=N makes N edits (untimed) on both
# sides first, so part 1 runs on a full history (1000 is the default max_checkpoints: every
# hundredth call then prunes, and the median leaves those calls out; the mean is printed too).
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch

parts=${PARTS:-edit shell}
if [[ -n ${BASE_BIN:-} && $parts == *edit* ]]; then
    echo "== edit_file with its checkpoint vs without (before checkpoints existed)"
    mkdir a b
    awk 'BEGIN { for (i = 1; i <= 200; i++) printf "fn f_%d() -> u32 { %d }\n", i, i }' >orig.rs
    # The two edits alternate run by run (hyperfine runs all of one command, then all of the
    # other, and on a shared machine the load moves in between); each run's preparation is
    # untimed. Each round's ratio is median(with) / median(without); the figure is the median
    # over rounds. The same ratio with the time of starting `true` taken off both sides (the
    # spawning every run pays) is printed too.
    python3 - "$BIN" "$BASE_BIN" "${ROUNDS:-5}" "${RUNS:-300}" "${FILL:-0}" <<'EOF'
import json, os, statistics, subprocess, sys, time
with_bin, base_bin, rounds, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fill = int(sys.argv[5])
edit = json.dumps({"path": "src.rs", "search": "fn f_150() -> u32 { 150 }",
                   "replace": "fn f_150() -> u32 { 151 }"})
quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def prepare(binary, ws):
    with open("orig.rs", "rb") as f:
        data = f.read()
    with open(f"{ws}/src.rs", "wb") as f:
        f.write(data + f"{time.time_ns()}\n".encode())
    subprocess.run([binary, "--workspace", ws, "read", "src.rs", "--max-lines", "1"], check=True, **quiet)

def timed(argv):
    start = time.perf_counter_ns()
    subprocess.run(argv, check=True, **quiet)
    return (time.perf_counter_ns() - start) / 1e6

sides = {"with": (with_bin, "a"), "without": (base_bin, "b")}
for _ in range(fill):
    for binary, ws in sides.values():
        prepare(binary, ws)
        subprocess.run([binary, "--workspace", ws, "edit", "--json", edit], check=True, **quiet)
ratios, net_ratios = [], []
for r in range(1, rounds + 1):
    times = {"with": [], "without": [], "true": []}
    for i in range(runs):
        order = ["with", "without"] if (i + r) % 2 else ["without", "with"]
        for name in order:
            binary, ws = sides[name]
            prepare(binary, ws)
            times[name].append(timed([binary, "--workspace", ws, "edit", "--json", edit]))
        times["true"].append(timed(["true"]))
    a, b, t = (statistics.median(times[k]) for k in ("with", "without", "true"))
    ratios.append(a / b)
    net_ratios.append((a - t) / (b - t))
    load = open("/proc/loadavg").read().split()[0]
    mean = statistics.mean(times["with"]) / statistics.mean(times["without"])
    print(f"round {r} (load {load}): with checkpoint {a:.3f} ms, without {b:.3f} ms, ratio {a / b:.3f}; "
          f"starting `true` {t:.3f} ms, ratio without it {(a - t) / (b - t):.3f}; ratio of means {mean:.3f}")
ratio, net = statistics.median(ratios), statistics.median(net_ratios)
print(f"ratio without the start of `true`: {net:.3f}")
print(f"ratio {ratio:.3f} (bar <= 1.1): " + ("holds" if ratio <= 1.1 else "DOES NOT HOLD"))
EOF
fi

[[ $parts == *shell* ]] || exit 0
files=${FILES:-100000}
make_tree() {
    python3 - "$1" "$files" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:06d}.txt"), "w") as f:
        f.write(f"file {i}\n" * 8)
EOF
    echo t >"$1/t.txt"
}

echo "== exec_shell snapshot of a $files-file tree, per call, vs git status --porcelain"
make_tree repo
(cd repo && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm tree)
make_tree plain
for tree in repo plain; do
    mkdir -p "$tree/.codesmith"
    printf '[history]\nshell = true\n' >"$tree/.codesmith/config.toml"
    start=$(date +%s%N)
    "$BIN" --workspace "$tree" shell 'touch t.txt' >/dev/null
    echo "$tree: first call (builds the shadow index): $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
# Each round times the three commands in one hyperfine run, the order reversed every other
# round; the figure is the median over rounds of each round's (on - off) / git status.
runs=${RUNS:-10}
rounds=${ROUNDS:-5}
for tree in repo plain; do
    json=$(mktemp)
    on="printf '[history]\\nshell = true\\n' > $tree/.codesmith/config.toml"
    off="printf '[history]\\nshell = false\\n' > $tree/.codesmith/config.toml"
    ratios=()
    for round in $(seq 1 "$rounds"); do
        commands=(--prepare "sh -c \"$on\"" -n "snapshots on" "$BIN --workspace $tree shell 'touch t.txt'"
            --prepare "sh -c \"$off\"" -n "snapshots off" "$BIN --workspace $tree shell 'touch t.txt'"
            --prepare "true" -n "git status" "git -C repo status --porcelain")
        if ((round % 2 == 0)); then
            commands=("${commands[@]:10:5}" "${commands[@]:5:5}" "${commands[@]:0:5}")
        fi
        hyperfine -N --warmup 2 --runs "$runs" --style none --export-json "$json" "${commands[@]}" \
            >/dev/null 2>&1 ||
            fail "$BIN --workspace $tree shell 'touch t.txt'" "git -C repo status --porcelain"
        ratios+=("$(python3 - "$json" "$tree" "$round" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
on, off, status = r["snapshots on"], r["snapshots off"], r["git status"]
cost = on - off
print(f"{sys.argv[2]} round {sys.argv[3]} (load {sys.argv[4]}): call with snapshots {on:.1f} ms, "
      f"without {off:.1f} ms, snapshot cost {cost:.1f} ms; git status --porcelain {status:.1f} ms; "
      f"ratio {cost / status:.3f}", file=sys.stderr)
print(f"{cost / status:.3f}")
EOF
        )")
    done
    rm -f "$json"
    ratio=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "$tree: snapshot cost / git status, median over $rounds rounds: $(verdict "$ratio" 1.5)"
done
