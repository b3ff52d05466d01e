"""Hybrid retrieval: Lunr (lexical) + int8 dense vectors, fused by reciprocal rank.

After fusion a few sanity checks re-rank the candidates: page-title vector
agreement, heading overlap with the query, FAQ pairs as strong candidates,
listing pages below canonical ones, and recency so that the newest of
several similar dated passages wins. All weights live in `RankWeights`.
Which retrievers ran is part of the outcome: a retriever that fails is
reported, never silently skipped.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

import numpy as np
from askdocs.edge_runtime.corpus import ChunkRef, Corpus
from askdocs.edge_runtime.embedding import QueryEmbedder
from askdocs.edge_runtime.query import Query
from askdocs.edge_runtime.scope import Scope

from askdocs import lexical

log = logging.getLogger("askdocs.search")


@dataclass(frozen=True)
class RankWeights:
    # Tuned by scripts/tune_search.py (page-level MRR over evals/, both models). Title
    # vectors, heading overlap and an FAQ bonus all measured at 0: they stay as knobs.
    rrf_k: int = 60
    lexical: float = 0.8
    dense: float = 1.6
    title: float = 0.0
    exact: float = 0.5  # query identifiers (TFX-1042, --max-batch) found verbatim
    heading: float = 0.0  # share of query terms in the title/heading path
    faq: float = 0.0
    listing: float = 0.5
    changelog: float = 1.0  # unless the question is about versions or changes
    recency: float = 0.03
    near_duplicate: float = 0.8  # chunk cosine above which dated passages compete
    candidates: int = 60


DEFAULT_WEIGHTS = RankWeights()


@dataclass
class Hit:
    ref: ChunkRef
    score: float
    lexical_rank: int | None = None
    dense_rank: int | None = None
    lexical_score: float = 0.0
    dense_score: float = 0.0
    title_score: float = 0.0
    matched: frozenset[str] = frozenset()


@dataclass
class SearchOutcome:
    query: Query
    hits: list[Hit]
    retrievers: list[str]
    errors: dict[str, str] = field(default_factory=dict)
    took_ms: float = 0.0
    dense_stats: tuple[float, float] | None = None  # mean and std of all allowed cosines

    @property
    def locale(self) -> str:
        return self.query.locale

    @property
    def requested_locale(self) -> str:
        return self.query.requested_locale

    @property
    def terms(self) -> frozenset[str]:
        return self.query.terms

    @property
    def locale_fallback(self) -> bool:
        return self.query.locale_fallback


def hybrid_search(
    scope: Scope,
    embedder: QueryEmbedder | None,
    query: Query,
    k: int = 10,
    weights: RankWeights = DEFAULT_WEIGHTS,
    *,
    dedupe: bool = True,
) -> SearchOutcome:
    started = time.perf_counter()
    corpus = scope.corpus
    text, loc = query.text, query.locale
    outcome = SearchOutcome(query, [], [])
    candidates: dict[ChunkRef, Hit] = {}

    lex = _lexical(scope, text, loc, weights.candidates)
    outcome.retrievers.append("lexical")
    for rank, (ref, score, matched) in enumerate(lex):
        hit = candidates.setdefault(ref, Hit(ref, 0.0))
        hit.lexical_rank, hit.lexical_score, hit.matched = rank, score, matched

    title_rank: dict[tuple[int, int], tuple[int, float]] = {}
    if embedder is None:
        outcome.errors["dense"] = "no embedding model loaded"
    else:
        try:
            query_vector = embedder.vector(text)
            dense, outcome.dense_stats = _dense(scope, query_vector, loc, weights.candidates)
            for rank, (ref, score) in enumerate(dense):
                hit = candidates.setdefault(ref, Hit(ref, 0.0))
                hit.dense_rank, hit.dense_score = rank, score
            if weights.title:
                title_rank = _titles(scope, query_vector, loc)
            outcome.retrievers.append("dense")
        except Exception as exc:  # reported in the response, /healthz and metrics
            log.exception("dense retrieval failed")
            outcome.errors["dense"] = f"{type(exc).__name__}: {exc}"

    kk = weights.rrf_k
    temporal = query.temporal
    exact_tokens = query.identifiers
    # Changelogs name every identifier ever touched: on ties, the page that explains it wins.
    exact_rank = _rank_by(
        candidates,
        lambda ref: (
            _exact_count(corpus, ref, exact_tokens)
            - (0.5 if corpus.chunk_page(ref).kind == "changelog" and not temporal else 0.0)
        ),
    )
    heading_rank = (
        _rank_by(
            candidates,
            lambda ref: len(query.terms & corpus.sets[ref.set].heading_terms(ref.index, loc)),
        )
        if query.terms and weights.heading
        else {}
    )
    newest, oldest = _date_range(corpus, candidates)
    for ref, hit in candidates.items():
        chunk = corpus.chunk(ref)
        page = corpus.chunk_page(ref)
        score = 0.0
        if hit.lexical_rank is not None:
            score += weights.lexical / (kk + hit.lexical_rank + 1)
        if hit.dense_rank is not None:
            score += weights.dense / (kk + hit.dense_rank + 1)
        title = title_rank.get((ref.set, chunk.page))
        if title is not None:
            score += weights.title / (kk + title[0] + 1)
            hit.title_score = title[1]
        if ref in exact_rank:
            score += weights.exact / (kk + exact_rank[ref] + 1)
        if ref in heading_rank:
            score += weights.heading / (kk + heading_rank[ref] + 1)
        strong = min(r for r in (hit.lexical_rank, hit.dense_rank, 99) if r is not None) < 5
        if chunk.kind == "faq" and strong:
            score *= 1 + weights.faq
        if page.kind == "listing":
            score *= weights.listing
        elif page.kind == "changelog" and not temporal:
            score *= weights.changelog
        if chunk.lastmod and newest and oldest and newest > oldest:
            age = (newest - _parse(chunk.lastmod)).days / (newest - oldest).days
            score *= 1 + weights.recency * (1 - age)
        hit.score = score

    ranked = sorted(candidates.values(), key=lambda h: (-h.score, h.ref.set, h.ref.index))
    if embedder is not None and "dense" in outcome.retrievers:
        ranked = _newest_wins(corpus, ranked[: max(k * 3, 30)], weights) + ranked[max(k * 3, 30) :]
    if dedupe:
        ranked = _dedupe(corpus, ranked)
    outcome.hits = ranked[:k]
    outcome.took_ms = (time.perf_counter() - started) * 1000
    return outcome


def _exact_count(corpus: Corpus, ref: ChunkRef, tokens: tuple[str, ...]) -> int:
    if not tokens:
        return 0
    text = corpus.text(ref).lower()
    return sum(1 for token in tokens if token in text)


def _rank_by(candidates, key) -> dict[ChunkRef, int]:
    scored = [(key(ref), ref) for ref in candidates]
    scored = [(value, ref) for value, ref in scored if value > 0]
    scored.sort(key=lambda item: (-item[0], item[1].set, item[1].index))
    return {ref: rank for rank, (_, ref) in enumerate(scored)}


def _lexical(scope: Scope, text: str, locale: str, limit: int):
    found = []
    for set_index, loaded in enumerate(scope.corpus.sets):
        index = loaded.lunr.get(locale)
        if index is None:
            continue
        mask = scope.chunk_masks[set_index]
        for ref, score, matched in lexical.search(index, text, limit=limit * 2):
            position = int(ref)
            if mask[position]:
                found.append((ChunkRef(set_index, position), score, matched))
    found.sort(key=lambda item: (-item[1], item[0].set, item[0].index))
    return found[:limit]


def _dense(scope: Scope, query: np.ndarray, locale: str, limit: int):
    found = []
    n, total, squares = 0, 0.0, 0.0
    for set_index, loaded in enumerate(scope.corpus.sets):
        mask = scope.chunk_mask(set_index, locale)
        if not mask.any():
            continue
        hits, (count, part_sum, part_squares) = loaded.dense.search(query, limit, mask)
        n, total, squares = n + count, total + part_sum, squares + part_squares
        for position, score in hits:
            found.append((ChunkRef(set_index, position), score))
    found.sort(key=lambda item: (-item[1], item[0].set, item[0].index))
    mean = total / n if n else 0.0
    std = max(squares / n - mean * mean, 0.0) ** 0.5 if n else 0.0
    return found[:limit], (mean, std)


def _titles(scope: Scope, query: np.ndarray, locale: str) -> dict[tuple[int, int], tuple[int, float]]:
    found = []
    for set_index, loaded in enumerate(scope.corpus.sets):
        mask = scope.page_mask(set_index, locale)
        if not mask.any():
            continue
        for page, score in loaded.titles.top(query, 20, mask):
            found.append(((set_index, page), score))
    found.sort(key=lambda item: -item[1])
    return {key: (rank, score) for rank, (key, score) in enumerate(found)}


def _parse(value: str) -> date:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return date.min


def _date_range(corpus: Corpus, candidates) -> tuple[date | None, date | None]:
    dates = [_parse(d) for ref in candidates if (d := corpus.chunk(ref).lastmod)]
    dates = [d for d in dates if d != date.min]
    return (max(dates), min(dates)) if dates else (None, None)


def _newest_wins(corpus: Corpus, ranked: list[Hit], weights: RankWeights) -> list[Hit]:
    """Of two similar dated passages, the newer never ranks below the older."""
    dated = [h for h in ranked if corpus.chunk(h.ref).lastmod]
    if len(dated) < 2:
        return ranked
    for i, older in enumerate(ranked):
        older_date = corpus.chunk(older.ref).lastmod
        if not older_date:
            continue
        for newer in ranked[i + 1 :]:
            newer_date = corpus.chunk(newer.ref).lastmod
            if not newer_date or newer_date <= older_date:
                continue
            if _similarity(corpus, older.ref, newer.ref) >= weights.near_duplicate:
                newer.score = max(newer.score, older.score * 1.0001)
    return sorted(ranked, key=lambda h: (-h.score, h.ref.set, h.ref.index))


def _similarity(corpus: Corpus, a: ChunkRef, b: ChunkRef) -> float:
    va = np.asarray(corpus.sets[a.set].dense.vectors[a.index], dtype=np.float32)
    vb = np.asarray(corpus.sets[b.set].dense.vectors[b.index], dtype=np.float32)
    denominator = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denominator if denominator else 0.0


def _dedupe(corpus: Corpus, ranked: list[Hit]) -> list[Hit]:
    seen: set[tuple] = set()
    out = []
    for hit in ranked:
        chunk = corpus.chunk(hit.ref)
        anchor = ("faq", hit.ref.index) if chunk.kind == "faq" and not chunk.anchor else chunk.anchor
        key = (hit.ref.set, chunk.page, anchor)
        if key in seen:
            continue
        seen.add(key)
        out.append(hit)
    return out


_MARKUP = re.compile(r"^#{1,6}\s+|^```\w*$|`|\*\*|^\|\s*-+.*$", re.M)
_WORDS = re.compile(r"\w+", re.U)


def plain(text: str) -> str:
    return re.sub(r"\s+", " ", _MARKUP.sub("", text)).strip()


def snippet(text: str, locale: str, terms: set[str], width: int = 240) -> tuple[str, list[list[int]]]:
    """The window of `text` (as plain text) richest in query terms, with term offsets."""
    flat = plain(text)
    words = [(m.start(), m.end(), stem_word(locale, m.group(0))) for m in _WORDS.finditer(flat)]
    window_start = 0
    if terms and len(flat) > width:
        hits = [(s, t) for s, _, t in words if t in terms]
        best = 0
        for i, (start, _) in enumerate(hits):
            begin = max(0, start - 40)
            distinct = {t for s, t in hits[i:] if s < begin + width}
            distinct |= {t for s, t in hits[:i] if s >= begin}
            if len(distinct) > best:
                best, window_start = len(distinct), begin
        if window_start:
            space = flat.find(" ", window_start)
            window_start = space + 1 if 0 <= space < window_start + 20 else window_start
    piece = flat[window_start : window_start + width]
    if window_start + width < len(flat):
        cut = piece.rfind(" ")
        piece = (piece[:cut] if cut > width // 2 else piece) + " …"
    offset = 2 if window_start > 0 else 0
    if window_start > 0:
        piece = "… " + piece
    limit = len(piece)
    highlights = [
        [s - window_start + offset, e - window_start + offset]
        for s, e, t in words
        if t in terms and window_start <= s and e - window_start + offset <= limit
    ]
    return piece, highlights


@lru_cache(maxsize=65536)
def stem_word(locale: str, word: str) -> str:
    stems = lexical.stem_terms(locale, word)
    return next(iter(stems)) if stems else ""
