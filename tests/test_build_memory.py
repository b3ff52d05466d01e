"""What a build keeps in memory: the same decisions from leaner structures."""

from __future__ import annotations

import gc
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from askdocs.plugin import listings
from askdocs.plugin.extract import Block, ExtractedPage
from askdocs.plugin.listings import Listings, link_index, normalized

WORDS = str.split("queue worker retry timeout backoff schedule cron batch job token secret rotate deploy")


def _page(url: str, paras: list[str], kind: str = "page", links: list[str] | None = None) -> ExtractedPage:
    blocks = [Block("para", text) for text in paras]
    content = "\n\n".join(paras)
    return ExtractedPage(url, url, "en", [], False, None, kind, "", content, blocks, [], links or [], [])


def _reference(pages: list[ExtractedPage]) -> list[str]:
    """The listing rule with a set of owning URLs per shingle."""
    shingles: dict[str, set[int]] = {}
    openings: dict[str, int] = {}
    owners: dict[int, set[str]] = {}
    for page in pages:
        words = " ".join(b.text for b in page.blocks if b.kind in ("para", "list", "note"))
        tokens = normalized(words).split()
        runs = [hash(" ".join(tokens[i : i + 8])) for i in range(len(tokens) - 7)]
        grams = set(runs)
        shingles[page.url] = grams
        if runs:
            openings[page.url] = runs[0]
        for gram in grams:
            owners.setdefault(gram, set()).add(page.url)
    kinds = []
    for page in pages:
        grams = shingles[page.url]
        kind = page.kind
        if kind == "page" and len(grams) >= 10:
            shared = [g for g in grams if len(owners[g]) > 1]
            sources = {o for g in shared for o in owners[g]} - {page.url}
            opened = {o for o in sources if openings[o] in grams}
            linked = opened & {link.split("#")[0] for link in page.links}
            per_source = [sum(1 for g in shared if o in owners[g]) for o in sources]
            spread = max(per_source, default=0) <= 0.6 * len(shared)
            if len(shared) / len(grams) >= 0.5 and len(sources) >= 2 and len(linked) >= 2 and spread:
                kind = "listing"
        kinds.append(kind)
    return kinds


def _marked(folder, pages: list[ExtractedPage], ghosts: list[str] = ()) -> list[str]:
    """The kinds the builder gives `pages`: link indexes, then `Listings.find` on the rest.

    `ghosts`: texts of pages read and then dropped (read again, excluded, a duplicate); they
    share every shingle they have and count for nothing."""
    found = Listings(folder)
    dropped = [found.add(_page(f"/ghost{n}/", [text])) for n, text in enumerate(ghosts)]
    numbers = [found.add(page) for page in pages]
    live = np.ones(len(found), dtype=bool)
    live[dropped] = False
    candidate = np.zeros(len(found), dtype=bool)
    candidate[numbers] = [p.kind == "page" and not link_index(p) for p in pages]
    by_number = dict(zip(numbers, pages, strict=True))

    def quotes(number: int, sources: np.ndarray) -> int:
        linked = {link.split("#")[0] for link in by_number[number].links}
        return sum(by_number[s].url in linked for s in sources.tolist())

    marked = found.find(live, candidate, quotes)
    found.close()
    return ["listing" if marked[n] or link_index(p) else p.kind for n, p in zip(numbers, pages, strict=True)]


