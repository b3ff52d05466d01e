"""Fit the answer-confidence model on the tuning question sets and choose its operating point.

Each tuning question runs through the answer pipeline's own `prepare` (the same
query, retrieval, second stage and navigation as `/api/chat`); its label is 1
when it is answerable AND the evidence's top pages include a gold page
(answering from the wrong page is as bad as guessing), else 0. Logistic
regression (numpy, L2, class-balanced) over `evidence.features`, then the
threshold table leave-one-corpus-out: each tuning corpus is scored by a model
fitted on the others. The threshold (`answer.DEFAULT_MIN_CONFIDENCE`) is chosen
from that table; the held-out sets are never used here.

    .venv/bin/python scripts/fit_confidence.py      (after scripts/eval.sh built the sites)
Paste the printed `CONFIDENCE = ...` into edge_runtime/evidence.py.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from askdocs.edge_runtime.answer import AnswerSettings, Docs, prepare
from askdocs.edge_runtime.evidence import CONFIDENCE, LENGTH_CENTRE, LENGTH_SLOPES, features, read_for_length

from askdocs import devsets
from askdocs.evaluation import _Searcher

NAMES = list(CONFIDENCE.weights)  # the signals the model reads (evidence.features computes more)
# Unregularised, the 20-odd-question corners of a dev set get memorised.
L2 = 0.01


def collect():
    rows = []
    for dev in devsets.built(devsets.TUNING):
        searcher = _Searcher(dev.site, dev.private)
        docs = Docs(searcher.scope, searcher.embedder)
        for question in dev.load():
            case = prepare(docs, searcher.query(question), AnswerSettings())
            found = case.investigation
            signals = features(
                case.outcome,
                found.evidence,
                case.query,
                found.term_weights,
                documents=found.documents,
                support=found.support,
                passages=found.passages,
            )
            top_pages = {e.page_url for e in found.evidence[:3]}
            label = 1 if question.answerable and top_pages & set(question.gold) else 0
            rows.append((dev.name, question, signals, label))
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 6000) -> tuple[np.ndarray, float]:
    w, b = np.zeros(x.shape[1]), 0.0
    positive = y.mean()
    sample = np.where(y == 1, 0.5 / positive, 0.5 / (1 - positive))
    rate = 0.3
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        error = (p - y) * sample
        w -= rate * (x.T @ error / len(y) + l2 * w)
        b -= rate * error.mean()
    return w, b


def length_slopes(rows) -> dict[str, float]:
    """How much each of `evidence.LENGTH_SLOPES`' signals moves per key term among answerable
    questions only: a property of what the signal measures, not of which questions a set
    answers."""
    answerable = [r for r in rows if r[1].answerable]
    terms = np.array([r[2]["key_terms"] for r in answerable])
    return {
        name: float(np.polyfit(terms, np.array([r[2][f"{name}_raw"] for r in answerable]), 1)[0])
        for name in LENGTH_SLOPES
    }


def matrix(rows, names: list[str], slopes: dict[str, float]) -> np.ndarray:
    """The signals, read for the question's length with the slopes given (not the shipped ones)."""
    read = [read_for_length(r[2], slopes) for r in rows]
    return np.array([[signals[n] for n in names] for signals in read])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", default=",".join(NAMES), help="signals to fit (default: the model's)")
    names = parser.parse_args().features.split(",")
    rows = collect()
    slopes = length_slopes(rows)
    shown = ", ".join(f'"{n}": {v:.4f}' for n, v in slopes.items())
    print(f"LENGTH_SLOPES = {{{shown}}}  (per key term, answerable questions; centre {LENGTH_CENTRE})")
    x = matrix(rows, names, slopes)
    y = np.array([r[3] for r in rows], dtype=float)
    w, b = fit(x, y)
    weights = {n: round(float(v), 3) for n, v in zip(names, w, strict=True)}
    print(f"{len(rows)} questions, {int(y.sum())} answerable-and-found")
    print(f"CONFIDENCE = ConfidenceModel(bias={b:.3f}, weights={json.dumps(weights)})")
    answerable = np.array([r[1].answerable for r in rows])
    corpora = np.array([r[0] for r in rows])
    held_out = np.zeros(len(rows))
    for corpus in sorted(set(corpora)):
        # The slope too is measured on the other corpora only.
        mine = corpora == corpus
        x_c = matrix(rows, names, length_slopes([r for r, m in zip(rows, mine, strict=True) if not m]))
        w_c, b_c = fit(x_c[~mine], y[~mine])
        held_out[mine] = 1 / (1 + np.exp(-(x_c[mine] @ w_c + b_c)))
    print(
        f"\nleave-one-corpus-out\n{'threshold':>9} {'answered(answerable)':>21} {'answered&found':>15} "
        f"{'refused(unanswerable)':>22}"
    )
    for t in np.arange(0.2, 0.85, 0.05):
        answered = held_out >= t
        print(
            f"{t:9.2f} {answered[answerable].mean():21.3f} {answered[(y == 1)].mean():15.3f} "
            f"{(~answered[~answerable]).mean():22.3f}"
        )
    pos, neg = held_out[answerable], held_out[~answerable]
    auc = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    best = max(
        np.arange(0.2, 0.8, 0.01),
        key=lambda t: min((held_out[answerable] >= t).mean(), (held_out[~answerable] < t).mean()),
    )
    answered = (held_out[answerable] >= best).mean()
    refused = (held_out[~answerable] < best).mean()
    print(
        f"\nAUC answerable vs unanswerable {auc:.3f}; balanced threshold {best:.2f}: answered "
        f"{answered:.3f}, refused {refused:.3f}; per corpus:"
    )
    for corpus in sorted(set(corpora)):
        mine = corpora == corpus
        print(
            f"  {corpus:14} answered {(held_out[mine & answerable] >= best).mean():.2f}  "
            f"refused {(held_out[mine & ~answerable] < best).mean():.2f}"
        )
    print("\nlowest-confidence answerable and highest-confidence unanswerable (left-out model):")
    for i in np.argsort(held_out):
        name, question, _, label = rows[i]
        p = held_out[i]
        if question.answerable and label and p < best or not question.answerable and p >= best:
            print(f"  {p:.2f} {name:12} {question.kind:12} {question.question[:70]}")


if __name__ == "__main__":
    main()
