"""Hybrid retrieval: BM25 over contextual chunks + int8 dense vectors, fused.

Both retrievers return their best chunks for the question's locale (each chunk
indexed and embedded with its page title and heading path); reciprocal rank
fusion (k = 60, no weights) orders one candidate pool, and each candidate gets
what the other retriever knows about it (its BM25 score, its cosine, the key
terms it holds). Of two similar dated passages the newest then wins, and a page
section appears once.

A learned second stage (`rerank.py`: 13 signals of both retrievers, of the
candidate's page and kind, fitted listwise) then re-scores the best fused
candidates and orders search results (`DEFAULT_WEIGHTS`, `stage="rerank"`):
leave one corpus out on the tuning corpora it ranked the right page better
than plain fusion. Answers judge their confidence on the fused order
(`ANSWER_WEIGHTS`, what the confidence model was fitted on) and read their
evidence from the second stage's pages, a few sections of each
(`answer.searched`): composed from the second stage's order alone they
were worse (one page's many sections filled the evidence; README, Quality).
Which stages ran is part of the outcome (`retrievers`): a retriever or stage
that fails is reported, and the fused order serves, never silently.
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
from askdocs.edge_runtime import background, rerank
from askdocs.edge_runtime.corpus import ChunkRef, Corpus
from askdocs.edge_runtime.embedding import QueryEmbedder
from askdocs.edge_runtime.query import Query, mentions
from askdocs.edge_runtime.scope import Scope
from askdocs.edge_runtime.sitename import names_the_site, site_names

from askdocs import lexical

log = logging.getLogger("askdocs.search")
STAGES = ("lexical", "dense", "fused", "rerank")


@dataclass(frozen=True)
class RankWeights:
    rrf_k: int = 60
    candidates: int = 60  # from each retriever
    pool: int = 40  # fused candidates the second stage re-scores
    # What orders the results: the learned second stage over the fused pool for search, the
    # fused order for answers' confidence (see the module docstring); the other stages are there to be
    # measured side by side (STAGES).
    stage: str = "rerank"
    near_duplicate: float = 0.8  # chunk cosine above which dated passages compete
    rival: float = 0.5  # ... or holding the same asked terms, at this share of the other's score
    reranker: rerank.Reranker = rerank.RERANKER


DEFAULT_WEIGHTS = RankWeights()  # search: /api/search, the MCP search tool, `askdocs search`
ANSWER_WEIGHTS = RankWeights(stage="fused")  # the evidence answers are composed from


@dataclass
class Hit:
    ref: ChunkRef
    score: float  # of the stage that ranked it; after the second stage, relative to the best (1.0)
    lexical_rank: int | None = None
    dense_rank: int | None = None
    lexical_score: float = 0.0
    dense_score: float = 0.0
    fused: float = 0.0
    rerank_score: float | None = None
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
    outcome, ranked, vector = fused_candidates(scope, embedder, query, weights)
    return _finish(scope, query, outcome, ranked, vector, k, weights, dedupe, started)


def hybrid_search_both(
    scope: Scope,
    embedder: QueryEmbedder | None,
    query: Query,
    first: tuple[int, RankWeights],
    second: tuple[int, RankWeights],
) -> tuple[SearchOutcome, SearchOutcome]:
    """Two orders of one retrieval ((k, weights) each): the retrievers run once when both
    orders start from the same fused candidates (fused or second stage, same pool settings)."""
    (k1, w1), (k2, w2) = first, second
    same_pool = (w1.rrf_k, w1.candidates) == (w2.rrf_k, w2.candidates)
    if not (same_pool and {w1.stage, w2.stage} <= {"fused", "rerank"}):
        return hybrid_search(scope, embedder, query, k1, w1), hybrid_search(scope, embedder, query, k2, w2)
    started = time.perf_counter()
    outcome, ranked, vector = fused_candidates(scope, embedder, query, w1)
    # Each order scores its own copies of the hits (both stages write `score` and more).
    other = replace(outcome, hits=[], retrievers=list(outcome.retrievers), errors=dict(outcome.errors))
    copies = [replace(hit) for hit in ranked]
    return (
        _finish(scope, query, outcome, ranked, vector, k1, w1, True, started),
        _finish(scope, query, other, copies, vector, k2, w2, True, started),
    )


def _finish(
    scope: Scope,
    query: Query,
    outcome: SearchOutcome,
    ranked: list[Hit],
    vector: np.ndarray | None,
    k: int,
    weights: RankWeights,
    dedupe: bool,
    started: float,
) -> SearchOutcome:
    """The fused candidates ordered as `weights.stage` says, newest similar passages first,
    deduplicated, cut to `k`."""
    if weights.stage == "rerank" and ranked:
        try:
            ranked = _second_stage(scope, query, ranked[: max(weights.pool, k)], vector, weights)
            outcome.retrievers.append("rerank")
        except Exception as exc:  # the fused order serves, and the response says so
            log.exception("second stage failed")
            outcome.errors["rerank"] = f"{type(exc).__name__}: {exc}"
    elif weights.stage == "fused" and ranked:
        try:
            _complete(scope, query, ranked[: max(weights.pool, k)], vector)
        except Exception as exc:  # the order stands; the missing scores are reported
            log.exception("completing the fused candidates failed")
            outcome.errors["fused"] = f"{type(exc).__name__}: {exc}"
        best = ranked[0].fused or 1.0
        for hit in ranked:
            hit.score = hit.fused / best
    if vector is not None:
        head = max(k * 3, 30)
        ranked = _newest_wins(scope.corpus, ranked[:head], weights, query.key_terms) + ranked[head:]
    if dedupe:
        ranked = _dedupe(scope.corpus, ranked)
    outcome.hits = ranked[:k]
    outcome.took_ms = (time.perf_counter() - started) * 1000
    return outcome


def fused_candidates(
    scope: Scope, embedder: QueryEmbedder | None, query: Query, weights: RankWeights = DEFAULT_WEIGHTS
) -> tuple[SearchOutcome, list[Hit], np.ndarray | None]:
    """Both retrievers' candidates, ordered by `weights.stage` (the second stage orders the
    fused pool afterwards), and the question's vector (None when dense retrieval failed)."""
    text, loc = query.text, query.locale
    outcome = SearchOutcome(query, [], [])
    candidates: dict[ChunkRef, Hit] = {}
    kept: dict[tuple, ChunkRef] = {}  # each text's copy on its page that the retrievers rank
    lexical_hits = _distinct(scope.corpus, _lexical(scope, query.lexical_text, loc, weights.candidates), kept)
    for rank, (ref, score, matched) in enumerate(lexical_hits):
        hit = candidates.setdefault(ref, Hit(ref, 0.0))
        hit.lexical_rank, hit.lexical_score, hit.matched = rank, score, matched
    outcome.retrievers.append("lexical")
    vector = None
    if embedder is None:
        outcome.errors["dense"] = "no embedding model loaded"
    else:
        try:
            vector = embedder.vector(text, loc)
            dense, counts = _dense(scope, vector, loc, weights.candidates)
            dense = _distinct(scope.corpus, dense, kept)
            if counts[0] < background.MIN_OWN_PASSAGES:  # too few to say what ordinary is
                extra = background.moments(embedder.embedder_for(loc), vector, loc)
                counts = tuple(a + b for a, b in zip(counts, extra, strict=True))
            outcome.dense_stats = _mean_std(*counts)
            for rank, (ref, score) in enumerate(dense):
                hit = candidates.setdefault(ref, Hit(ref, 0.0))
                hit.dense_rank, hit.dense_score = rank, score
            outcome.retrievers.append("dense")
        except Exception as exc:  # reported in the response, /healthz and metrics
            log.exception("dense retrieval failed")
            outcome.errors["dense"] = f"{type(exc).__name__}: {exc}"
            vector = None
    kk = weights.rrf_k
    exact = _exact_ranks(scope, candidates, query)
    if exact:
        outcome.retrievers.append("exact")
    for ref, hit in candidates.items():
        ranks = (hit.lexical_rank, hit.dense_rank, exact.get(ref))
        hit.fused = sum(1.0 / (kk + rank + 1) for rank in ranks if rank is not None)
    return outcome, _order(candidates.values(), weights.stage), vector


