"""Question embeddings with the model of the question's locale, cached: the same question is
embedded once."""

from __future__ import annotations

import numpy as np
from askdocs.edge_runtime.lru import LRU

from askdocs.embedder import Embedder


class QueryEmbedder:
    def __init__(self, by_locale: dict[str, Embedder], default_locale: str, cache_size: int = 2048) -> None:
        if not by_locale:
            raise ValueError("no embedding model")
        self.by_locale = dict(by_locale)
        self.default_locale = default_locale if default_locale in by_locale else min(by_locale)
        self.cache: LRU[tuple[str, str], np.ndarray] = LRU(cache_size, name="query_embedding")

    @property
    def embedder(self) -> Embedder:
        """The default locale's model."""
        return self.by_locale[self.default_locale]

    @property
    def model_id(self) -> str:
        return self.embedder.info.id

    def embedder_for(self, locale: str | None) -> Embedder:
        return self.by_locale.get(locale or self.default_locale) or self.embedder

    def models(self) -> list[Embedder]:
        return list({e.info.sha256: e for e in self.by_locale.values()}.values())

    def same_models(self, shas: dict[str, str]) -> bool:
        return {loc: e.info.sha256 for loc, e in self.by_locale.items()} == shas

    def vector(self, text: str, locale: str | None = None) -> np.ndarray:
        embedder = self.embedder_for(locale)
        key = (embedder.info.sha256, " ".join(text.split()))
        cached = self.cache.get(key)
        if cached is None:
            cached = embedder.embed_queries([text])[0]
            self.cache.put(key, cached)
        return cached
