"""Plain page records in, shard sets out. Knows nothing of MkDocs or Pelican."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import time
import weakref
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import numpy as np
from askdocs.plugin import privacy
from askdocs.plugin.buildcache import BuildCache, extract_key
from askdocs.plugin.chunking import ChunkSettings, Span, chunk_page
from askdocs.plugin.duplicates import KEY_BYTES, document_key, duplicate_urls
from askdocs.plugin.embedpool import MIN_TEXTS_PER_WORKER, embed_texts, workers_for
from askdocs.plugin.extract import Block, ExtractedPage, extract, strip_links
from askdocs.plugin.listings import Listings, link_index, normalized
from askdocs.plugin.llmstxt import LlmsFiles
from askdocs.plugin.setwriter import SetWriter
from askdocs.plugin.sitemaps import page_dates

from askdocs import __version__
from askdocs.embedder import Embedder
from askdocs.errors import BuildError, ShardError
from askdocs.lexical import contextual_text
from askdocs.models import AUTO, ModelInfo, choose_models, locate
from askdocs.remote import materialize
from askdocs.shards import (
    FORMAT_NAME,
    FORMAT_VERSION,
    SHARD_DIR,
    ChunkRecord,
    FaqRecord,
    Heading,
    Manifest,
    PageRecord,
    ShardSet,
    ShardWriter,
    build_time,
    is_support_page,
    json_bytes,
    load_shards,
    peek_manifest,
)
from askdocs.spill import RecordFile

log = logging.getLogger("askdocs.build")

MAX_CONTENT_CHARS = 2_000_000
SHOWN_PER_WARNING = 5  # pages logged for each kind of page warning; the rest are counted
MAX_SUGGESTED_CONFIGURED = 10
MAX_QUESTION_CHARS = 300
_LOCALE = re.compile(r"^[a-z]{2,3}$")


@dataclass
class RawPage:
    """What an adapter hands the builder: a rendered page and what it knows of it."""

    url: str
    html: bytes | str | None  # None: read from `path` when the page is extracted
    meta: dict = field(default_factory=dict)
    path: Path | None = None  # the HTML file in the site dir, if any

    def read(self) -> bytes | str:
        if self.html is not None:
            return self.html
        if self.path is None:
            raise BuildError(f"{self.url}: a page with neither HTML nor a file")
        return self.path.read_bytes()


@dataclass
class BuildOptions:
    site_dir: Path
    site_url: str = ""
    default_locale: str = "en"
    model: str = AUTO
    private_dir: Path | None = None
    keep_restricted_html: bool = False
    bundle_model: bool = False
    previous: str | None = None
    chunks: ChunkSettings = field(default_factory=ChunkSettings)
    threads: int = 0
    copy_widget: bool = True
    progress: bool = True
    llms_txt: bool = True  # llms.txt, llms-full.txt and page twins at the site root
    support_url: str | None = None  # configured; else the site's contact/support page
    suggested_questions: dict[str, list[str]] = field(default_factory=dict)

    @property
    def shard_dir(self) -> Path:
        return self.site_dir / SHARD_DIR

    @property
    def resolved_private_dir(self) -> Path:
        if self.private_dir is not None:
            return Path(self.private_dir)
        return self.site_dir.parent / "askdocs-private"


def build_embedder(info: ModelInfo, threads: int) -> Embedder:
    """A build's model session: it embeds one text after another on all `threads`, which spin
    between the model's steps; its tokenizer loads when a page of its locale is first chunked
    or embedded (a rebuild of English pages alone never reads the multilingual one)."""
    return Embedder(info, threads=threads, reuse_check=True, spinning=True, lazy_tokenizer=True)


def suggested_questions(value: object) -> dict[str, list[str]]:
    """The `suggested_questions` option, checked: `{locale: [question, ...]}`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BuildError("suggested_questions must map a locale to a list of questions, e.g. {en: [...]}")
    checked: dict[str, list[str]] = {}
    for locale, questions in value.items():
        if not isinstance(locale, str) or not _LOCALE.match(locale):
            raise BuildError(f"suggested_questions: {locale!r} is not a locale code such as en or es")
        if not isinstance(questions, list) or not all(isinstance(q, str) and q.strip() for q in questions):
            raise BuildError(f"suggested_questions.{locale} must be a list of non-empty questions")
        if len(questions) > MAX_SUGGESTED_CONFIGURED:
            raise BuildError(
                f"suggested_questions.{locale} has {len(questions)} questions; at most "
                f"{MAX_SUGGESTED_CONFIGURED} are shown"
            )
        long = [q for q in questions if len(q) > MAX_QUESTION_CHARS]
        if long:
            raise BuildError(
                f"suggested_questions.{locale}: {long[0][:40]!r}… is over {MAX_QUESTION_CHARS} characters"
            )
        checked[locale] = [q.strip() for q in questions]
    return checked


