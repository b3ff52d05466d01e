"""The askdocs shard format, defined once: the build writes it, the runtime reads it.

A shard set is a folder (`<site>/_askdocs/` for public pages, the private
dir for restricted ones) holding `manifest.json` and content-addressed files:

- `pages.<n>.<sha8>.json`: page records (URL, title, locale, groups, dates,
  headings, links, the page text that `cat` shows) — split into parts of
  bounded size;
- `chunks.<n>.<sha8>.json`: chunk records (page, span of the page text or
  own text for FAQ pairs, anchor, heading path, date, embed hash);
- `faq.<sha8>.json`: FAQPage/QAPage pairs from JSON-LD;
- `tree.<sha8>.json`: the path tree (every page as a path, with locale,
  groups, visibility);
- `vectors.<n>.<sha8>.npy` / `scales.<sha8>.npy`: int8 chunk embeddings,
  symmetric per-vector scale (v ≈ q * scale), loadable with mmap;
- `lunr.<locale>.<sha8>.json`: a Lunr index per locale (ref = chunk position),
  and `search_docs.<locale>.<sha8>.json`: what the browser needs to turn
  refs into links when it searches offline with lunr.js;
- `suggestions.<locale>.<sha8>.json` (public sets only): the questions the
  widget suggests when a conversation is empty, `{locale, source, questions}`
  (`source`: `config` from the build options, or `faq` from the public pages'
  FAQ questions);
- `lexical.<locale>.<sha8>.json` + `postings.<locale>.<sha8>.npy`: what the
  runtime's lexical retriever scores: Okapi BM25 over each chunk's contextual
  text (page title › heading path, then the text), precomputed per (term,
  chunk) — terms, offsets, refs, and an array of (doc, weight).

Every file is listed in the manifest with its sha256; readers verify them.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from askdocs.errors import ShardError
from askdocs.lexical import Postings
from askdocs.spill import npy_header

FORMAT_NAME = "askdocs-shards"
# 2: per-locale embedding models (`locale_models`); the runtime's lexical postings are BM25 over
# contextual chunks (page title › heading path + text) instead of the flattened Lunr index.
# 3: no page-title vectors (nothing ranked with them better than without). Version 2 sets are
# still read: their title files are left unread.
FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)
SHARD_DIR = "_askdocs"
MANIFEST = "manifest.json"
PRIVATE_HTML_DIR = "html"
MAX_PART_BYTES = 8 * 1024 * 1024
READ_BYTES = 1 << 18  # what a file written piece by piece is made of at a time

# The site's support page (where escalations and refusals point): its title says only that
# ("Contact support", "Support", "Getting help", "Contactar con soporte"), or its path ends in
# such a name (/contact/, /es/soporte/, /help.html). Pages that merely mention support in
# their title ("Async Support", "Editor Support", "Unicode Support") are documentation.
_SUPPORT_TITLE = re.compile(
    r"(contact(ing)?( us| support| the team)?|support|(get|getting) help|help ?desk|"
    r"soporte|contacto|contactar( con)?( el)? soporte|ayuda|obtener ayuda)",
    re.I,
)
_SUPPORT_PATH = re.compile(
    r"(contact|contact-us|support|help|helpdesk|help-desk|get-help|getting-help|soporte|contacto|ayuda)"
)


def is_support_page(url: str, title: str) -> bool:
    segment = url.split("#")[0].split("?")[0].rstrip("/").rsplit("/", 1)[-1]
    segment = segment.removesuffix(".html").lower()
    return bool(_SUPPORT_TITLE.fullmatch(title.strip())) or bool(_SUPPORT_PATH.fullmatch(segment))


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(slots=True)
class PageRecord:
    url: str
    title: str
    locale: str
    groups: list[str]
    lastmod: str | None
    kind: str  # "page" | "listing"
    headings: list[Heading]
    links: list[str]
    word_count: int
    content_hash: str
    description: str
    content: str

    @property
    def public(self) -> bool:
        return not self.groups

    def to_json(self) -> dict:
        """`dataclasses.asdict(self)`, written out (it is called for every page of a build)."""
        return {
            "url": self.url,
            "title": self.title,
            "locale": self.locale,
            "groups": self.groups,
            "lastmod": self.lastmod,
            "kind": self.kind,
            "headings": [{"level": h.level, "text": h.text, "anchor": h.anchor} for h in self.headings],
            "links": self.links,
            "word_count": self.word_count,
            "content_hash": self.content_hash,
            "description": self.description,
            "content": self.content,
        }

    @classmethod
    def from_json(cls, data: dict) -> PageRecord:
        data = dict(data)
        data["headings"] = [Heading(**h) for h in data["headings"]]
        return cls(**data)


@dataclass(slots=True)
class ChunkRecord:
    page: int
    start: int
    end: int
    anchor: str
    headings: list[str]
    lastmod: str | None
    kind: str  # "section" | "faq"
    hash: str
    text: str | None = None  # own text (FAQ pairs); sections slice the page content

    def to_json(self) -> dict:
        return {
            "page": self.page,
            "start": self.start,
            "end": self.end,
            "anchor": self.anchor,
            "headings": self.headings,
            "lastmod": self.lastmod,
            "kind": self.kind,
            "hash": self.hash,
            "text": self.text,
        }

    @classmethod
    def from_json(cls, data: dict) -> ChunkRecord:
        return cls(**data)


@dataclass(slots=True)
class FaqRecord:
    page: int
    question: str
    answer: str
    anchor: str

    def to_json(self) -> dict:
        return {"page": self.page, "question": self.question, "answer": self.answer, "anchor": self.anchor}

    @classmethod
    def from_json(cls, data: dict) -> FaqRecord:
        return cls(**data)


@dataclass
class ShardFile:
    path: str
    role: str
    sha256: str
    bytes: int
    locale: str | None = None
    part: int | None = None


@dataclass
class Manifest:
    format: str
    format_version: int
    askdocs_version: str
    visibility: str  # "public" | "private"
    built_at: str
    site_url: str
    default_locale: str
    locales: list[str]
    model: dict[str, Any]
    embeddings: dict[str, Any]
    counts: dict[str, int]
    files: list[ShardFile]
    support_url: str | None = None
    owner: str | None = None  # which site a private set belongs to (site_url|site folder name)
    # The model each locale's vectors (and questions) use; `model` is the default locale's.
    locale_models: dict[str, dict[str, Any]] = field(default_factory=dict)

    def model_for(self, locale: str) -> dict[str, Any]:
        return self.locale_models.get(locale) or self.model

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Manifest:
        if data.get("format") != FORMAT_NAME:
            raise ShardError(f"not an askdocs manifest (format={data.get('format')!r})")
        version = data.get("format_version")
        if version not in READABLE_VERSIONS:
            raise ShardError(
                f"shard format version {version!r} is not supported by this askdocs "
                f"(reads versions {', '.join(map(str, READABLE_VERSIONS))}); "
                "rebuild the index with a matching askdocs"
            )
        known = set(cls.__dataclass_fields__)
        data = {k: v for k, v in data.items() if k in known}
        data["files"] = [ShardFile(**f) for f in data["files"]]
        return cls(**data)

    def files_with(self, role: str, locale: str | None = None) -> list[ShardFile]:
        found = [f for f in self.files if f.role == role and (locale is None or f.locale == locale)]
        return sorted(found, key=lambda f: f.part or 0)

    @property
    def version_key(self) -> str:
        """Identifies the content (not the build time) of this shard set."""
        digest = hashlib.sha256()
        for f in sorted(self.files, key=lambda f: f.path):
            digest.update(f"{f.path}:{f.sha256}\n".encode())
        return digest.hexdigest()[:16]


def chunk_text(page: PageRecord, chunk: ChunkRecord) -> str:
    return chunk.text if chunk.text is not None else page.content[chunk.start : chunk.end]


def build_time() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


def json_bytes(data: Any) -> bytes:
    """Shard JSON: keys sorted, no spaces, UTF-8 (`json.dumps` with those options; one encoder
    for every call instead of a new one each)."""
    return _JSON(data).encode("utf-8")


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ShardWriter:
    """Collects content-addressed files for one shard set, then publishes them.

    Each file is written to a staging folder (under the system's temporary folder,
    `TMPDIR`) as it is made, piece by piece if need be (`open`, `json_parts`), so a large
    site's shards are never in memory at once; `publish` moves them into place. The
    staging folder is removed after publishing, or when the writer is dropped unpublished."""

    def __init__(self) -> None:
        self._staging = Path(tempfile.mkdtemp(prefix="askdocs-shards-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._staging), True)
        self._staged = itertools.count()
        self._files: dict[str, Path] = {}
        self.entries: list[ShardFile] = []

    def open(
        self, role: str, ext: str, *, locale: str | None = None, part: int | None = None
    ) -> StagedFile:
        """A file written piece by piece; named by its sha256 and added when closed."""
        stem = ".".join(x for x in (role, locale, None if part is None else str(part)) if x)
        return StagedFile(self, role, lambda sha: f"{stem}.{sha[:8]}.{ext}", locale=locale, part=part)

    def _register(self, relpath: str, staged: Path, entry: ShardFile) -> None:
        self._files[relpath] = staged
        self.entries.append(entry)

    def add(
        self, role: str, data: bytes, ext: str, *, locale: str | None = None, part: int | None = None
    ) -> ShardFile:
        with self.open(role, ext, locale=locale, part=part) as out:
            out.write(data)
        return out.entry

    def json_parts(self, role: str, *, locale: str | None = None) -> JsonParts:
        """A JSON list written one encoded record at a time, split so no part exceeds
        MAX_PART_BYTES (one record may); `close` writes the last part."""
        return JsonParts(self, role, locale)

    def add_json_parts(self, role: str, records: Iterable[dict], *, locale: str | None = None) -> None:
        parts = self.json_parts(role, locale=locale)
        for record in records:
            parts.add(json_bytes(record))
        parts.close()

    def add_vector_parts(
        self, role: str, count: int, width: int, rows: Callable[[int, int], np.ndarray]
    ) -> None:
        """`count` int8 vectors of `width` in .npy parts of at most MAX_PART_BYTES of rows;
        `rows(start, stop)` reads those rows (READ_BYTES at a time)."""
        per_part = max(1, MAX_PART_BYTES // max(1, width))
        per_read = max(1, READ_BYTES // max(1, width))
        for index, start in enumerate(range(0, max(count, 1), per_part)):
            stop = min(start + per_part, count)
            with self.open(role, "npy", part=index) as out:
                out.write(npy_header(np.dtype(np.int8), (stop - start, width)))
                for at in range(start, stop, per_read):
                    block = rows(at, min(at + per_read, stop))
                    out.write(np.ascontiguousarray(block, dtype=np.int8).tobytes())

    def add_file(self, role: str, relpath: str, data: bytes) -> ShardFile:
        """A file kept under a fixed name (widget, lunr.js, bundled model)."""
        with StagedFile(self, role, lambda sha: relpath) as out:
            out.write(data)
        return out.entry

    def publish(self, folder: Path, manifest: Manifest) -> None:
        """Write every file, then the manifest last, then drop stale shards."""
        folder.mkdir(parents=True, exist_ok=True)
        for relpath, staged in sorted(self._files.items()):
            target = folder / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            if _same_file_bytes(target, staged):
                continue
            tmp = target.with_name(target.name + ".tmp")
            shutil.copyfile(staged, tmp)
            os.replace(tmp, target)
        manifest_data = json.dumps(manifest.to_json(), ensure_ascii=False, indent=2, sort_keys=True)
        tmp = folder / (MANIFEST + ".tmp")
        tmp.write_text(manifest_data + "\n", encoding="utf-8")
        os.replace(tmp, folder / MANIFEST)
        keep = set(self._files) | {MANIFEST}
        for path in sorted(folder.rglob("*"), reverse=True):
            rel = path.relative_to(folder).as_posix()
            if path.is_file() and rel not in keep:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()) and path != folder:
                path.rmdir()
        self._cleanup()


def _same_file_bytes(target: Path, staged: Path) -> bool:
    """Whether `target` exists and holds exactly the bytes of `staged` (read in blocks)."""
    if not target.is_file() or target.stat().st_size != staged.stat().st_size:
        return False
    with target.open("rb") as a, staged.open("rb") as b:
        while True:
            block = a.read(1 << 20)
            if block != b.read(1 << 20):
                return False
            if not block:
                return True


class StagedFile:
    """One shard file being written to a writer's staging folder (a context manager)."""

    def __init__(
        self,
        writer: ShardWriter,
        role: str,
        name: Callable[[str], str],
        *,
        locale: str | None = None,
        part: int | None = None,
    ) -> None:
        self._writer, self._role, self._name, self._locale, self._part = writer, role, name, locale, part
        self._path = writer._staging / str(next(writer._staged))
        self._file = self._path.open("wb")
        self._sha = hashlib.sha256()
        self.bytes = 0
        self.entry: ShardFile | None = None

    def write(self, data: bytes) -> None:
        self._sha.update(data)
        self._file.write(data)
        self.bytes += len(data)

    def close(self) -> ShardFile:
        self._file.close()
        sha = self._sha.hexdigest()
        path = self._name(sha)
        self.entry = ShardFile(
            path=path, role=self._role, sha256=sha, bytes=self.bytes, locale=self._locale, part=self._part
        )
        self._writer._register(path, self._path, self.entry)
        return self.entry

    def __enter__(self) -> StagedFile:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()
        else:  # not added: the staging folder goes with the writer
            self._file.close()


