#!/usr/bin/env bash
# Peak memory (maximum resident set size, from /usr/bin/time) of changing a large file:
# edit_file, write_file and apply_patch of one line of a SIZE_MB (default 200) MB text file,
# each on a fresh, freshly read copy, and the same three tools on a 2 GiB sparse file (refused
# up front as too_large). The ratio is peak RSS over the file's size: the old text and the new
# text must both be held while the new one is written (about 2x); more means a copy too many.
# CODESMITH_BIN measures a given binary (a debug build allocates the same) without building.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_release
enter_scratch
mb=${SIZE_MB:-200}
awk -v n=$((mb * 1024 * 1024 / 100)) 'BEGIN { print "FIRST LINE"; for (i = 1; i <= n; i++) printf "%099d\n", i }' >orig.txt
size=$(stat -c %s orig.txt)
python3 - "$size" <<'PY'
import json, sys
text = open("orig.txt").read()
json.dump({"path": "big.txt", "content": text.replace("FIRST LINE", "SECOND LINE", 1)}, open("write_file.json", "w"))
json.dump({"path": "big.txt", "search": "FIRST LINE", "replace": "SECOND LINE"}, open("edit_file.json", "w"))
patch = "--- a/big.txt\n+++ b/big.txt\n@@ -1,2 +1,2 @@\n-FIRST LINE\n+SECOND LINE\n %099d\n" % 1
json.dump({"patch": patch}, open("apply_patch.json", "w"))
PY
peak() { # TOOL JSON-FILE: prints the peak RSS in KB; the call must succeed.
    /usr/bin/time -f %M -o rss.txt "$BIN" "$1" <"$2" >out.json
    grep -q '"ok":true' out.json || { echo "bench: $1 failed: $(head -c 300 out.json)" >&2; exit 1; }
    tail -n 1 rss.txt
}
fresh() { cp orig.txt big.txt && "$BIN" read big.txt --max-lines 1 >/dev/null; }
printf '%-12s %-24s %12s %8s\n' tool file "peak RSS MB" "x size"
fresh
read_kb=$(/usr/bin/time -f %M "$BIN" read big.txt --max-lines 1 2>&1 >/dev/null | tail -1)
printf '%-12s %-24s %12d %8.2f\n' read_file "$mb MB text" $((read_kb / 1024)) "$(echo "$read_kb * 1024 / $size" | bc -l)"
for tool in edit_file write_file apply_patch; do
    fresh
    kb=$(peak "$tool" "$tool.json")
    printf '%-12s %-24s %12d %8.2f\n' "$tool" "$mb MB text" $((kb / 1024)) "$(echo "$kb * 1024 / $size" | bc -l)"
done
truncate -s 2G sparse.txt
for tool in edit_file write_file apply_patch; do
    sed 's/big\.txt/sparse.txt/g' "$tool.json" >sparse.json
    /usr/bin/time -f %M -o rss.txt "$BIN" "$tool" <sparse.json >out.json || true
    code=$(sed -n 's/.*"code":"\([a-z_]*\)".*/\1/p' out.json)
    printf '%-12s %-24s %12d %8s\n' "$tool" "2 GiB sparse ($code)" $(($(tail -n 1 rss.txt) / 1024)) -
done
