"""Hits → what readers click: URL with the best heading anchor, title, heading, snippet."""

from __future__ import annotations

import re

from askdocs.edge_runtime.corpus import ChunkRef, Corpus
from askdocs.edge_runtime.query import Query, mentions
from askdocs.edge_runtime.search import Hit, SearchOutcome, snippet, stem_word

_WORD = re.compile(r"\w+")


def locate_in_chunk(corpus: Corpus, ref: ChunkRef, query: Query) -> tuple[str, str]:
    """(anchor, heading) of the part of a chunk that best matches the query.

    A chunk may span several small sections (merged at build time); the
    citation points at the one holding the query's identifiers, else the one
    with most query terms, else the chunk's first section.
    """
    loaded = corpus.sets[ref.set]
    chunk = loaded.chunks[ref.index]
    page = loaded.pages[chunk.page]
    default = (chunk.anchor, chunk.headings[-1] if chunk.headings else page.title)
    if chunk.kind != "section":
        return default
    inside = [(o, a, h) for o, a, h in loaded.sections(chunk.page) if chunk.start <= o < chunk.end]
    if not inside:
        return default
    bounds = [chunk.start] + [o for o, _, _ in inside] + [chunk.end]
    labels = [default] + [(a, h.split(" › ")[-1]) for _, a, h in inside]
    if inside[0][0] == chunk.start:
        bounds, labels = bounds[1:], labels[1:]
    segments = [(page.content[bounds[i] : bounds[i + 1]], labels[i]) for i in range(len(labels))]
    tokens, locale, terms = query.identifiers, query.locale, query.terms
    for text, label in segments:
        lowered = text.lower()
        if tokens and any(mentions(lowered, t) for t in tokens):
            return label
    best, best_label = 0, default
    for text, label in segments:
        count = len({stem_word(locale, w) for w in _WORD.findall(text)} & terms)
        if count > best:
            best, best_label = count, label
    return best_label


def result_json(corpus: Corpus, outcome: SearchOutcome, hit: Hit) -> dict:
    chunk = corpus.chunk(hit.ref)
    page = corpus.chunk_page(hit.ref)
    anchor, heading = locate_in_chunk(corpus, hit.ref, outcome.query)
    text, highlights = snippet(corpus.text(hit.ref), page.locale, outcome.terms)
    return {
        "url": page.url + (f"#{anchor}" if anchor else ""),
        "page_url": page.url,
        "title": page.title,
        "heading": heading,
        "snippet": text,
        "highlights": highlights,
        "score": round(hit.score, 6),
        "locale": page.locale,
        "kind": chunk.kind,
        "lastmod": chunk.lastmod,
        "retrievers": [
            name
            for name, rank in (("lexical", hit.lexical_rank), ("dense", hit.dense_rank))
            if rank is not None
        ],
    }