def _distinct(corpus: Corpus, ranked: list[tuple], kept: dict[tuple, ChunkRef]) -> list[tuple]:
    """One retriever's list (each item's first field its chunk) without the chunks whose text
    repeats one ranked above on the same page: Sphinx documents an inherited method again under
    every class (lxml's `findtext` under each of objectify's element classes: a fifth of its
    chunks repeat another on their page), and the copies took every rank of both lists, above
    the tutorial that answers. A text the other retriever ranked already is ranked as that copy
    (`kept`: (set, page, text) -> its chunk), one hit. The same text on another page stays:
    which page tells it best (a guide, a reference, a deprecated module's copy) is the later
    stages' to say."""
    seen: set[tuple] = set()
    out = []
    for item in ranked:
        ref = item[0]
        key = (ref.set, corpus.chunk(ref).page, corpus.text(ref))
        if key in seen:
            continue
        seen.add(key)
        kept_ref = kept.setdefault(key, ref)
        out.append(item if kept_ref == ref else (kept_ref, *item[1:]))
    return out


def _exact_ranks(scope: Scope, candidates: dict[ChunkRef, Hit], query: Query) -> dict[ChunkRef, int]:
    """The third list fusion reads when the question holds exact tokens (`TFX-1042`,
    `--max-batch`, `httpx.Client`): the candidates holding most of them verbatim, a page that
    explains a token before a changelog that merely names it (unless the question is about
    changes). Stemming splits such tokens into common pieces; this list keeps them whole.

    Not the docs' own name ("Flask-Babel", "flufl.lock": `sitename.names_the_site`): it says
    which docs, not which section. As an exact token it ranked every section saying it first,
    beside lexical's first: Flask-Babel's intro and install sections led "What timezone does
    Flask-Babel use by default for user-facing dates?" over its configuration table (BM25's
    first), and flufl.lock's error classes "How long is the default lifetime of a flufl.lock
    Lock?" over the `Lock` entry."""
    corpus = scope.corpus
    words = site_names(scope, query.locale)
    tokens = [t for t in query.identifiers if not names_the_site(t, words)]
    if not tokens:
        return {}
    scored = []
    for ref in candidates:
        text = (" ".join(corpus.chunk(ref).headings) + "\n" + corpus.text(ref)).lower()
        count = sum(1 for token in tokens if mentions(text, token))
        if count:
            if corpus.chunk_page(ref).kind == "changelog" and not query.temporal:
                count -= 0.5
            scored.append((count, ref))
    scored.sort(key=lambda item: (-item[0], item[1].set, item[1].index))
    # Candidates holding as many of the tokens share a rank (the tie's first): the site's order
    # among them says nothing about the question (tuning, leave one corpus out: fused R@1 0.679
    # -> 0.685, MRR 0.818 -> 0.823; the second stage unchanged).
    ranks: dict[ChunkRef, int] = {}
    first = 0
    for rank, (count, ref) in enumerate(scored):
        if rank and count != scored[rank - 1][0]:
            first = rank
        ranks[ref] = first
    return ranks


