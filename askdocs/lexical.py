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

import io
import json
import math
import re
import tempfile
import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, BinaryIO, Protocol

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
from askdocs.spill import Rows, buckets_for, grouped, npy_header, row_blocks

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
    """A Lunr index as the JSON lunr.js loads (see `LunrWriter`), in memory."""
    writer = LunrWriter(locale)
    for doc in docs:
        writer.add(doc)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_FIELD_NAMES = tuple(name for name, _ in FIELDS)
_POSTINGS_PER_BUCKET = 1 << 17  # postings sorted in memory at once (a term with more: alone)
_WORK_ROWS = 1 << 14  # postings turned into JSON or weights at once
_MEMO_CHARS, _MEMO_TEXTS = 300, 4096  # the short texts whose terms are remembered, how many


class _TermPairs:
    """What both on-disk index writers share: terms numbered in order of first appearance,
    each text's (term number, count) pairs spilled to a temporary file, and per term how many
    texts hold it. The texts' words are what lunr's tokenizer and the locale's pipeline make
    of them (`TermCache`, shared by a locale's writers)."""

    def __init__(self, locale: str, terms: TermCache | None, prefix: str) -> None:
        self._pipeline = pipeline_for(locale)
        terms = terms if terms is not None else TermCache(locale)
        self._terms_of, self._kept, self._locale = terms.__getitem__, terms.counted, locale
        self._folder = tempfile.TemporaryDirectory(prefix=prefix)
        self._pairs = Rows(Path(self._folder.name) / "pairs", 2)  # (term number, count)
        self._term_index: dict[str, int] = {}
        self._held = array("q")  # per term: the texts holding it
        self._counted: dict[str, dict[str, int]] = {}  # short texts' terms, memoised

    def _count(self, text: str, pairs: array) -> tuple[int, int]:
        """Append the text's (term number, count) pairs to `pairs`: (distinct terms, terms)."""
        term_index, held = self._term_index, self._held
        if len(text) > _MEMO_CHARS:
            tf = self._kept_terms(text)
        elif (tf := self._counted.get(text)) is None:  # page titles and heading paths repeat
            if len(self._counted) >= _MEMO_TEXTS:
                self._counted.clear()
            tf = self._counted[text] = self._terms(text)
        for term, freq in tf.items():
            number = term_index.get(term)
            if number is None:
                number = term_index[term] = len(held)
                held.append(0)
            held[number] += 1
            pairs.append(number)
            pairs.append(freq)
        return len(tf), sum(tf.values())

    def _kept_terms(self, text: str) -> dict[str, int]:
        """`_terms`, or what the last build counted for the very same text."""
        if self._kept is None:
            return self._terms(text)
        key = self._kept.key("terms", self._locale, text)
        kept = self._kept.get(key)
        if isinstance(kept, tuple) and len(kept) == 2 and len(kept[0]) == len(kept[1]):
            return dict(zip(kept[0], kept[1], strict=True))
        tf = self._terms(text)
        self._kept.put(key, (tuple(tf), tuple(tf.values())))
        return tf

    def _terms(self, text: str) -> dict[str, int]:
        """The text's terms and their counts, in order of first appearance."""
        # lunr's Tokenizer lowercases the whole string, then splits it on its separators.
        # Each distinct word's terms once: a term first appears with the first word making it.
        tf: dict[str, int] = {}
        terms_of = self._terms_of
        for word, count in Counter(_LUNR_TOKEN.findall(lexical_text(text).lower())).items():
            for term in terms_of(word):
                tf[term] = tf.get(term, 0) + count
        return tf

    def _close(self) -> None:
        self._pairs.close()
        self._folder.cleanup()