class JsonParts:
    """A JSON list of encoded records, written to parts of at most MAX_PART_BYTES."""

    def __init__(self, writer: ShardWriter, role: str, locale: str | None) -> None:
        self._writer, self._role, self._locale = writer, role, locale
        self._out: StagedFile | None = None
        self._index = 0
        self._size = 0
        self.count = 0  # records added

    def add(self, encoded: bytes) -> None:
        if self._out is not None and self._size and self._size + len(encoded) > MAX_PART_BYTES:
            self._finish()
            self._index += 1
        if self._out is None:
            self._out = self._writer.open(self._role, "json", locale=self._locale, part=self._index)
            self._out.write(b"[")
        else:
            self._out.write(b",")
        self._out.write(encoded)
        self._size += len(encoded) + 1
        self.count += 1

    def _finish(self) -> None:
        assert self._out is not None
        self._out.write(b"]")
        self._out.close()
        self._out, self._size = None, 0

    def close(self) -> None:
        if self._out is None:  # no records at all: one empty part
            self._out = self._writer.open(self._role, "json", locale=self._locale, part=self._index)
            self._out.write(b"[")
        self._finish()


@dataclass
class ShardSet:
    """A loaded, verified shard set."""

    root: Path
    manifest: Manifest
    pages: list[PageRecord]
    chunks: list[ChunkRecord]
    faqs: list[FaqRecord]
    tree: dict[str, dict]
    vectors: np.ndarray
    scales: np.ndarray
    postings: dict[str, Postings] = field(repr=False, default_factory=dict)


