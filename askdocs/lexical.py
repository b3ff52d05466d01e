"""Lunr indexes per locale: building (publish time) and querying (runtime).

Index-time pipeline: trimmer → stop-word filter → Snowball stemmer; the
search pipeline holds only the stemmer, registered under lunr-languages'
labels (`stemmer-es`, …) so lunr.js with lunr-languages loads the very same
index. Stop-word lists are lunr-languages' own, shipped in `data/`.

Text is normalised before tokenising (`lexical_text`): punctuation other
than `_` and `-` becomes a space, so `httpx.AsyncClient` indexes as
`httpx` + `asyncclient`. The widget applies the same rule to queries.
"""

from __future__ import annotations

import json
import math
import re
import threading
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from itertools import chain

import lunr
import lunr.stop_word_filter
import lunr.trimmer
import numpy as np
import snowballstemmer
from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.query import Query
from lunr.token import Token
from lunr.tokenizer import SEPARATOR_CHARS, Tokenizer

from askdocs import porter

SNOWBALL = {
    "da": "danish",
    "de": "german",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nl": "dutch",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
}
FIELDS = (("title", 8), ("headings", 4), ("body", 1))
_PUNCT = re.compile(r"[^\w\s\-]+")
_WORD = re.compile(r"^[\W_]*(.*?)[\W_]*$", re.S)


def lexical_text(text: str) -> str:
    return _PUNCT.sub(" ", text)


@cache
def _stop_words() -> dict[str, frozenset[str]]:
    raw = resources.files("askdocs").joinpath("data/lunr_stopwords.json").read_text("utf-8")
    return {k: frozenset(v) for k, v in json.loads(raw).items()}


def _trim(token, i=None, tokens=None):
    # Keeps digits and underscores (lunr-languages' trimmers drop digits, which
    # would make error codes and ports unsearchable); index time only.
    return token.update(lambda s, metadata=None: _WORD.match(s).group(1))


def _make_stemmer(language: str):
    # snowballstemmer objects keep state while stemming: one per thread (the
    # runtime searches from a thread pool), and a cache in front of them.
    local = threading.local()

    @lru_cache(maxsize=200_000)
    def stem_word(word: str) -> str:
        stemmer = getattr(local, "stemmer", None)
        if stemmer is None:
            stemmer = local.stemmer = snowballstemmer.stemmer(language)
        return stemmer.stemWord(word)

    def stem(token, i=None, tokens=None):
        return token.update(lambda s, metadata=None: stem_word(s))

    return stem


def _make_stop_filter(words: frozenset[str]):
    def stop(token, i=None, tokens=None):
        return None if str(token) in words else token

    return stop


@dataclass(frozen=True)
class LocalePipeline:
    locale: str
    index_fns: tuple
    search_fns: tuple
    script: str | None  # lunr-languages file the browser needs, e.g. "lunr.es.js"


@cache
def pipeline_for(locale: str) -> LocalePipeline:
    register_pipelines()
    if locale == "en":
        return LocalePipeline(
            "en",
            (lunr.trimmer.trimmer, lunr.stop_word_filter.stop_word_filter, porter.stemmer),
            (porter.stemmer,),
            None,
        )
    if locale in SNOWBALL:
        fns = Pipeline.registered_functions
        return LocalePipeline(
            locale,
            (fns["askdocs-trimmer"], fns[f"stopWordFilter-{locale}"], fns[f"stemmer-{locale}"]),
            (fns[f"stemmer-{locale}"],),
            f"lunr.{locale}.js",
        )
    # Unknown languages: no stemming, so any lunr.js loads the index unchanged.
    return LocalePipeline(locale, (Pipeline.registered_functions["askdocs-trimmer"],), (), None)


@cache
def register_pipelines() -> None:
    """Register the functions serialised indexes refer to (idempotent)."""
    if "askdocs-trimmer" not in Pipeline.registered_functions:
        Pipeline.register_function(_trim, "askdocs-trimmer")
    # lunr.js's English stemmer, not lunr.py's (they disagree on words like "days").
    porter.stemmer.label = "stemmer"
    Pipeline.registered_functions["stemmer"] = porter.stemmer
    stop_words = _stop_words()
    for locale, language in SNOWBALL.items():
        if f"stemmer-{locale}" not in Pipeline.registered_functions:
            Pipeline.register_function(_make_stemmer(language), f"stemmer-{locale}")
        label = f"stopWordFilter-{locale}"
        if label not in Pipeline.registered_functions:
            Pipeline.register_function(_make_stop_filter(stop_words.get(locale, frozenset())), label)


