"""Measure (and compare variants of) the extractive synthesiser on the dev sets, in-process.

For every answerable dev question whose evidence the confidence gate accepts:
answer-fact recall and citation precision of `extractive.compose`. Unit
embeddings are cached, so variants are cheap:
    .venv/bin/python scripts/tune_answers.py [--grid]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
from functools import lru_cache
from pathlib import Path

import numpy as np
from askdocs.edge_runtime import extractive
from askdocs.edge_runtime.conversation import Turn, search_query
from askdocs.edge_runtime.evidence import investigate, key_terms
from askdocs.edge_runtime.fs import DocsFS, FsCaches
from askdocs.edge_runtime.search import hybrid_search

from askdocs.evaluation import _Searcher, fact_found, load_questions

SETS = {
    "site_example": (".artifacts/eval/site_example", ".artifacts/eval/askdocs-private"),
    "httpx": (".artifacts/eval/httpx", None),
    "fastapi": (".artifacts/eval/fastapi", None),
}


def prepare():
    cases = []
    for name, (site, private) in SETS.items():
        searcher = _Searcher(Path(site), private)
        fs = DocsFS(searcher.scope, FsCaches())
        embedder = searcher.embedder

        @lru_cache(maxsize=200_000)
        def passage(text: str, embedder=embedder) -> np.ndarray:
            return embedder.embedder.embed_passages([text])[0]

        for question in load_questions(Path(f"evals/{name}.jsonl")):
            if not question.answerable or not question.facts:
                continue
            history = tuple(Turn(t["role"], t["content"]) for t in question.history)
            query = search_query(question.question, history)
            outcome = hybrid_search(searcher.scope, embedder, query, question.locale, 8)
            found = investigate(fs, outcome, query)
            if found.confidence < 0.40:
                continue
            vector = embedder.vector(query)

            def relevance(texts, vector=vector, passage=passage):
                return [float(passage(t) @ vector) for t in texts]

            focus = key_terms(outcome.locale, question.question) if query != question.question else None
            cases.append((name, question, found, outcome.locale, relevance, focus))
    return cases


def score(cases) -> dict[str, float]:
    facts, precision, words = [], [], []
    for _, question, found, locale, relevance, focus in cases:
        text, cited = extractive.compose(
            question.question,
            found.evidence,
            locale,
            found.key_terms,
            found.identifiers,
            relevance,
            focus,
            found.term_weights,
        )
        facts.append(sum(fact_found(f, text) for f in question.facts) / len(question.facts))
        if cited:
            precision.append(sum(e.page_url in question.gold for e in cited) / len(cited))
        words.append(len(text.split()))
    return {
        "facts": statistics.fmean(facts),
        "cite_precision": statistics.fmean(precision),
        "words": statistics.fmean(words),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    cases = prepare()
    print(f"{len(cases)} answered dev questions with facts")
    print("current", {k: round(v, 3) for k, v in score(cases).items()})
    if not args.grid:
        return
    for units, chars in itertools.product([24, 40, 60], [160, 240, 400]):
        extractive.MAX_UNITS, extractive.RELEVANCE_CHARS = units, chars
        print(f"units={units} chars={chars}", {k: round(v, 3) for k, v in score(cases).items()})


if __name__ == "__main__":
    main()