def read_manifest(folder: Path) -> Manifest:
    return Manifest.from_json(peek_manifest(folder))


def peek_manifest(folder: Path) -> dict:
    """The manifest's fields, of any format version (a build may replace an older set)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise ShardError(f"no {MANIFEST} in {folder}: build the site with askdocs first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ShardError(f"{path} is not valid JSON: {exc}") from exc
    name = data.get("format") if isinstance(data, dict) else None
    if name != FORMAT_NAME:
        raise ShardError(f"not an askdocs manifest (format={name!r})")
    return data


def _verified(folder: Path, entry: ShardFile) -> bytes:
    path = folder / entry.path
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ShardError(f"shard {entry.path} listed in the manifest is missing: {exc}") from exc
    if _sha(data) != entry.sha256:
        raise ShardError(
            f"shard {entry.path} does not match its sha256 in the manifest "
            "(a partial upload or a mix of two builds); refusing to load it"
        )
    return data


def _verified_array(folder: Path, entry: ShardFile) -> np.ndarray:
    """An array the runtime owns: parsed from the bytes whose sha256 was just checked.

    Never a memory map of the served folder: an in-place edit of a mapped file would change
    live results silently, and truncating one kills the process with SIGBUS on the next read.
    Read-only, like the map it replaces.
    """
    data = _verified(folder, entry)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        raise ShardError(f"shard {entry.path} is not a valid .npy array: {exc}") from exc
    array.flags.writeable = False
    return array


def _load_json_parts(folder: Path, manifest: Manifest, role: str) -> list:
    out: list = []
    for entry in manifest.files_with(role):
        out.extend(json.loads(_verified(folder, entry)))
    return out


def _load_array(folder: Path, manifest: Manifest, role: str, dtype, width: int) -> np.ndarray:
    arrays = []
    for entry in manifest.files_with(role):
        arrays.append(_verified_array(folder, entry))
    arrays = [a for a in arrays if len(a)]
    if not arrays:
        return np.zeros((0, width) if width else (0,), dtype=dtype)
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays)


def load_shards(folder: Path) -> ShardSet:
    """Load a shard set from a folder, verifying format version and every sha256."""
    manifest = read_manifest(folder)
    pages = [PageRecord.from_json(p) for p in _load_json_parts(folder, manifest, "pages")]
    chunks = [ChunkRecord.from_json(c) for c in _load_json_parts(folder, manifest, "chunks")]
    faqs = [FaqRecord.from_json(f) for f in _load_json_parts(folder, manifest, "faq")]
    tree = {}
    for entry in manifest.files_with("tree"):
        tree = json.loads(_verified(folder, entry))
    dim = int(manifest.embeddings["dim"])
    vectors = _load_array(folder, manifest, "vectors", np.int8, dim)
    scales = _load_array(folder, manifest, "scales", np.float32, 0)
    if len(vectors) != len(chunks) or len(scales) != len(chunks):
        raise ShardError(
            f"shard set in {folder} is inconsistent: {len(chunks)} chunks but {len(vectors)} "
            f"vectors and {len(scales)} scales"
        )
    postings = {}
    for entry in manifest.files_with("lexical"):
        table = next((f for f in manifest.files_with("postings", entry.locale)), None)
        if entry.locale and table is not None:
            meta = json.loads(_verified(folder, entry))
            array = _verified_array(folder, table)
            postings[entry.locale] = Postings.from_files(meta, array)
    for entry in manifest.files:  # the Lunr JSON and the widget's files are for browsers
        if entry.role in ("lunr", "widget", "lunr_js", "model", "search_docs", "suggestions"):
            _verified(folder, entry)
    missing = set(manifest.locales) - set(postings)
    if missing:
        raise ShardError(f"shard set in {folder} has no lexical postings for {sorted(missing)}")
    return ShardSet(
        folder,
        manifest,
        pages,
        chunks,
        faqs,
        tree,
        vectors,
        scales,
        postings,
    )

