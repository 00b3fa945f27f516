#!/usr/bin/env bash
# Golden run: a few hundred calls of every tool (success and error paths, json and text formats,
# `call`, the catalogs, trust, approve, mcp) against one binary in a fresh scratch workspace, the
# envelopes written to one file. Two builds that must behave alike give byte-identical files:
#
#   bench/golden.sh OLD_BINARY old.txt && bench/golden.sh NEW_BINARY new.txt && cmp old.txt new.txt
#
# Only what varies by run is normalised: the scratch workspace's path, durations, task process
# ids and approval ids (derived from the workspace path). Every write, and every command that
# should be refused, is aimed at the scratch workspace or a scratch directory beside it that
# the script made, never at a system path; the only addresses it names are loopback ones no
# server listens on. Run it inside a jail all the same (read-only root, fresh /tmp):
#
#   jail -w OUTDIR -- bench/golden.sh BINARY OUTDIR/out.txt
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: bench/golden.sh BINARY OUTPUT" >&2
    exit 2
fi
OUT=$(realpath -m "$2")
WS=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXXXXXX")
trap 'rm -rf "$WS" "$WS.bin" "$WS.outside"' EXIT
# Usage lines name the program as it was invoked: every build runs as `codesmith`.
mkdir "$WS.bin" "$WS.outside"
printf 'keep\n' >"$WS.outside/keep.txt"
cp "$1" "$WS.bin/codesmith"
BIN=$WS.bin/codesmith
RAW=$WS.raw
: >"$RAW"
cd "$WS"
export CODESMITH_SESSION=golden
unset CODESMITH_WORKSPACE

