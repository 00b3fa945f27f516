#!/usr/bin/env bash
# What web_search adds to a request: `web_search` against a SearXNG stand-in on loopback
# (python3's http.server serving a recorded JSON answer; `trusted_cidrs` admits it) against
# `fetch` of the same answer from the same server, so both pay the same gates, connection and
# audit line. Bar: at most 1.2x. ROUNDS and RUNS tune the effort.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
mkdir -p site/search .codesmith
python3 - <<'PY' >site/search/index.html
import json
print(json.dumps({"query": "q", "results": [
    {"url": f"https://example.org/{n}", "title": f"Result {n}", "content": "A snippet. " * 20}
    for n in range(20)]}))
PY
port=$((20000 + RANDOM % 20000))
python3 -m http.server "$port" --bind 127.0.0.1 --directory site >/dev/null 2>&1 &
server=$!
trap 'kill "$server"; rm -rf "$work"' EXIT
printf '[network]\ndefault = "allow"\ntrusted_cidrs = ["127.0.0.1/32"]\n\n[web_search]\nprovider = "searxng"\nendpoint = "http://127.0.0.1:%s"\n' \
    "$port" >.codesmith/config.toml
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
"$BIN" web_search q >/dev/null
compare "web_search" "$BIN web_search q" "fetch" "$BIN fetch http://127.0.0.1:$port/search?q=q\&format=json"
verdict "$RATIO" 1.2
