"""Dense retrieval over int8 vectors: cosine similarity, computed in blocks.

Vectors are stored as symmetric int8 with a per-vector scale; the scale
cancels out of the cosine, so ranking needs only the int8 rows and their
norms. numpy has no fast int8 matrix product, so rows are converted to
float32 a block at a time (bounded memory) unless the whole matrix is small
enough to keep converted.
"""

from __future__ import annotations

import numpy as np

KEEP_FLOAT_ROWS = 40_000  # above it, blocks are converted per query (bounded memory)
BLOCK_ROWS = 32_768


class DenseMatrix:
    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors
        self.rows = len(vectors)
        self._float = np.asarray(vectors, dtype=np.float32) if self.rows <= KEEP_FLOAT_ROWS else None
        norms = np.empty(self.rows, dtype=np.float32)
        for start in range(0, self.rows, BLOCK_ROWS):
            block = np.asarray(vectors[start : start + BLOCK_ROWS], dtype=np.float32)
            norms[start : start + BLOCK_ROWS] = np.linalg.norm(block, axis=1)
        self._inverse_norms = np.where(norms > 0, 1.0 / np.maximum(norms, 1e-12), 0.0).astype(np.float32)

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

    def top(self, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        return self.search(query, k, mask)[0]

    def search(
        self, query: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[list[tuple[int, float]], tuple[int, float, float]]:
        """Top k (row, cosine) and the moments (n, sum, sum of squares) of all allowed scores,
        which tell how far the best match stands out from the rest."""
        if self.rows == 0 or k <= 0:
            return [], (0, 0.0, 0.0)
        scores = self.scores(query)
        allowed = scores if mask is None else scores[mask]
        moments = (len(allowed), float(allowed.sum()), float(np.square(allowed).sum()))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        k = min(k, self.rows)
        idx = np.argpartition(-scores, k - 1)[:k]
        idx = idx[np.argsort(-scores[idx], kind="stable")]
        return [(int(i), float(scores[i])) for i in idx if np.isfinite(scores[i])], moments