@pytest.mark.parametrize("rows_per_bucket", [listings.ROWS_PER_BUCKET, 50], ids=["default", "small-buckets"])
def test_listings_are_marked_as_the_set_based_rule_marks_them(tmp_path, monkeypatch, rows_per_bucket):
    monkeypatch.setattr(listings, "ROWS_PER_BUCKET", rows_per_bucket)
    monkeypatch.setattr(listings, "_WORK_ROWS", 7 if rows_per_bucket == 50 else listings._WORK_ROWS)
    rng = random.Random(5)
    marked = 0
    for trial in range(30):
        sources = [" ".join(rng.choices(WORDS, k=rng.randint(5, 60))) for _ in range(rng.randint(2, 12))]
        pages = [_page(f"/s{trial}-{n}/", [text]) for n, text in enumerate(sources)]
        for n in range(rng.randint(1, 8)):  # digests quoting one, two or more of the sources
            picked = rng.sample(range(len(sources)), rng.randint(1, min(3, len(sources))))
            own = [" ".join(rng.choices(WORDS, k=rng.randint(0, 40)))]
            kind = rng.choice(["page", "page", "page", "changelog"])
            # Digests link to some, all or none of what they quote (a listing links to its sources).
            links = [f"/s{trial}-{i}/#top" for i in picked if rng.random() < 0.7]
            # Whole sources, or their middles (text a manual page includes, not an excerpt).
            quoted = [sources[i] if rng.random() < 0.7 else " ".join(sources[i].split()[3:]) for i in picked]
            pages.append(_page(f"/d{trial}-{n}/", quoted + own, kind, links))
        rng.shuffle(pages)
        expected = _reference(pages)
        assert _marked(tmp_path, pages, [p.content for p in rng.sample(pages, 3)]) == expected
        marked += expected.count("listing")
    assert marked >= 5  # the rule was exercised both ways
    shared = " ".join(WORDS * 3)
    twins = [_page(f"/{name}/", [shared, name]) for name in ("nginx", "apache", "caddy")]
    # text shared, no links to its sources: pages, not listings
    assert _marked(tmp_path, twins) == ["page", "page", "page"]
    reference = " ".join(WORDS * 4)
    guide = [_page("/api/", [reference]), _page("/fields/", [" ".join(WORDS[::-1] * 2)])]
    # Mostly one other page, a line of a second, linking to both: a copy, not a listing.
    copy = _page("/schema/", [reference, " ".join(WORDS[::-1])], links=["/api/#x", "/fields/#y"])
    assert _marked(tmp_path, [*guide, copy])[-1] == "page"
    # Git's log page includes the option text of show, diff, rev-list and format-patch and
    # links to them; each of those opens with its own words: a page. A digest quoting the same
    # pages from their start is a listing.
    options = [" ".join(rng.choices(WORDS, k=40)) for _ in range(4)]
    manuals = [_page(f"/git-{n}/", [" ".join(rng.choices(WORDS, k=12)), options[n]]) for n in range(4)]
    links = [f"/git-{n}/" for n in range(4)]
    log = _page("/git-log/", ["git log shows the commit logs", *options], links=links)
    digest = _page("/digest/", [p.content for p in manuals], links=links)
    assert _marked(tmp_path, [*manuals, log])[-1] == "page"
    assert _marked(tmp_path, [*manuals, digest])[-1] == "listing"
    assert _marked(tmp_path, []) == [] and _marked(tmp_path, [_page("/a/", ["too short"])]) == ["page"]


def test_a_page_of_links_is_a_listing(tmp_path):
    entries = " ".join(f"[{w}() ({w} method)](/api/#{w})" for w in WORDS * 3)
    index = _page("/genindex/", [entries])
    index.content = entries
    prose = _page("/guide/", [f"{entries} " + " ".join(WORDS * 12)])
    prose.content = prose.blocks[0].text
    assert _marked(tmp_path, [index, prose]) == ["listing", "page"]


# --- Whole builds: the on-disk paths give the in-memory bytes; held memory per page is bounded ---

TOPICS = str.split(
    "queue worker retry timeout backoff schedule cron batch token secret rotate deploy cluster replica "
    "shard cache budget quota region bucket upload stream event webhook proxy gateway route plugin theme"
)


def _html(rng: random.Random, *, locale: str = "en", title: str = "", head: str = "") -> str:
    """A page of words from TOPICS: the vocabulary does not grow with the pages."""
    title = title or "Notes on " + " ".join(rng.sample(TOPICS, 3))
    sections = "".join(
        f"<h2 id='s{k}'>{' '.join(rng.sample(TOPICS, 2)).capitalize()}</h2>"
        + "".join(f"<p>{' '.join(rng.choices(TOPICS, k=rng.randint(8, 40))).capitalize()}.</p>" for _ in "ab")
        for k in range(rng.randint(1, 3))
    )
    return (
        f"<!doctype html><html lang='{locale}'><head><meta charset='utf-8'>"
        f"<title>{title}</title>{head}</head><body><main><h1>{title}</h1>{sections}"
        f"<p><a href='/p{rng.randint(0, 50)}/'>see also</a></p></main></body></html>"
    )


