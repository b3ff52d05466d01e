"""The second stage's cost: search latency with plain fusion vs fusion + the learned second stage.

A real site (httpx's docs, built into a temp dir with MkDocs + `askdocs build`,
or `--site` for a site already built) is loaded in-process, one thread; every
question of a question set is searched with both orders, interleaved, after a
warm-up (question vectors cached: the embedding, measured apart, is the same
for both). Printed side by side: p50/p95 per search for each, the second
stage's share of a search, and the question embedding's time.

    .venv/bin/python benchmarks/rerank_bench.py [--site DIR --questions NAME] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _benchlib import BIN, build_corpus_sites, fmt, progress, questions, summary, table  # noqa: E402

GOAL_MS = 40.0  # search p50 with the second stage, one core, 20+ candidates


def build_httpx(out: Path) -> Path:
    progress("building httpx's docs with MkDocs, then askdocs build ...")
    build_corpus_sites(out, ["httpx"])
    site = out / "httpx"
    subprocess.run([str(BIN / "askdocs"), "build", str(site), "-q"], check=True)
    return site


def run(site: Path, set_name: str, repeats: int) -> int:
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.query import search_query_for
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.edge_runtime.search import DEFAULT_WEIGHTS, hybrid_search

    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    scope = make_scope(corpus, Reader.public())
    asked = [q for q in questions(set_name) if not q.get("history")]
    fused = dataclasses.replace(DEFAULT_WEIGHTS, stage="fused")
    second = dataclasses.replace(DEFAULT_WEIGHTS, stage="rerank")
    queries = [search_query_for(q["question"], q.get("locale"), scope) for q in asked]
    embed_ms = []
    for query in queries:  # warm-up: each question's vector computed once (timed), then cached
        started = time.perf_counter()
        embedder.vector(query.text, query.locale)
        embed_ms.append((time.perf_counter() - started) * 1000)
        hybrid_search(scope, embedder, query, 10, fused)
        hybrid_search(scope, embedder, query, 10, second)
    times: dict[str, list[float]] = {"fused": [], "rerank": []}
    for _ in range(repeats):
        for query in queries:
            for name, weights in (("fused", fused), ("rerank", second)):
                started = time.perf_counter()
                hybrid_search(scope, embedder, query, 10, weights)
                times[name].append((time.perf_counter() - started) * 1000)
    f, r, e = summary(times["fused"]), summary(times["rerank"]), summary(embed_ms)
    share = (r["p50"] - f["p50"]) / r["p50"] if r["p50"] else 0.0
    table(
        ["", "p50 ms", "p95 ms", "n"],
        [
            ["search, fused order", fmt(f["p50"]), fmt(f["p95"]), len(times["fused"])],
            [f"search, + second stage (pool {DEFAULT_WEIGHTS.pool})", fmt(r["p50"]), fmt(r["p95"]),
             len(times["rerank"])],
            ["question embedding (once per question)", fmt(e["p50"]), fmt(e["p95"]), len(embed_ms)],
        ],
        title=f"{site.name}: {len(queries)} questions x {repeats}, one thread",
    )
    print(f"second stage share of a search (p50): {share:.0%}; ratio rerank/fused p50: "
          f"{r['p50'] / f['p50']:.2f}x; goal p50 <= {GOAL_MS:.0f} ms: "
          f"{'met' if r['p50'] <= GOAL_MS else 'NOT met'}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a site already built with askdocs (default: build httpx)")
    parser.add_argument("--questions", default="httpx", help="question set under evals/ (default httpx)")
    parser.add_argument("--quick", action="store_true", help="one timed pass instead of five")
    args = parser.parse_args()
    repeats = 1 if args.quick else 5
    if args.site:
        return run(args.site, args.questions, repeats)
    with tempfile.TemporaryDirectory(prefix="askdocs-rerank-") as tmp:
        return run(build_httpx(Path(tmp)), args.questions, repeats)


if __name__ == "__main__":
    sys.exit(main())
