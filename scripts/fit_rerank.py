"""Fit the second-stage ranker (edge_runtime/rerank.py) on the tuning sets; report every stage.

For each answerable tuning question: the pipeline's own Query, the fused
candidate pool (`search.fused_candidates`, exactly what the runtime re-ranks)
and `rerank.features` for it; a candidate is relevant when its page is a gold
page. A linear model is fitted listwise (softmax over each question's pool,
L2; the signals of `rerank.STAGEWISE`, which speak for some questions only,
on top of the others), and measured leave-one-corpus-out: each tuning corpus is ranked by a
model fitted on the others, through the real `hybrid_search`. Then the model
fitted on all tuning corpora, to paste into `rerank.RERANKER`.

    .venv/bin/python scripts/fit_rerank.py            (after scripts/eval.sh --no-chat built the sites)
    .venv/bin/python scripts/fit_rerank.py --held-out [--fresh] [--new-user] [--blind]
        (also measure the held-out sets, never fitted on, with the shipped reranker)
    .venv/bin/python scripts/fit_rerank.py --on-top changelog_named
        (fit only these signals, on top of the shipped `rerank.RERANKER`'s other weights, on the
        questions where each varies: how askdocs-linear-13 was made, see rerank.py)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np
from askdocs.edge_runtime import rerank
from askdocs.edge_runtime.search import DEFAULT_WEIGHTS, fused_candidates, pool_candidates

from askdocs import devsets
from askdocs.evaluation import SectionsBaseline, _Searcher, retrieval_scores

L2 = 0.02
STAGES = ("lexical", "dense", "fused", "rerank")
BASELINE = "bm25 sections"  # plain BM25 over heading sections, the question alone (no askdocs ranking)


def collect(dev: devsets.DevSet):
    searcher = _Searcher(dev.site, dev.private)
    rows = []
    fused = dataclasses.replace(DEFAULT_WEIGHTS, stage="fused")
    for question in dev.load():
        if not question.answerable:
            continue
        query = searcher.query(question)
        _, ranked, vector = fused_candidates(searcher.scope, searcher.embedder, query, fused)
        pool = ranked[: fused.pool]
        table = rerank.features(searcher.scope, query, pool_candidates(pool), vector)
        x = np.array([[row[f] for f in rerank.FEATURES] for row in table])
        y = np.array([searcher.corpus.chunk_page(h.ref).url in question.gold for h in pool], dtype=float)
        rows.append((question, x, y))
    return searcher, rows


def fit(
    groups, l2: float = L2, steps: int = 3000, keep: np.ndarray | None = None, offsets=None
) -> np.ndarray:
    """Listwise: maximise the softmax probability of the relevant candidates of each question.
    `offsets`: each question's candidates' scores from weights already fitted (kept fixed)."""
    if keep is not None:
        w = np.zeros(len(keep))
        w[keep] = fit([(x[:, keep], y) for x, y in groups], l2, steps, offsets=offsets)
        return w
    offsets = offsets or [np.zeros(len(y)) for _, y in groups]
    stacked = np.vstack([x for x, _ in groups])
    scale = stacked.std(axis=0) + 1e-6  # fit on standardised features, return raw weights
    w = np.zeros(stacked.shape[1])
    rate = 0.5
    for _ in range(steps):
        grad = np.zeros_like(w)
        for (x, y), offset in zip(groups, offsets, strict=True):
            s = (x / scale) @ w + offset
            p = np.exp(s - s.max())
            p /= p.sum()
            target = y / y.sum()
            grad += (x / scale).T @ (p - target)
        w -= rate * (grad / len(groups) + l2 * w)
    return w / scale


def fit_stagewise(groups, l2: float = L2, keep: np.ndarray | None = None) -> np.ndarray:
    """The signals of `rerank.STAGEWISE` speak for some questions only (a version asked): the
    others are fitted first, without them, then each of them on top, on the questions where it
    varies. Every other question is ranked exactly as without it."""
    keep = np.ones(len(rerank.FEATURES), dtype=bool) if keep is None else keep
    later = np.array([f in rerank.STAGEWISE for f in rerank.FEATURES]) & keep
    w = fit(groups, l2, keep=keep & ~later)
    for j in np.flatnonzero(later):
        _fit_on_top(groups, w, j, l2)
    return w


def _fit_on_top(groups, w: np.ndarray, j: int, l2: float) -> None:
    """Fit signal `j` into `w` with the others fixed, on the questions where it varies (it is 0 in
    `w` until then)."""
    varying = [(x, y) for x, y in groups if np.ptp(x[:, j]) > 0]
    if varying:
        only = np.arange(len(w)) == j
        w[j] = fit(varying, l2, keep=only, offsets=[x @ w for x, _ in varying])[j]


def fit_on_top(groups, names: list[str], l2: float = L2) -> np.ndarray:
    """The shipped reranker's weights, with `names` refitted on top of its other weights (as
    `fit_stagewise` fits `rerank.STAGEWISE`)."""
    w = np.array([rerank.RERANKER.weights.get(f, 0.0) for f in rerank.FEATURES])
    for name in names:
        j = rerank.FEATURES.index(name)
        w[j] = 0.0
        _fit_on_top(groups, w, j, l2)
    return w


def measure(searcher, questions, reranker: rerank.Reranker, table, group: str, corpus: str = "") -> None:
    """Each stage's page-level scores, under `group`'s keys per kind (and `corpus`'s, given)."""
    extra = (f"{corpus}:all",) if corpus else ()
    baseline = SectionsBaseline(searcher)
    for question in questions:
        scores = retrieval_scores(baseline.pages(question), question)
        for key in (f"{group}:all", f"{group}:{question.kind}", *extra):
            table[BASELINE][key].append(scores)
    for stage in STAGES:
        weights = dataclasses.replace(DEFAULT_WEIGHTS, stage=stage, reranker=reranker)
        for question in questions:
            scores = retrieval_scores(searcher.pages(question, 30, weights), question)
            for key in (f"{group}:all", f"{group}:{question.kind}", *extra):
                table[stage][key].append(scores)


def print_table(table) -> None:
    keys = sorted({k for stage in table.values() for k in stage}, key=lambda k: (k.split(":")[0], k))
    for metric in ("r@1", "r@5", "mrr"):
        print(f"\n{metric:14}" + "".join(f"{k[:16]:>17}" for k in keys))
        print(f"{'n':14}" + "".join(f"{len(table['fused'][k]):>17}" for k in keys))
        for stage in (BASELINE, *STAGES):
            values = [statistics.fmean(x[metric] for x in table[stage][k]) for k in keys]
            print(f"{stage:14}" + "".join(f"{v:>17.3f}" for v in values))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true", help="also measure the held-out sets")
    parser.add_argument("--fresh", action="store_true", help="also measure the fresh held-out sets")
    parser.add_argument("--new-user", action="store_true", help="also measure the new-user sets")
    parser.add_argument("--blind", action="store_true", help="also measure the sets written blind")
    parser.add_argument("--json", help="write the tables here")
    parser.add_argument("--features", help="comma-separated subset of rerank.FEATURES to fit")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--on-top", help="comma-separated signals to fit on top of the shipped weights")
    args = parser.parse_args()
    on_top = args.on_top.split(",") if args.on_top else None
    keep = np.array([f in (args.features or ",".join(rerank.FEATURES)).split(",") for f in rerank.FEATURES])
    data = {dev.name: collect(dev) for dev in devsets.built(devsets.TUNING)}
    table: dict = defaultdict(lambda: defaultdict(list))
    for held in data:
        train = [(x, y) for name, (_, rows) in data.items() if name != held for (_, x, y) in rows if y.any()]
        w = fit_on_top(train, on_top, args.l2) if on_top else fit_stagewise(train, args.l2, keep=keep)
        loco = rerank.Reranker(f"loco-{held}", dict(zip(rerank.FEATURES, w.tolist(), strict=True)))
        searcher, rows = data[held]
        measure(searcher, [q for q, _, _ in rows], loco, table, "tuning(loco)", f"loco {held}")
        shown = ", ".join(f"{f}={v:.2f}" for f, v in zip(rerank.FEATURES, w, strict=True))
        print(f"fitted without {held}: {shown}")
    every = [(x, y) for _, rows in data.values() for (_, x, y) in rows if y.any()]
    w = fit_on_top(every, on_top, args.l2) if on_top else fit_stagewise(every, args.l2, keep=keep)
    final = rerank.Reranker("fitted", dict(zip(rerank.FEATURES, w.tolist(), strict=True)))
    # The groups never fitted on are measured with what ships (`rerank.RERANKER`), unless signals
    # are being tried (--features, --on-top): then with the model just fitted on every tuning set.
    # (Until stop 50 they were always measured with a model refitted here, which is not the shipped
    # askdocs-linear-13: that keeps askdocs-linear-11's base weights.)
    untuned = final if (on_top or args.features) else rerank.RERANKER
    print(f"untuned groups measured with: {'the model fitted here' if untuned is final else untuned.name}")
    measured = [
        ("held-out", args.held_out),
        ("fresh", args.fresh),
        ("new-user", args.new_user),
        ("blind", args.blind),
    ]
    for group in [name for name, wanted in measured if wanted]:
        for dev in devsets.built(devsets.GROUPS[group]):
            searcher = _Searcher(dev.site, dev.private)
            measure(searcher, [q for q in dev.load() if q.answerable], untuned, table, group, dev.name)
    print_table(table)
    weights = {f: round(float(v), 3) for f, v in zip(rerank.FEATURES, w, strict=True)}
    print(f"\nRERANKER weights fitted on all tuning sets:\n{json.dumps(weights, indent=4)}")
    if args.json:
        Path(args.json).write_text(json.dumps({s: {k: v for k, v in t.items()} for s, t in table.items()}))


if __name__ == "__main__":
    main()
