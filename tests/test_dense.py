"""Dense search: the float path and the usearch int8 path rank the same neighbours."""

from __future__ import annotations

import numpy as np
import pytest
from askdocs.edge_runtime import dense


def _data(rows: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    vectors = rng.integers(-127, 128, size=(rows, 64), dtype=np.int8)
    queries = rng.standard_normal((20, 64)).astype(np.float32)
    return vectors, queries / np.linalg.norm(queries, axis=1, keepdims=True)


def test_float_path_is_exact_cosine():
    vectors, queries = _data(500)
    matrix = dense.DenseMatrix(vectors)
    assert matrix.backend == "numpy"
    as_float = vectors.astype(np.float32)
    expected = (as_float @ queries[0]) / np.linalg.norm(as_float, axis=1)
    assert np.allclose(matrix.scores(queries[0]), expected, atol=1e-5)
    hits, (n, total, _) = matrix.search(queries[0], 5)
    assert [i for i, _ in hits] == list(np.argsort(-expected)[:5])
    assert n == 500 and total == pytest.approx(float(expected.sum()), rel=1e-4)


def test_large_matrices_use_usearch_with_the_same_results(monkeypatch):
    monkeypatch.setattr(dense, "KEEP_FLOAT_ROWS", 1_000)
    monkeypatch.setattr(dense, "MOMENT_SAMPLE", 2_000)
    vectors, queries = _data(6_000)
    fast = dense.DenseMatrix(vectors)
    assert fast.backend == "usearch-int8"
    mask = np.zeros(6_000, dtype=bool)
    mask[::3] = True  # a reader's scope or locale
    overlap = []
    for query in queries:
        reference = fast.scores(query)
        for allowed in (None, mask):
            ranked = reference if allowed is None else np.where(allowed, reference, -np.inf)
            expected = set(np.argsort(-ranked)[:10].tolist())
            hits, moments = fast.search(query, 10, allowed)
            assert len(hits) == 10
            if allowed is not None:
                assert all(allowed[i] for i, _ in hits)
            overlap.append(len(expected & {i for i, _ in hits}) / 10)
            assert moments[0] > 0
    assert np.mean(overlap) >= 0.9  # the query is quantised to int8 on this path