def _site(folder, pages: int, seed: int = 11) -> None:
    """Pages with what every whole-site decision looks at: two locales, restricted and
    excluded pages, FAQ pairs, a copy of a page under a second URL, digests quoting and
    linking to other pages and a page of links (listings), a changelog and a support page."""
    rng = random.Random(seed)
    questions = [
        {"@type": "Question", "name": f"How do I {w}?", "acceptedAnswer": {"text": f"Run {w} --now."}}
        for w in ("rotate", "retry", "deploy")
    ]
    faq = json.dumps({"@type": "FAQPage", "mainEntity": questions})
    faq = f"<script type='application/ld+json'>{faq}</script>"
    written: list[str] = []
    urls: list[str] = []
    for n in range(pages):
        locale = "es" if n % 6 == 5 else "en"
        head = faq if n % 9 == 0 else ""
        if n % 13 == 7:
            head += "<meta name='askdocs:groups' content='staff'>"
        if n % 29 == 3:
            head += "<meta name='askdocs:exclude' content='true'>"
        title = {1: "Changelog", 2: "Contact support"}.get(n, "")
        html = _html(rng, locale=locale, title=title, head=head)
        if n % 17 == 10 and len(written) > 3:  # a digest of three other pages, linking to them
            sources = rng.sample(range(len(written)), 3)
            quoted = "".join(written[i].split("<main>")[1].split("</main>")[0] for i in sources)
            links = "".join(f"<p><a href='{urls[i]}'>Read {i}</a></p>" for i in sources)
            html = html.replace("</main>", quoted + links + "</main>")
        if n == 6:  # an index of names: mostly links
            names = (" ".join(rng.sample(TOPICS, 3)) for _ in range(40))
            entries = "".join(f"<li><a href='/p{k}/'>{name}()</a></li>" for k, name in enumerate(names))
            html = html.replace("</main>", f"<ul>{entries}</ul></main>")
        written.append(html)
        urls.append(f"/{'es/' if locale == 'es' else ''}p{n}/")
        path = folder / (f"{locale}/" if locale == "es" else "") / f"p{n}" / "index.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html)
    (folder / "copy").mkdir()
    (folder / "copy" / "index.html").write_text(written[4])  # the same document under two URLs


def _stub_embedding(monkeypatch) -> None:
    import hashlib

    from askdocs.plugin import builder

    def pool(model, texts, workers, progress=None, embedder=None):
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).integers(-127, 128, size=model.dim).astype(np.int8)
            yield i, vector, 0.01
            progress and progress(1)

    monkeypatch.setattr(builder, "embed_texts", pool)


