"""Real builds: site_example with MkDocs (three themes, two locales), Pelican, `askdocs build`."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from askdocs.shards import FORMAT_VERSION, load_shards, read_manifest
from tests.conftest import (
    EXCLUDED_PHRASE,
    RESTRICTED_PHRASES,
    SITE_EXAMPLE,
    build_example,
    mkdocs_build,
)

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def files_containing(folder: Path, needle: str) -> list[Path]:
    raw = needle.encode()
    found = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if raw in data or (path.suffix == ".gz" and raw in _gunzip(data)):
                found.append(path)
    return found


def _gunzip(data: bytes) -> bytes:
    import gzip

    try:
        return gzip.decompress(data)
    except OSError:
        return b""


def askdocs(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    import os

    result = subprocess.run(
        [sys.executable, "-m", "askdocs.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"askdocs {args} failed:\n{result.stdout}\n{result.stderr}")
    return result


def test_manifest_describes_the_shards(example_site, model_info, multilingual_info):
    manifest = read_manifest(example_site.shard_dir)
    assert manifest.format_version == FORMAT_VERSION
    assert manifest.visibility == "public"
    # `auto`: English pages with the English model, Spanish ones with the multilingual model,
    # each pinned by sha256; `model` is the default locale's.
    assert manifest.model["id"] == model_info.id == "sentence-transformers/all-MiniLM-L6-v2"
    assert manifest.model["sha256"] == model_info.sha256
    assert manifest.model_for("en") == manifest.model
    assert manifest.model_for("es")["id"] == multilingual_info.id == "intfloat/multilingual-e5-small"
    assert manifest.model_for("es")["sha256"] == multilingual_info.sha256
    assert manifest.model["dim"] == 384 and manifest.embeddings["dtype"] == "int8"
    assert manifest.default_locale == "en" and manifest.locales == ["en", "es"]
    assert manifest.site_url == "http://127.0.0.1:8000/"
    assert manifest.built_at == "2026-01-01T00:00:00Z"  # SOURCE_DATE_EPOCH
    roles = {f.role for f in manifest.files}
    assert {
        "pages",
        "chunks",
        "faq",
        "tree",
        "vectors",
        "scales",
        "lexical",
        "postings",
        "lunr",
        "search_docs",
        "suggestions",
        "widget",
        "lunr_js",
    } <= roles
    assert "titles" not in roles and "title_vectors" not in manifest.embeddings  # format 3
    for entry in manifest.files:
        data = (example_site.shard_dir / entry.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.bytes
    assert (example_site.shard_dir / "widget.js").is_file()
    assert (example_site.shard_dir / "lunr" / "lunr.js").is_file()
    assert (example_site.shard_dir / "lunr" / "lunr.es.js").is_file()
    shards = load_shards(example_site.shard_dir)
    assert manifest.counts == {
        "pages": len(shards.pages),
        "chunks": len(shards.chunks),
        "faq": len(shards.faqs),
    }
    assert shards.vectors.dtype.name == "int8" and shards.vectors.shape == (len(shards.chunks), 384)
    assert manifest.support_url == "/support/"


def test_pages_locales_listing_faq_and_dates(example_site):
    shards = load_shards(example_site.shard_dir)
    pages = {p.url: p for p in shards.pages}
    assert {"/", "/install/", "/es/install/", "/pricing/", "/faq/", "/tags/"} <= set(pages)
    assert pages["/es/install/"].locale == "es" and pages["/install/"].locale == "en"
    assert pages["/tags/"].kind == "listing" and pages["/es/tags/"].kind == "listing"
    assert pages["/install/"].kind == "page"
    # FAQ JSON-LD pairs are records of their own, including the JSON-LD-only ones.
    faq_answers = " ".join(f.answer for f in shards.faqs)
    assert "KINDFOX40" in faq_answers
    assert len([f for f in shards.faqs if shards.pages[f.page].url == "/faq/"]) == 7
    # Release notes: a date per section.
    notes = [c for c in shards.chunks if shards.pages[c.page].url == "/release-notes/"]
    dates = {c.anchor: c.lastmod for c in notes}
    assert dates.get("310") == "2026-02-03" and dates.get("240", "").startswith("2025")
    # The tree lists every page with locale and visibility.
    assert shards.tree["/es/faq/"]["locale"] == "es"
    assert shards.tree["/faq/"]["visibility"] == "public"
    # Chunks keep anchors and heading paths; together they cover every section.
    page_index = next(i for i, p in enumerate(shards.pages) if p.url == "/guides/webhooks/")
    page = shards.pages[page_index]
    webhooks = [c for c in shards.chunks if c.page == page_index and c.kind == "section"]
    anchors = {h.anchor for h in page.headings}
    assert {c.anchor for c in webhooks} <= anchors | {""}
    covered = "".join(page.content[c.start : c.end] for c in webhooks)
    for heading in page.headings:
        assert heading.text in covered
    assert all(c.headings for c in webhooks if c.anchor not in ("", "webhooks"))


def test_restricted_content_never_reaches_the_public_site(example_site):
    for phrase in RESTRICTED_PHRASES:
        assert files_containing(example_site.site_dir, phrase) == [], phrase
    # Not even a link or title: the runbook is gone from navigation, search index, sitemap.
    assert files_containing(example_site.site_dir, "internal/runbook") == []
    private = read_manifest(example_site.private_dir)
    assert private.visibility == "private"
    shards = load_shards(example_site.private_dir)
    assert {p.url for p in shards.pages} == {"/internal/runbook/", "/es/internal/runbook/"}
    assert all(p.groups == ["staff"] for p in shards.pages)
    assert (example_site.private_dir / "html" / "internal" / "runbook" / "index.html").is_file()
    assert any(files_containing(example_site.private_dir, "BLUE HERON"))


def test_suggested_questions_default_to_the_public_faq_per_locale(example_site):
    manifest = read_manifest(example_site.shard_dir)
    files = {f.locale: f for f in manifest.files if f.role == "suggestions"}
    assert set(files) == {"en", "es"}
    en = json.loads((example_site.shard_dir / files["en"].path).read_text())
    es = json.loads((example_site.shard_dir / files["es"].path).read_text())
    assert en["source"] == es["source"] == "faq"
    assert en["questions"][0] == "Does the agent need to run as root?"
    assert es["questions"][0] == "¿El agente tiene que ejecutarse como root?"
    assert len(en["questions"]) == 4
    assert not [f for f in read_manifest(example_site.private_dir).files if f.role == "suggestions"]


FAQ_PAGE = """---
{front}
---
# {title}

