#!/usr/bin/env bash
# Agreement check on a large tree: grep_files' file set and match counts must equal ripgrep's
# (`rg -c` with the same skip rules), and file_search's matches must equal fd's.
#
#   TREE=/tmp/codesmith-bench/tree bench/search-check.sh   (BIN=path to time another binary)
#
# Exits non-zero on the first disagreement. bench/search.sh runs it before timing.
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=${TREE:-/tmp/codesmith-bench/tree}
if [[ -z ${BIN:-} ]]; then source bench/common.sh; build_release; fi
BIN=$(realpath "$BIN")
FD=$(command -v fdfind || command -v fd)

python3 - "$TREE" "$BIN" "$FD" <<'EOF'
import json, subprocess, sys

tree, binary, fd = sys.argv[1:4]
SKIP_DIRS = [".git", "node_modules", "target", "dist", "build", "__pycache__", ".venv", "venv", ".codesmith"]
SKIP_FILES = ["*.min.js", "*.min.css"]
RG = ["rg", "--hidden", "--no-require-git", "--max-filesize", "10M"]
for d in SKIP_DIRS:
    RG += ["-g", f"!{d}/"]
for f in SKIP_FILES:
    RG += ["-g", f"!{f}"]
FD = [fd, "--hidden"]
for d in SKIP_DIRS:
    FD += ["-E", f"{d}/"]
for f in SKIP_FILES:
    FD += ["-E", f]

def run(cmd):
    return subprocess.run(cmd, cwd=tree, capture_output=True, text=True, errors="surrogateescape").stdout

def codesmith(*args):
    return json.loads(run([binary, "--workspace", tree, *args]))

def key(path):
    # codesmith sorts component by component, as `rg --sort path` does.
    return path.split("/")

failures = 0
def check(what, ok, detail=""):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} {what}{'' if ok else ': ' + detail}")
    failures += 0 if ok else 1

files = [l for l in run(RG + ["--files", "."]).splitlines() if l]
for label, extra, pattern in [
    ("literal", [], "HashMap"),
    ("regex", [], r"[A-Z][a-z]+Error\b"),
    ("case-insensitive", ["-i"], "deprecated"),
    ("fixed string", ["-F"], "fn new("),
]:
    rg = {}
    for line in run(RG + extra + ["-c", "--", pattern, "."]).splitlines():
        path, _, count = line.rpartition(":")
        rg[path.removeprefix("./")] = int(count)
    args = ["grep", "--output-mode", "count", "--max-results", "1000"]
    if "-i" in extra:
        args += ["--case-insensitive"]
    if "-F" in extra:
        args += ["--fixed-strings"]
    env = codesmith(*args, "--pattern", pattern)
    data = env["data"]
    expected = sorted(rg.items(), key=lambda kv: key(kv[0]))[:1000]
    got = [(c["path"], c["count"]) for c in data["counts"]]
    check(f"{label}: total_matches {data['total_matches']} == rg -c sum {sum(rg.values())}",
          data["total_matches"] == sum(rg.values()))
    check(f"{label}: total_files {data['total_files']} == rg -c files {len(rg)}", data["total_files"] == len(rg))
    check(f"{label}: first {len(got)} files and counts equal rg -c's", got == expected,
          str([x for x in zip(got, expected) if x[0] != x[1]][:3]))
    check(f"{label}: files_searched {data['files_searched']} == rg --files {len(files)}",
          data["files_searched"] == len(files))

for label, pattern, fd_args in [
    ("glob *.rs", "*.rs", ["-g", "*.rs"]),
    ("glob Cargo.toml", "Cargo.toml", ["-g", "Cargo.toml"]),
    ("everything", "", []),
]:
    fd_paths = sorted((p.rstrip("/") for p in run(FD + fd_args).splitlines() if p), key=key)
    env = codesmith("find", "--pattern", pattern, "--max-results", "200")
    data = env["data"]
    got = [p.rstrip("/") for p in data["paths"]]
    check(f"{label}: total {data['total_matches']} == fd {len(fd_paths)}", data["total_matches"] == len(fd_paths))
    check(f"{label}: first {len(got)} paths equal fd's", got == fd_paths[:200],
          str([x for x in zip(got, fd_paths) if x[0] != x[1]][:3]))

sys.exit(1 if failures else 0)
EOF