@dataclass
class BuildReport:
    pages: int = 0
    chunks: int = 0
    faq: int = 0
    locales: list[str] = field(default_factory=list)
    restricted: int = 0
    excluded: int = 0
    reused: int = 0
    embedded: int = 0
    chunked: int = 0  # pages chunked anew (the others' chunks are the last build's)
    read: int = 0  # pages read (each HTML file or page handed over, excluded ones too)
    parsed: int = 0  # of those, parsed anew (the others' extraction is the build cache's)
    seconds: float = 0.0
    warnings: int = 0

    def summary(self) -> str:
        return (
            f"indexed {self.pages} pages, {self.chunks} chunks, {self.faq} FAQ pairs, "
            f"locales {','.join(self.locales) or '-'}, {self.restricted} restricted, "
            f"{self.excluded} excluded, pages parsed anew {self.parsed}/{self.read}, "
            f"pages chunked anew {self.chunked}/{self.pages}, "
            f"vectors reused {self.reused}/{self.reused + self.embedded}, "
            f"{self.warnings} warnings, {self.seconds:.1f}s"
        )


# Flags kept per page while the site is read (what the whole-site decisions need of it).
_CANONICAL = 1  # its own URL is the one it is indexed under (rel=canonical duplicates lose to it)
_RESTRICTED = 2
_KIND_PAGE = 4  # kind "page": may be marked a listing or a changelog
_CHANGELOG_PAGE = 8  # release notes, by title or by sections (is_changelog)
_SUPPORT = 16  # the site's support page (shards.is_support_page)
_LINK_INDEX = 32  # mostly links: a listing (see listings.link_index)


