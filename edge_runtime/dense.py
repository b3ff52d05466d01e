"""Dense retrieval over int8 vectors: cosine similarity.

Vectors are stored as symmetric int8 with a per-vector scale; the scale
cancels out of the cosine, so ranking needs only the int8 rows and their
norms. Up to `KEEP_FLOAT_ROWS` rows a float32 copy answers with one matrix
product. Larger sets are searched exactly with usearch's SIMD int8 kernels
(numpy has no fast int8 product: converting 1M rows per query takes ~0.4 s);
the score moments that confidence needs then come from a fixed sample of rows.
`backend` says which path serves a matrix (reported in /healthz).
"""

from __future__ import annotations

import numpy as np

KEEP_FLOAT_ROWS = 40_000
BLOCK_ROWS = 32_768
MOMENT_SAMPLE = 8_192



def _usearch():
    """usearch's exact search, imported on first need. onnxruntime must be loaded first:
    the other order crashes the process (their native libraries clash at load)."""
    import onnxruntime  # noqa: F401

    try:
        from usearch.index import MetricKind, search
    except ImportError:  # pragma: no cover - installed with askdocs
        return None, None
    return search, MetricKind


class DenseMatrix:
    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.rows = len(vectors)
        small = self.rows <= KEEP_FLOAT_ROWS
        self._float = np.asarray(vectors, dtype=np.float32) if small else None
        self._search, self._metric = (None, None) if small else _usearch()
        self.backend = "usearch-int8" if self._search is not None else "numpy"
        norms = np.empty(self.rows, dtype=np.float32)
        for start in range(0, self.rows, BLOCK_ROWS):
            block = np.asarray(vectors[start : start + BLOCK_ROWS], dtype=np.float32)
            norms[start : start + BLOCK_ROWS] = np.linalg.norm(block, axis=1)
        self._inverse_norms = np.where(norms > 0, 1.0 / np.maximum(norms, 1e-12), 0.0).astype(np.float32)
        self._sample = None
        if self.backend == "usearch-int8":
            self._int8 = np.ascontiguousarray(vectors)
            picks = np.random.default_rng(0).choice(self.rows, MOMENT_SAMPLE, replace=False)
            self._sample = np.sort(picks)
            self._sample_float = np.asarray(self._int8[self._sample], dtype=np.float32)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of `query` (unit float32) with every row."""
        query = np.asarray(query, dtype=np.float32)
        if self._float is not None:
            return (self._float @ query) * self._inverse_norms
        out = np.empty(self.rows, dtype=np.float32)
        for start in range(0, self.rows, BLOCK_ROWS):
            block = np.asarray(self.vectors[start : start + BLOCK_ROWS], dtype=np.float32)
            out[start : start + BLOCK_ROWS] = block @ query
        return out * self._inverse_norms

    def cosines(self, query: np.ndarray, rows: list[int]) -> np.ndarray:
        """Cosine of `query` (unit float32) with the given rows only."""
        if not rows:
            return np.zeros(0, dtype=np.float32)
        picked = np.asarray(self.vectors[rows], dtype=np.float32)
        return (picked @ np.asarray(query, dtype=np.float32)) * self._inverse_norms[rows]

    def top(self, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        return self.search(query, k, mask)[0]

    def search(
        self, query: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[list[tuple[int, float]], tuple[int, float, float]]:
        """Top k (row, cosine) and the moments (n, sum, sum of squares) of the allowed
        scores, which tell how far the best match stands out from the rest."""
        if self.rows == 0 or k <= 0:
            return [], (0, 0.0, 0.0)
        if self.backend == "usearch-int8":
            return self._search_usearch(np.asarray(query, dtype=np.float32), k, mask)
        scores = self.scores(query)
        allowed = scores if mask is None else scores[mask]
        moments = (len(allowed), float(allowed.sum()), float(np.square(allowed).sum()))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        k = min(k, self.rows)
        idx = np.argpartition(-scores, k - 1)[:k]
        idx = idx[np.argsort(-scores[idx], kind="stable")]
        return [(int(i), float(scores[i])) for i in idx if np.isfinite(scores[i])], moments

    def _search_usearch(self, query: np.ndarray, k: int, mask: np.ndarray | None):
        quantized = np.clip(np.rint(query / max(float(np.abs(query).max()), 1e-12) * 127), -127, 127)
        quantized = quantized.astype(np.int8)[None, :]
        count = min(self.rows, max(4 * k, 64))
        while True:  # ask for more until enough allowed rows are among the top
            found = self._search(self._int8, quantized, count, self._metric.Cos, exact=True, threads=1)
            keys = np.asarray(found.keys).ravel()
            cosines = 1.0 - np.asarray(found.distances, dtype=np.float32).ravel()
            if mask is not None:
                keep = mask[keys]
                keys, cosines = keys[keep], cosines[keep]
            if len(keys) >= k or count >= self.rows:
                break
            count = min(self.rows, count * 8)
        hits = [(int(key), float(score)) for key, score in zip(keys[:k], cosines[:k], strict=True)]
        sample = self._sample_float @ query * self._inverse_norms[self._sample]
        if mask is not None:
            sample = sample[mask[self._sample]]
        scale = (mask.sum() if mask is not None else self.rows) / max(len(sample), 1)
        moments = (
            int(len(sample) * scale),
            float(sample.sum() * scale),
            float(np.square(sample).sum() * scale),
        )
        return hits, moments
