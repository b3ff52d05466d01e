"""Embedding fanned out over processes gives the very vectors one process gives."""

from __future__ import annotations

import dataclasses
import shutil
import time

import numpy as np
import pytest
from askdocs.plugin.embedpool import BATCH, MIN_TEXTS_PER_WORKER, embed_texts, workers_for

from askdocs.embedder import Embedder, quantize
from askdocs.errors import BuildError

TEXTS = [f"Widget {n} stores {n * 7} records and retries {n % 5} times." for n in range(2 * BATCH + 5)]


def test_worker_count_follows_the_work_and_the_thread_budget():
    assert workers_for(10, 8) == 1
    assert workers_for(2 * MIN_TEXTS_PER_WORKER, 8) == 2
    assert workers_for(100 * MIN_TEXTS_PER_WORKER, 4) == 4
    assert workers_for(100 * MIN_TEXTS_PER_WORKER, 1) == 1
    assert workers_for(100 * MIN_TEXTS_PER_WORKER, 0) >= 1  # 0: all cores


def collect(results, n: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    vectors, scales = np.zeros((n, dim), np.int8), np.zeros(n, np.float32)
    seen = []
    for position, vector, scale in results:
        vectors[position], scales[position] = vector, scale
        seen.append(position)
    assert sorted(seen) == list(range(n))  # every text once
    return vectors, scales


def test_two_processes_give_the_vectors_of_one(model_info):
    embedder = Embedder(model_info, threads=1)
    expected_q, expected_s = quantize(np.stack([embedder.embed_passages([t])[0] for t in TEXTS]))
    ticks: list[int] = []
    fanned = collect(embed_texts(model_info, TEXTS, 2, ticks.append), len(TEXTS), model_info.dim)
    assert sum(ticks) == len(TEXTS) and len(ticks) >= 3  # progress as batches finish
    here = collect(embed_texts(model_info, TEXTS, 1, embedder=embedder), len(TEXTS), model_info.dim)
    for vectors, scales in (fanned, here):
        assert np.array_equal(vectors, expected_q)
        assert np.array_equal(scales, expected_s)


def test_a_worker_that_cannot_load_the_model_is_a_build_error_not_a_hang(model_info, tmp_path):
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    (tmp_path / "tokenizer.json").write_bytes(model_info.tokenizer_path.read_bytes())
    broken = dataclasses.replace(model_info, path=tmp_path)
    started = time.time()
    with pytest.raises(BuildError, match="embedding worker"):
        list(embed_texts(broken, TEXTS, 2))
    assert time.time() - started < 60


def test_a_worker_killed_mid_run_fails_loudly(model_info):
    """A worker that dies halfway (OOM killer, segfault) is a BuildError naming the model:
    never a hang, never vectors quietly computed some other way."""
    import multiprocessing
    import os
    import signal

    killed: list[int] = []

    def kill_one(n: int) -> None:
        if not killed:  # the first finished batch: the pool is running
            victim = multiprocessing.active_children()[0]
            killed.append(victim.pid)
            os.kill(victim.pid, signal.SIGKILL)

    texts = TEXTS * 4
    started = time.time()
    with pytest.raises(BuildError, match=f"embedding worker process died.*{model_info.id}"):
        list(embed_texts(model_info, texts, 2, kill_one))
    assert killed and time.time() - started < 60
    assert not multiprocessing.active_children()  # no worker left behind


@pytest.mark.slow
def test_a_build_in_processes_writes_the_shards_of_a_build_in_one(tmp_path, model_info, multilingual_info):
    """Two models (English pages fanned out, a few Spanish ones in this process): the shards of
    a build in 2 processes are byte for byte those of a build in one, and the log says which ran where."""
    from tests.test_build import askdocs
    from tests.test_startup import page

    site = tmp_path / "one"
    for n in range(2 * MIN_TEXTS_PER_WORKER + 10):  # one chunk each (format 3: no title vectors): two workers
        (site / f"p{n}").mkdir(parents=True)
        (site / f"p{n}" / "index.html").write_text(
            page(f"Widget {n}", f"Widget {n} stores {n * 7} records and retries {n % 5} times.")
        )
    for n in range(4):
        (site / "es" / f"p{n}").mkdir(parents=True)
        (site / "es" / f"p{n}" / "index.html").write_text(
            page(f"Widget {n}", f"El widget {n} guarda {n * 7} registros y reintenta {n % 5} veces.").replace(
                "lang='en'", "lang='es'"
            )
        )
    shutil.copytree(site, tmp_path / "two")
    env = {"SOURCE_DATE_EPOCH": "1767225600"}
    single = askdocs("build", str(site), "--threads", "1", "-q", env=env)
    fanned = askdocs("build", str(tmp_path / "two"), "--threads", "2", "-q", env=env)
    assert f"with {model_info.id} in 2 worker processes (threads 2)" in fanned.stderr
    assert f"4 texts with {multilingual_info.id} in this process (fewer than" in fanned.stderr
    assert "worker processes" not in single.stderr
    assert f"with {model_info.id} in this process (threads 1)" in single.stderr
    one, two = site / "_askdocs", tmp_path / "two" / "_askdocs"
    manifest = (one / "manifest.json").read_text()
    assert model_info.sha256 in manifest and multilingual_info.sha256 in manifest
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    for name in names:
        if (one / name).is_file():
            assert (one / name).read_bytes() == (two / name).read_bytes(), name