@dataclass(frozen=True)
class LexicalDoc:
    ref: str
    title: str
    headings: str
    body: str


def build_index(locale: str, docs: Iterable[LexicalDoc]) -> dict:
    """Build a Lunr index and return its serialised (lunr.js-loadable) form (see `index_json`)."""
    return json.loads(index_json(locale, docs))


def index_json(locale: str, docs: Iterable[LexicalDoc]) -> bytes:
    """A Lunr index as the JSON lunr.js loads: `dumps` of what lunr.py's `Builder` serialises,
    byte for byte (`_build_index_reference`, kept for the tests), three to four times faster.

    The text is split by one regex instead of lunr's per-character tokenizer, each distinct
    word goes through the index pipeline once (the functions are pure per token), and the
    BM25 field vectors are computed with the very float operations of
    `Builder._create_field_vectors`. Memory stays small next to the text: term frequencies
    are kept as (term number, count) pairs in flat arrays, postings as lists of refs, and
    the JSON is written piece by piece, not built as one nested object first.
    """
    pipeline = pipeline_for(locale)
    fields = [name for name, _ in FIELDS]
    boosts = [boost for _, boost in FIELDS]
    terms_of = _TermCache(pipeline.index_fns).__getitem__
    tokens = _LUNR_TOKEN.findall
    # Builder.add: per field, term -> refs in document order (a repeated ref keeps its first place).
    postings: list[dict[str, list[str]]] = [{} for _ in fields]
    # Terms are numbered in order of first appearance (Builder.term_index), every field of
    # every document counted, including one a repeated ref later overwrites.
    term_index: dict[str, int] = {}
    rows: dict[str, int] = {}  # "field/ref" -> its row below (a repeated ref overwrites the row)
    row_slot, row_start, row_end, row_length = array("b"), array("q"), array("q"), array("q")
    term_ids, term_freqs = array("q"), array("q")
    seen_refs: set[str] = set()
    repeated = False
    document_count = 0
    for doc in docs:
        ref = str(doc.ref)
        document_count += 1
        repeated = repeated or ref in seen_refs
        seen_refs.add(ref)
        for slot, name in enumerate(fields):
            # lunr's Tokenizer lowercases the whole string, then splits it on its separators.
            words = tokens(lexical_text(getattr(doc, name)).lower())
            tf = Counter(chain.from_iterable(map(terms_of, words)))
            start = len(term_ids)
            in_field = postings[slot]
            for term, freq in tf.items():
                term_ids.append(term_index.setdefault(term, len(term_index)))
                term_freqs.append(freq)
                refs = in_field.get(term)
                if refs is None:
                    in_field[term] = [ref]
                else:
                    refs.append(ref)
            row = rows.setdefault(f"{name}/{ref}", len(row_slot))
            values = (slot, start, len(term_ids), sum(tf.values()))
            if row == len(row_slot):
                for column, value in zip((row_slot, row_start, row_end, row_length), values, strict=True):
                    column.append(value)
            else:
                row_slot[row], row_start[row], row_end[row], row_length[row] = values
    del seen_refs
    if repeated:  # a ref counts once per term and field, at its first place
        for in_field in postings:
            for term, refs in in_field.items():
                in_field[term] = list(dict.fromkeys(refs))

    # Builder._calculate_average_field_lengths (no documents: 0 / 0 raises, as in lunr.py).
    total = [0] * len(fields)
    count = [0] * len(fields)
    for row in rows.values():
        total[row_slot[row]] += row_length[row]
        count[row_slot[row]] += 1
    average = [total[slot] / count[slot] for slot in range(len(fields))]

    # lunr.idf: documents with the term, counted once per field it occurs in.
    idf = []
    for term in term_index:
        with_term = sum(len(in_field.get(term, ())) for in_field in postings)
        x = (document_count - with_term + 0.5) / (with_term + 0.5)
        idf.append(math.log(1 + abs(x)))

    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    out = ['{"version":', encode(lunr.__TARGET_JS_VERSION__), ',"fields":', encode(fields)]
    # Builder._create_field_vectors: k1 = 1.2, b = 0.75, field boost, document boost 1;
    # entries sorted by term index, values rounded to 3 places (Vector.serialize rounds
    # them again, which changes nothing).
    k1, b = 1.2, 0.75
    out.append(',"fieldVectors":[')
    for n, (field_ref, row) in enumerate(rows.items()):
        elements: list[int | float] = []
        start, end = row_start[row], row_end[row]
        if end > start:  # (an average field length of 0 is never divided by)
            slot = row_slot[row]
            norm = k1 * (1 - b + b * (row_length[row] / average[slot]))
            boost = boosts[slot]
            for index, freq in sorted(zip(term_ids[start:end], term_freqs[start:end], strict=True)):
                score = idf[index] * ((k1 + 1) * freq) / (norm + freq)
                score *= boost
                elements += (index, round(score, 3))
        out.append(("," if n else "") + encode([field_ref, elements]))
    del term_ids, term_freqs
    out.append('],"invertedIndex":[')
    empty: dict = {}
    for n, term in enumerate(sorted(term_index)):
        posting: dict = {
            name: dict.fromkeys(postings[slot].get(term, ()), empty) for slot, name in enumerate(fields)
        }
        posting["_index"] = term_index[term]
        out.append(("," if n else "") + encode([term, posting]))
    out.append('],"pipeline":' + encode([fn.label for fn in pipeline.search_fns]) + "}")
    return "".join(out).encode("utf-8")


