"""A loaded index: the public and private shard sets, their Lunr indexes and dense matrices.

A `Corpus` is immutable once built; reloads build a new one and swap the
reference (see `holder.py`), so a request that took a corpus sees one index
version from start to end.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from askdocs.edge_runtime.dense import DenseMatrix
from askdocs.edge_runtime.embedding import QueryEmbedder

from askdocs.embedder import Embedder
from askdocs.errors import ModelMismatch, ShardError
from askdocs.lexical import PostingsScorer, stem_terms
from askdocs.models import ModelInfo, locate, verify
from askdocs.remote import materialize
from askdocs.shards import ChunkRecord, Manifest, PageRecord, ShardSet, chunk_text, load_shards

log = logging.getLogger("askdocs.runtime")


@dataclass(frozen=True)
class ChunkRef:
    """A chunk, addressed by shard set and position."""

    set: int
    index: int


@dataclass
class LoadedSet:
    shards: ShardSet
    lexical: dict[str, PostingsScorer]  # BM25 over contextual chunks, per locale
    dense: DenseMatrix
    chunk_locale: np.ndarray  # per chunk, index into corpus.locales
    chunk_page: np.ndarray
    _heading_terms: dict[int, frozenset[str]] = field(default_factory=dict, repr=False)
    _sections: dict[int, list] = field(default_factory=dict, repr=False)
    # What later steps compute once per loaded set (faqmatch's FAQ question vectors).
    derived: dict = field(default_factory=dict, repr=False)

    def sections(self, page_index: int) -> list[tuple[int, str, str]]:
        """(offset in the page text, anchor, heading path "A › B") of each heading, cached.
        The path leaves out the page title (h1)."""
        found = self._sections.get(page_index)
        if found is None:
            page = self.pages[page_index]
            found, cursor = [], 0
            stack: list[tuple[int, str]] = []
            for heading in page.headings:
                line = "#" * heading.level + " " + heading.text
                at = page.content.find(line, cursor)
                stack = [(lvl, txt) for lvl, txt in stack if lvl < heading.level]
                if heading.level > 1:
                    stack.append((heading.level, heading.text))
                if at >= 0:
                    path = " › ".join(txt for _, txt in stack) or heading.text
                    found.append((at, heading.anchor, path))
                    cursor = at + len(line)
            self._sections[page_index] = found
        return found

    def heading_terms(self, index: int, locale: str) -> frozenset[str]:
        """Stemmed terms of a chunk's page title and heading path (cached)."""
        terms = self._heading_terms.get(index)
        if terms is None:
            chunk = self.chunks[index]
            text = " ".join([self.pages[chunk.page].title, *chunk.headings])
            terms = frozenset(stem_terms(locale, text))
            self._heading_terms[index] = terms
        return terms

    @property
    def pages(self) -> list[PageRecord]:
        return self.shards.pages

    @property
    def chunks(self) -> list[ChunkRecord]:
        return self.shards.chunks


@dataclass
class Corpus:
    sets: list[LoadedSet]
    manifest: Manifest  # the public one: site-wide facts
    model: ModelInfo
    version: str
    locales: list[str]
    sources: list[str] = field(default_factory=list)
    models: dict[str, ModelInfo] = field(default_factory=dict)  # per locale; `model` is the default's
    _joined: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)  # `joined_names`

    @property
    def default_locale(self) -> str:
        return self.manifest.default_locale

    def pages_in_locale(self, locale: str) -> int:
        return sum(1 for s in self.sets for p in s.pages if p.locale == locale)

    def page(self, set_index: int, page_index: int) -> PageRecord:
        return self.sets[set_index].pages[page_index]

    def chunk(self, ref: ChunkRef) -> ChunkRecord:
        return self.sets[ref.set].chunks[ref.index]

    def chunk_page(self, ref: ChunkRef) -> PageRecord:
        loaded = self.sets[ref.set]
        return loaded.pages[loaded.chunks[ref.index].page]

    def text(self, ref: ChunkRef) -> str:
        loaded = self.sets[ref.set]
        chunk = loaded.chunks[ref.index]
        return chunk_text(loaded.pages[chunk.page], chunk)

    def joined_names(self, locale: str) -> dict[str, str]:
        """The locale's index terms that hold a separator ("max_age_day", "tallyfox_data_dir"),
        keyed by the term without them ("maxageday"), over every shard set (computed once per
        locale; a term of a restricted page is here too: callers count only what a reader may see)."""
        found = self._joined.get(locale)
        if found is None:
            found = {}
            for loaded in self.sets:
                index = loaded.lexical.get(locale)
                for term in sorted(index.terms) if index is not None else ():
                    if "-" in term or "_" in term:
                        found.setdefault(term.replace("-", "").replace("_", ""), term)
            self._joined[locale] = found
        return found

    def summary(self) -> dict:
        m = self.manifest
        return {
            "format_version": m.format_version,
            "version": self.version,
            "built_at": m.built_at,
            "site_url": m.site_url,
            "default_locale": m.default_locale,
            "locales": self.locales,
            "counts": {
                "pages": sum(len(s.pages) for s in self.sets),
                "chunks": sum(len(s.chunks) for s in self.sets),
                "faq": sum(len(s.shards.faqs) for s in self.sets),
                "locales": {loc: self.pages_in_locale(loc) for loc in self.locales},
                "public_pages": len(self.sets[0].pages),
                "restricted_pages": sum(len(s.pages) for s in self.sets[1:]),
            },
            "model": {
                "id": self.model.id,
                "sha256": self.model.sha256,
                "dim": self.model.dim,
                "quantization": m.model.get("quantization"),
            },
            "models": {loc: {"id": info.id, "sha256": info.sha256} for loc, info in self.models.items()},
            "embeddings": m.embeddings,
        }