{body}

<script type="application/ld+json">
{{"@context": "https://schema.org", "@type": "FAQPage", "mainEntity": [
  {{"@type": "Question", "name": "{question}",
   "acceptedAnswer": {{"@type": "Answer", "text": "{answer}"}}}}]}}
</script>
"""


def _faq_site(root: Path, options: dict) -> subprocess.CompletedProcess:
    import yaml

    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "index.md").write_text("# Quokka\n\nQuokka keeps notes in sync across devices.\n")
    (docs / "faq.md").write_text(
        FAQ_PAGE.format(
            front="title: FAQ",
            title="FAQ",
            body="## How do I reset my password?\n\nOpen Settings, then Account, then Reset password.",
            question="How do I reset my password?",
            answer="Open Settings, then Account, then Reset password.",
        )
    )
    (docs / "staff.md").write_text(
        FAQ_PAGE.format(
            front="askdocs: {groups: [staff]}",
            title="Staff FAQ",
            body="## Where is the VIOLET OTTER vault?\n\nIn rack 7, behind the second door.",
            question="Where is the VIOLET OTTER vault?",
            answer="In rack 7, behind the second door.",
        )
    )
    config = {
        "site_name": "Quokka",
        "site_url": "https://quokka.example/",
        "theme": {"name": "mkdocs", "highlightjs": False},
        "plugins": [
            "search",
            {"askdocs": {"private_dir": str(root / "private"), "progress": False, **options}},
        ],
    }
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(root / "mkdocs.yml")],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _suggestions(site: Path) -> dict[str, dict]:
    manifest = read_manifest(site / "_askdocs")
    return {
        f.locale: json.loads((site / "_askdocs" / f.path).read_text())
        for f in manifest.files
        if f.role == "suggestions"
    }


def test_restricted_pages_leave_padded_sitemaps_and_feeds_in_linear_time(tmp_path):
    """A sitemap or feed padded with a long whitespace run: each entry takes the blanks before it
    when it is removed, and the run is tried from its start (from every position of it, 64,000
    blanks took 5 s per file)."""
    import logging
    import time

    from askdocs.plugin.privacy import protect

    site = tmp_path / "site"
    (site / "feeds").mkdir(parents=True)
    pad = " \t" * 50_000
    (site / "sitemap.xml").write_text(
        "<urlset>" + pad + "<url><loc>https://docs.example/guide/</loc></url>"
        "\n  <url><loc>https://docs.example/internal/</loc></url>" + pad + "</urlset>"
    )
    (site / "feeds" / "all.atom.xml").write_text(
        "<feed>" + pad + '<entry><link href="https://docs.example/internal/"/></entry>'
        '\n<entry><link href="https://docs.example/guide/"/></entry>' + pad + "</feed>"
    )
    started = time.perf_counter()
    protect(
        site_dir=site,
        site_url="https://docs.example/",
        restricted=[("/internal/", None)],
        private_dir=tmp_path / "private",
        keep_html=True,
        log=logging.getLogger("test"),
    )
    assert time.perf_counter() - started < 2.0
    sitemap = (site / "sitemap.xml").read_text()
    feed = (site / "feeds" / "all.atom.xml").read_text()
    assert "/internal/" not in sitemap and "/guide/" in sitemap
    assert sitemap.startswith("<urlset>" + pad + "<url>") and "</url>" + pad + "</urlset>" in sitemap
    assert "/internal/" not in feed and "/guide/" in feed


def test_suggested_questions_keep_restricted_faq_out_and_can_be_configured(tmp_path, model_info):
    result = _faq_site(tmp_path / "faq", {})
    assert result.returncode == 0, result.stderr
    site = tmp_path / "faq" / "site"
    assert _suggestions(site) == {
        "en": {"locale": "en", "source": "faq", "questions": ["How do I reset my password?"]}
    }
    assert files_containing(site, "VIOLET OTTER") == []
    private = load_shards(tmp_path / "faq" / "private")
    assert [f.question for f in private.faqs] == ["Where is the VIOLET OTTER vault?"]

    configured = {"en": ["How do I sync a new phone?", "Can I export my notes?"], "fr": ["Comment ?"]}
    result = _faq_site(tmp_path / "configured", {"suggested_questions": configured})
    assert result.returncode == 0, result.stderr
    site = tmp_path / "configured" / "site"
    assert _suggestions(site) == {"en": {"locale": "en", "source": "config", "questions": configured["en"]}}
    assert "suggested_questions.fr: the site has no public pages in locale fr" in result.stderr
    assert files_containing(site, "VIOLET OTTER") == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["a question"], "must map a locale to a list of questions"),
        ({"en": "a question"}, "suggested_questions.en must be a list of non-empty questions"),
        ({"English": ["a question"]}, "'English' is not a locale code"),
    ],
)
def test_bad_suggested_questions_are_a_clear_error(tmp_path, value, message):
    result = _faq_site(tmp_path, {"suggested_questions": value})
    assert result.returncode != 0
    assert message in result.stdout + result.stderr


def test_excluded_page_is_not_indexed(example_site):
    assert files_containing(example_site.shard_dir, EXCLUDED_PHRASE) == []
    assert files_containing(example_site.private_dir, EXCLUDED_PHRASE) == []
    # The page itself is public; exclusion only keeps it out of the index.
    assert (example_site.site_dir / "drafts" / "roadmap" / "index.html").is_file()


def test_pages_carry_widget_and_metadata_tags(example_site):
    html = (example_site.site_dir / "es" / "install" / "index.html").read_text()
    assert '<script src="../../_askdocs/widget.js" defer></script>' in html
    root = (example_site.site_dir / "index.html").read_text()
    assert '<script src="_askdocs/widget.js" defer></script>' in root
    roadmap = (example_site.site_dir / "drafts" / "roadmap" / "index.html").read_text()
    assert '<meta name="askdocs:exclude" content="true">' in roadmap
    runbook = (example_site.private_dir / "html" / "internal" / "runbook" / "index.html").read_text()
    assert '<meta name="askdocs:groups" content="staff">' in runbook


def test_builds_are_byte_identical(tmp_path, example_site):
    again = build_example(tmp_path / "again", env=EPOCH)
    site = example_site.site_dir
    llms = sorted(p.relative_to(site) for p in site.rglob("*") if p.suffix in (".md", ".txt"))
    assert Path("llms.txt") in llms and Path("install/index.md") in llms
    for name in llms:
        assert (example_site.site_dir / name).read_bytes() == (again.site_dir / name).read_bytes(), name
    for folder_a, folder_b in (
        (example_site.shard_dir, again.shard_dir),
        (example_site.private_dir, again.private_dir),
    ):
        names_a = sorted(p.relative_to(folder_a).as_posix() for p in folder_a.rglob("*") if p.is_file())
        names_b = sorted(p.relative_to(folder_b).as_posix() for p in folder_b.rglob("*") if p.is_file())
        assert names_a == names_b
        for name in names_a:
            assert (folder_a / name).read_bytes() == (folder_b / name).read_bytes(), name


def test_incremental_build_reuses_unchanged_vectors(tmp_path, multilingual_info):
    docs = tmp_path / "docs"
    shutil.copytree(SITE_EXAMPLE / "docs", docs)
    work = tmp_path / "work"
    work.mkdir()
    first = mkdocs_build(work, extra={"docs_dir": str(docs)})
    assert "vectors reused 0/" in first.stdout + first.stderr
    page = docs / "en" / "security.md"
    page.write_text(page.read_text() + "\n\n## Audit trail\n\nEvery token use is audited for 400 days.\n")
    second = mkdocs_build(work, extra={"docs_dir": str(docs)})
    log = second.stdout + second.stderr
    reused, total = _counted(log, "vectors reused")
    assert 0 < total - reused <= 6 and reused > 0.9 * total, log
    chunked, pages = _counted(log, "pages chunked anew")
    assert chunked == 1 and pages > 10, log  # the edited page
    shards = load_shards(work / "site" / "_askdocs")
    assert any("audited for 400 days" in shards.pages[c.page].content[c.start : c.end] for c in shards.chunks)
    # CI that starts empty reuses the previous release with --previous.
    fresh = tmp_path / "fresh"
    shutil.copytree(work / "site", fresh)
    shutil.rmtree(fresh / "_askdocs")
    result = askdocs(
        "build",
        str(fresh),
        "--previous",
        str(work / "site" / "_askdocs"),
        "--private-dir",
        str(tmp_path / "fresh-private"),
        "-q",
    )
    reused, total = _counted(result.stdout + result.stderr, "vectors reused")
    assert reused > 0.9 * total


def _counted(log: str, label: str) -> tuple[int, int]:
    """The summary line's "LABEL n/total" (the last build's)."""
    marker = log.split(f"{label} ")[-1].split(",")[0]
    done, total = marker.split("/")
    return int(done), int(total)


def test_askdocs_build_over_plugin_output_agrees(tmp_path, example_site):
    site = tmp_path / "site"
    shutil.copytree(example_site.site_dir, site)
    private = tmp_path / "private"
    shutil.copytree(example_site.private_dir, private)
    shutil.rmtree(site / "_askdocs")
    askdocs("build", str(site), "--private-dir", str(private), "-q")
    plugin = load_shards(example_site.shard_dir)
    rebuilt = load_shards(site / "_askdocs")
    assert rebuilt.tree == plugin.tree
    assert load_shards(private).tree == load_shards(example_site.private_dir).tree


def test_plain_html_site_and_bad_input(tmp_path, model_info):
    """An English-only site: `auto` picks the English model."""
    site = tmp_path / "plain"
    (site / "guide").mkdir(parents=True)
    (site / "index.html").write_text(
        "<html lang='en'><head><title>Home</title></head><body><main><h1>Welcome</h1>"
        "<p>The gizmo scheduler runs batch jobs every night at 02:00.</p></main></body></html>"
    )
    (site / "guide" / "index.html").write_bytes(
        b"<html><body><main><h1>Guide</h1><p>Broken <b>markup <p>caf\xe9 latte<div>"
    )
    (site / "empty.html").write_text("")
    markup = "<div class='x'><span style='color: red'>" * 2000 + "</span></div>" * 2000
    (site / "huge.html").write_text(
        "<html><head><style>" + ".c{color:red}" * 300_000 + "</style></head>"
        "<body><main><h1>Huge</h1>"
        + markup * 40
        + "<p>gizmo "
        + "lorem ipsum dolor " * 700
        + "</p></main></body></html>"
    )
    assert (site / "huge.html").stat().st_size > 5_000_000
    (site / "nomain.html").write_text("<html><body><div>menu</div></body></html>")
    (site / "404.html").write_text("<html><body><main><h1>Not found</h1></main></body></html>")
    result = askdocs("build", str(site), "-q")
    log = result.stdout + result.stderr
    assert "guide" in log and "not valid utf-8" in log.lower()
    assert "empty.html" in log
    shards = load_shards(site / "_askdocs")
    assert shards.manifest.model["id"] == model_info.id
    urls = {p.url for p in shards.pages}
    assert {"/", "/guide/", "/huge.html"} <= urls and "/404.html" not in urls
    assert not (tmp_path / "askdocs-private").exists()  # no restricted pages, no private set


def test_zero_pages_is_a_clear_error(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = askdocs("build", str(empty), check=False)
    assert result.returncode == 2
    assert "no indexable pages" in result.stderr


def test_unknown_plugin_option_is_rejected(tmp_path):
    plugins = ["search", {"askdocs": {"modle": "typo"}}]
    result = mkdocs_build(tmp_path, plugins_override=plugins, check=False)
    assert result.returncode != 0
    assert "unknown askdocs option(s) modle" in result.stdout + result.stderr


def test_private_dir_inside_the_published_site_is_refused(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    config = json.loads(
        json.dumps(
            [
                p if p != "askdocs" else {"askdocs": {"private_dir": str(work / "site" / "secret")}}
                for p in _example_plugins()
            ]
        )
    )
    result = mkdocs_build(work, plugins_override=config, check=False)
    assert result.returncode != 0
    assert "private_dir" in result.stdout + result.stderr


def _example_plugins() -> list:
    import yaml

    return yaml.safe_load((SITE_EXAMPLE / "mkdocs.yml").read_text())["plugins"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "theme", [{"name": "readthedocs"}, {"name": "material", "features": ["navigation.instant"]}]
)
def test_other_themes(tmp_path, theme, multilingual_info):
    built = build_example(tmp_path, theme=theme)
    shards = load_shards(built.shard_dir)
    install = next(p for p in shards.pages if p.url == "/install/")
    assert install.content.startswith("# Install\n")
    assert "winget install" in install.content
    assert "Primeros pasos" not in install.content  # navigation is not content
    assert next(p for p in shards.pages if p.url == "/es/install/").locale == "es"
    for phrase in RESTRICTED_PHRASES:
        assert files_containing(built.site_dir, phrase) == []


PELICAN_CONF = """
SITENAME = "Quokka Blog"
SITEURL = "https://blog.quokka.example"
RELATIVE_URLS = True
PATH = "content"
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
PLUGINS = ["askdocs"]
FEED_ALL_ATOM = "feeds/all.atom.xml"
ASKDOCS = {
    "private_dir": %r,
    "progress": False,
    "suggested_questions": {"en": ["When does the scheduler run?"]},
}
"""


def test_pelican_site(tmp_path, model_info):
    content = tmp_path / "content"
    content.mkdir()
    (content / "scheduler.md").write_text(
        textwrap.dedent("""\
        Title: Tuning the scheduler
        Date: 2026-03-04
        Tags: ops

        The gizmo scheduler runs batch jobs nightly at 02:00 UTC; set `GIZMO_WINDOW=4h` to widen it.
        """)
    )
    (content / "oncall.md").write_text(
        textwrap.dedent("""\
        Title: On-call secrets
        Date: 2026-03-05
        Tags: ops
        askdocs_groups: staff

        The break-glass phrase is PURPLE WALRUS and it must never leave the staff wiki.
        """)
    )
    (content / "draft-ideas.md").write_text(
        textwrap.dedent("""\
        Title: Ideas
        Date: 2026-03-06
        askdocs_exclude: true

        Unindexed musings about ZEPHYR TOAST.
        """)
    )
    private = tmp_path / "private"
    (tmp_path / "pelicanconf.py").write_text(PELICAN_CONF % str(private))
    result = subprocess.run(
        [sys.executable, "-m", "pelican", "content", "-s", "pelicanconf.py", "-o", "output"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = tmp_path / "output"
    assert files_containing(output, "PURPLE WALRUS") == []
    assert files_containing(output, "On-call secrets") == []
    shards = load_shards(output / "_askdocs")
    urls = {p.url for p in shards.pages}
    assert "/tuning-the-scheduler.html" in urls
    assert not any("tag" in u or "categor" in u or u == "/" for u in urls)  # listings not indexed
    assert files_containing(output / "_askdocs", "ZEPHYR TOAST") == []
    private_shards = load_shards(private)
    assert [p.url for p in private_shards.pages] == ["/on-call-secrets.html"]
    page = (output / "tuning-the-scheduler.html").read_text()
    assert "_askdocs/widget.js" in page
    llms = (output / "llms.txt").read_text()
    assert "- [Tuning the scheduler](https://blog.quokka.example/tuning-the-scheduler.md): " in llms
    assert "GIZMO_WINDOW=4h" in (output / "tuning-the-scheduler.md").read_text()
    assert "ZEPHYR TOAST" not in (output / "llms-full.txt").read_text()
    assert not (output / "ideas.md").exists() and not (output / "on-call-secrets.md").exists()
    assert next(p for p in shards.pages if p.url == "/tuning-the-scheduler.html").lastmod == "2026-03-04"
    assert _suggestions(output)["en"]["questions"] == ["When does the scheduler run?"]


def test_a_changelog_is_known_by_its_sections_as_well_as_by_its_title(tmp_path, model_info):
    """Release notes under another title ("Important notes", "History") are a changelog because
    their sections are releases; a page titled "…Changes" whose sections are not is a page, unless
    its title names the release ("Major changes in 5.0")."""

    def page(title: str, sections: list[str]) -> str:
        body = "".join(
            f"<h2>{s}</h2><p>The gizmo scheduler notes for {s}: batch jobs run at night.</p>"
            for s in sections
        )
        head = f"<html lang='en'><head><title>{title}</title></head>"
        return f"{head}<body><main><h1>{title}</h1>{body}</main></body></html>"

    site = tmp_path / "notes"
    site.mkdir()
    releases = [f"Version 1.{n}.0 (2024-0{n}-01)" for n in range(1, 7)]
    (site / "index.html").write_text(page("Gizmo", ["Install", "Usage"]))
    (site / "important.html").write_text(page("Important notes", ["Security notice", *releases]))
    (site / "history.html").write_text(page("History", releases))
    (site / "changelog.html").write_text(page("Changelog", releases[:2]))
    (site / "minimum.html").write_text(page("Minimum Required Changes", ["Imports", "Commands", "Settings"]))
    # One release per page in a folder of release notes (Tornado's "/releases/v6.0.0.html", whose
    # sections are its modules; pytest's "/announce/release-2.9.0.html"); a page in such a folder
    # that names no release, and a versioned page elsewhere, are pages.
    (site / "releases").mkdir()
    (site / "releases" / "v6.0.0.html").write_text(
        page("What's new in Gizmo 6.0", ["Highlights", "gizmo.web"])
    )
    (site / "announce").mkdir()
    (site / "announce" / "release-2.9.0.html").write_text(page("gizmo-2.9.0", ["Fixes", "Thanks"]))
    (site / "announce" / "policy.html").write_text(page("How we announce", ["Mailing list", "Blog", "Chat"]))
    (site / "migrate-2.0.html").write_text(
        page("Migrating to Gizmo 2.0", ["Imports", "Commands", "Settings"])
    )
    # One release's notes anywhere, titled so with its version (coverage.py's "Major changes in
    # 5.0", whose sections are "New Features", "Bugs Fixed"...).
    (site / "whatsnew5x.html").write_text(
        page(
            "Major changes in 5.0",
            ["Open Questions", "Backward Incompatibilities", "New Features", "Bugs Fixed"],
        )
    )
    # A numbered manual's sections ("2.3.1. Embedded documents", Sphinx's `:numbered:`) are not
    # releases: MongoEngine's guide pages were read as release notes; numbered releases still are.
    (site / "guide.html").write_text(
        page(
            "2.3. Defining documents",
            [
                f"2.3.{n}. {t}"
                for n, t in enumerate(
                    [
                        "Fields",
                        "Indexes",
                        "Ordering",
                        "Shard keys",
                        "Document inheritance",
                        "Abstract classes",
                    ],
                    1,
                )
            ],
        )
    )
    (site / "numbered-history.html").write_text(
        page("5. History", [f"5.{n}. {r}" for n, r in enumerate(releases, 1)])
    )
    # Behave's "Noteworthy in Version 1.2.6" ("new_and_noteworthy_v1.2.6.html"): one release's notes,
    # whose sections are its features; "Noteworthy" names nothing without a release.
    (site / "new_and_noteworthy_v1.2.6.html").write_text(
        page("Noteworthy in Version 1.2.6", ["Scenario Outline Improvements", "Active Tags", "Fixtures"])
    )
    (site / "noteworthy.html").write_text(page("Noteworthy patterns", ["Layout", "Naming", "Fixtures"]))
    (site / "tips.html").write_text(page("Noteworthy tips", ["Layout", "Naming"]))
    # docutils' rst2html writes each top section as an `h1` (lxml's "lxml changelog", then
    # "4.9.2 (2022-12-13)" with "Bugs fixed" and "Other changes" below it, and so on).
    notes = "".join(
        f"<h1>{r}</h1><h2>Bugs fixed</h2><p>The gizmo scheduler fix.</p><h2>Other changes</h2><p>Docs.</p>"
        for r in releases
    )
    (site / "changes-1.6.0.html").write_text(
        "<html lang='en'><head><title>Gizmo changelog</title></head>"
        f"<body><h1>Gizmo changelog</h1>{notes}</body></html>"
    )
    # texinfo numbers sections without the last dot ("3.1.2 The Autoconf Language"): Autoconf's
    # one-page manual, 227 such headings, was read as release notes. A number is a section's when
    # the page numbers the section it is in; a typographic apostrophe still says "What’s New".
    chapters = [("2", "The GNU Build System", ["Automake", "Gnulib", "Libtool"])]
    chapters += [
        ("3", "Making configure Scripts", ["Writing configure.ac", "Using autoscan", "Using ifnames"])
    ]
    manual = [
        h for n, t, subs in chapters for h in [f"{n} {t}", *(f"{n}.{i} {u}" for i, u in enumerate(subs, 1))]
    ]
    (site / "autoconf.html").write_text(page("Autoconf", manual))
    (site / "whats_new.html").write_text(
        page("What’s New in Gizmo 3.0.0", ["1.1 New Features", "1.1.1 PEP-8 naming", "1.2 Removed"])
    )

    # A page without sections whose definition list's terms are releases (Cheetah's "News":
    # "2.4.2 (February 8th, 2010)" over its changes); one whose bold lines name versions of
    # something else ("Python 3.10 and above" over each tab of code, "Figure 13.1. ...") is a page.
    def terms(title: str, items: list[str]) -> str:
        body = "".join(f"<dt>{i}</dt><dd><ul><li>The gizmo scheduler fix.</li></ul></dd>" for i in items)
        head = f"<html lang='en'><head><title>{title}</title></head>"
        return f"{head}<body><main><dl>{body}</dl></main></body></html>"

    (site / "news2.html").write_text(terms("", [f"2.{n}.0 (February {n}th, 2010)" for n in range(1, 7)]))
    (site / "tabs.html").write_text(terms("Models", [f"Python 3.{n} and above" for n in range(8, 14)]))
    (site / "figures.html").write_text(terms("Desktops", [f"Figure 13.{n}. A desktop" for n in range(1, 7)]))
    askdocs("build", str(site), "-q")
    kinds = {p.url: p.kind for p in load_shards(site / "_askdocs").pages}
    assert kinds["/news2.html"] == "changelog"
    assert kinds["/tabs.html"] == "page" and kinds["/figures.html"] == "page"
    assert kinds["/autoconf.html"] == "page" and kinds["/whats_new.html"] == "changelog"
    assert kinds["/guide.html"] == "page" and kinds["/numbered-history.html"] == "changelog"
    assert kinds["/important.html"] == "changelog" and kinds["/history.html"] == "changelog"
    assert kinds["/whatsnew5x.html"] == "changelog"
    assert kinds["/changelog.html"] == "changelog"  # its title says so, and its sections agree
    assert kinds["/minimum.html"] == "page" and kinds["/"] == "page"
    assert (
        kinds["/releases/v6.0.0.html"] == "changelog" and kinds["/announce/release-2.9.0.html"] == "changelog"
    )
    assert kinds["/announce/policy.html"] == "page" and kinds["/migrate-2.0.html"] == "page"
    assert kinds["/new_and_noteworthy_v1.2.6.html"] == "changelog" and kinds["/noteworthy.html"] == "page"
    assert kinds["/tips.html"] == "page"  # two sections, no release named: "noteworthy" alone says nothing
    assert kinds["/changes-1.6.0.html"] == "changelog"