n=0
# c ARGS...: one call with no stdin; the header names the arguments, then stdout and the status.
c() {
    local status=0
    n=$((n + 1))
    printf '### %d: %s\n' "$n" "$*" >>"$RAW"
    "$BIN" "$@" </dev/null >>"$RAW" 2>/dev/null || status=$?
    printf '\n[exit %d]\n' "$status" >>"$RAW"
}
# ci STDIN ARGS...: one call reading STDIN.
ci() {
    local input=$1 status=0
    shift
    n=$((n + 1))
    printf '### %d: %s <<< %s\n' "$n" "$*" "$input" >>"$RAW"
    printf '%s' "$input" | "$BIN" "$@" >>"$RAW" 2>/dev/null || status=$?
    printf '\n[exit %d]\n' "$status" >>"$RAW"
}
# mcp_session REQUEST: one MCP server session: the handshake, REQUEST, and stdin held open
# until both answers arrived (a client closing stdin cancels what is in flight). The server
# answers requests concurrently and JSON-RPC pairs answers by id, so the answers are sorted:
# their order is not part of the wire.
mcp_session() {
    local request=$1 answers=() line status=0
    n=$((n + 1))
    printf '### %d: mcp <<< %s\n' "$n" "$request" >>"$RAW"
    coproc MCP { "$BIN" mcp 2>/dev/null; }
    printf '%s\n%s\n%s\n' "$MCP_INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        "$request" >&"${MCP[1]}"
    while ((${#answers[@]} < 2)) && IFS= read -r -t 20 line <&"${MCP[0]}"; do
        answers+=("$line")
    done
    exec {MCP[1]}>&-
    wait "$MCP_PID" || status=$?
    printf '%s\n' "${answers[@]}" | LC_ALL=C sort >>"$RAW"
    printf '[exit %d]\n' "$status" >>"$RAW"
}
MCP_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}'
# both TOOL JSON: the call in json and in text format.
both() {
    c "$1" --json "$2"
    c --format text "$1" --json "$2"
}

fixture() {
    mkdir -p src/net sub/deep/deeper docs node_modules/pkg target/debug .git/objects empty
    printf 'fn main() {\n    let total = add(2, 3);\n    println!("{total}");\n}\n\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n' >src/main.rs
    cat >src/lib.rs <<'EOF'
//! A small library.
pub mod net;

/// A point on the plane.
pub struct Point {
    pub x: i64,
    pub y: i64,
}

impl Point {
    pub fn new(x: i64, y: i64) -> Self {
        Point { x, y }
    }

    pub fn norm(&self) -> i64 {
        self.x.abs() + self.y.abs()
    }
}

pub trait Shape {
    fn area(&self) -> f64;
}

pub const LIMIT: usize = 10;

macro_rules! twice {
    ($e:expr) => {
        $e * 2
    };
}

pub fn doubled(v: i64) -> i64 {
    twice!(v)
}
EOF
    printf 'pub fn connect(host: &str) -> bool {\n    !host.is_empty()\n}\n' >src/net/mod.rs
    cat >app.py <<'EOF'
import os


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "hello " + self.name


def main():
    print(Greeter(os.environ.get("USER", "you")).greet())


if __name__ == "__main__":
    main()
EOF
    printf 'function hello(name) {\n  return `hi ${name}`;\n}\nconst answer = 42;\nmodule.exports = { hello, answer };\n' >web.js
    printf 'line one\r\nline two\r\nline three\r\n' >crlf.txt
    printf 'no newline at end' >nonl.txt
    printf 'caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x80\x94 dash\n' >unicode.txt
    printf '\x00\x01\x02binary\x00data' >blob.bin
    printf 'TODO: first\nplain\nTODO: second\nplain\nTODO: third\n' >todo.txt
    for i in $(seq 1 700); do printf 'row %04d value=%d\n' "$i" $((i * 7 % 13)); done >big.txt
    printf '%s\n' "$(head -c 3000 /dev/zero | tr '\0' 'x')" >longline.txt
    printf 'alpha\nbeta\ngamma\n' >sub/a.txt
    printf 'delta\n' >sub/deep/b.txt
    printf 'epsilon\n' >sub/deep/deeper/c.md
    printf '# Docs\n\nSee `src/lib.rs`.\n' >docs/guide.md
    printf 'ignored\n' >node_modules/pkg/index.js
    printf 'build\n' >target/debug/out.txt
    printf 'ignored.log\n*.tmp\n' >.gitignore
    printf 'secret\n' >ignored.log
    printf 'tmp\n' >scratch.tmp
    printf 'dup one\ndup two\ndup one\n' >dups.txt
    printf '\033[31mred\033[0m and \033]0;title\007 plain\n' >escapes.txt
    ln -s sub/a.txt link.txt
    ln -s /etc/hostname outside_link
    # Fixed times, so a listing sorted by modification time is the same every run.
    local i=0 f
    while IFS= read -r f; do
        i=$((i + 1))
        touch -h -d "2020-01-01 00:00:00 UTC + $i minutes" "$f"
    done < <(find . -path ./.git -prune -o -print | LC_ALL=C sort)
}

catalogs() {
    c tools
    c tools --format json
    c tools --format openai
    c tools --format anthropic
    c tools --format nonsense
    c --help
    c --version
    for t in read edit write patch grep find symbol outline ls shell task_output task_wait task_cancel \
        history undo fetch call tools trust approve; do
        c "$t" --help
    done
    c nosuchtool
    c read --nosuchflag
}

reads() {
    for f in src/main.rs src/lib.rs app.py web.js crlf.txt nonl.txt unicode.txt todo.txt sub/a.txt \
        link.txt longline.txt escapes.txt docs/guide.md; do
        both read "{\"path\":\"$f\"}"
    done
    for start in 1 199 200 201 650 700 701 9999; do
        both read "{\"path\":\"big.txt\",\"start_line\":$start}"
    done
    for max in 0 1 5 500 501 -3; do
        c read --json "{\"path\":\"big.txt\",\"max_lines\":$max}"
    done
    c read --path big.txt --start-line 10 --max-lines 3
    c read src/main.rs
    ci '{"path":"sub/a.txt"}' read
    # Error paths.
    both read '{"path":"missing.txt"}'
    both read '{"path":"src/mian.rs"}'
    both read '{"path":"blob.bin"}'
    both read '{"path":"sub"}'
    both read '{"path":"/etc/hostname"}'
    both read '{"path":"../outside.txt"}'
    both read '{"path":"outside_link"}'
    c read --json '{"path":"a","bogus":1}'
    c read --json '{"path":7}'
    c read --json '{}'
    c read --json '{"path":"big.txt","start_line":0}'
    c read --json 'not json'
    c read --json '{"path":"big.txt",}'
    ci 'garbage' read
    c read
}

lists_and_finds() {
    for d in . src sub sub/deep empty node_modules; do
        both ls "{\"path\":\"$d\"}"
    done
    for depth in 0 1 2 3 9; do
        c ls --json "{\"depth\":$depth}"
    done
    both ls '{"path":"nowhere"}'
    both ls '{"path":"todo.txt"}'
    for p in '*.rs' '**/*.rs' '*.txt' 'sub/**' '*.md' 'mian.rs' '*.js' '**/deep*' '[' '*.log'; do
        both find "{\"pattern\":\"$p\"}"
    done
    c find --json '{"pattern":"*","max_results":3}'
    c find --json '{"pattern":"*","max_results":0}'
    c find --json '{"pattern":"*","sort":"modified"}'
    c find --json '{"pattern":"*","sort":"sideways"}'
    c find --json '{"pattern":"*.log","include_ignored":true}'
    c find --json '{"pattern":"*","path":"sub"}'
    c find --json '{"pattern":"*","path":"subb"}'
    c find --pattern '*.py'
}

greps() {
    for p in 'TODO' 'fn \w+' 'line' 'caf' 'value=1[0-2]' 'nothing-matches-this' '(' 'x{2000}' 'Point'; do
        both grep "{\"pattern\":\"$p\"}"
    done
    c grep --json '{"pattern":"todo","case_insensitive":true}'
    c grep --json '{"pattern":"(","fixed_strings":true}'
    c grep --json '{"pattern":"fn.*\\n.*let","multiline":true}'
    c grep --json '{"pattern":"TODO","context":1}'
    c grep --json '{"pattern":"row","max_results":5}'
    c grep --json '{"pattern":"row","output_mode":"files_with_matches"}'
    c grep --json '{"pattern":"row","output_mode":"count"}'
    c grep --json '{"pattern":"row","output_mode":"bogus"}'
    c grep --json '{"pattern":"e","include":["*.rs"]}'
    c grep --json '{"pattern":"e","exclude":["*.txt","*.rs"]}'
    c grep --json '{"pattern":"secret","include_ignored":true}'
    c grep --json '{"pattern":"ignored"}'
    c grep --json '{"pattern":"e","path":"sub/a.txt"}'
    c grep --json '{"pattern":"e","path":"sub/nope"}'
    c grep --json '{"pattern":"red"}'
    c grep --pattern alpha --path sub
}

symbols() {
    for name in Point main add norm Shape LIMIT twice Greeter greet hello connect Nope; do
        both symbol "{\"name\":\"$name\"}"
    done
    c symbol --json '{"name":"add","include_references":true}'
    c symbol --json '{"name":"Point","kind":"struct"}'
    c symbol --json '{"name":"Point","kind":"sandwich"}'
    c symbol --json '{"name":"main","path":"src"}'
    c symbol --json '{"name":"main","max_results":1}'
    c symbol --json '{"name":""}'
    for f in src/lib.rs src/main.rs app.py web.js todo.txt missing.rs blob.bin; do
        both outline "{\"path\":\"$f\"}"
    done
    c outline --json '{"path":"src/lib.rs","max_results":2}'
}

writes_and_edits() {
    both write '{"path":"new/one.txt","content":"first\nsecond\n"}'
    c write --json '{"path":"todo.txt","content":"overwrite unread"}'
    c read --json '{"path":"todo.txt"}'
    c write --json '{"path":"todo.txt","content":"TODO: first\nplain\nTODO: second\nplain\nTODO: third\n"}'
    c write --json "{\"path\":\"$WS.outside/new.txt\",\"content\":\"x\"}"
    c write --json '{"path":"sub","content":"x"}'
    c write --json '{"path":"src/broken.rs","content":"fn broken( {\n"}'
    c write --json '{"path":"crlf2.txt","content":"a\r\nb\r\n"}'
    c write --json '{"path":"new/one.txt"}'
    # Edits.
    c edit --json '{"path":"app.py","search":"hello","replace":"hi"}'
    c read --json '{"path":"app.py"}'
    both edit '{"path":"app.py","search":"\"hello \"","replace":"\"hey \"","dry_run":true}'
    c edit --json '{"path":"app.py","search":"\"hello \"","replace":"\"hey \""}'
    c edit --json '{"path":"app.py","search":"self","replace":"me"}'
    c edit --json '{"path":"app.py","search":"self.name","replace":"self.label","occurrence":2}'
    c edit --json '{"path":"app.py","search":"self.name","replace":"self.label","replace_all":true}'
    c edit --json '{"path":"app.py","search":"absent text","replace":"x"}'
    c edit --json '{"path":"app.py","search":"  def greet(self):","replace":"  def greet(self, loud=False):"}'
    c edit --json '{"path":"app.py","search":"     4│ class Greeter:","replace":"class Welcomer:"}'
    c edit --json '{"path":"app.py","search":"x","replace":"y","occurrence":0}'
    c edit --json '{"path":"app.py","search":"x","replace":"y","occurrence":2,"replace_all":true}'
    c read --json '{"path":"unicode.txt"}'
    c edit --json '{"path":"unicode.txt","search":"\"quoted\" - dash","replace":"\"said\" - dash"}'
    c read --json '{"path":"crlf.txt"}'
    c edit --json '{"path":"crlf.txt","search":"line two\n","replace":"line 2\nline 2b\n"}'
    c read --json '{"path":"src/lib.rs"}'
    c edit --json '{"path":"src/lib.rs","search_start":"impl Point {","search_end":"^}","replace":"impl Point {}"}'
    c edit --json '{"path":"src/lib.rs","search":"pub const LIMIT: usize = 10;","replace":"pub const LIMIT: usize = {;"}'
    c edit --json '{"path":"src/lib.rs","search":"pub const LIMIT: usize = 10;","replace":"pub const LIMIT: usize = 11;"}'
    c edit --json '{"path":"sub/a.txt","search":"beta","replace":"BETA"}'
    c edit --json '{"path":"missing.txt","search":"a","replace":"b"}'
    c edit --json '{"path":"todo.txt","replace":"x"}'
    printf 'changed behind codesmith\n' >>sub/deep/b.txt.tmp
    c read --json '{"path":"sub/deep/b.txt"}'
    printf 'outside change\n' >>sub/deep/b.txt
    touch -d "2021-01-01 00:00:00 UTC" sub/deep/b.txt
    c edit --json '{"path":"sub/deep/b.txt","search":"delta","replace":"DELTA"}'
}

patches() {
    c read --json '{"path":"src/main.rs"}'
    local diff='--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,4 +1,4 @@\n fn main() {\n-    let total = add(2, 3);\n+    let total = add(4, 5);\n     println!(\"{total}\");\n }\n'
    c patch --json "{\"patch\":\"$diff\",\"dry_run\":true}"
    c --format text patch --json "{\"patch\":\"$diff\",\"dry_run\":true}"
    c patch --json "{\"patch\":\"$diff\"}"
    c patch --json "{\"patch\":\"$diff\"}"
    c read --json '{"path":"web.js"}'
    local begin='*** Begin Patch\n*** Update File: web.js\n@@\n-const answer = 42;\n+const answer = 43;\n*** Add File: added.txt\n+hello\n*** End Patch\n'
    both patch "{\"patch\":\"$begin\",\"dry_run\":true}"
    c patch --json "{\"patch\":\"$begin\"}"
    c patch --json '{"patch":"*** Begin Patch\n*** Delete File: added.txt\n*** End Patch\n"}'
    c patch --json '{"patch":"not a patch at all"}'
    c patch --json '{"patch":"--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n"}'
    c patch --json '{"patch":"*** Begin Patch\n*** Update File: web.js\n@@\n-no such line\n+x\n*** End Patch\n"}'
    c patch --json '{"patch":"*** Begin Patch\n*** Add File: '"$WS.outside"'/evil\n+x\n*** End Patch\n"}'
    c patch --json '{"patch":"*** Begin Patch\n*** Update File: web.js\n"}'
    c patch --json '{"patch":""}'
    c patch --json '{"patch":"--- a/web.js\n+++ b/web.js\n@@ -1,2 +1,2 @@\n function hello(name) {\n-  return 1;\n+  return 2;\n"}'
    ci "{\"name\":\"apply_patch\",\"arguments\":{\"patch\":\"*** Begin Patch\\n*** Add File: via_call.txt\\n+called\\n*** End Patch\\n\"}}" call
}

shells() {
    both shell '{"command":"echo hello"}'
    both shell '{"command":"printf \"a\\nb\\n\"; echo err >&2; exit 3"}'
    c shell --json '{"command":"ls sub"}'
    c shell --json '{"command":"cat todo.txt | grep -c TODO"}'
    c shell --json '{"command":"echo made > made_by_shell.txt"}'
    c shell --json '{"command":"sleep 2","timeout_ms":100}'
    c shell --json '{"command":"seq 1 20000"}'
    c shell --json '{"command":"printf \"\\033[31mred\\033[0m\\n\""}'
    c shell --json '{"command":"cd sub && pwd"}'
    c shell --json '{"command":"pwd"}'
    c shell --json '{"command":"cd /"}'
    c shell --json '{"command":""}'
    c shell --json '{"command":"true","timeout_ms":0}'
    c shell --json '{"command":"rm -rf sub/deep/deeper"}'
    c shell --json "{\"command\":\"rm -rf $WS.outside\"}"
    c shell --json '{"command":"curl http://127.0.0.1:9/"}'
    c shell --json '{"command":"git push --force"}'
    c shell --json '{"command":"sed -i s/alpha/ALPHA/ sub/a.txt"}'
    c shell --json "{\"command\":\"echo x > $WS.outside/x\"}"
    c shell --json '{"command":"cat /etc/hostname > /dev/null; echo ok"}'
    c shell --json '{"command":"exit 0","bogus":true}'
    c shell --json '{"command":"echo bg-start; sleep 0.2; echo bg-end","background":true}'
    c task_wait --json '{"task_id":"task-1","timeout_ms":10000}'
    c task_output --json '{"task_id":"task-1"}'
    c task_output --json '{"task_id":"task-99"}'
    c task_wait --json '{"task_id":"task-99"}'
    c task_cancel --json '{"task_id":"task-99"}'
    c shell --json '{"command":"sleep 30","background":true}'
    c task_output --json '{"task_id":"task-2"}'
    c task_cancel --json '{"task_id":"task-2"}'
    c task_wait --json '{"task_id":"task-2","timeout_ms":5000}'
    c task_cancel --json '{"all":true}'
    c task_cancel --json '{}'
    c task_cancel --json '{"task_id":"task-1","all":true}'
}

history_and_undo() {
    both history '{}'
    c history --json '{"limit":2}'
    c history --json '{"limit":0}'
    c undo --json '{"dry_run":true}'
    both undo '{}'
    c undo --json '{"id":"cp-9999"}'
    c undo --json '{"id":"bogus id"}'
    c undo --json '{"to":"cp-1"}'
    c undo --json '{"id":"cp-1","to":"cp-1"}'
    c history --json '{}'
    c undo --id cp-2 --force
    c history --format text
}

fetches() {
    for url in 'http://127.0.0.1:9/' 'http://localhost:9/x' 'ftp://example.com/' 'not a url' \
        'http://[::1]:9/' 'http://127.0.0.3:9/latest' 'http://0.0.0.0:9/' 'file:///etc/passwd' \
        'https://user:pw@127.0.0.2/' ''; do
        both fetch "{\"url\":\"$url\"}"
    done
    c fetch --json '{"url":"http://127.0.0.1:9/","format":"pdf"}'
    c fetch --json '{"url":"http://127.0.0.1:9/","max_bytes":0}'
}

calls_trust_approve_mcp() {
    ci '{"name":"read_file","arguments":{"path":"sub/a.txt"}}' call
    ci '{"name":"ls","arguments":{}}' call
    ci '{"name":"grep_files","arguments":"{\"pattern\":\"alpha\"}"}' call
    ci '{"name":"nope","arguments":{}}' call
    ci '{"name":"read_file"}' call
    ci '{"arguments":{}}' call
    ci '[1,2]' call
    ci '' call
    ci '{"type":"function","function":{"name":"read_file","arguments":"{\"path\":\"todo.txt\"}"}}' call
    ci '{"tool_calls":[{"function":{"name":"list_dir","arguments":"{}"}}]}' call
    ci '{"name":"exec_shell","arguments":{"command":"echo via call"}}' --format text call
    c trust list
    c trust add "$WS/../golden-trusted-missing"
    c trust add sub
    c trust remove /nowhere
    c trust list
    c trust bogus
    c approve ap-000000000000
    c approve
    c approve nonsense-id --persist
    # One MCP session per request, after the handshake.
    local request
    for request in \
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"sub/a.txt"}}}' \
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"missing"}}}' \
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}' \
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"exec_shell","arguments":{"command":"rm -rf '"$WS.outside"'"}}}' \
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"exec_shell","arguments":{"command":"echo from mcp"}}}' \
        '{"jsonrpc":"2.0","id":8,"method":"bogus/method"}' \
        'not json'; do
        mcp_session "$request"
    done
}

fixture
catalogs
reads
lists_and_finds
greps
symbols
writes_and_edits
patches
shells
history_and_undo
fetches
calls_trust_approve_mcp

# Normalise what varies by run: the workspace path, durations, process ids, approval ids.
sed -E \
    -e "s#${WS}#<WS>#g" \
    -e "s#$(basename "$WS")#<WS>#g" \
    -e 's/"(elapsed_ms|duration_ms|pid|pgid|time)":[0-9]+/"\1":N/g' \
    -e 's/ap-[0-9a-f]{12}/ap-XXXXXXXXXXXX/g' \
    -e 's/[0-9]+(\.[0-9]+)? ?(ms|s) (elapsed|taken)/N \2 \3/g' \
    "$RAW" >"$OUT"
rm -f "$RAW"
echo "$n calls -> $OUT"