def _loaded(shards: ShardSet, locales: list[str]) -> LoadedSet:
    position = {loc: i for i, loc in enumerate(locales)}
    page_locale = np.array([position[p.locale] for p in shards.pages], dtype=np.int16)
    chunk_page = np.array([c.page for c in shards.chunks], dtype=np.int32)
    chunk_locale = page_locale[chunk_page] if len(chunk_page) else np.zeros(0, np.int16)
    return LoadedSet(
        shards=shards,
        lexical={loc: PostingsScorer(postings) for loc, postings in shards.postings.items()},
        dense=DenseMatrix(shards.vectors),
        chunk_locale=chunk_locale,
        chunk_page=chunk_page,
    )


def resolve_model(wanted: dict, root: Path) -> ModelInfo:
    """The model some vectors came from: bundled beside the shards, else the local cache."""
    bundled = wanted.get("bundled")
    info = ModelInfo.load(root / bundled) if bundled else locate(wanted["id"])
    verify(info)
    if info.sha256 != wanted.get("sha256"):
        raise ModelMismatch(
            f"the index was built with {wanted['id']} sha256 {wanted.get('sha256')}, but the "
            f"model found at {info.path} has sha256 {info.sha256}: its vectors would be "
            "meaningless. Prepare the same model (`askdocs model prepare`) or rebuild the index."
        )
    return info


def load_corpus(
    index: str, private: str | None, reuse: QueryEmbedder | None = None
) -> tuple[Corpus, QueryEmbedder]:
    """Load and verify shard sets; refuse unknown formats, bad hashes and other models.
    `reuse`: the live query embedder, kept (with its cache) when the models are the same."""
    public_root = materialize(index)
    public = load_shards(public_root)
    if public.manifest.visibility != "public":
        raise ShardError(f"{index} holds a {public.manifest.visibility} shard set; pass it with --private")
    shard_sets = [public]
    sources = [index]
    locales = sorted({*public.manifest.locales, public.manifest.default_locale})
    if private:
        private_root = materialize(private)
        private_set = load_shards(private_root)
        if private_set.manifest.visibility != "private":
            raise ShardError(f"--private {private} is not a private shard set")
        locales = sorted({*locales, *private_set.manifest.locales})
        for locale in locales:
            mine, theirs = public.manifest.model_for(locale), private_set.manifest.model_for(locale)
            if mine.get("sha256") != theirs.get("sha256"):
                raise ModelMismatch(
                    "the public and private shard sets were built with different models "
                    f"({locale}); rebuild both together"
                )
        shard_sets.append(private_set)
        sources.append(private)
    for manifest in (s.manifest for s in shard_sets):
        pinned = manifest.locale_models.get(manifest.default_locale)
        if pinned is not None and pinned.get("sha256") != manifest.model.get("sha256"):
            raise ModelMismatch(
                f"the manifest of {manifest.visibility} shards names two models for its default locale "
                f"({manifest.model.get('id')} and {pinned.get('id')}); its vectors would be meaningless "
                "to one of them: rebuild the site"
            )
    wanted = {loc: public.manifest.model_for(loc) for loc in locales}
    shas = {loc: str(w.get("sha256")) for loc, w in wanted.items()}
    if reuse is not None and reuse.same_models(shas):
        embedder = reuse
    else:
        known = {e.info.sha256: e for e in reuse.models()} if reuse is not None else {}
        by_locale = {}
        for locale, model in wanted.items():
            sha = shas[locale]
            if sha not in known:
                known[sha] = Embedder(resolve_model(model, public_root), threads=1, check_sha=False)
            by_locale[locale] = known[sha]
        embedder = QueryEmbedder(by_locale, public.manifest.default_locale)
    loaded = [_loaded(s, locales) for s in shard_sets]
    version = "+".join(s.manifest.version_key for s in shard_sets)
    models = {loc: e.info for loc, e in embedder.by_locale.items()}
    corpus = Corpus(loaded, public.manifest, embedder.embedder.info, version, locales, sources, models)
    _return_freed_memory()
    log.info("loaded index %s: %s", version, corpus.summary()["counts"])
    return corpus, embedder


def _return_freed_memory() -> None:
    """Loading parses megabytes of JSON into short-lived objects; glibc keeps the freed
    heap unless asked to give it back (a third of the RSS at 50k chunks)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)