# lunr's Tokenizer splits on lunr.tokenizer.SEPARATOR_CHARS; tokens are the runs between them.
_LUNR_TOKEN = re.compile(f"[^{re.escape(SEPARATOR_CHARS)}]+")


class _TermCache(dict):
    """word -> the terms `Pipeline.run` makes of it as one token."""

    def __init__(self, fns: tuple) -> None:
        super().__init__()
        self.fns = fns

    def __missing__(self, word: str) -> tuple[str, ...]:
        tokens = [Token(word)]
        for fn in self.fns:
            results = []
            for i, token in enumerate(tokens):
                result = fn(token, i, tokens)
                if not result:
                    continue
                if isinstance(result, (list, tuple)):
                    results.extend(result)
                else:
                    results.append(result)
            tokens = results
        terms = self[word] = tuple(str(token) for token in tokens)
        return terms


def _build_index_reference(locale: str, docs: Iterable[LexicalDoc]) -> dict:
    """`build_index` done by lunr.py's own Builder: the reference the fast build is tested against."""
    pipeline = pipeline_for(locale)
    builder = Builder()
    builder.pipeline.add(*pipeline.index_fns)
    builder.search_pipeline.add(*pipeline.search_fns)
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    for doc in docs:
        builder.add(
            {
                "ref": doc.ref,
                "title": lexical_text(doc.title),
                "headings": lexical_text(doc.headings),
                "body": lexical_text(doc.body),
            }
        )
    return builder.build().serialize()


def load_lunr(serialized: dict) -> Index:
    """The index as lunr.py loads it (the reference our scorer is tested against)."""
    register_pipelines()
    return Index.load(serialized)


@dataclass(frozen=True)
class Postings:
    """A Lunr index flattened for scoring: per term, the documents that hold it (sorted)
    and their BM25 weight summed over fields, in two flat arrays sliced by `offsets`.
    The build writes it beside the Lunr JSON; the runtime memory-maps it."""

    terms: list[str]
    offsets: np.ndarray  # int64, len(terms) + 1
    docs: np.ndarray  # int32
    weights: np.ndarray  # float64
    refs: list[str]
    pipeline: list[str]

    @classmethod
    def from_lunr(cls, serialized: dict) -> Postings:
        fields = list(serialized["fields"])
        refs: dict[str, int] = {}
        vectors: dict[str, dict[int, float]] = {}
        for field_ref, values in serialized["fieldVectors"]:
            refs.setdefault(field_ref.partition("/")[2], len(refs))
            vectors[field_ref] = dict(zip(values[0::2], values[1::2], strict=True))
        terms, offsets, docs, weights = [], [0], [], []
        for term, posting in serialized["invertedIndex"]:
            index = posting["_index"]
            summed: dict[int, float] = {}
            for field in fields:
                for ref in posting.get(field, {}):
                    doc = refs[ref]
                    summed[doc] = summed.get(doc, 0.0) + vectors[f"{field}/{ref}"].get(index, 0.0)
            terms.append(term)
            for doc in sorted(summed):
                docs.append(doc)
                weights.append(summed[doc])
            offsets.append(len(docs))
        return cls(terms, np.asarray(offsets, dtype=np.int64), np.asarray(docs, dtype=np.int32),
                   np.asarray(weights, dtype=np.float64), list(refs), list(serialized["pipeline"]))

    def meta_json(self) -> dict:
        return {"terms": self.terms, "offsets": self.offsets.tolist(), "refs": self.refs,
                "pipeline": self.pipeline}

    def table(self) -> np.ndarray:
        table = np.zeros(len(self.docs), dtype=POSTING_DTYPE)
        table["doc"], table["weight"] = self.docs, self.weights
        return table

    @classmethod
    def from_files(cls, meta: dict, table: np.ndarray) -> Postings:
        # Plain views on the mapped file: slicing a np.memmap costs ten times more.
        docs = table["doc"].view(np.ndarray) if isinstance(table, np.memmap) else table["doc"]
        weights = table["weight"].view(np.ndarray) if isinstance(table, np.memmap) else table["weight"]
        return cls(meta["terms"], np.asarray(meta["offsets"], dtype=np.int64), docs, weights,
                   meta["refs"], meta["pipeline"])


