"""An answer's sentence ranking: how the offline composer weighs each candidate sentence's
meaning (`Embedder.similarity`, the dense model against the question).

Side by side in one run, in interleaved rounds, on "answers" of 60 sentences of at
most 200 characters (the composer's `MAX_UNITS` and `RELEVANCE_CHARS`) cut from the
evaluation corpora's prose (httpx and FastAPI, evals/corpora), each ranked
against one dev question:

* padded batches of 32 (how `similarity` ran until this release, re-implemented
  here as the reference);
* one passage at a time with an empty passage cache (`similarity` now, cold);
* the same answers again (`similarity` now, warm: the same sections answer many
  questions).

Also: how far a sentence's cosine moves with its batch-mates in padded batches
(the int8 model quantises activations per input tensor), against one at a time.

    .venv/bin/python benchmarks/relevance_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    Report,
    Ticker,
    progress,
    questions,
    ratio,
    summary,
    table,
)

from askdocs.embedder import Embedder  # noqa: E402
from askdocs.models import DEFAULT_MODEL, locate  # noqa: E402

UNITS, CHARS, BATCH = 60, 200, 32
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences() -> list[str]:
    """The prose sentences of the httpx and FastAPI corpora, cut at the composer's length."""
    from embed_bench import corpus_text

    return [s.strip()[:CHARS] for s in _SENTENCE.split(corpus_text("en")) if len(s.strip()) > 20]


def batched(embedder: Embedder, query: np.ndarray, texts: list[str]) -> np.ndarray:
    """The reference: padded batches of 32, as `similarity` ran before."""
    out = np.zeros(len(texts), dtype=np.float32)
    prefixed = [embedder.info.passage_prefix + t for t in texts]
    for start in range(0, len(prefixed), BATCH):
        encodings = embedder._tokenizer.encode_batch(prefixed[start : start + BATCH])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        out[start : start + len(encodings)] = embedder._pool(embedder._run(ids, mask), mask) @ query
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    args = parser.parse_args()
    report = Report("relevance_bench", args.quick)
    report.header("relevance_bench: an answer's sentences against the question, batched vs one at a time")
    answers = 6 if args.quick else 40
    pool = sentences()
    asked = [q["question"] for s in ("httpx", "fastapi") for q in questions(s) if q["locale"] == "en"]
    rng = np.random.default_rng(0)
    cases = [
        (asked[i % len(asked)], [pool[j] for j in rng.choice(len(pool), UNITS, replace=False)])
        for i in range(answers)
    ]
    embedder = Embedder(locate(DEFAULT_MODEL), threads=1)
    vectors = [embedder.embed_queries([q])[0] for q, _ in cases]
    batched(embedder, vectors[0], cases[0][1])  # warm-up (session, arena)
    times: dict[str, list[float]] = {
        "batches of 32": [],
        "one at a time, cold": [],
        "one at a time, warm": [],
    }
    moved: list[float] = []
    tick = Ticker("answers", answers)
    progress(f"{answers} answers of {UNITS} sentences (from {len(pool)} corpus sentences), interleaved")
    for (_, texts), query in zip(cases, vectors, strict=True):
        t0 = time.perf_counter()
        reference = batched(embedder, query, texts)
        times["batches of 32"].append((time.perf_counter() - t0) * 1000)
        embedder._passages.clear()
        t0 = time.perf_counter()
        alone = embedder.similarity(query, texts)
        times["one at a time, cold"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        again = embedder.similarity(query, texts)
        times["one at a time, warm"].append((time.perf_counter() - t0) * 1000)
        assert np.array_equal(alone, again)
        moved.append(float(np.abs(reference - alone).max()))
        tick()
    stats = {name: summary(values) for name, values in times.items()}
    base = stats["batches of 32"]["p50"]
    table(
        ["ranking 60 sentences", "p50 ms", "p95 ms", "p50 / batches of 32"],
        [[name, s["p50"], s["p95"], ratio(s["p50"], base)] for name, s in stats.items()],
        title=f"{DEFAULT_MODEL} int8, one thread, {answers} answers",
    )
    print(
        f"a sentence's cosine in padded batches vs alone: max |difference| per answer "
        f"median {np.median(moved):.4f}, max {max(moved):.4f}"
    )
    report.results = {
        "ms": stats,
        "batch_mates_cosine_shift": {"median": float(np.median(moved)), "max": max(moved)},
    }
    report.goal(
        "one at a time (cold) / batches of 32, p50",
        ratio(stats["one at a time, cold"]["p50"], base),
        "<",
        1.0,
        note="no padding: must not be slower than the batches it replaced",
    )
    report.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