class LunrWriter(_TermPairs):
    """A Lunr index made one document at a time and written as the JSON lunr.js loads:
    `dumps` of what lunr.py's `Builder` serialises, byte for byte (`_build_index_reference`,
    kept for the tests), three to four times faster.

    The text is split by one regex instead of lunr's per-character tokenizer, each distinct
    word goes through the index pipeline once (the functions are pure per token), and the
    BM25 field vectors are computed with the very float operations of
    `Builder._create_field_vectors`. Memory does not grow with the postings: each field's
    (term number, count) pairs go to a temporary file as the document is added; what stays
    per document is its ref and field sizes (about 40 bytes), besides the vocabulary.
    `write` reads the pairs back: the field vectors in document order, then the inverted
    index a bucket of terms at a time (the pairs grouped by term on disk, `spill.grouped`).
    """

    def __init__(self, locale: str, terms: TermCache | None = None) -> None:
        # Terms are numbered in order of first appearance (Builder.term_index), every field of
        # every document counted, including one a repeated ref later overwrites; a term's
        # holders are (field, document) pairs.
        super().__init__(locale, terms, "askdocs-lunr-")
        self._row_terms = array("i")  # per document and field: distinct terms, and terms
        self._row_length = array("i")
        self._refs = _Refs(b":{},")  # each ref as the inverted index keys it

    def add(self, doc: LexicalDoc) -> None:
        self._refs.add(str(doc.ref))
        pairs = array("i")
        for name in _FIELD_NAMES:
            distinct, length = self._count(getattr(doc, name), pairs)
            self._row_terms.append(distinct)
            self._row_length.append(length)
        self._pairs.extend(pairs)

    def write(self, out: BinaryIO) -> None:
        try:
            self._write(out)
        finally:
            self._close()

    def _write(self, out: BinaryIO) -> None:
        fields = len(FIELDS)
        documents = len(self._refs)
        row_terms = np.frombuffer(self._row_terms, dtype=np.int32)
        lengths = np.frombuffer(self._row_length, dtype=np.int32)
        repeats = self._refs.repeats()
        # A repeated ref keeps the rows of its first place with the values of its last add.
        source = np.arange(documents, dtype=np.int64)
        for members in repeats:
            source[members] = -1
            source[members[0]] = members[-1]
        held = np.frombuffer(self._held, dtype=np.int64).copy()
        starts = np.r_[0, np.cumsum(row_terms, dtype=np.int64)] if repeats else np.zeros(0, np.int64)
        for members in repeats:  # a ref counts once per term and field
            for slot in range(fields):
                terms = [self._row(starts, m * fields + slot)[:, 0] for m in members.tolist()]
                found, times = np.unique(np.concatenate(terms), return_counts=True)
                held[found] -= times - 1
        # Builder._calculate_average_field_lengths (no documents: 0 / 0 raises, as in lunr.py).
        kept = source[source >= 0]
        total = lengths.reshape(-1, fields)[kept].sum(axis=0, dtype=np.int64).tolist()
        average = np.array([total[slot] / len(kept) for slot in range(fields)], dtype=np.float64)
        # lunr.idf: documents with the term, counted once per field it occurs in.
        idf = np.array(
            [math.log(1 + abs((documents - h + 0.5) / (h + 0.5))) for h in held.tolist()], dtype=np.float64
        )
        out.write(
            f'{{"version":{_ENCODE(lunr.__TARGET_JS_VERSION__)},"fields":{_ENCODE(list(_FIELD_NAMES))},'
            '"fieldVectors":['.encode()
        )
        vectors = _FieldVectors(out, self._refs, idf, average, lengths)
        if not repeats:
            for rows, pairs, owner in row_blocks(self._pairs, row_terms):
                vectors.write(pairs, owner, np.arange(rows.start, rows.stop))
        for doc in kept.tolist() if repeats else ():
            rows = np.arange(doc * fields, doc * fields + fields)
            pairs = self._pairs.read(int(starts[rows[0]]), int(starts[rows[-1] + 1]))
            vectors.write(pairs, np.repeat(rows, row_terms[rows]), rows)
        out.write(b'],"invertedIndex":[')
        self._inverted_index(out, repeats)
        out.write(f'],"pipeline":{_ENCODE([fn.label for fn in self._pipeline.search_fns])}}}'.encode())

    def _row(self, starts: np.ndarray, row: int) -> np.ndarray:
        return self._pairs.read(int(starts[row]), int(starts[row + 1]))

    def _inverted_index(self, out: BinaryIO, repeats: list[np.ndarray]) -> None:
        """Per term (sorted), per field, the refs that hold it in document order (a repeated
        ref once, at its first place), and the term's number."""
        fields = len(FIELDS)
        terms = sorted(self._term_index)
        number_of = np.fromiter((self._term_index[t] for t in terms), dtype=np.int64, count=len(terms))
        rank_of = np.empty(len(terms), dtype=np.int64)
        rank_of[number_of] = np.arange(len(terms))
        bucket_of_rank, buckets = buckets_for(
            np.frombuffer(self._held, dtype=np.int64)[number_of], _POSTINGS_PER_BUCKET
        )
        first_of = np.arange(len(self._refs), dtype=np.int64)
        for members in repeats:
            first_of[members] = members[0]

        def entries() -> Iterator[np.ndarray]:  # (term rank * fields + field, document) per pair
            for _, pairs, rows in row_blocks(self._pairs, np.frombuffer(self._row_terms, dtype=np.int32)):
                yield np.column_stack((rank_of[pairs[:, 0]] * fields + rows % fields, rows // fields))

        path = Path(self._folder.name) / "entries"
        wide = len(terms) * fields >= 2**31 or len(self._refs) >= 2**31
        groups = grouped(entries(), lambda e: bucket_of_rank[e[:, 0] // fields], buckets, path, wide=wide)
        keyed = [b'"%s":{' % name.encode() for name in _FIELD_NAMES]
        numbers = number_of.tolist()
        low = 0
        for bucket, found in enumerate(groups):
            high = int(np.searchsorted(bucket_of_rank, bucket, side="right"))  # its terms: low..high-1
            found = found.reshape(-1, 2)
            found = found[np.argsort(found[:, 0], kind="stable")]
            keys, docs = found[:, 0], first_of[found[:, 1]]
            del found
            if repeats:  # each (term, field, ref) at its first place only
                _, first = np.unique(keys.astype(np.int64) * len(first_of) + docs, return_index=True)
                keep = np.sort(first)
                keys, docs = keys[keep], docs[keep]
            cuts = np.searchsorted(keys, np.arange(low * fields, high * fields + 1)).tolist()
            refs = _Joined(self._refs, docs)  # '"ref":{},' each
            for rank in range(low, high):
                out.write(b'%s[%s,{' % (b"," if rank else b"", _ENCODE(terms[rank]).encode()))
                for k, key in enumerate(keyed):
                    cut = (rank - low) * fields + k
                    out.write(b"},%s" % key if k else key)
                    refs.write(out, cuts[cut], cuts[cut + 1])  # less the last one's comma
                out.write(b'},"_index":%d}]' % numbers[rank])
            low = high


class _Joined:
    """The refs of a run of postings as the inverted index lists them, made a few thousand at
    a time and written in order: `write(out, a, b)` writes postings a..b-1 but the last comma."""

    def __init__(self, refs: _Refs, docs: np.ndarray) -> None:
        self._refs, self._docs = refs, docs
        self._start = self._stop = 0  # the postings made
        self._data, self._ends = b"", [0]

    def write(self, out: BinaryIO, a: int, b: int) -> None:
        while a < b:
            if not self._start <= a < self._stop:
                self._start, self._stop = a, min(a + _WORK_ROWS, len(self._docs))
                self._data, ends = self._refs.joined(self._docs[self._start : self._stop])
                self._ends = [0, *ends.tolist()]
            stop = min(b, self._stop)
            end = self._ends[stop - self._start] - (stop == b)
            out.write(self._data[self._ends[a - self._start] : end])
            a = stop


class _FieldVectors:
    """Writes `fieldVectors` rows: per (field, ref), its terms' BM25 weights sorted by term
    number (Builder._create_field_vectors: k1 = 1.2, b = 0.75, field boost, document boost 1,
    rounded to 3 places; Vector.serialize rounds them again, which changes nothing)."""

    K1, B = 1.2, 0.75

    def __init__(self, out: BinaryIO, refs: _Refs, idf: np.ndarray, average: np.ndarray, lengths: np.ndarray):
        self.out, self.refs, self.idf, self.average, self.lengths = out, refs, idf, average, lengths
        self.boosts = np.array([boost for _, boost in FIELDS], dtype=np.int64)
        self.written = 0

    def write(self, pairs: np.ndarray, row_of_pair: np.ndarray, rows: np.ndarray) -> None:
        """The rows `rows` (ascending), whose (term, count) pairs are `pairs`, each of row `row_of_pair`."""
        fields, k1, b = len(FIELDS), self.K1, self.B
        order = np.lexsort((pairs[:, 0], row_of_pair))
        terms, freqs, owner = pairs[order, 0], pairs[order, 1].astype(np.float64), row_of_pair[order]
        slot = owner % fields
        # The very operations, in the very order, of the float arithmetic in lunr.py.
        norm = k1 * (1 - b + b * (self.lengths[owner].astype(np.float64) / self.average[slot]))
        score = self.idf[terms] * ((k1 + 1) * freqs) / (norm + freqs)
        score *= self.boosts[slot]
        rounded = [round(x, 3) for x in score.tolist()]
        numbers = terms.tolist()
        ends = np.searchsorted(owner, rows, side="right").tolist()
        start = 0
        for row, end in zip(rows.tolist(), ends, strict=True):
            elements: list[int | float] = [0] * (2 * (end - start))
            elements[0::2], elements[1::2] = numbers[start:end], rounded[start:end]
            ref = self.refs.json(row // fields)
            field_ref = b'"' + _FIELD_NAMES[row % fields].encode() + b"/" + ref[1:-1] + b'"'
            vector = b"[" + field_ref + b"," + _ENCODE(elements).encode() + b"]"
            self.out.write(b"," + vector if self.written else vector)
            self.written += 1
            start = end


class _Refs:
    """Refs as JSON strings in one buffer, each followed by `suffix` (how a list of them is
    joined): about 8 bytes per ref besides its text, instead of a str object each."""

    def __init__(self, suffix: bytes) -> None:
        self._suffix = suffix
        self._data = bytearray()
        self._ends = array("q")
        self._hashes = array("q")
        self._starts: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._ends)

    def add(self, ref: str) -> None:
        encoded = _ENCODE(ref).encode("utf-8")
        self._data += encoded
        self._data += self._suffix
        self._ends.append(len(self._data))
        self._hashes.append(hash(encoded))
        self._starts = None

    def json(self, index: int) -> bytes:
        start = self._ends[index - 1] if index else 0
        return bytes(self._data[start : self._ends[index] - len(self._suffix)])

    def all(self) -> bytes:
        """Every ref, in order, each followed by the suffix."""
        return bytes(self._data)

    def joined(self, indexes: np.ndarray) -> tuple[bytes, np.ndarray]:
        """The refs at `indexes`, each followed by the suffix, in one string, and where each ends."""
        ends = np.frombuffer(self._ends, dtype=np.int64)
        if self._starts is None:
            self._starts = np.r_[0, ends[:-1]]
        stop = ends[indexes]
        size = stop - self._starts[indexes]
        at = np.cumsum(size)
        if not len(at) or not at[-1]:
            return b"", at
        offsets = np.repeat(stop - at, size) + np.arange(at[-1])
        return np.frombuffer(self._data, dtype=np.uint8)[offsets].tobytes(), at

    def repeats(self) -> list[np.ndarray]:
        """The positions of each ref that was added more than once (ascending), by first place."""
        hashes = np.frombuffer(self._hashes, dtype=np.int64)
        order = np.argsort(hashes, kind="stable")
        same = hashes[order][1:] == hashes[order][:-1]
        if not same.any():
            return []
        candidates = np.unique(order[np.r_[False, same] | np.r_[same, False]])
        groups: dict[bytes, list[int]] = {}
        for index in candidates.tolist():  # the same hash: the same ref, or a rare collision
            groups.setdefault(self.json(index), []).append(index)
        found = [np.array(g, dtype=np.int64) for g in groups.values() if len(g) > 1]
        return sorted(found, key=lambda g: int(g[0]))


# lunr's Tokenizer splits on lunr.tokenizer.SEPARATOR_CHARS; tokens are the runs between them.
_LUNR_TOKEN = re.compile(f"[^{re.escape(SEPARATOR_CHARS)}]+")


class TermCounts(Protocol):
    """Records kept between builds (the build's `BuildCache`): a text's term counts."""

    def key(self, *parts: str) -> bytes: ...
    def get(self, key: bytes) -> Any: ...
    def put(self, key: bytes, record: Any) -> None: ...


class TermCache(dict):
    """word -> the terms the locale's index pipeline (`Pipeline.run`) makes of it as one token;
    a locale's Lunr and BM25 writers may share one. With `counted`, a long text's term counts
    are also kept for the next build (its words are not split and stemmed again; a short one
    is counted again, which costs about what looking it up does)."""

    def __init__(self, locale: str, counted: TermCounts | None = None) -> None:
        super().__init__()
        self.fns = pipeline_for(locale).index_fns
        self.counted = counted

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
    """`BM25Writer`'s postings, in memory."""
    writer = BM25Writer(locale)
    for ref, text in docs:
        writer.add(ref, text)
    meta, table = io.BytesIO(), io.BytesIO()
    writer.write(meta, table)
    table.seek(0)
    return Postings.from_files(json.loads(meta.getvalue()), np.load(table, allow_pickle=False))


class BM25Writer(_TermPairs):
    """Okapi BM25 (k1 = 1.2, b = 0.75) over whole texts, one field, precomputed per (term, doc):
    the runtime's lexical retriever. Terms are what the locale's Lunr index pipeline makes of
    the words (trimmer, stop words, stemmer), so both indexes agree on what a term is.

    Documents are added one at a time; their (term, count) pairs go to a temporary file, and
    per document only its ref and length stay (about 20 bytes), besides the vocabulary.
    `write` writes what `Postings.meta_json` and `Postings.table` hold, the table sorted by
    term a bucket of terms at a time."""

    def __init__(self, locale: str, terms: TermCache | None = None) -> None:
        super().__init__(locale, terms, "askdocs-bm25-")
        self._doc_terms = array("i")  # distinct terms of each document
        self._sizes = array("d")  # each document's length in terms
        self._refs = _Refs(b",")

    def add(self, ref: str, text: str) -> None:
        pairs = array("i")
        distinct, length = self._count(text, pairs)
        self._pairs.extend(pairs)
        self._doc_terms.append(distinct)
        self._sizes.append(length)
        self._refs.add(str(ref))

    def write(self, meta: BinaryIO, table: BinaryIO) -> None:
        try:
            self._write(meta, table)
        finally:
            self._close()

    def _write(self, meta: BinaryIO, table: BinaryIO) -> None:
        terms = sorted(self._term_index)
        number_of = np.fromiter((self._term_index[t] for t in terms), dtype=np.int64, count=len(terms))
        rank_of = np.empty(len(terms), dtype=np.int64)
        rank_of[number_of] = np.arange(len(terms))
        held = np.frombuffer(self._held, dtype=np.int64)[number_of]
        count = len(self._refs)
        lengths = np.frombuffer(self._sizes, dtype=np.float64)
        average = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
        idf = np.array(
            [math.log(1 + (count - h + 0.5) / (h + 0.5)) for h in held.tolist()], dtype=np.float64
        )
        offsets = np.r_[0, np.cumsum(held)].tolist()
        pipeline = [fn.label for fn in self._pipeline.search_fns]
        # json_bytes(meta_json()): keys sorted, compact separators
        meta.write(b'{"offsets":' + _dumps(offsets) + b',"pipeline":' + _dumps(pipeline) + b',"refs":[')
        meta.write(self._refs.all()[:-1] + b'],"terms":' + _dumps(terms) + b"}")
        del offsets
        table.write(npy_header(POSTING_DTYPE, (int(held.sum()),)))
        bucket_of_rank, buckets = buckets_for(held, _POSTINGS_PER_BUCKET)

        def entries() -> Iterator[np.ndarray]:  # (term rank, document, count) per pair
            for _, pairs, docs in row_blocks(self._pairs, np.frombuffer(self._doc_terms, dtype=np.int32)):
                yield np.column_stack((rank_of[pairs[:, 0]], docs, pairs[:, 1]))

        path = Path(self._folder.name) / "entries"
        wide = len(terms) >= 2**31 or count >= 2**31
        for found in grouped(entries(), lambda e: bucket_of_rank[e[:, 0]], buckets, path, wide=wide):
            found = found.reshape(-1, 3)
            found = found[np.argsort(found[:, 0], kind="stable")]  # by term, in document order
            for start in range(0, len(found), _WORK_ROWS):
                part = found[start : start + _WORK_ROWS]
                rank, doc, freq = part[:, 0], part[:, 1], part[:, 2].astype(np.float64)
                # The very operations, in the very order, of one posting's weight done alone.
                norm = freq + BM25_K1 * (1 - BM25_B + BM25_B * lengths[doc] / average)
                rows = np.zeros(len(part), dtype=POSTING_DTYPE)
                rows["doc"], rows["weight"] = doc, idf[rank] * freq * (BM25_K1 + 1) / norm
                table.write(rows.tobytes())


def _dumps(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


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

    def holding(self, term: str, visible: np.ndarray) -> np.ndarray:
        """The visible documents (numbers, sorted) that hold an index term."""
        if term not in self._slots:
            return np.zeros(0, dtype=np.int64)
        docs = self._posting(term)[0]
        return np.sort(docs[visible[self._positions[docs]]], kind="stable")  # already sorted: O(n)

    def chunk_positions(self, docs: np.ndarray) -> np.ndarray:
        """The chunk positions (what askdocs refs name) of document numbers."""
        return self._positions[docs]

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
