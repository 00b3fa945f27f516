# Shared by the bench scripts: build, alternate two commands over several rounds,
# report the median of the per-round median ratios. Sourced, not run.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Builds the release binary and sets BIN. CODESMITH_BIN names another binary (e.g. an older
# build to compare against) and skips the build. DYNAMIC=1 builds the dynamically linked
# variant instead (RUSTFLAGS emptied, so .cargo/config.toml's static-pie flags are not used),
# in target/dynamic/, to compare the two link modes.
build_release() {
    local root
    if [[ -n ${CODESMITH_BIN:-} ]]; then
        BIN=$CODESMITH_BIN
        return
    fi
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    local env=()
    if [[ "${DYNAMIC:-0}" == 1 ]]; then
        env=(RUSTFLAGS= CARGO_TARGET_DIR="$root/target/dynamic")
    fi
    # The binary's path depends on the target (target/<host triple>/release/ with the build
    # target that .cargo/config.toml names): cargo says where it put it.
    BIN=$(cd "$root" && env "${env[@]}" cargo build --release --quiet --message-format=json \
        | sed -n 's/.*"executable":"\([^"]*\/codesmith\)".*/\1/p' | tail -n 1)
    [[ -x $BIN ]] || { echo "bench: cargo did not report the codesmith binary" >&2; exit 1; }
}

# Makes a scratch directory (removed on exit), sets `work` to it and enters it. BIN (and
# BASE_BIN, when set) are replaced by copies in it, as `cargo install` copies the binary: the
# file the linker just wrote runs slower than the same bytes copied until its pages leave the
# page cache (here ~0.5 ms more CPU per `shell true`, gone once the file is evicted and read
# back), and the commands it is compared with are installed programs too.
enter_scratch() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cd "$work"
    mkdir .bin
    if [[ -n ${BIN:-} ]]; then
        cp "$BIN" .bin/codesmith
        BIN="$work/.bin/codesmith"
    fi
    if [[ -n ${BASE_BIN:-} ]]; then
        cp "$BASE_BIN" .bin/codesmith-base
        BASE_BIN="$work/.bin/codesmith-base"
    fi
}

# compare NAME_A CMD_A NAME_B CMD_B: runs both commands in ROUNDS rounds of RUNS runs each, in
# alternation within a round (A, B, A, B, ...; alternate.py says why), A first in odd rounds and
# B first in even ones; prints each round's medians and sets RATIO to the median over rounds of
# median(A) / median(B). PREPARE_A / PREPARE_B, when set, run (untimed) before each run of A / B.
compare() {
    local name_a=$1 cmd_a=$2 name_b=$3 cmd_b=$4
    local rounds=${ROUNDS:-5} runs=${RUNS:-300} ratios=() round a b medians
    for round in $(seq 1 "$rounds"); do
        if ((round % 2)); then
            medians=$(python3 "$BENCH_DIR/alternate.py" "$runs" "${WARMUP:-30}" "$cmd_a" "$cmd_b" \
                "${PREPARE_A:-}" "${PREPARE_B:-}") || fail "$cmd_a" "$cmd_b"
            read -r a b <<<"$medians"
        else
            medians=$(python3 "$BENCH_DIR/alternate.py" "$runs" "${WARMUP:-30}" "$cmd_b" "$cmd_a" \
                "${PREPARE_B:-}" "${PREPARE_A:-}") || fail "$cmd_a" "$cmd_b"
            read -r b a <<<"$medians"
        fi
        ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')")
        printf 'round %d: %s %.3f ms, %s %.3f ms, ratio %s\n' "$round" "$name_a" \
            "$(awk -v x="$a" 'BEGIN { print x * 1000 }')" "$name_b" \
            "$(awk -v x="$b" 'BEGIN { print x * 1000 }')" "${ratios[-1]}"
    done
    RATIO=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
}

fail() {
    echo "a timed command failed; run the commands by hand to see why: $1 | $2" >&2
    exit 1
}

# verdict RATIO BAR: prints the verdict line.
verdict() {
    if awk -v r="$1" -v bar="$2" 'BEGIN { exit !(r <= bar) }'; then
        echo "ratio $1 (bar <= $2): holds"
    else
        echo "ratio $1 (bar <= $2): DOES NOT HOLD"
    fi
}
