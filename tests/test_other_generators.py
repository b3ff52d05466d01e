"""`askdocs build` over another generator's output: a small mdBook-like site (tests/data/mdbook)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from askdocs.plugin.extract import extract, redirect_target

from askdocs.shards import load_shards, read_manifest
from tests.test_build import askdocs

MDBOOK = Path(__file__).parent / "data" / "mdbook"


@pytest.fixture(scope="module")
def mdbook_site(tmp_path_factory, model_info):
    root = tmp_path_factory.mktemp("mdbook")
    site = root / "book"
    shutil.copytree(MDBOOK, site, ignore=shutil.ignore_patterns("README.md"))
    result = askdocs("build", str(site), "--private-dir", str(root / "private"), "-q")
    return site, result.stdout + result.stderr


def test_redirect_stubs_are_skipped_with_an_info_line(mdbook_site):
    site, log = mdbook_site
    assert (
        "INFO askdocs.build: skipped 2 redirect page(s) (meta refresh): "
        "/intro.html → what-is-frobnicator.html, /legacy/attributes.html → ../attributes.html"
    ) in log
    assert "no <main>" not in log and "trafilatura" not in log
    urls = [p.url for p in load_shards(site / "_askdocs").pages]
    assert urls == ["/attributes.html", "/listings.html", "/what-is-frobnicator.html"]


def test_the_same_document_under_two_urls_is_indexed_once(mdbook_site):
    site, log = mdbook_site
    # index.html repeats the first chapter; attrs.html names attributes.html as canonical.
    assert "same document under /: indexed once, as /what-is-frobnicator.html" in log
    shards = load_shards(site / "_askdocs")
    attributes = next(p for p in shards.pages if p.url == "/attributes.html")
    assert "alias page" not in attributes.content
    assert read_manifest(site / "_askdocs").counts["pages"] == 3


def test_hidden_code_lines_gutters_and_buttons_are_dropped(mdbook_site):
    site, _ = mdbook_site
    pages = {p.url: p for p in load_shards(site / "_askdocs").pages}
    attributes = pages["/attributes.html"].content
    assert '```rust\n#[doc = "Keeps the lockfile sorted."]\nstruct SortLockfile;\n```' in attributes
    assert "fn main" not in attributes and "allow(unused)" not in attributes
    listings = pages["/listings.html"].content
    assert '```csharp\nvar rule = new FrobRule("sort-keys");\nrule.Apply(manifest);\n```' in listings
    assert "```sh\nfrob run --rule sort-keys\n```" in listings
    assert "Copy" not in listings and "| 1" not in listings


def test_titles_keep_their_characters(mdbook_site):
    site, _ = mdbook_site
    pages = {p.url: p for p in load_shards(site / "_askdocs").pages}
    assert pages["/attributes.html"].title == "#[doc] attributes"
    assert pages["/listings.html"].title == "Listings in C#"
    assert [h.text for h in pages["/listings.html"].headings] == ["Listings in C#", "Anchors"]
    assert "- [#\\[doc\\] attributes](/attributes.md): " in (site / "llms.txt").read_text()


def test_a_site_without_a_support_page_warns_once(mdbook_site, tmp_path):
    site, log = mdbook_site
    assert log.count("WARNING askdocs.build: no support page") == 1
    assert read_manifest(site / "_askdocs").support_url is None
    configured = tmp_path / "book"
    shutil.copytree(MDBOOK, configured, ignore=shutil.ignore_patterns("README.md"))
    result = askdocs(
        "build",
        str(configured),
        "--support-url",
        "https://help.example.com/",
        "--private-dir",
        str(tmp_path / "p"),
    )
    assert "no support page" not in result.stdout + result.stderr
    assert read_manifest(configured / "_askdocs").support_url == "https://help.example.com/"


def test_heading_anchor_marks_are_not_title_text():
    page = extract(
        "<main><h1 id='a'>C#<a class='anchor' href='#a'>#</a></h1><h2 id='b'>Setup <a href='#b'>¶</a></h2>"
        "<h2 id='c'><a href='#c'>#[derive]</a></h2><p>text</p></main>",
        "/x/",
    )
    assert [h.text for h in page.headings] == ["C#", "Setup", "#[derive]"]
    assert page.title == "C#"


def test_redirect_target():
    assert redirect_target(b'<meta http-equiv="Refresh" content="0; url=\'/new/\'">') == "/new/"
    assert redirect_target('<meta content="3;URL=a.html" http-equiv="refresh">') == "a.html"
    assert redirect_target(b'<meta http-equiv="refresh" content="30">') is None  # a reload, not a move
    assert redirect_target(b"<p>refresh your browser</p>") is None


def test_answers_cite_titles_with_their_characters(mdbook_site):
    from askdocs.edge_runtime.app import create_app
    from askdocs.edge_runtime.settings import Settings
    from askdocs.edge_runtime.sse import parse
    from starlette.testclient import TestClient

    site, _ = mdbook_site
    settings = Settings.from_env(env={}, index=str(site / "_askdocs"), rate_limit=None)
    with TestClient(create_app(settings)) as client:
        question = {"message": "What happens to a rule's #[doc] attribute?"}
        events = parse(client.post("/api/chat", json=question).text)
    text = "".join(d["text"] for e, d in events if e == "token")
    done = next(d for e, d in events if e == "done")
    assert done["citations"][0]["title"] == "#[doc] attributes"
    assert "[#\\[doc\\] attributes](/attributes.html" in text  # Markdown-escaped, not `#(doc)`


def test_sphinx_source_code_and_asset_folders_are_not_pages(tmp_path, caplog):
    """viewcode's `_modules/` ("Source code for …") and `_static/` hold no documentation: left
    out, and the source pages counted in the log."""
    import logging

    from askdocs.plugin.sitedir import discover

    page = "<html><head><title>{0}</title></head><body><main><h1>{0}</h1><p>Text.</p></main></body></html>"
    for rel in ("index.html", "guide/tasks.html", "_modules/index.html", "_modules/pkg/mod.html",
                "_static/webpack-macros.html", "docs/_modules/other.html"):  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(page.format(rel))
    with caplog.at_level(logging.INFO, logger="askdocs.test"):
        found, _ = discover(tmp_path, None, logger=logging.getLogger("askdocs.test"))
    assert sorted(raw.url for raw in found.pages()) == ["/", "/guide/tasks.html"]
    assert "skipped 3 source-code page(s) of Sphinx's viewcode (_modules/)" in caplog.text