def _built_files(site_dir, private_dir) -> dict[str, bytes]:
    files = {}
    for root, name in ((site_dir, "site"), (private_dir, "private")):
        for path in sorted(root.rglob("*")):
            if path.is_file():
                files[f"{name}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    return files


def test_a_build_through_the_disk_gives_the_bytes_of_a_build_in_memory(
    tmp_path, monkeypatch, multilingual_info
):  # noqa: E501
    """On a small site every on-disk structure is one bucket and one block, gathered in memory.
    With blocks of 3 rows, buckets of 5 to 7 postings or shingles, 3 bucket files open at a
    time and 16-byte reads, every spilled path runs (thousands of buckets, in several steps):
    the same bytes, shards, private set and llms.txt files alike."""
    from askdocs.plugin import listings, setwriter
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    from askdocs import lexical, spill

    _stub_embedding(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    built = {}
    for mode in ("memory", "disk"):
        with monkeypatch.context() as tiny:
            if mode == "disk":
                for module, name, value in [
                    (spill, "BLOCK_ROWS", 3), (spill, "BLOCK_RECORDS", 2), (spill, "MAX_OPEN", 3),
                    (spill, "_FLUSH_ITEMS", 5), (spill, "_READ_AHEAD", 16), (setwriter, "BLOCK_ROWS", 3),
                    (lexical, "_POSTINGS_PER_BUCKET", 5), (lexical, "_WORK_ROWS", 3),
                    (listings, "ROWS_PER_BUCKET", 7),
                ]:  # fmt: skip
                    tiny.setattr(module, name, value)
            site = tmp_path / mode / "site"
            _site(site, 90)
            report = build_site(BuildOptions(site_dir=site, progress=False, threads=1))
            built[mode] = _built_files(site, tmp_path / mode / "askdocs-private")
    assert report.pages > 70 and report.restricted and report.excluded and report.faq
    assert report.locales == ["en", "es"]
    pages = json.loads(built["memory"]["site/_askdocs/manifest.json"])
    assert {f["role"] for f in pages["files"]} >= {"lunr", "postings", "search_docs", "suggestions", "tree"}
    kinds = {p["kind"] for f in pages["files"] if f["role"] == "pages"
             for p in json.loads(built["memory"][f"site/_askdocs/{f['path']}"])}  # fmt: skip
    assert kinds == {"page", "listing", "changelog"}
    assert sorted(built["memory"]) == sorted(built["disk"])
    assert [name for name in built["memory"] if built["memory"][name] != built["disk"][name]] == []


def test_an_incremental_build_chunks_only_changed_pages_and_gives_a_full_builds_bytes(
    tmp_path, monkeypatch, model_info, multilingual_info
):
    """A rebuild takes the last build's chunks of every page whose content hash (text,
    structure, date, kind) is unchanged, when the chunk settings, the chunker and the model
    are the same; its files are byte for byte those of a build from nothing."""
    from askdocs.plugin import chunking
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.chunking import ChunkSettings
    from askdocs.plugin.sitedir import build_site

    from askdocs import embedder, lexical

    _stub_embedding(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")

    def generate(site, edited: bool = False):
        """What a generator does before each build: the site folder written anew (the build
        moved the restricted pages' HTML out of it), the shards of the last build kept."""
        for path in site.iterdir() if site.exists() else ():
            if path.name != "_askdocs":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        _site(site, 40)
        if edited:
            page = site / "p8" / "index.html"
            html = page.read_text()
            page.write_text(html.replace("</h1>", "</h1><p>Retry budgets reset every hour.</p>", 1))

    site = tmp_path / "incremental" / "site"
    generate(site)
    first = build_site(BuildOptions(site_dir=site, progress=False, threads=1))
    assert first.chunked == first.pages > 30
    generate(site, edited=True)
    loaded: list[str] = []

    def watch_loads(watch) -> None:
        watch.setattr(embedder.Tokenizer, "from_file", lambda path, real=embedder.Tokenizer.from_file: (
            loaded.append(Path(path).parent.name) or real(path)
        ))  # fmt: skip
        session = embedder.ort.InferenceSession
        watch.setattr(embedder.ort, "InferenceSession", lambda path, *args, **kwargs: (
            loaded.append(f"session {Path(path).parent.name}") or session(path, *args, **kwargs)
        ))  # fmt: skip

    counted: list[str] = []  # long texts whose terms were counted (not the build cache's)
    count = lexical._TermPairs._terms

    def watch_counts(self, text):
        if len(text) > lexical._MEMO_CHARS:
            counted.append(text)
        return count(self, text)

    with monkeypatch.context() as watch:  # an English page changed: the Spanish model stays unread
        watch_loads(watch)
        watch.setattr(lexical._TermPairs, "_terms", watch_counts)
        second = build_site(BuildOptions(site_dir=site, progress=False, threads=1))
    # Only texts of the edited page had their terms counted again.
    assert counted and all("Retry budgets reset every hour" in text for text in counted), counted
    # The English model loads (on a thread of its own while the pages are written): the page
    # changed; the embedding itself is stubbed here.
    assert sorted(loaded) == sorted([model_info.path.name, f"session {model_info.path.name}"])
    assert second.chunked == 1 and second.pages == first.pages
    # Only the edited page was parsed: the others' extraction is the build cache's.
    assert first.parsed == first.read and second.parsed == 1 and second.read == first.read
    assert 0 < second.embedded <= 3
    scratch = tmp_path / "scratch" / "site"
    generate(scratch, edited=True)
    full = build_site(BuildOptions(site_dir=scratch, progress=False, threads=1))
    assert full.chunked == full.pages and full.reused == 0
    incremental = _built_files(site, site.parent / "askdocs-private")
    whole = _built_files(scratch, scratch.parent / "askdocs-private")
    assert sorted(incremental) == sorted(whole)
    assert [name for name in incremental if incremental[name] != whole[name]] == []

    # Other chunk settings, or another chunker: every page is chunked anew.
    def chunked(**options) -> int:
        generate(site, edited=True)
        return build_site(BuildOptions(site_dir=site, progress=False, threads=1, **options)).chunked

    assert chunked(chunks=ChunkSettings(target=300)) == first.pages
    assert chunked() == first.pages
    loaded.clear()
    with monkeypatch.context() as watch:  # nothing changed: no model is even read
        watch_loads(watch)
        assert chunked() == 0
    assert loaded == []
    monkeypatch.setattr(chunking, "_CODE", "another chunker")
    assert chunked() == first.pages


def test_the_content_hash_covers_the_pages_structure():
    """Chunking follows the blocks: the same text in other blocks is another page to chunk."""
    one = _page("/a/", ["First part. Second part."])
    two = _page("/a/", ["First part. Second part."])
    assert one.content_hash == two.content_hash
    two.blocks = [Block("code", b.text, b.level, b.anchor, b.lastmod, b.start, b.end) for b in two.blocks]
    assert one.content == two.content and one.content_hash != two.content_hash


def test_the_build_cache_is_checked_and_can_be_turned_off(tmp_path, monkeypatch, caplog, model_info):
    """A damaged cache file, or one left by other askdocs code, is not trusted: every page is
    parsed again, with a warning, and the build's files are those of a build without it.
    ASKDOCS_BUILD_CACHE=off writes none."""
    from askdocs.plugin import buildcache
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    _stub_embedding(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    monkeypatch.setenv("ASKDOCS_BUILD_CACHE", str(tmp_path / "cache"))
    site = tmp_path / "site"

    def build():
        """The generator writes the site anew (the last build moved its restricted page out)."""
        for path in site.iterdir() if site.exists() else ():
            if path.name != "_askdocs":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        _site(site, 12)
        return build_site(BuildOptions(site_dir=site, progress=False, threads=1))

    first = build()
    (cached,) = (tmp_path / "cache").glob("*.extract")
    (counted,) = (tmp_path / "cache").glob("*.terms")
    for kept in (cached, counted):
        assert kept.stat().st_mode & 0o077 == 0  # the owner's only: restricted pages are in it
    reference = _built_files(site, tmp_path / "askdocs-private")
    assert build().parsed == 0
    for damage in (lambda b: b[: len(b) // 2], lambda b: b"x" + b[1:], lambda b: b[:-3] + b"END"):
        cached.write_bytes(damage(cached.read_bytes()))
        counted.write_bytes(damage(counted.read_bytes()))
        caplog.clear()
        again = build()
        assert again.parsed == again.read == first.read
        assert caplog.text.count("ignored (") == 2, caplog.text
        assert _built_files(site, tmp_path / "askdocs-private") == reference
    with monkeypatch.context() as other:  # another askdocs: nothing it cached is used
        other.setattr(buildcache, "code_digest", lambda: "another version")
        assert build().parsed == first.read
    assert build().parsed == first.read  # and what it wrote is not this version's either
    # A build that never ends (the generator failed after the first pages) leaves no file.
    from askdocs.plugin.builder import IndexBuilder, RawPage

    unfinished = IndexBuilder(BuildOptions(site_dir=tmp_path / "other", progress=False))
    page = "<html><body><main><h1>A</h1><p>" + "word " * 99 + "</p></main></body></html>"
    unfinished.add(RawPage("/a/", page))
    assert len(list((tmp_path / "cache").glob(".extract-*"))) == 1  # the next build's, as it is written
    del unfinished
    gc.collect()
    assert not list((tmp_path / "cache").glob(".*"))
    cached.unlink()
    counted.unlink()
    monkeypatch.setenv("ASKDOCS_BUILD_CACHE", "off")
    assert build().parsed == first.read and build().parsed == first.read
    assert not list((tmp_path / "cache").iterdir())
    assert _built_files(site, tmp_path / "askdocs-private") == reference


def test_what_a_build_holds_per_page_is_bounded(tmp_path, monkeypatch, model_info):
    """Traced Python memory (numpy's included), 120 pages against 480: what the builder holds
    once every page is read grows by ~150 bytes per page (the URL and a few numbers), and the
    peak of `build` above that by under a kB; not by the pages' text, records or postings (the
    builder that kept the pages in memory: 4.7 kB per page held, 6.1 kB more at the peak).
    Blocks and buckets are made smaller than these sites, as a large site's are smaller than
    it: what they hold then does not grow with the pages (gc's cyclic garbage still does)."""
    import tracemalloc

    from askdocs.plugin import listings, setwriter
    from askdocs.plugin.builder import BuildOptions, IndexBuilder, RawPage

    from askdocs import lexical, shards, spill
    from askdocs.embedder import Embedder

    for module, name, value in [
        (spill, "BLOCK_ROWS", 1000), (spill, "BLOCK_RECORDS", 100), (setwriter, "BLOCK_ROWS", 1000),
        (lexical, "_POSTINGS_PER_BUCKET", 2000), (lexical, "_WORK_ROWS", 500),
        (listings, "ROWS_PER_BUCKET", 2000), (shards, "READ_BYTES", 16_000),
    ]:  # fmt: skip
        monkeypatch.setattr(module, name, value)
    _stub_embedding(monkeypatch)
    embedder = Embedder(model_info, threads=1)
    embedder.count_tokens(["warm the tokenizer up"])

    def measure(pages: int) -> tuple[int, int]:
        site = tmp_path / f"site{pages}"
        site.mkdir()
        options = BuildOptions(site_dir=site, progress=False)
        builder = IndexBuilder(options, embedders={model_info.sha256: embedder})
        rng = random.Random(3)
        tracemalloc.start()
        start = tracemalloc.get_traced_memory()[0]
        for n in range(pages):
            builder.add(RawPage(f"/p{n}/", _html(rng)))
        held = tracemalloc.get_traced_memory()[0] - start
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        builder.build()
        peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        return held, peak

    measure(20)  # caches and lazily loaded modules
    (held_small, peak_small), (held_large, peak_large) = measure(120), measure(480)
    held_per_page = (held_large - held_small) / 360
    peak_per_page = (peak_large - peak_small) / 360
    assert held_per_page < 400, held_per_page
    assert peak_per_page < 2000, peak_per_page


def test_a_warning_every_page_shares_is_logged_for_a_few_and_counted(tmp_path, monkeypatch, caplog):
    """A generator without <main> (SQLite's docs): each page warns the same; the log names the
    first five, then one line with the count and an example, and the report counts them all."""
    from askdocs.plugin.builder import SHOWN_PER_WARNING, BuildOptions
    from askdocs.plugin.sitedir import build_site

    _stub_embedding(monkeypatch)
    site = tmp_path / "site"
    site.mkdir()
    for n in range(SHOWN_PER_WARNING + 3):
        paragraphs = "".join(f"<p>{' '.join([TOPICS[(n + k) % len(TOPICS)]] * 4)} {k}.</p>" for k in range(8))
        body = f"<div class='nav'><a href='/'>Home</a></div><div><h1>Page {n}</h1>{paragraphs}</div>"
        head = f"<head><title>P{n}</title></head>"
        (site / f"p{n}.html").write_text(f"<html lang='en'>{head}<body>{body}</body></html>")
    with caplog.at_level("WARNING", logger="askdocs.build"):
        report = build_site(BuildOptions(site_dir=site, progress=False, threads=1))
    lines = [r.getMessage() for r in caplog.records if "no <main>" in r.getMessage()]
    assert len(lines) == SHOWN_PER_WARNING + 1, lines
    assert lines[-1].startswith(f"{SHOWN_PER_WARNING + 3} pages: no <main>/<article> element")
    assert "3 not listed above, e.g. " in lines[-1]
    assert report.warnings >= SHOWN_PER_WARNING + 3
