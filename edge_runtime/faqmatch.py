"""A question the site's FAQ already asks is answered by the FAQ.

FAQ records (JSON-LD FAQPage, QAPage) are the site's own phrasing of its readers'
questions and its best-formed answers. A reader who asks one of them in other
words ("Does Tallyfox send any telemetry back to Kestrel?" for "Does Tallyfox
send any data to Kestrel?") asks something the docs answer, even when a word of
the question occurs nowhere in them, which would otherwise count against it.

A near-duplicate is judged against the site itself, in the embedding model's
own cosine scale (MiniLM's and e5's differ widely): the reader's question must
be closer to the FAQ question than halfway between the site's two most similar
distinct FAQ questions and identity. With fewer than `MIN_FAQS` questions in a
locale there is no such yardstick and nothing is matched. Only FAQ records the
reader may see take part, in the bar as in the match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from askdocs.edge_runtime.corpus import ChunkRef, LoadedSet
from askdocs.edge_runtime.embedding import QueryEmbedder
from askdocs.edge_runtime.query import Query
from askdocs.edge_runtime.scope import Scope

from askdocs.embedder import Embedder

MIN_FAQS = 4


@dataclass(frozen=True)
class FaqQuestions:
    refs: list[ChunkRef]
    vectors: np.ndarray  # one row per FAQ question, normalised
    bar: float  # the cosine a reader's question must reach


@dataclass(frozen=True)
class FaqMatch:
    ref: ChunkRef
    similarity: float
    bar: float


def faq_questions(scope: Scope, embedder: QueryEmbedder, locale: str) -> FaqQuestions | None:
    """The reader-visible FAQ questions of a locale, embedded (cached on the scope)."""
    key = (locale, embedder.embedder_for(locale).info.sha256)
    cache = scope.derived
    if key not in cache:
        cache[key] = _build(scope, embedder, locale)
    return cache[key]


def _build(scope: Scope, embedder: QueryEmbedder, locale: str) -> FaqQuestions | None:
    model = embedder.embedder_for(locale)
    refs, rows = [], []
    for set_index, loaded in enumerate(scope.corpus.sets):
        visible = scope.chunk_mask(set_index, locale)
        positions, vectors = _set_questions(loaded, model)
        for position, vector in zip(positions, vectors, strict=True):
            if visible[position]:
                refs.append(ChunkRef(set_index, position))
                rows.append(vector)
    if len(refs) < MIN_FAQS:
        return None
    vectors = np.asarray(rows, dtype=np.float32)
    similar = vectors @ vectors.T
    np.fill_diagonal(similar, -1.0)
    closest = float(similar.max())
    return FaqQuestions(refs, vectors, (1.0 + closest) / 2)


def _set_questions(loaded: LoadedSet, model: Embedder) -> tuple[list[int], np.ndarray]:
    """Every FAQ question of a shard set embedded with one model, once per loaded set (readers
    with other groups reuse it; which of them a reader sees is the scope's business)."""
    key = ("faq_questions", model.info.sha256)
    if key not in loaded.derived:
        positions = [i for i, chunk in enumerate(loaded.chunks) if chunk.kind == "faq" and chunk.headings]
        questions = [loaded.chunks[i].headings[0] for i in positions]
        vectors = model.embed_queries(questions) if questions else np.zeros((0, model.dim), np.float32)
        loaded.derived[key] = (positions, np.asarray(vectors, dtype=np.float32))
    return loaded.derived[key]


def duplicate_faq(scope: Scope, embedder: QueryEmbedder | None, query: Query) -> FaqMatch | None:
    """The FAQ record whose question the reader's question duplicates, if any."""
    if embedder is None:
        return None
    found = faq_questions(scope, embedder, query.locale)
    if found is None:
        return None
    similarity = found.vectors @ np.asarray(embedder.vector(query.text, query.locale), dtype=np.float32)
    best = int(similarity.argmax())
    if similarity[best] < found.bar:
        return None
    return FaqMatch(found.refs[best], round(float(similarity[best]), 4), round(found.bar, 4))