def _order(hits, stage: str) -> list[Hit]:
    """Candidates ordered by one retriever alone or by the fused score (each hit's `score`)."""
    if stage == "lexical":
        chosen = [h for h in hits if h.lexical_rank is not None]
        for h in chosen:
            h.score = h.lexical_score
    elif stage == "dense":
        chosen = [h for h in hits if h.dense_rank is not None]
        for h in chosen:
            h.score = h.dense_score
    else:
        chosen = list(hits)
        for h in chosen:
            h.score = h.fused
    return sorted(chosen, key=lambda h: (-h.score, h.ref.set, h.ref.index))


def pool_candidates(pool: list[Hit]) -> list[rerank.Candidate]:
    return [
        rerank.Candidate(
            h.ref,
            h.lexical_rank,
            h.dense_rank,
            h.lexical_score if h.lexical_rank is not None else None,
            h.dense_score if h.dense_rank is not None else None,
        )
        for h in pool
    ]


def _complete(scope: Scope, query: Query, pool: list[Hit], vector: np.ndarray | None) -> None:
    """What one retriever did not say about the other's candidates: the BM25 score of a dense
    candidate, the cosine of a lexical one, and the question's key terms each holds (the
    evidence and confidence steps read them)."""
    candidates = pool_candidates(pool)
    rerank.complete(scope, query, candidates, vector)
    for hit, candidate in zip(pool, candidates, strict=True):
        hit.matched = frozenset(candidate.terms)
        hit.lexical_score = candidate.lexical_score or 0.0
        if candidate.dense_score is not None:
            hit.dense_score = candidate.dense_score


