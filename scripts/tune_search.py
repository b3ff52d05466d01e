"""Coordinate search over `RankWeights` on the dev question sets (page-level MRR).

Run after `scripts/eval.sh --no-chat` has built the sites:
    .venv/bin/python scripts/tune_search.py [--rounds 2]
Prints the best weights found; copy them into `edge_runtime/search.py`.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from pathlib import Path

from askdocs.edge_runtime import search

from askdocs.evaluation import _Searcher, load_questions, retrieval_scores

SETS = {
    "site_example": (".artifacts/eval/site_example", ".artifacts/eval/askdocs-private"),
    "httpx": (".artifacts/eval/httpx", None),
    "fastapi": (".artifacts/eval/fastapi", None),
}
GRID = {
    "title": [0.0, 0.3, 0.6, 1.0, 1.5],
    "exact": [0.0, 0.5, 1.0, 2.0],
    "heading": [0.0, 0.25, 0.5, 1.0],
    "lexical": [0.6, 0.8, 1.0, 1.3],
    "dense": [0.6, 0.8, 1.0, 1.3, 1.6],
    "faq": [0.0, 0.03, 0.1],
    "recency": [0.0, 0.03, 0.1, 0.3],
    "listing": [0.3, 0.5, 0.8],
    "changelog": [0.6, 0.8, 1.0],
}


def score(searchers, weights) -> float:
    search.DEFAULT_WEIGHTS = weights
    per_set = []
    for searcher, questions in searchers:
        values = []
        for question in questions:
            original = search.hybrid_search.__defaults__
            ranked = _pages(searcher, question, weights)
            values.append(retrieval_scores(ranked, question)["mrr"])
            del original
        per_set.append(statistics.fmean(values))
    return statistics.fmean(per_set)


def _pages(searcher, question, weights):
    from askdocs.edge_runtime.conversation import Turn, search_query

    history = tuple(Turn(t["role"], t["content"]) for t in question.history)
    outcome = search.hybrid_search(
        searcher.scope,
        searcher.embedder,
        search_query(question.question, history),
        question.locale,
        30,
        weights,
    )
    ranked = []
    for hit in outcome.hits:
        url = searcher.corpus.chunk_page(hit.ref).url
        if url not in ranked:
            ranked.append(url)
    return ranked


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    searchers = []
    for name, (site, private) in SETS.items():
        if not Path(site, "_askdocs", "manifest.json").is_file():
            print(f"skipping {name}: build it with scripts/eval.sh --no-chat {name}")
            continue
        questions = [q for q in load_questions(Path(f"evals/{name}.jsonl")) if q.answerable]
        searchers.append((_Searcher(Path(site), private), questions))
    best = search.RankWeights()
    best_score = score(searchers, best)
    print(f"start {best_score:.4f} {best}")
    for _ in range(args.rounds):
        for field, values in GRID.items():
            for value in values:
                trial = dataclasses.replace(best, **{field: value})
                value_score = score(searchers, trial)
                if value_score > best_score + 1e-4:
                    best, best_score = trial, value_score
                    print(f"  {field}={value}: {best_score:.4f}")
    print(f"best {best_score:.4f} {best}")


if __name__ == "__main__":
    main()
