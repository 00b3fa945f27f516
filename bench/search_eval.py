#!/usr/bin/env python3
"""search_code against a keyword baseline, on documented functions of real repositories.

    bench/search_eval.py --bin target/x86_64-unknown-linux-gnu/release/codesmith REPO_DIR...

Each REPO_DIR is a checkout (or `git archive` export) of a public repository. For every function
with a doc comment (Rust `///`, Go `//` above `func`, Python docstrings) the first sentence of
the comment becomes a query, and the comment is blanked in a copy of the repository (its lines
kept, empty, so line numbers do not move). search_code runs on the copy; a query is answered
when a result's region holds the function's `fn`/`func`/`def` line (function level). The
baseline ranks files by the idf-weighted number of lines where `rg -w -i` finds each query word;
it is answered when the function's file is ranked (file level, an easier target). Both report
recall@1, recall@10 and the mean reciprocal rank over the first 10. Nothing is written outside
the scratch directory (--work, default a temporary directory under /var/tmp).

A workspace config can be given with --config FILE: it is copied to .codesmith/config.toml of
each copy. --model DIR (a static embedding model, see docs/GUIDE.md "Search by meaning") runs
every query three times, once per `[search] ranking`: lexical, embedding and hybrid. Each
ranking starts from an empty index, so its first call is a cold build (with the model: chunking
and embedding every region), reported with its MB/s and peak RSS.
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STOPWORDS = set(
    "a an and are as at be by do does for from how if in into is it its of on or that the their then this to "
    "was what when where which who with".split()
)

RUST_FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?((const|async|unsafe|extern(\s+\"[^\"]*\")?)\s+)*fn\s+(\w+)")
GO_FUNC = re.compile(r"^func\s+(\([^)]*\)\s*)?(\w+)")
PY_DEF = re.compile(r"^(\s*)(async\s+)?def\s+(\w+)")


def first_sentence(lines, name):
    text = " ".join(l.strip() for l in lines).strip()
    text = re.split(r"(?<=[.!?])\s|\n\n", text)[0]
    text = re.sub(r"[`*\[\]()]", " ", text)
    words = text.split()
    if words and words[0] == name:  # Go's convention: the comment starts with the name.
        words = words[1:]
    return " ".join(words)


def rust_docs(lines):
    """(name, name_line, doc_lines) for each `///`-documented fn; doc_lines are 0-based indices."""
    for i, line in enumerate(lines):
        m = RUST_FN.match(line)
        if not m:
            continue
        k, doc = i - 1, []
        while k >= 0 and lines[k].strip().startswith("#["):
            k -= 1
        while k >= 0 and lines[k].strip().startswith("///"):
            doc.append(k)
            k -= 1
        if doc:
            doc.reverse()
            yield m.group(6), i + 1, doc, [lines[d].strip()[3:] for d in doc]


def go_docs(lines):
    for i, line in enumerate(lines):
        m = GO_FUNC.match(line)
        if not m:
            continue
        k, doc = i - 1, []
        while k >= 0 and lines[k].startswith("//"):
            doc.append(k)
            k -= 1
        if doc:
            doc.reverse()
            yield m.group(2), i + 1, doc, [lines[d][2:] for d in doc]


def python_docs(lines):
    for i, line in enumerate(lines):
        m = PY_DEF.match(line)
        if not m or not line.rstrip().endswith(":"):
            continue
        j = i + 1
        if j >= len(lines):
            continue
        body = lines[j].strip()
        quote = '"""' if body.startswith('"""') else "'''" if body.startswith("'''") else None
        if not quote:
            continue
        doc, text = [j], [body[3:]]
        if not (body.endswith(quote) and len(body) >= 6):
            k = j + 1
            while k < len(lines) and quote not in lines[k]:
                doc.append(k)
                text.append(lines[k])
                k += 1
            if k < len(lines):
                doc.append(k)
                text.append(lines[k].split(quote)[0])
        else:
            text = [body[3:-3]]
        yield m.group(3), i + 1, doc, text


EXTRACTORS = {".rs": rust_docs, ".go": go_docs, ".py": python_docs}


def blank(lines, doc, ext):
    for d in doc:
        lines[d] = ""
    if ext == ".py":  # keep a statement where the docstring was, so the body still parses
        d = doc[0]
        lines[d] = re.match(r"\s*", lines[d - 1]).group(0) + "    ..."


def prepare(repo, work):
    """Copies `repo` to work/<name>, blanks doc comments; returns the queries."""
    name = os.path.basename(os.path.normpath(repo))
    copy = os.path.join(work, name)
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git", ".codesmith"), symlinks=True)
    queries = []
    for root, _, files in os.walk(copy):
        for f in sorted(files):
            ext = os.path.splitext(f)[1]
            if ext not in EXTRACTORS:
                continue
            path = os.path.join(root, f)
            try:
                with open(path, encoding="utf-8") as h:
                    text = h.read()
            except (UnicodeDecodeError, OSError):
                continue
            lines = text.split("\n")
            found = list(EXTRACTORS[ext](lines))
            for fn, line, doc, doc_text in found:
                query = first_sentence(doc_text, fn)
                if len(query.split()) >= 4:
                    queries.append({"path": os.path.relpath(path, copy), "name": fn, "line": line, "query": query})
                blank(lines, doc, ext)
            if found:
                with open(path, "w", encoding="utf-8") as h:
                    h.write("\n".join(lines))
    return copy, queries


def search(binary, copy, query):
    """The results of one search_code call, its wall time, ranking and peak RSS (MB)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [binary, "--workspace", copy, "search_code", "--json", json.dumps({"query": query, "max_results": 10})],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    stdout = child.stdout.read()
    _, _, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    envelope = json.loads(stdout)
    if not envelope["ok"]:
        sys.exit(f"search_code failed: {envelope['output']}")
    if envelope.get("notices"):
        print(f"notice: {envelope['notices'][0]}", file=sys.stderr)
    return envelope["data"]["results"], elapsed, envelope["data"].get("ranking"), usage.ru_maxrss / 1024


