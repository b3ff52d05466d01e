"""Plain page records in, shard sets out. Knows nothing of MkDocs or Pelican."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import time
from array import array
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from askdocs.plugin import privacy
from askdocs.plugin.chunking import ChunkSettings, chunk_page
from askdocs.plugin.duplicates import duplicate_urls
from askdocs.plugin.embedpool import MIN_TEXTS_PER_WORKER, embed_texts, workers_for
from askdocs.plugin.extract import ExtractedPage, extract, link_share, strip_links
from askdocs.plugin.llmstxt import write_llms_files
from askdocs.plugin.sitemaps import page_dates

from askdocs import __version__
from askdocs.embedder import Embedder
from askdocs.errors import BuildError, ShardError
from askdocs.lexical import LexicalDoc, bm25_postings, contextual_text, index_json
from askdocs.models import AUTO, ModelInfo, choose_models, locate
from askdocs.remote import materialize
from askdocs.shards import (
    FORMAT_NAME,
    FORMAT_VERSION,
    SHARD_DIR,
    ChunkRecord,
    FaqRecord,
    Manifest,
    PageRecord,
    ShardWriter,
    build_time,
    chunk_text,
    json_bytes,
    load_shards,
    peek_manifest,
)

log = logging.getLogger("askdocs.build")

MAX_CONTENT_CHARS = 2_000_000
MAX_SUGGESTED = 4  # FAQ questions offered by default, per locale
MAX_SUGGESTED_CONFIGURED = 10
MAX_QUESTION_CHARS = 300
_LOCALE = re.compile(r"^[a-z]{2,3}$")
_SUPPORT = re.compile(r"\b(contact|support|soporte|contacto|help-?desk)\b", re.I)


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
    seconds: float = 0.0
    warnings: int = 0

    def summary(self) -> str:
        return (
            f"indexed {self.pages} pages, {self.chunks} chunks, {self.faq} FAQ pairs, "
            f"locales {','.join(self.locales) or '-'}, {self.restricted} restricted, "
            f"{self.excluded} excluded, vectors reused {self.reused}/{self.reused + self.embedded}, "
            f"{self.warnings} warnings, {self.seconds:.1f}s"
        )


@dataclass
class _Prepared:
    page: ExtractedPage
    raw: RawPage


@dataclass
class _SetData:
    pages: list[PageRecord]
    chunks: list[ChunkRecord]
    faqs: list[FaqRecord]
    embed_texts: list[str]  # contextual chunk texts: embedded, and indexed for BM25


class IndexBuilder:
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
        self._pages: dict[str, _Prepared] = {}
        self._reuse: dict[str, tuple[np.ndarray, float]] = {}
        self._excluded: set[str] = set()
        self.report = BuildReport()

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
                self._embedders[info.sha256] = Embedder(info, threads=threads, reuse_check=True)
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
        try:
            page = extract(
                raw.read(),
                raw.url,
                site_url=self.options.site_url,
                default_locale=self.options.default_locale,
                meta=raw.meta,
            )
        except Exception as exc:  # a broken page must not sink the whole build
            self._warn(f"{where}: skipped, could not be parsed ({exc})")
            return None
        for message in page.warnings:
            self._warn(f"{where}: {message}")
        if page.exclude:
            self.report.excluded += 1
            self._excluded.add(page.url)
            self._pages.pop(page.url, None)
            return None
        if len(page.content) > MAX_CONTENT_CHARS:
            self._warn(
                f"{where}: {len(page.content):,} characters of text; indexed the first {MAX_CONTENT_CHARS:,}"
            )
            page.content = page.content[:MAX_CONTENT_CHARS]
            page.blocks = [b for b in page.blocks if b.end <= MAX_CONTENT_CHARS]
        if not page.content.strip() or len(page.blocks) <= 1 and not page.faqs:
            self._warn(f"{where}: no main content to index")
        existing = self._pages.get(page.url)
        if existing is not None and existing.raw.url == page.url and raw.url != page.url:
            return page  # the canonical page itself wins over its duplicates
        # Only what the rest of the build needs: the HTML itself is not kept for every page.
        self._pages[page.url] = _Prepared(page, RawPage(raw.url, None, raw.meta, raw.path))
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

    # -- output ------------------------------------------------------------
    def build(self) -> BuildReport:
        started = time.perf_counter()
        prepared = [self._pages[url] for url in sorted(self._pages)]
        duplicates = duplicate_urls([p.page for p in prepared], self.log)
        prepared = [p for p in prepared if p.page.url not in duplicates]
        if not prepared:
            raise BuildError(
                f"no indexable pages found in {self.options.site_dir} "
                f"({self.report.excluded} excluded); is this the built site folder?"
            )
        self._choose_embedders({p.page.locale for p in prepared})
        _mark_listings([p.page for p in prepared])
        _mark_changelogs([p.page for p in prepared])
        dates = page_dates(self.options.site_dir, self.options.site_url)
        for item in prepared:
            if item.page.lastmod is None and item.page.url in dates:
                item.page.lastmod = dates[item.page.url]
        public = [p for p in prepared if not p.page.groups]
        restricted = [p for p in prepared if p.page.groups]
        private_dir = self.options.resolved_private_dir
        if restricted:
            privacy.check_private_dir(private_dir, self.options.site_dir)
        sets = {"public": self._set_data(public), "private": self._set_data(restricted)}
        for item in prepared:  # chunked: the blocks (a second copy of each page's text) are done with
            item.page.blocks = []
        vectors = self._embed(sets)
        support = [p.page for p in public if _SUPPORT.search(p.page.url + " " + p.page.title)]
        support.sort(key=lambda p: (p.locale != self.options.default_locale, len(p.url), p.url))
        support_url = self.options.support_url or (support[0].url if support else None)
        if support_url is None:
            self._warn(
                "no support page (no page whose path or title says contact or support): the manifest "
                "records none, so escalations say that no support page is configured. Add such a "
                "page or set support_url (`askdocs build --support-url`, or ASKDOCS_SUPPORT_URL "
                "when serving)."
            )
        self._write(self.options.shard_dir, "public", sets["public"], vectors["public"], support_url)
        if restricted:
            privacy.check_owner(private_dir, self.owner)
            self._write(private_dir, "private", sets["private"], vectors["private"], None)
        else:
            privacy.remove_stale_private_set(private_dir, self.owner, self.log)
        privacy.protect(
            site_dir=self.options.site_dir,
            site_url=self.options.site_url,
            restricted=[(p.page.url, p.raw.path) for p in restricted],
            private_dir=private_dir,
            keep_html=self.options.keep_restricted_html,
            log=self.log,
        )
        if self.options.llms_txt:
            hidden = self._excluded | {p.page.url for p in restricted}
            site = self.options
            write_llms_files(
                site.site_dir,
                site.site_url,
                site.default_locale,
                sets["public"].pages,
                hidden,
                self.log,
                aliases=duplicates,
            )
        report = self.report
        report.pages = len(prepared)
        report.chunks = sum(len(s.chunks) for s in sets.values())
        report.faq = sum(len(s.faqs) for s in sets.values())
        report.locales = sorted({p.page.locale for p in prepared})
        report.restricted = len(restricted)
        report.seconds = time.perf_counter() - started
        self.log.info(report.summary())
        return report

    @property
    def owner(self) -> str:
        return f"{self.options.site_url}|{self.options.site_dir.name}"

    def _warn(self, message: str) -> None:
        self.report.warnings += 1
        self.log.warning("%s", message)

    def _set_data(self, prepared: list[_Prepared]) -> _SetData:
        data = _SetData([], [], [], [])
        for page_index, item in enumerate(prepared):
            page = item.page
            embedder = self.embedder(page.locale)
            sha = embedder.info.sha256
            data.pages.append(
                PageRecord(
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
            )
            spans = chunk_page(
                page.blocks,
                page.content,
                embedder.count_tokens,
                self.options.chunks,
                embedder.info.max_tokens - 32,
            )
            for span in spans:
                text = strip_links(page.content[span.start : span.end])
                embed_text = contextual_text(page.title, span.headings, text)
                data.chunks.append(
                    ChunkRecord(
                        page=page_index,
                        start=span.start,
                        end=span.end,
                        anchor=span.anchor,
                        headings=span.headings,
                        lastmod=span.lastmod or page.lastmod,
                        kind="section",
                        hash=_chunk_hash(sha, embed_text),
                    )
                )
                data.embed_texts.append(embed_text)
            anchors = {_norm(h.text): h.anchor for h in page.headings}
            for question, answer in page.faqs:
                anchor = anchors.get(_norm(question), "")
                text = f"{question}\n\n{answer}"
                embed_text = contextual_text(page.title, [question], answer)
                data.faqs.append(FaqRecord(page_index, question, answer, anchor))
                data.chunks.append(
                    ChunkRecord(
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
                )
                data.embed_texts.append(embed_text)
        return data

    def _embed(self, sets: dict[str, _SetData]) -> dict[str, tuple[np.ndarray, ...]]:
        jobs: list[tuple[str, int, str, Embedder]] = []  # (set, row, text, model)
        for name, data in sets.items():
            for row, (chunk, text) in enumerate(zip(data.chunks, data.embed_texts, strict=True)):
                jobs.append((name, row, text, self.embedder(data.pages[chunk.page].locale)))
        dim = next(iter(self._by_locale.values())).info.dim
        out = {
            name: (np.zeros((len(d.embed_texts), dim), np.int8), np.ones(len(d.embed_texts), np.float32))
            for name, d in sets.items()
        }
        todo = []
        for job in jobs:
            name, row, text, embedder = job
            key = _chunk_hash(embedder.info.sha256, text)
            if key in self._reuse:
                vector, scale = self._reuse[key]
                out[name][0][row], out[name][1][row] = vector, scale
                self.report.reused += 1
            else:
                todo.append(job)
        if todo:
            groups: dict[str, list[int]] = {}  # by model: each model's texts in one pool
            for position, job in enumerate(todo):
                groups.setdefault(job[3].info.sha256, []).append(position)
            with _progress(len(todo), self.options.progress) as tick:
                for positions in groups.values():
                    embedder = todo[positions[0]][3]
                    workers, where = self._workers(len(positions))
                    self.log.info("embedding %d texts with %s %s", len(positions), embedder.info.id, where)
                    texts = [todo[i][2] for i in positions]
                    for at, vector, scale in embed_texts(
                        embedder.info, texts, workers, tick, embedder=embedder
                    ):
                        name, row, _, _ = todo[positions[at]]
                        out[name][0][row], out[name][1][row] = vector, scale
            self.report.embedded += len(todo)
        return out

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

    def _write(
        self,
        folder: Path,
        visibility: str,
        data: _SetData,
        arrays: tuple[np.ndarray, ...],
        support_url: str | None,
    ) -> None:
        vectors, scales = arrays
        writer = ShardWriter()
        writer.add_json_parts("pages", (asdict(p) for p in data.pages))  # one record's copy at a time
        writer.add_json_parts("chunks", (asdict(c) for c in data.chunks))
        writer.add("faq", json_bytes([asdict(f) for f in data.faqs]), "json")
        writer.add("tree", json_bytes(_tree(data.pages)), "json")
        writer.add_vector_parts("vectors", len(vectors), vectors.shape[1], lambda a, b: vectors[a:b])
        writer.add("scales", _npy(scales), "npy")
        locales = sorted({p.locale for p in data.pages})
        for locale in locales:
            rows = [i for i, c in enumerate(data.chunks) if data.pages[c.page].locale == locale]
            docs = (  # one at a time: the chunk texts are not all copied out at once
                LexicalDoc(
                    str(i),
                    data.pages[data.chunks[i].page].title,
                    " ".join(data.chunks[i].headings),
                    strip_links(chunk_text(data.pages[data.chunks[i].page], data.chunks[i])),
                )
                for i in rows
            )
            writer.add("lunr", index_json(locale, docs), "json", locale=locale)  # for lunr.js
            # What the runtime searches with: BM25 over each chunk with its page title and heading path.
            postings = bm25_postings(locale, ((str(i), data.embed_texts[i]) for i in rows))
            writer.add("lexical", json_bytes(postings.meta_json()), "json", locale=locale)
            writer.add("postings", _npy(postings.table()), "npy", locale=locale)
            if visibility == "public":
                writer.add("search_docs", json_bytes(_search_docs(data, locale)), "json", locale=locale)
                suggestions = self._suggestions(data, locale)
                if suggestions["questions"]:
                    writer.add("suggestions", json_bytes(suggestions), "json", locale=locale)
        if visibility == "public":
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
            embeddings={"dim": info.dim, "dtype": "int8", "quantization": "symmetric-per-vector"},
            counts={"pages": len(data.pages), "chunks": len(data.chunks), "faq": len(data.faqs)},
            files=sorted(writer.entries, key=lambda f: f.path),
            support_url=support_url,
            owner=self.owner if visibility == "private" else None,
        )
        _check_target(folder)
        writer.publish(folder, manifest)

    def _suggestions(self, data: _SetData, locale: str) -> dict:
        """The widget's suggested questions: configured ones, else this set's FAQ questions.

        Only ever called for the public set, so restricted FAQ questions never reach it."""
        configured = self.options.suggested_questions.get(locale)
        if configured:
            return {"locale": locale, "source": "config", "questions": configured}
        questions: list[str] = []
        for faq in data.faqs:
            question = " ".join(faq.question.split())
            if data.pages[faq.page].locale == locale and question not in questions:
                questions.append(question)
        return {"locale": locale, "source": "faq", "questions": questions[:MAX_SUGGESTED]}


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


def _npy(array: np.ndarray) -> bytes:
    from askdocs.shards import npy_bytes

    return npy_bytes(array)


def _tree(pages: list[PageRecord]) -> dict:
    return {
        p.url: {
            "title": p.title,
            "locale": p.locale,
            "groups": p.groups,
            "visibility": "restricted" if p.groups else "public",
            "lastmod": p.lastmod,
            "kind": p.kind,
        }
        for p in pages
    }


def _search_docs(data: _SetData, locale: str) -> dict:
    index = {}
    pages = []
    for i, page in enumerate(data.pages):
        if page.locale == locale:
            index[i] = len(pages)
            pages.append([page.url, page.title])
    refs = {
        str(i): [index[c.page], c.anchor, c.headings[-1] if c.headings else ""]
        for i, c in enumerate(data.chunks)
        if c.page in index
    }
    return {"pages": pages, "refs": refs}


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


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


MIN_INDEX_CHARS = 300  # a page of links shorter than this is a small hub page, not an index
MAX_SOURCE_SHARE = 0.6  # of a listing's shared text, at most this much comes from any one page


def _mark_listings(pages: list[ExtractedPage]) -> None:
    """Pages whose prose is mostly copied from other pages they link to (tag pages, digests)
    are listings.

    A page's shingles are the hashes of its 8-word runs. A page is a listing when at least
    half of its shingles occur on other pages too, those come from at least two other
    pages, it links to at least two of them, and no one page supplies most of what it
    shares. A page that is mostly links (a generated index of names, a sitemap) is a
    listing too. The (shingle, page) pairs are kept in flat
    arrays (12 bytes each), not in a set of owners per shingle (which took ~20 kB per page of
    Python objects)."""
    grams, owners, totals = array("q"), array("i"), array("q")
    for page in pages:
        if page.kind == "page" and len(page.content) >= MIN_INDEX_CHARS and link_share(page.content) >= 0.6:
            page.kind = "listing"
    for index, page in enumerate(pages):
        found = _shingles(page)
        totals.append(len(found))
        grams.extend(found)
        owners.extend(array("i", [index]) * len(found))
    if not grams:
        return
    gram = np.frombuffer(grams, dtype=np.int64)
    order = np.argsort(gram, kind="stable")
    gram, owner = gram[order], np.frombuffer(owners, dtype=np.int32)[order]
    del order
    starts = np.flatnonzero(np.r_[True, gram[1:] != gram[:-1]])
    sizes = np.diff(np.r_[starts, len(gram)])  # how many pages have each shingle
    owners_of_pair = np.repeat(sizes, sizes)
    n = len(pages)
    shared = np.bincount(owner[owners_of_pair > 1], minlength=n)  # shingles also found elsewhere
    # At least two other pages: a shingle on three or more pages gives any of them two at once;
    # else count the distinct partners over the shingles found on exactly two pages.
    crowded = np.zeros(n, dtype=bool)
    crowded[owner[owners_of_pair >= 3]] = True
    first = starts[sizes == 2]
    a, b = owner[first].astype(np.int64), owner[first + 1].astype(np.int64)
    edges = np.unique(np.concatenate([a * n + b, b * n + a]))
    partners = np.bincount(edges // n, minlength=n)
    group_of = np.repeat(np.arange(len(starts)), sizes)  # which shingle each pair belongs to
    urls = [page.url for page in pages]
    for index, page in enumerate(pages):
        total = totals[index]
        if page.kind != "page" or total < 10:
            continue
        if shared[index] / total >= 0.5 and (crowded[index] or partners[index] >= 2):
            # A listing quotes excerpts of several pages and links to them (tag pages,
            # digests). Pages that share text without linking to its sources (the nginx and
            # Apache pages of one deployment guide) or that repeat mostly one other page (an API
            # page under two names, a guide and the reference it copies) are pages.
            mine = np.unique(group_of[(owner == index) & (owners_of_pair > 1)])
            others = owner[np.isin(group_of, mine) & (owner != index)]
            per_source = np.bincount(others, minlength=n)
            linked = {link.split("#")[0] for link in page.links}
            quoted = [o for o in np.flatnonzero(per_source) if urls[o] in linked]
            if len(quoted) >= 2 and per_source.max() <= MAX_SOURCE_SHARE * len(mine):
                page.kind = "listing"


def _shingles(page: ExtractedPage) -> set[int]:
    words = " ".join(b.text for b in page.blocks if b.kind in ("para", "list", "note"))
    tokens = _norm(words).split()
    return {hash(" ".join(tokens[i : i + 8])) for i in range(len(tokens) - 7)}


_CHANGELOG = re.compile(
    r"\b(change ?log|changes|release notes?|what'?s new|history of changes|novedades|"
    r"notas de (la )?versi[oó]n|historial de cambios|registro de cambios)\b",
    re.I,
)


def _mark_changelogs(pages: list[ExtractedPage]) -> None:
    """Changelogs mention every identifier ever touched; search weighs them apart."""
    for page in pages:
        if page.kind == "page" and _CHANGELOG.search(page.title):
            page.kind = "changelog"


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