POSTING_DTYPE = np.dtype([("doc", "<i4"), ("weight", "<f8")])
BM25_K1, BM25_B = 1.2, 0.75


def contextual_text(title: str, headings: Iterable[str], body: str) -> str:
    """A chunk as it is indexed and embedded: "Page › Section › Subsection", then its text.
    The heading path says what a passage is about when the passage itself does not."""
    return " › ".join([title, *headings]) + "\n\n" + body


def bm25_postings(locale: str, docs: Iterable[tuple[str, str]]) -> Postings:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over whole texts, one field, precomputed per (term, doc):
    the runtime's lexical retriever. Terms are what the locale's Lunr index pipeline makes of
    the words (trimmer, stop words, stemmer), so both indexes agree on what a term is."""
    pipeline = pipeline_for(locale)
    terms_of = _TermCache(pipeline.index_fns).__getitem__
    refs: list[str] = []
    sizes = array("d")  # each document's length in terms
    by_term: dict[str, array] = {}  # term -> doc, freq, doc, freq, ... in document order
    for doc, (ref, text) in enumerate(docs):
        words = _LUNR_TOKEN.findall(lexical_text(text).lower())
        refs.append(str(ref))
        tf = Counter(chain.from_iterable(map(terms_of, words)))
        sizes.append(sum(tf.values()))
        for term, freq in tf.items():
            entries = by_term.get(term)
            if entries is None:
                entries = by_term[term] = array("q")
            entries.append(doc)
            entries.append(freq)
    lengths = np.array(sizes, dtype=np.float64)
    average = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
    count = len(refs)
    terms, offsets, docs_out, weights = [], [0], array("i"), array("d")
    for term in sorted(by_term):
        entries = by_term.pop(term)
        held = len(entries) // 2
        idf = math.log(1 + (count - held + 0.5) / (held + 0.5))
        terms.append(term)
        for at in range(0, len(entries), 2):  # in document order
            doc, freq = entries[at], entries[at + 1]
            norm = freq + BM25_K1 * (1 - BM25_B + BM25_B * lengths[doc] / average)
            docs_out.append(doc)
            weights.append(idf * freq * (BM25_K1 + 1) / norm)
        offsets.append(len(docs_out))
    return Postings(
        terms,
        np.asarray(offsets, dtype=np.int64),
        np.array(docs_out, dtype=np.int32),
        np.array(weights, dtype=np.float64),
        refs,
        [fn.label for fn in pipeline.search_fns],
    )


class PostingsScorer:
    """Scores flat postings: BM25 postings (the runtime), or a Lunr index flattened by
    `Postings.from_lunr`, which it scores exactly as lunr.js and lunr.py do, faster and smaller.

    Lunr ranks documents by the cosine-normalised dot product of the query
    vector with each field's precomputed BM25 vector, summed over fields.
    lunr.py builds match objects and sparse vectors for every hit; this adds
    up flat posting arrays (`Postings`). Exact-term queries only (askdocs never
    sends wildcards, fuzziness or presence operators).
    """

    def __init__(self, postings: Postings) -> None:
        register_pipelines()
        self._search_fns = [Pipeline.registered_functions[label] for label in postings.pipeline]
        self.refs = postings.refs
        self._data = postings
        self._slots = {term: i for i, term in enumerate(postings.terms)}

    @property
    def terms(self) -> set[str]:
        return set(self._slots)

    def document_frequencies(self, terms: Iterable[str], visible: np.ndarray) -> tuple[dict[str, int], int]:
        """How many visible documents hold each (index) term, and how many are visible;
        `visible` is a mask over the chunk positions the refs name."""
        seen = visible[self._positions]
        counts = {
            term: int(seen[self._posting(term)[0]].sum()) if term in self._slots else 0 for term in terms
        }
        return counts, int(seen.sum())

    @cached_property
    def _positions(self) -> np.ndarray:
        """Document number → the integer its ref names (askdocs refs are chunk positions)."""
        return np.array([int(ref) for ref in self.refs], dtype=np.int64)

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        i = self._slots[term]
        start, end = int(self._data.offsets[i]), int(self._data.offsets[i + 1])
        return self._data.docs[start:end], self._data.weights[start:end]

    def _pipeline(self, term: str) -> list[str]:
        tokens = [Token(term)]
        for fn in self._search_fns:
            tokens = [r for i, t in enumerate(tokens) if (r := fn(t, i, tokens))]
        return [str(t) for t in tokens]

    def query_weights(self, terms: list[str]) -> dict[str, float]:
        """Index terms of the query's tokens (through the search pipeline), weighted by how
        often they occur, normalised (Lunr's query vector; for BM25 a per-query constant)."""
        weights: dict[str, float] = {}
        for term in terms:
            for processed in self._pipeline(term):
                if processed in self._slots:
                    weights[processed] = weights.get(processed, 0.0) + 1.0
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {term: weight / norm for term, weight in weights.items()}

    @cached_property
    def _doc_of(self) -> dict[int, int]:
        """Chunk position (the integer a ref names) → document number."""
        return {int(ref): doc for doc, ref in enumerate(self.refs)}

    def weights_for(self, term: str, positions: list[int]) -> np.ndarray:
        """The weight of an index term in each of the chunks at `positions` (0 where absent)."""
        out = np.zeros(len(positions), dtype=np.float64)
        if term not in self._slots or not positions:
            return out
        docs, values = self._posting(term)
        wanted = np.array([self._doc_of.get(p, -1) for p in positions], dtype=np.int64)
        at = np.clip(np.searchsorted(docs, wanted), 0, max(len(docs) - 1, 0))
        found = (wanted >= 0) & (docs[at] == wanted) if len(docs) else np.zeros(len(positions), bool)
        out[found] = values[at[found]]
        return out

    def idf(self, term: str) -> float:
        """BM25 idf of an index term among this index's documents (0 for an unknown term)."""
        if term not in self._slots:
            return 0.0
        count, documents = len(self._posting(term)[0]), len(self.refs)
        return math.log(1 + (documents - count + 0.5) / (count + 0.5))

    def search_terms(self, terms: list[str], limit: int = 50) -> list[tuple[str, float, frozenset[str]]]:
        weights = self.query_weights(terms)
        if not weights:
            return []
        scores = np.zeros(len(self.refs), dtype=np.float64)
        postings = {term: self._posting(term) for term in weights}
        for term, weight in weights.items():
            docs, values = postings[term]
            scores[docs] += values * weight
        hit = np.flatnonzero(scores)
        if len(hit) > limit:
            hit = hit[np.argpartition(-scores[hit], limit - 1)[:limit]]
        hit = hit[np.argsort(-scores[hit], kind="stable")]
        holds = {term: np.isin(hit, postings[term][0], assume_unique=True) for term in weights}
        return [
            (self.refs[doc], float(scores[doc]), frozenset(t for t in weights if holds[t][row]))
            for row, doc in enumerate(hit.tolist())
        ]


def load_index(serialized: dict) -> PostingsScorer:
    return PostingsScorer(Postings.from_lunr(serialized))


def query_tokens(text: str) -> list[str]:
    """The terms a query contributes (lowercased, de-duplicated, order kept)."""
    seen: dict[str, None] = {}
    for token in Tokenizer(lexical_text(text)):
        term = str(token).strip("_")
        if term:
            seen.setdefault(term, None)
    return list(seen)


def search(
    index: PostingsScorer | Index, text: str, limit: int = 50
) -> list[tuple[str, float, frozenset[str]]]:
    """OR-query of the text's terms; user text never reaches Lunr's query parser."""
    return search_terms(index, query_tokens(text), limit)


def search_terms(index: PostingsScorer | Index, terms: list[str], limit: int = 50
                 ) -> list[tuple[str, float, frozenset[str]]]:
    """OR-query of already tokenised terms (each still goes through the search pipeline)."""
    if not terms:
        return []
    if isinstance(index, PostingsScorer):
        return index.search_terms(terms, limit)
    query = Query(index.fields)
    for term in terms:
        query.term(term)
    hits = index.query(query)
    out = []
    for hit in hits[:limit]:
        matched = frozenset(hit["match_data"].metadata)
        out.append((hit["ref"], float(hit["score"]), matched))
    return out


def stem_terms(locale: str, text: str) -> set[str]:
    """The index terms a text would produce (for overlap checks)."""
    pipeline = pipeline_for(locale)
    tokens = Tokenizer(lexical_text(text))
    for fn in pipeline.index_fns:
        tokens = [r for i, t in enumerate(tokens) if (r := fn(t, i, tokens))]
    return {str(t) for t in tokens}


def dumps(serialized: dict) -> bytes:
    return json.dumps(serialized, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