class Baseline:
    """Files ranked by the idf-weighted count of lines where `rg -w -i WORD` matches."""

    def __init__(self, copy):
        self.copy = copy
        files = subprocess.run(["rg", "--files"], cwd=copy, capture_output=True, text=True).stdout.split()
        self.n = max(len(files), 1)
        self.cache = {}

    def hits(self, word):
        if word not in self.cache:
            out = subprocess.run(
                ["rg", "-w", "-i", "-c", "--no-messages", "-F", "--", word, "."],
                cwd=self.copy,
                capture_output=True,
                text=True,
            ).stdout
            counts = {}
            for row in out.splitlines():
                path, _, count = row.rpartition(":")
                counts[os.path.normpath(path)] = int(count)
            self.cache[word] = counts
        return self.cache[word]

    def rank(self, query):
        words = {w.lower() for w in re.findall(r"\w+", query) if len(w) > 1 and w.lower() not in STOPWORDS}
        scores = {}
        for word in words:
            counts = self.hits(word)
            if not counts:
                continue
            idf = math.log(1 + self.n / len(counts))
            for path, count in counts.items():
                scores[path] = scores.get(path, 0.0) + idf * count
        return [p for p, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def figures(ranks):
    n = len(ranks)
    return {
        "recall@1": sum(1 for r in ranks if r == 1) / n,
        "recall@10": sum(1 for r in ranks if r and r <= 10) / n,
        "mrr": sum(1 / r for r in ranks if r and r <= 10) / n,
    }


def configure(copy, config, model, ranking):
    state = os.path.join(copy, ".codesmith")
    shutil.rmtree(os.path.join(state, "index"), ignore_errors=True)
    os.makedirs(state, exist_ok=True)
    text = ""
    if config:
        with open(config) as f:
            text = f.read()
    if model:
        text += f'\n[search]\nmodel = "{os.path.abspath(model)}"\nranking = "{ranking}"\n'
    with open(os.path.join(state, "config.toml"), "w") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--per-repo", type=int, default=150)
    parser.add_argument("--work")
    parser.add_argument("--config")
    parser.add_argument("--model")
    parser.add_argument("--rankings", default="lexical,embedding,hybrid", help="with --model: which rankings to run")
    parser.add_argument("repos", nargs="+")
    args = parser.parse_args()
    modes = args.rankings.split(",") if args.model else [None]
    work = args.work or tempfile.mkdtemp(prefix="search-eval-", dir="/var/tmp")
    rows, times, builds = [], {m: [] for m in modes}, []
    for repo in args.repos:
        copy, queries = prepare(repo, work)
        random.Random(23).shuffle(queries)
        queries = queries[: args.per_repo]
        size = sum(
            os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(copy) for f in fs if not os.path.islink(os.path.join(r, f))
        )
        baseline = Baseline(copy)
        base = []
        for q in queries:
            ranked = baseline.rank(q["query"])
            path = os.path.normpath(q["path"])
            base.append(ranked.index(path) + 1 if path in ranked else None)
        name = os.path.basename(os.path.normpath(repo))
        for mode in modes:
            configure(copy, args.config, args.model, mode)
            _, cold, ranking, rss = search(args.bin, copy, "warm up the index")
            builds.append(f"{name} ({ranking}): {size / 1e6:.1f} MB indexed cold in {cold:.2f} s ({size / 1e6 / cold:.1f} MB/s), peak RSS {rss:.0f} MB")
            ours, ours_file = [], []
            for q in queries:
                results, elapsed, ranking, _ = search(args.bin, copy, q["query"])
                times[mode].append(elapsed)
                ours.append(
                    next((i + 1 for i, r in enumerate(results) if r["path"] == q["path"] and r["start_line"] <= q["line"] <= r["end_line"]), None)
                )
                ours_file.append(next((i + 1 for i, r in enumerate(results) if r["path"] == q["path"]), None))
            rows.append((name, ranking, len(queries), figures(ours), figures(ours_file), figures(base)))
    print(f"work directory: {work}")
    print(f"{'repository':<12} {'ranking':<10} {'queries':>7}  {'search_code (function)':>24}  {'search_code (file)':>20}  {'rg -w baseline (file)':>23}")
    print(f"{'':<12} {'':<10} {'':>7}  {'R@1   R@10  MRR':>24}  {'R@1   R@10  MRR':>20}  {'R@1   R@10  MRR':>23}")

    def fmt(f):
        return f"{f['recall@1']:.2f}  {f['recall@10']:.2f}  {f['mrr']:.2f}"

    for name, ranking, n, fn, fl, bl in rows:
        print(f"{name:<12} {ranking:<10} {n:>7}  {fmt(fn):>24}  {fmt(fl):>20}  {fmt(bl):>23}")
    for ranking in sorted({r[1] for r in rows}):
        mine = [r for r in rows if r[1] == ranking]
        if len(mine) > 1:
            all_n = sum(r[2] for r in mine)
            pooled = [{k: sum(r[i][k] * r[2] for r in mine) / all_n for k in ("recall@1", "recall@10", "mrr")} for i in (3, 4, 5)]
            print(f"{'all':<12} {ranking:<10} {all_n:>7}  {fmt(pooled[0]):>24}  {fmt(pooled[1]):>20}  {fmt(pooled[2]):>23}")
    print("\n".join(builds))
    for mode, spent in times.items():
        spent = sorted(spent)
        print(f"warm query ({mode or 'as configured'}), whole process: median {statistics.median(spent) * 1000:.0f} ms, p90 {spent[int(len(spent) * 0.9)] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
