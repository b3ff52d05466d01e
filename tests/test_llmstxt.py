"""llms.txt, llms-full.txt and Markdown twins: unit tests on records, checks on real builds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from askdocs.plugin.llmstxt import page_markdown, twin_path, write_llms_files

from askdocs.shards import PageRecord, load_shards, read_manifest
from tests.conftest import EXCLUDED_PHRASE, RESTRICTED_PHRASES
from tests.test_build import askdocs, files_containing


def record(url: str, title: str, content: str, *, locale="en", groups=(), kind="page", description=""):
    return PageRecord(
        url=url,
        title=title,
        locale=locale,
        groups=list(groups),
        lastmod=None,
        kind=kind,
        headings=[],
        links=[],
        word_count=len(content.split()),
        content_hash="",
        description=description,
        content=content,
    )


def test_twin_paths():
    assert twin_path("/") == "index.md"
    assert twin_path("/install/") == "install/index.md"
    assert twin_path("/guide/what-is-x.html") == "guide/what-is-x.md"
    assert twin_path("/api/v1") == "api/v1.md"
    assert twin_path("/caf%C3%A9/#top") == "café/index.md"


def test_page_markdown_links_and_source_line():
    page = record(
        "/guide/",
        "Guide #[doc]",
        "# Guide #[doc]\n\nSee [Install](/install/#linux), [Runbook](/internal/) and [logo](/img/a.png).\n",
    )
    text = page_markdown(page, "https://docs.example.com/v2", {"/guide/", "/install/"})
    assert text == (
        "# Guide #[doc]\n\nSource: https://docs.example.com/v2/guide/\n\n"
        "See [Install](https://docs.example.com/v2/install/#linux), Runbook and "
        "[logo](https://docs.example.com/v2/img/a.png).\n"
    )


def test_llms_txt_sections_locales_and_hidden_pages(tmp_path):
    pages = [
        record(
            "/",
            "Gizmo docs",
            "# Gizmo docs\n\nGizmo schedules batch jobs. It is fast.\n",
            description="Gizmo.",
        ),
        record(
            "/install/",
            "Install",
            "# Install\n\n```sh\npip install gizmo\n```\n\nRun the **installer**. Done.\n",
        ),
        record("/guides/", "Guides", "# Guides\n\n- [Cron](/guides/cron/)\n"),
        record("/guides/cron/", "Cron [advanced]", "# Cron\n\nCron lines run at 02:00.\n"),
        record("/tags/", "Tags", "# Tags\n\nAll tags.\n", kind="listing"),
        record("/es/", "Documentos de Gizmo", "# Documentos\n\nGizmo programa trabajos.\n", locale="es"),
        record("/secret/", "Secret", "# Secret\n\nWALRUS\n", groups=["staff"]),
    ]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "index.md").write_text("stale twin of a page that is now restricted")
    write_llms_files(tmp_path, "https://gizmo.example/", "en", pages, hidden_urls={"/old/", "/secret/"})
    llms = (tmp_path / "llms.txt").read_text()
    assert llms == (
        "# Gizmo docs\n\n> Gizmo.\n\n"
        "## Docs\n\n"
        "- [Gizmo docs](https://gizmo.example/index.md): Gizmo.\n"
        "- [Install](https://gizmo.example/install/index.md): Run the installer.\n\n"
        "## Guides\n\n"
        "- [Guides](https://gizmo.example/guides/index.md)\n"
        "- [Cron \\[advanced\\]](https://gizmo.example/guides/cron/index.md): Cron lines run at 02:00.\n\n"
        "## Other languages\n\n"
        "- [Documentos de Gizmo (es)](https://gizmo.example/es/llms.txt): Gizmo programa trabajos.\n\n"
        "## Optional\n\n"
        "- [Tags](https://gizmo.example/tags/index.md): All tags.\n"
    )
    spanish = (tmp_path / "es" / "llms.txt").read_text()
    assert spanish.startswith("# Documentos de Gizmo\n\n> Gizmo programa trabajos.\n\n## Docs\n")
    full = (tmp_path / "llms-full.txt").read_text()
    assert full.startswith("# Gizmo docs\n\n> Gizmo.\n\n# Gizmo docs\n\nSource: https://gizmo.example/\n")
    assert "pip install gizmo" in full and "Documentos" not in full
    assert "WALRUS" not in "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert not (tmp_path / "secret").exists() and not (tmp_path / "old" / "index.md").exists()


def test_example_site_llms_files_match_the_public_pages(example_site):
    site = example_site.site_dir
    shards = load_shards(example_site.shard_dir)
    base = read_manifest(example_site.shard_dir).site_url.rstrip("/")
    for page in shards.pages:
        twin = (site / twin_path(page.url)).read_text()
        for heading in page.headings:
            assert f"{'#' * heading.level} {heading.text}\n" in twin, (page.url, heading.text)
        assert f"Source: {base}{page.url}\n" in twin
    twins = {p.relative_to(site).as_posix() for p in site.rglob("*.md")}
    assert twins == {twin_path(p.url) for p in shards.pages}
    llms = (site / "llms.txt").read_text()
    assert llms.startswith("# Tallyfox Docs\n\n> Documentation for Tallyfox")  # MkDocs site_name
    linked = re.findall(r"^- \[.*?\]\((\S+)\)", llms, re.M)
    english = [p for p in shards.pages if p.locale == "en"]
    assert sorted(linked) == sorted([f"{base}/{twin_path(p.url)}" for p in english] + [f"{base}/es/llms.txt"])
    spanish = (site / "es" / "llms.txt").read_text()
    assert "- [Instalación](http://127.0.0.1:8000/es/install/index.md): " in spanish
    full = (site / "llms-full.txt").read_text()
    assert all(f"Source: {base}{p.url}\n" in full for p in english)
    assert "winget install" in full and "Instalación" not in full
    for name in ("llms.txt", "llms-full.txt", "es/llms.txt", "es/llms-full.txt"):
        text = (site / name).read_text()
        for phrase in [*RESTRICTED_PHRASES, EXCLUDED_PHRASE, "internal/runbook", "drafts/roadmap"]:
            assert phrase not in text, (name, phrase)
    assert not (site / "drafts" / "roadmap" / "index.md").exists()


def test_a_page_made_restricted_loses_its_twin(tmp_path, model_info):
    site = tmp_path / "site"
    (site / "ops").mkdir(parents=True)
    (site / "index.html").write_text(
        "<html lang='en'><head><title>Home</title></head><body><main><h1>Welcome</h1>"
        "<p>The gizmo scheduler runs batch jobs every night at 02:00.</p></main></body></html>"
    )
    ops = (
        "<html lang='en'><head>{meta}</head><body><main><h1>Ops</h1>"
        "<p>Pager code ORANGE LYNX.</p></main></body></html>"
    )
    (site / "ops" / "index.html").write_text(ops.format(meta=""))
    askdocs("build", str(site), "--private-dir", str(tmp_path / "private"), "-q")
    assert "ORANGE LYNX" in (site / "ops" / "index.md").read_text()
    assert "/ops/index.md" in (site / "llms.txt").read_text()
    (site / "ops" / "index.html").write_text(ops.format(meta='<meta name="askdocs:groups" content="staff">'))
    askdocs("build", str(site), "--private-dir", str(tmp_path / "private"), "-q")
    assert files_containing(site, "ORANGE LYNX") == []
    assert "/ops/" not in (site / "llms.txt").read_text()
    shutil.rmtree(tmp_path / "private")
    assert Path(site / "index.md").is_file()
