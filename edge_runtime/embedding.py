"""Query embeddings with a cache: the same question is embedded once."""

from __future__ import annotations

import numpy as np
from askdocs.edge_runtime.lru import LRU

from askdocs.embedder import Embedder


class QueryEmbedder:
    def __init__(self, embedder: Embedder, cache_size: int = 2048) -> None:
        self.embedder = embedder
        self.cache: LRU[str, np.ndarray] = LRU(cache_size, name="query_embedding")

    @property
    def model_id(self) -> str:
        return self.embedder.info.id

    def vector(self, text: str) -> np.ndarray:
        key = " ".join(text.split())
        cached = self.cache.get(key)
        if cached is None:
            cached = self.embedder.embed_queries([text])[0]
            self.cache.put(key, cached)
        return cached
