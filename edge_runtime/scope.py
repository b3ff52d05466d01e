"""What one reader may see, decided once, before anything runs.

A `Scope` is the reader's pruned path tree plus page/chunk masks per shard
set. Every endpoint (search, chat, fs, citations) draws only from it: a page
outside the scope does not exist for that reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from askdocs.edge_runtime.corpus import ChunkRef, Corpus
from askdocs.edge_runtime.lru import LRU

SUPPORT_TERMS = 16  # the weightiest key terms `Scope.support` reads
SUPPORT_COMMON = 2000  # chunks: a term held by more is looked up, not read (`Scope.support`)


@dataclass(frozen=True)
class Reader:
    subject: str | None
    groups: frozenset[str]

    @classmethod
    def public(cls) -> Reader:
        return cls(None, frozenset())


@dataclass
class Scope:
    corpus: Corpus
    groups: frozenset[str]
    page_masks: list[np.ndarray]
    chunk_masks: list[np.ndarray]
    # What later steps compute once per scope from what it may see (faqmatch's FAQ questions).
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def paths(self) -> dict[str, tuple[int, int]]:
        """Visible page URL → (set, page index)."""
        out: dict[str, tuple[int, int]] = {}
        for set_index, loaded in enumerate(self.corpus.sets):
            mask = self.page_masks[set_index]
            for page_index, page in enumerate(loaded.pages):
                if mask[page_index]:
                    out[page.url] = (set_index, page_index)
        return dict(sorted(out.items()))

    @cached_property
    def locales(self) -> set[str]:
        return {self.corpus.page(*where).locale for where in self.paths.values()}

    def visible(self, set_index: int, page_index: int) -> bool:
        return bool(self.page_masks[set_index][page_index])

    def visible_url(self, url: str) -> bool:
        return url.split("#")[0] in self.paths

    def chunk_mask(self, set_index: int, locale: str | None) -> np.ndarray:
        mask = self.chunk_masks[set_index]
        if locale is None:
            return mask
        loaded = self.corpus.sets[set_index]
        return mask & (loaded.chunk_locale == self.corpus.locales.index(locale))

    def document_frequencies(self, locale: str, terms: set[str]) -> tuple[dict[str, int], int]:
        """Visible chunks of a locale holding each index term, and visible chunks in all:
        what the reader's docs talk about (restricted text never moves these numbers)."""
        counts = dict.fromkeys(terms, 0)
        total = 0
        for set_index, loaded in enumerate(self.corpus.sets):
            index = loaded.lexical.get(locale)
            if index is None:
                continue
            found, documents = index.document_frequencies(terms, self.chunk_masks[set_index])
            total += documents
            for term, count in found.items():
                counts[term] += count
        return counts, total

    def texts_holding(self, locale: str, terms: list[str], limit: int = 3) -> list[str]:
        """The text of up to `limit` visible chunks of a locale that hold every one of `terms`."""
        out: list[str] = []
        for set_index, loaded in enumerate(self.corpus.sets):
            index = loaded.lexical.get(locale)
            if index is None or not terms:
                continue
            docs = index.holding(terms[0], self.chunk_masks[set_index])
            for term in terms[1:]:
                docs = np.intersect1d(docs, index.holding(term, self.chunk_masks[set_index]))
            for position in index.chunk_positions(docs[: limit - len(out)]):
                out.append(self.corpus.text(ChunkRef(set_index, int(position))))
            if len(out) >= limit:
                break
        return out

    def support(self, locale: str, weights: dict[str, float]) -> float:
        """How much the question's words are said together: for each of its key terms the docs
        use, the largest share (by weight) of its other such terms that one visible chunk holding
        it also holds, averaged by weight. 1.0 when fewer than two of its terms are used. A
        question about a thing the docs leave out often uses only words the docs know, never in
        one place ("encrypt" only in "Let's Encrypt", far from "files on my disk").

        Bounded on any site: the `SUPPORT_TERMS` weightiest terms count, and only the chunks
        holding one of the terms held by at most `SUPPORT_COMMON` chunks are read; a term more
        common than that is looked up in them, and counts as said with the question's other
        common terms (their weights are the smallest)."""
        terms = sorted(weights, key=lambda t: (-weights[t], t))[:SUPPORT_TERMS]
        if len(terms) < 2:
            return 1.0
        w = np.array([weights[t] for t in terms])
        total = float(w.sum())
        best = np.zeros(len(terms))
        for set_index, loaded in enumerate(self.corpus.sets):
            index = loaded.lexical.get(locale)
            if index is None:
                continue
            holding = [index.holding(t, self.chunk_masks[set_index]) for t in terms]
            common = np.array([len(found) > SUPPORT_COMMON for found in holding])
            rare = [found for found, many in zip(holding, common, strict=True) if not many]
            docs = np.unique(np.concatenate(rare)) if rare else np.zeros(0, dtype=np.int64)
            held = np.zeros((len(docs), len(terms)), dtype=bool)  # which terms each chunk holds
            for i, found in enumerate(holding):
                if common[i]:
                    at = np.minimum(np.searchsorted(found, docs), len(found) - 1)
                    held[:, i] = found[at] == docs
                else:
                    held[np.searchsorted(docs, found), i] = True
            said = held.astype(np.float64) @ w  # weight of the question's terms each chunk says
            for i in range(len(terms)):
                rows = held[:, i]
                if rows.any():
                    best[i] = max(best[i], float((said[rows] - w[i]).max()) / (total - w[i]))
                if common[i]:
                    others = float(w[common].sum()) - w[i]
                    best[i] = max(best[i], others / (total - w[i]))
        return float(best @ w / total)

    def page_mask(self, set_index: int, locale: str | None) -> np.ndarray:
        mask = self.page_masks[set_index]
        if locale is None:
            return mask
        pages = self.corpus.sets[set_index].pages
        return mask & np.array([p.locale == locale for p in pages], dtype=bool)


def make_scope(corpus: Corpus, reader: Reader) -> Scope:
    page_masks, chunk_masks = [], []
    for loaded in corpus.sets:
        mask = np.array(
            [not page.groups or bool(reader.groups.intersection(page.groups)) for page in loaded.pages],
            dtype=bool,
        )
        page_masks.append(mask)
        chunk_masks.append(mask[loaded.chunk_page] if len(loaded.chunk_page) else np.zeros(0, dtype=bool))
    return Scope(corpus, reader.groups, page_masks, chunk_masks)


class ScopeCache:
    """Scopes per (index version, group set): readers with the same groups share one."""

    def __init__(self, size: int = 64) -> None:
        self._lru: LRU[tuple[str, frozenset[str]], Scope] = LRU(size, name="scope")

    def get(self, corpus: Corpus, reader: Reader) -> Scope:
        key = (corpus.version, reader.groups)
        scope = self._lru.get(key)
        if scope is None or scope.corpus is not corpus:
            scope = make_scope(corpus, reader)
            self._lru.put(key, scope)
        return scope