class IndexBuilder:
    """Pages in (`add`), shard sets out (`build`).

    A page is extracted when it is added and then written to a temporary file (TMPDIR);
    what stays in memory per page is its URL and a few numbers (where its record is, flags,
    locale, a 16-byte document key), about 200 bytes. `build` makes the whole-site
    decisions (duplicates, listings, changelogs, dates, support page) from those, then reads
    the pages back one at a time, in URL order, to write each set."""

    def __init__(
        self,
        options: BuildOptions,
        *,
        embedders: dict[str, Embedder] | None = None,
        logger: logging.Logger = log,
    ) -> None:
        self.options = options
        self.log = logger
        self._embedders: dict[str, Embedder] = dict(embedders or {})  # by model sha256
        # Injected sessions (tests, `mkdocs serve`) embed in-process; a build of its own fans out.
        self._own_embedders = not embedders
        self._by_locale: dict[str, Embedder] = {}
        self._reuse: dict[str, tuple[np.ndarray, float]] = {}
        self._chunked: dict[str, tuple[str, str, list[tuple]]] = {}  # URL → hash, model, Span fields
        self._excluded: set[str] = set()
        self._suspects: set[str] = set()  # URLs that may be new or changed since the last build
        self.report = BuildReport()
        self._repeated: dict[str, list] = {}  # a page warning → [pages with it, one not logged]
        self._cache = BuildCache.for_site(options.site_dir, options.site_url, "extract", logger)
        self._term_cache = BuildCache.for_site(options.site_dir, options.site_url, "terms", logger)
        self._spill = Path(tempfile.mkdtemp(prefix="askdocs-build-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._spill), True)
        self._records = RecordFile(self._spill / "pages")
        self._listings = Listings(self._spill)
        self._pages: dict[str, int] = {}  # URL → the page's slot in the arrays below
        self._at = array("q")  # where the page's record is
        self._number = array("i")  # its number among the pages read (Listings)
        self._flags = array("B")
        self._locale = array("H")  # its locale, as a position in _locales
        self._locales: list[str] = []
        self._keys = bytearray()  # its document key (duplicates.KEY_BYTES each)
        self._paths: dict[int, Path | None] = {}  # restricted pages' HTML files, by slot

    # -- input -------------------------------------------------------------
    def embedder(self, locale: str) -> Embedder:
        """The model a locale's pages are embedded with (chosen when the build starts)."""
        found = self._by_locale.get(locale)
        if found is None:
            raise BuildError(f"internal: no embedding model chosen for locale {locale!r}")
        return found

    def model(self, locale: str) -> ModelInfo:
        return self.embedder(locale).info

    @property
    def loaded_embedders(self) -> dict[str, Embedder]:
        """The model sessions, for callers that build again (`mkdocs serve`)."""
        return dict(self._embedders)

    def _choose_embedders(self, locales: set[str]) -> None:
        """Load the models the options name (for `auto`: per locale, see `choose_models`)."""
        threads = self.options.threads or os.cpu_count() or 1
        chosen = choose_models(self.options.model, locales)
        for locale, name in chosen.items():
            info = locate(name)
            if info.sha256 not in self._embedders:
                self._embedders[info.sha256] = build_embedder(info, threads)
            self._by_locale[locale] = self._embedders[info.sha256]
        if self.options.model == AUTO:
            self.log.info(
                "model auto: %s", ", ".join(f"{loc} → {name}" for loc, name in sorted(chosen.items()))
            )
        dims = {e.info.dim for e in self._by_locale.values()}
        if len(dims) > 1:
            raise BuildError(f"the models chosen per locale have different dimensions {sorted(dims)}")

    def add(self, raw: RawPage) -> ExtractedPage | None:
        """Extract one page; excluded pages are counted and dropped."""
        where = raw.path or raw.url
        options = self.options
        try:
            html = raw.read()
            key = extract_key(html, raw.url, raw.meta, options.site_url, options.default_locale)
            page = _from_cache(self._cache.get(key))
            self.report.read += 1
            if page is None:
                self.report.parsed += 1
                locale = options.default_locale
                page = extract(html, raw.url, site_url=options.site_url, default_locale=locale, meta=raw.meta)
                self._cache.put(key, (_spilled(page), page.exclude, list(page.warnings)))
        except Exception as exc:  # a broken page must not sink the whole build
            self._warn(f"{where}: skipped, could not be parsed ({exc})")
            return None
        if page.exclude:  # (how it would have been read does not matter)
            self.report.excluded += 1
            self._excluded.add(page.url)
            self._paths.pop(self._pages.pop(page.url, -1), None)
            return None
        for message in page.warnings:
            self._page_warning(where, message)
        if len(page.content) > MAX_CONTENT_CHARS:
            self._warn(
                f"{where}: {len(page.content):,} characters of text; indexed the first {MAX_CONTENT_CHARS:,}"
            )
            page.content = page.content[:MAX_CONTENT_CHARS]
            page.blocks = [b for b in page.blocks if b.end <= MAX_CONTENT_CHARS]
        if not page.content.strip() or len(page.blocks) <= 1 and not page.faqs:
            self._warn(f"{where}: no main content to index")
        slot = self._pages.get(page.url)
        if slot is not None and self._flags[slot] & _CANONICAL and raw.url != page.url:
            return page  # the canonical page itself wins over its duplicates
        flags = (
            (_CANONICAL if raw.url == page.url else 0)
            | (_RESTRICTED if page.groups else 0)
            | (_KIND_PAGE if page.kind == "page" else 0)
            | (_CHANGELOG_PAGE if is_changelog(page.title, page.headings, page.url, page.content) else 0)
            | (_SUPPORT if is_support_page(page.url, page.title) else 0)
            | (_LINK_INDEX if link_index(page) else 0)
        )
        if page.locale not in self._locales:
            self._locales.append(page.locale)
        values = (
            self._records.append(_spilled(page)),
            self._listings.add(page),
            flags,
            self._locales.index(page.locale),
        )
        known = self._chunked.get(page.url)
        if known is None or known[0] != page.content_hash:  # (its kind and date are not final)
            self._suspects.add(page.url)
        else:
            self._suspects.discard(page.url)
        key = document_key(page)
        if slot is None:
            slot = self._pages[page.url] = len(self._at)
            columns = (self._at, self._number, self._flags, self._locale)
            for column, value in zip(columns, values, strict=True):
                column.append(value)
            self._keys += key
        else:  # read again: the last one counts
            self._at[slot], self._number[slot], self._flags[slot], self._locale[slot] = values
            self._keys[slot * KEY_BYTES : (slot + 1) * KEY_BYTES] = key
        if page.groups:
            self._paths[slot] = raw.path
        else:
            self._paths.pop(slot, None)
        return page

    def remember_previous(self) -> None:
        """Keep the vectors of the last build (read before the site dir is cleaned)."""
        sources = (
            [self.options.previous]
            if self.options.previous
            else [str(self.options.shard_dir), str(self.options.resolved_private_dir)]
        )
        for source in sources:
            try:
                shard_set = load_shards(materialize(source))
            except ShardError as exc:
                if self.options.previous:
                    raise BuildError(f"--previous {source}: {exc}") from exc
                continue
            # Keys include the model's sha256: vectors of another model never match.
            for i, chunk in enumerate(shard_set.chunks):
                self._reuse[chunk.hash] = (np.array(shard_set.vectors[i]), float(shard_set.scales[i]))
            self._remember_spans(shard_set)

    def _remember_spans(self, shard_set: ShardSet) -> None:
        """Each page's chunk spans, for pages that come back unchanged: the same content hash
        (text, structure, date, kind), chunked with the same settings and chunker
        (`ChunkSettings.describe`) and the same model's tokenizer."""
        manifest = shard_set.manifest
        if manifest.embeddings.get("chunking") != self.options.chunks.describe():
            return
        spans: dict[int, list[tuple]] = {}
        for chunk in shard_set.chunks:
            if chunk.kind == "section":
                # Its lastmod is the section's date, else the page's: the page's is in the hash.
                span = (chunk.start, chunk.end, chunk.anchor, chunk.headings, chunk.lastmod, 0)
                spans.setdefault(chunk.page, []).append(span)
        for index, page in enumerate(shard_set.pages):
            model = manifest.model_for(page.locale).get("sha256", "")
            self._chunked[page.url] = (page.content_hash, model, spans.get(index, []))

    # -- output ------------------------------------------------------------
    def build(self) -> BuildReport:
        try:
            return self._build()
        finally:
            for embedder in self._by_locale.values():
                embedder.wait_loaded()
            self._cache.discard()  # (after `save`, nothing is left to drop)
            self._term_cache.discard()
            self._records.close()
            self._listings.close()
            self._cleanup()

    def _build(self) -> BuildReport:
        started = time.perf_counter()
        site = self._site()
        if not site.kept.any():
            raise BuildError(
                f"no indexable pages found in {self.options.site_dir} "
                f"({self.report.excluded} excluded); is this the built site folder?"
            )
        self._choose_embedders({self._locales[i] for i in np.unique(site.locale[site.kept]).tolist()})
        self._load_models_early(site)
        public = np.flatnonzero(site.kept & (site.flags & _RESTRICTED == 0))
        restricted = np.flatnonzero(site.kept & (site.flags & _RESTRICTED != 0))
        private_dir = self.options.resolved_private_dir
        if len(restricted):
            privacy.check_private_dir(private_dir, self.options.site_dir)
        dim = next(iter(self._by_locale.values())).info.dim
        todo = _Todo(self._spill)
        sets = {"public": SetWriter("public", self._spill, dim, self._term_cache)}
        restricted_urls = [site.urls[i] for i in restricted.tolist()]
        llms = None
        if self.options.llms_txt:  # written from the same page text as the shards
            options = self.options
            llms = LlmsFiles(
                options.site_dir,
                options.site_url,
                options.default_locale,
                _PublicUrls(self._pages, site.duplicates, self._flags),
                self._excluded | set(restricted_urls),
                self.log,
                aliases=site.duplicates,
            )
        self._write_pages(site, public, sets["public"], todo, llms)
        if len(restricted):
            sets["private"] = SetWriter("private", self._spill, dim, self._term_cache)
            self._write_pages(site, restricted, sets["private"], todo, None)
        self._embed(sets, todo)
        default, urls = self.options.default_locale, site.urls
        support = [i for i in public.tolist() if site.flags[i] & _SUPPORT]
        # the default locale's first, then the shortest path
        support.sort(key=lambda i: (self._locales[site.locale[i]] != default, len(urls[i]), urls[i]))
        support_url = self.options.support_url or (urls[support[0]] if support else None)
        if support_url is None:
            self._warn(
                "no support page (no page whose path or title says contact or support): the manifest "
                "records none, so escalations say that no support page is configured. Add such a "
                "page or set support_url (`askdocs build --support-url`, or ASKDOCS_SUPPORT_URL "
                "when serving)."
            )
        self._publish(self.options.shard_dir, sets["public"], support_url)
        if len(restricted):
            privacy.check_owner(private_dir, self.owner)
            self._publish(private_dir, sets["private"], None)
        else:
            privacy.remove_stale_private_set(private_dir, self.owner, self.log)
        privacy.protect(
            site_dir=self.options.site_dir,
            site_url=self.options.site_url,
            restricted=[(url, self._paths.get(self._pages[url])) for url in restricted_urls],
            private_dir=private_dir,
            keep_html=self.options.keep_restricted_html,
            log=self.log,
        )
        if llms is not None:  # after `protect`: llms.txt takes the site's name from the home page
            llms.close()
        report = self.report
        report.pages = int(site.kept.sum())
        report.chunks = sum(s.chunks for s in sets.values())
        report.faq = sum(s.faqs for s in sets.values())
        report.locales = sorted({self._locales[i] for i in site.locale[site.kept].tolist()})
        report.restricted = len(restricted)
        self._cache.save()
        self._term_cache.save()
        report.seconds = time.perf_counter() - started
        self._repeated_warnings()
        self.log.info(report.summary())
        return report

    def _site(self) -> _Site:
        """The whole-site decisions, from what was kept of each page."""
        urls = sorted(self._pages)
        slots = np.fromiter((self._pages[u] for u in urls), dtype=np.int64, count=len(urls))
        keys = np.frombuffer(self._keys, dtype=np.uint8).reshape(-1, KEY_BYTES)[slots]
        duplicates = duplicate_urls(urls, keys, self.log)
        del keys
        kept = np.array([url not in duplicates for url in urls], dtype=bool)
        flags = np.frombuffer(self._flags, dtype=np.uint8)[slots]
        numbers = np.frombuffer(self._number, dtype=np.int32)[slots]
        live = np.zeros(len(self._listings), dtype=bool)
        live[numbers[kept]] = True
        candidate = np.zeros(len(self._listings), dtype=bool)
        candidate[numbers] = (flags & _KIND_PAGE != 0) & (flags & _LINK_INDEX == 0)
        position = np.full(len(self._listings), -1, dtype=np.int64)  # page number → URL order
        position[numbers[kept]] = np.flatnonzero(kept)

        def quotes(number: int, sources: np.ndarray) -> int:
            """How many of the pages numbered `sources` the page numbered `number` links to."""
            page = _unspilled(self._records.read(self._at[int(slots[position[number]])]))
            linked = {link.split("#")[0] for link in page.links}
            return sum(urls[at] in linked for at in position[sources].tolist())

        listing = self._listings.find(live, candidate, quotes)[numbers] | (flags & _LINK_INDEX != 0)
        return _Site(
            urls=urls,
            slots=slots,
            kept=kept,
            flags=flags,
            locale=np.frombuffer(self._locale, dtype=np.uint16)[slots],
            listing=listing,
            duplicates=duplicates,
            dates=page_dates(self.options.site_dir, self.options.site_url),
        )

    def _load_models_early(self, site: _Site) -> None:
        """Start loading the model of each locale with a page to chunk anew, while the pages
        are written: the check `_spans` makes, on the pages whose hash differed when read."""
        if not self._suspects:
            return
        waiting = set(self._by_locale)
        for position, url in enumerate(site.urls):
            if url not in self._suspects or not site.kept[position]:
                continue
            page = self._page(site, position)
            if page.locale not in waiting:
                continue
            embedder = self._by_locale[page.locale]
            if self._known_spans(url, page.content_hash, embedder) is None:
                embedder.load_in_background()
                waiting.discard(page.locale)
                if not waiting:
                    return

    def _page(self, site: _Site, position: int) -> ExtractedPage:
        """The page at `position` (URL order) read back, with its kind and date as decided."""
        page = _unspilled(self._records.read(self._at[int(site.slots[position])]))
        if site.listing[position]:
            page.kind = "listing"
        elif site.flags[position] & _KIND_PAGE and site.flags[position] & _CHANGELOG_PAGE:
            # Changelogs mention every identifier ever touched; search weighs them apart.
            page.kind = "changelog"
        if page.lastmod is None and page.url in site.dates:
            page.lastmod = site.dates[page.url]
        return page

    @property
    def owner(self) -> str:
        return f"{self.options.site_url}|{self.options.site_dir.name}"

    def _warn(self, message: str) -> None:
        self.report.warnings += 1
        self.log.warning("%s", message)

    def _page_warning(self, where: str, message: str) -> None:
        """A page's own warning: the first few of each kind are logged, the rest counted (a
        generator without <main> gave one line per page, 767 lines for SQLite's docs) and named
        in one line when the build ends."""
        seen = self._repeated.setdefault(message, [0, ""])
        seen[0] += 1
        if seen[0] <= SHOWN_PER_WARNING:
            self._warn(f"{where}: {message}")
            return
        self.report.warnings += 1
        seen[1] = seen[1] or where

    def _repeated_warnings(self) -> None:
        for message, (count, example) in self._repeated.items():
            if count > SHOWN_PER_WARNING:
                more = count - SHOWN_PER_WARNING
                self.log.warning("%d pages: %s (%d not listed above, e.g. %s)", count, message, more, example)

    def _write_pages(
        self, site: _Site, positions: np.ndarray, out: SetWriter, todo: _Todo, llms: LlmsFiles | None
    ) -> None:
        """Each page's record, chunks and FAQ pairs, in URL order, one page in memory at a time
        (and for the public set, its Markdown twin and llms.txt entry)."""
        for position in positions.tolist():
            page = self._page(site, position)
            embedder = self.embedder(page.locale)
            sha = embedder.info.sha256
            record = _record(page)
            page_index = out.add_page(record)
            if llms is not None:
                llms.add(record)
            spans = self._spans(page, record, embedder)
            for span in spans:
                text = strip_links(page.content[span.start : span.end])
                embed_text = contextual_text(page.title, span.headings, text)
                chunk = ChunkRecord(
                    page=page_index,
                    start=span.start,
                    end=span.end,
                    anchor=span.anchor,
                    headings=span.headings,
                    lastmod=span.lastmod or page.lastmod,
                    kind="section",
                    hash=_chunk_hash(sha, embed_text),
                )
                row = out.add_chunk(chunk, record, embed_text, text)
                self._vector(out, row, chunk, embed_text, embedder, todo)
            anchors = {normalized(h.text): h.anchor for h in page.headings}
            for question, answer in page.faqs:
                anchor = anchors.get(normalized(question), "")
                text = f"{question}\n\n{answer}"
                embed_text = contextual_text(page.title, [question], answer)
                out.add_faq(FaqRecord(page_index, question, answer, anchor))
                chunk = ChunkRecord(
                    page=page_index,
                    start=0,
                    end=0,
                    anchor=anchor,
                    headings=[question],
                    lastmod=page.lastmod,
                    kind="faq",
                    hash=_chunk_hash(sha, embed_text),
                    text=text,
                )
                row = out.add_chunk(chunk, record, embed_text, strip_links(text))
                self._vector(out, row, chunk, embed_text, embedder, todo)
        out.finish()

    def _spans(self, page: ExtractedPage, record: PageRecord, embedder: Embedder) -> list[Span]:
        """The page's chunks: the last build's if the page is unchanged, else chunked anew."""
        known = self._known_spans(page.url, record.content_hash, embedder)
        if known is not None:
            return [Span(*fields) for fields in known]
        self.report.chunked += 1
        return chunk_page(
            page.blocks,
            page.content,
            embedder.count_tokens,
            self.options.chunks,
            embedder.info.max_tokens - 32,
        )

    def _known_spans(self, url: str, content_hash: str, embedder: Embedder) -> list[tuple] | None:
        """The last build's chunk spans of the page, if its content hash and model are the same."""
        known = self._chunked.get(url)
        if known is not None and known[:2] == (content_hash, embedder.info.sha256):
            return known[2]
        return None

    def _vector(
        self, out: SetWriter, row: int, chunk: ChunkRecord, text: str, embedder: Embedder, todo: _Todo
    ) -> None:
        """The chunk's vector from the last build, else its text goes to the queue to embed."""
        reused = self._reuse.get(chunk.hash)  # the hash names the model: another's never match
        if reused is not None:
            out.vectors.put(row, *reused)
            self.report.reused += 1
        else:
            todo.add(out.visibility, row, text, embedder)

    def _embed(self, sets: dict[str, SetWriter], todo: _Todo) -> None:
        if todo.count:
            with _progress(todo.count, self.options.progress) as tick:
                for embedder, texts in todo.groups():  # each model's texts in one pool
                    workers, where = self._workers(len(texts))
                    self.log.info("embedding %d texts with %s %s", len(texts), embedder.info.id, where)
                    vectors = embed_texts(embedder.info, texts, workers, tick, embedder=embedder)
                    for at, vector, scale in vectors:
                        name, row = texts.target(at)
                        sets[name].vectors.put(row, vector, scale)
            self.report.embedded += todo.count
        todo.close()
        for out in sets.values():
            out.write_vectors()

    def _workers(self, texts: int) -> tuple[int, str]:
        """How many processes embed `texts` texts of one model, and the log's words for it."""
        if not self._own_embedders:
            return 1, "in this process (the model session kept between builds)"
        threads = self.options.threads
        budget = f"threads {threads}" if threads else f"threads 0: all {os.cpu_count() or 1} cores"
        workers = workers_for(texts, threads)
        if workers > 1:
            return workers, f"in {workers} worker processes ({budget})"
        if (threads or os.cpu_count() or 1) <= 1:
            return 1, f"in this process ({budget})"
        return 1, f"in this process (fewer than {2 * MIN_TEXTS_PER_WORKER} texts; {budget})"

    def _publish(self, folder: Path, data: SetWriter, support_url: str | None) -> None:
        writer, visibility, locales = data.writer, data.visibility, data.locales
        if visibility == "public":
            for locale in locales:
                suggestions = self._suggestions(data, locale)
                if suggestions["questions"]:
                    writer.add("suggestions", json_bytes(suggestions), "json", locale=locale)
            for locale in sorted(set(self.options.suggested_questions) - set(locales)):
                self._warn(f"suggested_questions.{locale}: the site has no public pages in locale {locale}")
        if visibility == "public" and self.options.copy_widget:
            _add_widget_files(writer, locales)
        default = self.options.default_locale
        info = (self._by_locale.get(default) or self._by_locale[min(self._by_locale)]).info
        bundled: dict[str, str] = {}
        if self.options.bundle_model:  # the default locale's model in model/, any other beside it
            others = sorted(
                {e.info.id: e.info for e in self._by_locale.values() if e.info is not info}.items()
            )
            for prefix, model in [("model/", info)] + [(f"model-{m.sha256[:12]}/", m) for _, m in others]:
                for name in ("model.onnx", "tokenizer.json", "askdocs-model.json"):
                    writer.add_file("model", prefix + name, (model.path / name).read_bytes())
                bundled[model.sha256] = prefix
        manifest = Manifest(
            format=FORMAT_NAME,
            format_version=FORMAT_VERSION,
            askdocs_version=__version__,
            visibility=visibility,
            built_at=build_time(),
            site_url=self.options.site_url,
            default_locale=self.options.default_locale,
            locales=locales,
            model=_model_json(info, bundled),
            locale_models={loc: _model_json(e.info, bundled) for loc, e in sorted(self._by_locale.items())},
            embeddings={
                "dim": info.dim,
                "dtype": "int8",
                "quantization": "symmetric-per-vector",
                "chunking": self.options.chunks.describe(),
            },
            counts={"pages": data.pages, "chunks": data.chunks, "faq": data.faqs},
            files=sorted(writer.entries, key=lambda f: f.path),
            support_url=support_url,
            owner=self.owner if visibility == "private" else None,
        )
        _check_target(folder)
        writer.publish(folder, manifest)

    def _suggestions(self, data: SetWriter, locale: str) -> dict:
        """The widget's suggested questions: configured ones, else this set's FAQ questions.

        Only ever called for the public set, so restricted FAQ questions never reach it."""
        configured = self.options.suggested_questions.get(locale)
        if configured:
            return {"locale": locale, "source": "config", "questions": configured}
        return {"locale": locale, "source": "faq", "questions": data.questions(locale)}


@dataclass
class _Site:
    """The pages in URL order, and what was decided of them across the whole site."""

    urls: list[str]
    slots: np.ndarray  # each page's slot in the builder's arrays
    kept: np.ndarray  # not a duplicate of another page
    flags: np.ndarray
    locale: np.ndarray
    listing: np.ndarray
    duplicates: dict[str, str]  # URL → the URL it is indexed as
    dates: dict[str, str]  # sitemap dates


class _PublicUrls:
    """Whether a URL is one of the site's public pages (what llms.txt may link to)."""

    def __init__(self, pages: dict[str, int], duplicates: dict[str, str], flags: array) -> None:
        self._pages, self._duplicates, self._flags = pages, duplicates, flags

    def __contains__(self, url: object) -> bool:
        slot = self._pages.get(url) if isinstance(url, str) else None
        return slot is not None and url not in self._duplicates and not self._flags[slot] & _RESTRICTED


class _Todo:
    """The texts to embed, on disk, with where each vector goes; grouped by model."""

    def __init__(self, folder: Path) -> None:
        self._texts = RecordFile(folder / "texts")
        self._groups: dict[str, tuple[Embedder, array, array]] = {}  # model sha256 → (model, where, at)
        self.count = 0

    def add(self, name: str, row: int, text: str, embedder: Embedder) -> None:
        texts = self._groups.get(embedder.info.sha256)
        if texts is None:
            texts = self._groups[embedder.info.sha256] = _Texts(self._texts, embedder)
        texts.add(name, row, self._texts.append(text))
        self.count += 1

    def groups(self) -> Iterator[tuple[Embedder, _Texts]]:
        """Each model's texts, models in the order they were first needed."""
        for texts in self._groups.values():
            yield texts.embedder, texts

    def close(self) -> None:
        self._texts.close()


class _Texts(Sequence[str]):
    """One model's texts to embed, read from the record file when asked for (`embed_texts`
    slices them a batch at a time), and the (set, row) each one's vector goes to."""

    def __init__(self, records: RecordFile, embedder: Embedder) -> None:
        self._records, self.embedder = records, embedder
        self._at, self._where = array("q"), array("q")  # where the text is; set and row

    def add(self, name: str, row: int, at: int) -> None:
        self._at.append(at)
        self._where.append(row * 2 + (name == "private"))

    def target(self, index: int) -> tuple[str, int]:
        where = self._where[index]
        return ("private" if where & 1 else "public"), where >> 1

    def __len__(self) -> int:
        return len(self._at)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._records.read(at) for at in self._at[index]]
        return self._records.read(self._at[index])


def _spilled(page: ExtractedPage) -> tuple:
    """What the build needs of an extracted page, as `marshal` writes it."""
    blocks = [(b.kind, b.text, b.level, b.anchor, b.lastmod, b.start, b.end) for b in page.blocks]
    headings = [(h.level, h.text, h.anchor) for h in page.headings]
    return (page.url, page.title, page.locale, page.groups, page.lastmod, page.kind, page.description,
            page.content, blocks, headings, page.links, page.faqs)  # fmt: skip


def _from_cache(found: tuple | None) -> ExtractedPage | None:
    """The page a previous build extracted from the very same input (None: extract it)."""
    if found is None:
        return None
    try:
        spilled, exclude, warnings = found
        page = _unspilled(spilled)
    except (TypeError, ValueError):  # another shape: extract again
        return None
    page.exclude, page.warnings = bool(exclude), list(warnings)
    return page


def _unspilled(data: tuple) -> ExtractedPage:
    url, title, locale, groups, lastmod, kind, description, content, blocks, headings, links, faqs = data
    return ExtractedPage(
        url, title, locale, groups, False, lastmod, kind, description, content,
        [Block(*b) for b in blocks], [Heading(*h) for h in headings], links, faqs,
    )  # fmt: skip


def _record(page: ExtractedPage) -> PageRecord:
    return PageRecord(
        url=page.url,
        title=page.title,
        locale=page.locale,
        groups=page.groups,
        lastmod=page.lastmod,
        kind=page.kind,
        headings=page.headings,
        links=page.links,
        word_count=page.word_count,
        content_hash=page.content_hash,
        description=page.description,
        content=page.content,
    )


def _check_target(folder: Path) -> None:
    if folder.is_dir() and any(folder.iterdir()):
        try:
            peek_manifest(folder)  # an older format version is replaced like any earlier build
        except ShardError as exc:
            raise BuildError(
                f"{folder} is not empty and does not hold an askdocs shard set; refusing to "
                f"write shards there (choose another folder) [{exc}]"
            ) from exc


def _add_widget_files(writer: ShardWriter, locales: list[str]) -> None:
    from askdocs.widget import lunr_scripts, widget_js

    writer.add_file("widget", "widget.js", widget_js())
    for name, data in lunr_scripts(locales).items():
        writer.add_file("lunr_js", f"lunr/{name}", data)


def _model_json(info: ModelInfo, bundled: dict[str, str]) -> dict:
    return {
        "id": info.id,
        "sha256": info.sha256,
        "dim": info.dim,
        "quantization": info.quantization,
        "pooling": info.pooling,
        "normalize": info.normalize,
        "max_tokens": info.max_tokens,
        "query_prefix": info.query_prefix,
        "passage_prefix": info.passage_prefix,
        "bundled": bundled.get(info.sha256),
    }


def _chunk_hash(model_sha: str, text: str) -> str:
    return hashlib.sha256(f"{model_sha}\0{text}".encode()).hexdigest()[:20]


_CHANGELOG = re.compile(
    r"\b(change ?log|changes|release notes?|what['’]?s new|new and noteworthy|"
    r"noteworthy in (?:version |release )?v?\d|history of changes|novedades|"
    r"notas de (la )?versi[oó]n|historial de cambios|registro de cambios)\b",
    re.I,
)
# A release's heading: a short one that names a version ("Version 1.1.4 (2017-12-31)", "0.28.0",
# "2.5.0b1 - 2024-03-01").
_RELEASE_HEADING = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?\b", re.I)
RELEASE_HEADINGS = 5  # ... this many, at least half of the page's section headings: a changelog
# The number a numbered manual writes before a section's title (Sphinx's `:numbered:` toctree:
# "2.3.1. Embedded documents"): not a release. MongoEngine's guide pages were read as changelogs.
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.\s+(?=[^\W\d_])")
# ... and texinfo's, without the last dot ("3.1.2 The Autoconf Language"): a number is a section's
# when the page also numbers the section it is in ("3.1"), as Autoconf's and Bash's one-page
# manuals do. Autoconf's 227 such headings made its manual a changelog, every answer from it
# weighed as release notes.
_NUMBERED_TITLE = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s+(?=[^\W\d_])")


def _section_title(text: str, numbered: set[str]) -> str:
    """A heading's text without the section number it opens with (`_SECTION_NUMBER`, or a
    texinfo number whose parent section the page numbers too)."""
    text = _SECTION_NUMBER.sub("", text)
    found = _NUMBERED_TITLE.match(text)
    if found and "." in found.group(1) and found.group(1).rpartition(".")[0] in numbered:
        return text[found.end() :]
    return text


# A folder of release notes, one page per release: Tornado's "/releases/v6.0.0.html" ("What's new
# in Tornado 6.0", whose sections are its modules), pytest's "/announce/release-2.9.0.html".
_RELEASE_FOLDER = re.compile(
    r"/(?:releases?|release[-_]?notes|change[-_]?logs?|changes|news|history|announce(?:ments)?)/", re.I
)


def is_changelog(title: str, headings, url: str = "", content: str = "") -> bool:
    """A page of release notes: titled so ("Changelog", "Release notes", "Novedades"), unless its
    sections say otherwise (three or more, none a release: "Minimum Required Changes" is a
    migration guide) and its title names no version ("Major changes in 5.0" is one release's
    notes); or, whatever its title, its sections are releases (BorgBackup's "Important
    notes", Cookiecutter's "History"), or, on a page with fewer sections than that takes, the bold
    lines that stand for sections are (Cheetah's "News", no heading but its title: a definition
    list of "2.4.2 (February 8th, 2010)", each over its changes); or one release's page in a
    folder of release notes (its name or title names the version)."""
    name = url.rstrip("/").rpartition("/")[2]
    if _RELEASE_FOLDER.search(url) and (_RELEASE_HEADING.search(name) or _RELEASE_HEADING.search(title)):
        return True
    # The page's sections: its headings after its title. A page whose title is its only `h1` has
    # them below; docutils' rst2html writes each top section as an `h1` of its own (lxml's
    # changelog: "lxml changelog", then "4.9.2 (2022-12-13)" and the other releases, each an `h1`).
    numbered = {m.group(1) for h in headings if (m := _NUMBERED_TITLE.match(h.text))}
    sections = [_section_title(h.text, numbered) for at, h in enumerate(headings) if h.level >= 2 or at > 0]
    releases = sum(1 for text in sections if len(text.split()) <= 6 and _RELEASE_HEADING.search(text))
    if _CHANGELOG.search(title):
        # One release's notes name it in the title ("Major changes in 5.0", "What's new in 3.2").
        return releases > 0 or len(sections) < 3 or bool(_RELEASE_HEADING.search(title))
    if len(sections) < RELEASE_HEADINGS:
        sections = _BOLD_LINE.findall(content)
        releases = sum(1 for text in sections if _BOLD_RELEASE.match(text))
    return releases >= RELEASE_HEADINGS and releases * 2 >= len(sections)


# A paragraph that is one bold line: what a definition list's term, or a page without headings,
# sets as a section's title ...
_BOLD_LINE = re.compile(r"^\*\*([^*\n]{1,200})\*\*$", re.M)
# ... and one that is a release: a version first, then nothing, its date in parentheses or after a
# dash ("2.4.2 (February 8th, 2010)", "v1.0 - 2020-01-01"); not "Python 3.10 and above" over a tab
# of code, nor "Figure 13.1. The GNOME desktop".
_BOLD_RELEASE = re.compile(
    r"(?:v|version\s+|release\s+)?\d+\.\d+(?:\.\d+)*(?:[a-z]+\d*)?(?:\s*$|\s+\(|\s+[-–—]\s|:)", re.I
)


class _progress:
    """A tqdm bar when asked for (stderr), a no-op otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.bar = total, enabled, None

    def __enter__(self) -> Callable[[int], None]:
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total, desc="embedding", unit="text", leave=False, dynamic_ncols=True, disable=None
            )
            return self.bar.update
        return lambda n: None

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
