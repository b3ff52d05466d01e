"""Passage embedding fanned out over processes: one model session per worker, one thread each.

The entry point is `embed_texts(model, texts, workers, progress)`: it yields
`(position, int8 vector, scale)` for every text, quantised as the shards store them.
With `workers <= 1` it embeds in this process (with the caller's `Embedder` if given).

Each text is still embedded alone (see `Embedder`), so a vector does not depend on
which worker computed it or in which order: a build writes the same shards with one
process or many. Worker processes beat threads on a few cores (no GIL around
tokenising, pooling and quantising; no contention inside one ONNX session).

Workers are started with `spawn` (they must not inherit the parent's onnxruntime
threads or a lock held mid-call). A worker that cannot start, raises or dies is
a `BuildError` (never a hang, never a quiet fallback to this process). At most
a few batches per worker are in flight, so the queue holds a bounded number of
texts whatever the site's size.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from askdocs.embedder import Embedder, quantize
from askdocs.errors import BuildError
from askdocs.models import ModelInfo

MIN_TEXTS_PER_WORKER = 200  # below this, starting a worker (loading the model) costs more than it saves
BATCH = 32  # texts per task: small enough to keep every worker busy to the end
IN_FLIGHT = 4  # tasks queued per worker

Vector = tuple[int, np.ndarray, float]

_worker: Embedder | None = None


def workers_for(texts: int, threads: int = 0) -> int:
    """How many processes to embed `texts` with, given the build's thread budget (0 = all cores)."""
    budget = threads or os.cpu_count() or 1
    return max(1, min(budget, texts // MIN_TEXTS_PER_WORKER))


def embed_texts(
    model: ModelInfo,
    texts: Sequence[str],
    workers: int,
    progress: Callable[[int], None] | None = None,
    *,
    embedder: Embedder | None = None,
) -> Iterator[Vector]:
    """(position, int8 vector, scale) for every passage in `texts`, in completion order.

    `workers` processes each load `model` once (its file is trusted: verify it first,
    as `Embedder` does by default); with one worker or fewer it runs here, on
    `embedder` if given. `progress(n)` is called as texts finish.
    """
    tick = progress or (lambda n: None)
    if workers <= 1 or len(texts) < 2:
        local = embedder or Embedder(model, threads=1, check_sha=False)
        for position, text in enumerate(texts):
            vectors, scales = quantize(local.embed_passages([text]))
            yield position, vectors[0], float(scales[0])
            tick(1)
        return
    yield from _fan_out(model, texts, workers, tick)


def _fan_out(
    model: ModelInfo, texts: Sequence[str], workers: int, tick: Callable[[int], None]
) -> Iterator[Vector]:
    starts = iter(range(0, len(texts), BATCH))
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_start, initargs=(model,))
    pending: set[Future] = set()
    try:

        def submit() -> None:
            for start in starts:
                pending.add(executor.submit(_embed, start, list(texts[start : start + BATCH])))
                if len(pending) >= workers * IN_FLIGHT:
                    return

        submit()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                pending.discard(future)
                try:
                    start, raw, scales = future.result()
                except BrokenProcessPool:
                    raise
                except Exception as exc:  # an error inside a worker: the build stops, saying which
                    raise BuildError(
                        f"an embedding worker failed ({model.id}): {type(exc).__name__}: {exc}"
                    ) from exc
                vectors = np.frombuffer(raw, dtype=np.int8).reshape(len(scales), -1)
                for offset, scale in enumerate(scales):
                    yield start + offset, vectors[offset], float(scale)
                tick(len(scales))
            submit()
    except BrokenProcessPool as exc:
        # Never a silent fallback to embedding in this process: the build fails, saying so.
        raise BuildError(
            f"an embedding worker process died or could not load the model ({model.id}): {exc}"
        ) from exc
    finally:
        for future in pending:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


def _start(model: ModelInfo) -> None:
    global _worker
    _worker = Embedder(model, threads=1, check_sha=False)
    assert _worker.session is not None  # load now: a model that cannot load breaks the pool at once


def _embed(start: int, texts: list[str]) -> tuple[int, bytes, list[float]]:
    assert _worker is not None, "worker not initialised"
    rows, scales = [], []
    for text in texts:
        vectors, scale = quantize(_worker.embed_passages([text]))
        rows.append(vectors[0])
        scales.append(float(scale[0]))
    return start, np.stack(rows).tobytes(), scales