def _second_stage(
    scope: Scope, query: Query, pool: list[Hit], vector: np.ndarray | None, weights: RankWeights
) -> list[Hit]:
    """The second stage orders pages (it was fitted on which page answers); within a page the
    fused order says which section comes first."""
    candidates = pool_candidates(pool)
    scores = weights.reranker.score(rerank.features(scope, query, candidates, vector))
    best = max(scores)
    pages = [(hit.ref.set, scope.corpus.chunk(hit.ref).page) for hit in pool]
    page_best: dict[tuple[int, int], float] = {}
    page_fused: dict[tuple[int, int], float] = {}
    for hit, page, score in zip(pool, pages, scores, strict=True):
        page_best[page] = max(page_best.get(page, score), score)
        page_fused[page] = max(page_fused.get(page, 0.0), hit.fused)
    for hit, candidate, page, score in zip(pool, candidates, pages, scores, strict=True):
        hit.rerank_score = score
        hit.matched = frozenset(candidate.terms)
        within = hit.fused / page_fused[page] if page_fused[page] else 1.0
        hit.score = math.exp(page_best[page] - best) * within
        hit.lexical_score = candidate.lexical_score or 0.0
        if candidate.dense_score is not None:
            hit.dense_score = candidate.dense_score
    return sorted(pool, key=lambda h: (-h.score, h.ref.set, h.ref.index))


def _lexical(scope: Scope, text: str, locale: str, limit: int):
    found = []
    for set_index, loaded in enumerate(scope.corpus.sets):
        index = loaded.lexical.get(locale)
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
    return found[:limit], (n, total, squares)


def _mean_std(n: int, total: float, squares: float) -> tuple[float, float]:
    mean = total / n if n else 0.0
    return mean, max(squares / n - mean * mean, 0.0) ** 0.5 if n else 0.0


def _newest_wins(
    corpus: Corpus, ranked: list[Hit], weights: RankWeights, asked: frozenset[str] = frozenset()
) -> list[Hit]:
    """Of two similar dated passages, the newer never ranks below the older. Similar: nearly
    the same text (cosine), or holding the same asked terms with a comparable score (release
    notes of two versions that both set "the default retention for raw samples")."""
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
            said = older.matched & asked
            rivals = bool(said) and said <= newer.matched and newer.score >= weights.rival * older.score
            if rivals or _similarity(corpus, older.ref, newer.ref) >= weights.near_duplicate:
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


# A link inside the site as page text holds it ("[rotating tokens](/security/#rotate)"): the
# snippet, the evidence's terms and the composer read its text; the composer follows its target.
SITE_LINK = re.compile(r"\[([^\[\]]+)\]\((/[^()\s]*)\)")


def plain(text: str) -> str:
    return re.sub(r"\s+", " ", _MARKUP.sub("", SITE_LINK.sub(r"\1", text))).strip()


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
