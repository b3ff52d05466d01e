"""Extraction on plain HTML strings: real theme output and hand-written pages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from askdocs.plugin.extract import (
    MAX_FRAMES,
    MAX_INDENT,
    extract,
    link_share,
    parse_faq_jsonld,
    strip_links,
    to_site_path,
)
from askdocs.plugin.listings import link_index

DATA = Path(__file__).parent / "data" / "html"
SITE = "https://docs.quokka.example/"


@pytest.mark.parametrize("theme", ["mkdocs", "readthedocs", "material"])
def test_mkdocs_themes_keep_content_and_drop_chrome(theme):
    page = extract((DATA / f"mkdocs-{theme}.html").read_bytes(), "/guide/", site_url=SITE)
    content = page.content
    assert page.title == "Configuring Quokka"
    assert page.locale == "en"
    assert content.startswith("# Configuring Quokka\n")
    # Code block verbatim (Pygments' markup drops the language name).
    assert "\n[server]\nport = 7000\nworkers = 8\n```" in content
    assert "\n```toml\n[server]" in content or "\n```\n[server]" in content
    # Table as pipe rows, admonition labelled.
    assert "| `port` | `7000` | Listen port |" in content
    assert "**Restart needed:** Changes take effect after `quokka restart`." in content
    # Headings with anchors; the permalink symbol is gone.
    assert [(h.level, h.text, h.anchor) for h in page.headings][1:] == [
        (2, "Options", "options"),
        (2, "Example", "example"),
    ]
    assert "¶" not in content
    # Navigation, search box, footer, "edit" links and theme UI are not content.
    for chrome in ("Search", "Previous", "Next", "Built with MkDocs", "Quokka Docs", "Home"):
        assert chrome not in content, chrome
    # Internal links stay as Markdown links with tracking parameters removed.
    assert "[the install page](/#top)" in content
    assert "/?lang=en" in page.links
    assert not any("utm_" in link for link in page.links)
    assert "utm_" not in content


def test_pelican_default_theme():
    page = extract((DATA / "pelican-notmyidea.html").read_bytes(), "/configuring-quokka.html")
    assert page.title == "Configuring Quokka"
    assert "Quokka reads `quokka.toml` at start-up." in page.content
    assert "```toml" in page.content or "port = 7000" in page.content
    assert "Quokka Blog" not in page.content  # site header is not content
    assert "Proudly powered by" not in page.content


def test_hand_written_page_metadata():
    html = b"""<!doctype html><html lang="es-MX"><head><meta charset="utf-8">
    <title>Gu\xc3\xada | Sitio</title>
    <meta name="askdocs:groups" content="staff, partners">
    <meta property="article:modified_time" content="2026-02-03T10:00:00Z">
    <meta name="description" content="Una gu\xc3\xada">
    <link rel="canonical" href="https://docs.quokka.example/es/guia/?utm_source=feed">
    </head><body><header><nav><a href="/">Inicio</a></nav></header>
    <main><h1 id="guia">Gu\xc3\xada</h1><p>Texto <strong>importante</strong>.</p>
    <h2 id="v2">Versi\xc3\xb3n 2 <time datetime="2026-05-01">1 mayo</time></h2><p>Nuevo.</p>
    </main><footer>Pie</footer></body></html>"""
    page = extract(html, "/es/guia/index.html", site_url=SITE, default_locale="en")
    assert page.locale == "es"
    assert page.url == "/es/guia/"
    assert page.groups == ["partners", "staff"]
    assert page.lastmod == "2026-02-03"
    assert page.description == "Una guía"
    assert page.title == "Guía"
    assert "Inicio" not in page.content and "Pie" not in page.content
    assert "Texto **importante**." in page.content
    dated = [b for b in page.blocks if b.kind == "heading" and b.text.startswith("Versión 2")]
    assert dated and dated[0].lastmod == "2026-05-01"


def test_exclusion_markers():
    excluded = extract(
        '<html><head><meta name="robots" content="noindex,follow"></head>'
        "<body><main><p>x</p></main></body></html>",
        "/a/",
    )
    assert excluded.exclude
    meta_excluded = extract(
        '<html><head><meta name="askdocs:exclude" content="true"></head>'
        "<body><main><p>x</p></main></body></html>",
        "/a/",
    )
    assert meta_excluded.exclude
    assert not extract("<html><body><main><p>x</p></main></body></html>", "/a/").exclude


def test_faq_jsonld_is_first_class():
    html = """<html><head><script type="application/ld+json">
    {"@context": "https://schema.org", "@graph": [{"@type": "FAQPage", "mainEntity": [
      {"@type": "Question", "name": "Is there a free tier?",
       "acceptedAnswer": {"@type": "Answer", "text": "<p>Yes, up to <b>3</b> hosts.</p>"}},
      {"@type": "Question", "name": "Can I self-host?",
       "acceptedAnswer": {"@type": "Answer", "text": "Always."}}]}]}
    </script></head><body><main><h1>FAQ</h1></main></body></html>"""
    page = extract(html, "/faq/")
    assert page.faqs == [("Is there a free tier?", "Yes, up to 3 hosts."), ("Can I self-host?", "Always.")]


def test_qapage_and_broken_jsonld_are_read_with_a_warning():
    pairs, warnings = parse_faq_jsonld(
        '{"@type": "QAPage", "mainEntity": {"@type": "Question", "name": "Why?",'
        ' "acceptedAnswer": {"text": "Because."},}}'
    )
    assert pairs == [("Why?", "Because.")]
    assert warnings


def test_broken_and_non_utf8_html_never_raise():
    page = extract(b"<html><body><main><p>caf\xe9 <b>bold<p>unclosed<div>", "/x/")
    assert "caf" in page.content and "unclosed" in page.content
    assert page.warnings  # invalid UTF-8 was reported
    latin1 = extract(
        '<html><head><meta charset="iso-8859-1"></head><body><main><p>Se\xf1or</p>'
        "</main></body></html>".encode("latin-1"),
        "/y/",
    )
    assert "Señor" in latin1.content and not latin1.warnings
    assert extract(b"", "/empty/").warnings


def test_page_without_main_takes_the_container_holding_its_text():
    """A theme that marks no main element (Bootstrap's `span9`, as in Django REST framework's
    MkDocs theme): the smallest element holding most of the page's readable text, code
    included; menus, the sidebar's table of contents, a search dialog and the footer stay out."""
    menu = "".join(f"<li><a href='/p{i}/'>Menu entry number {i}</a></li>" for i in range(30))
    toc = "".join(f"<li><a href='#s{i}'>Section heading {i}</a></li>" for i in range(12))
    paragraphs = "".join(
        f"<p>Paragraph {i} explains how the quokka scheduler batches work items.</p>" for i in range(6)
    )
    html = (
        "<html><body><div class='wrapper'>"
        f"<div class='navbar'><ul class='nav'>{menu}</ul></div>"
        "<div class='modal' role='dialog'><p>Type your search terms here and press enter to see "
        "results from the whole documentation site.</p></div>"
        "<div class='body-content'><div class='row'>"
        f"<div class='span3'><ul class='side-nav'>{toc}</ul></div>"
        f"<div class='span9'><h1>Scheduler</h1>{paragraphs}"
        "<pre><code>QUOKKA_BATCH = 64\nscheduler.run()</code></pre></div>"
        "</div></div></div><footer><p>Copyright the quokka authors, all rights reserved.</p></footer>"
        "</body></html>"
    )
    page = extract(html, "/scheduler/")
    assert "Paragraph 5 explains" in page.content
    assert "QUOKKA_BATCH = 64" in page.content
    for chrome in ("Menu entry", "Section heading", "search terms", "Copyright"):
        assert chrome not in page.content
    assert any("holding most of the page's text" in w for w in page.warnings)


def test_page_without_any_content_container_uses_boilerplate_removal():
    """No element holds most of the text (columns side by side under <body>) and most of the
    body's text is links (menus in bare divs): trafilatura picks the content."""
    column = "".join(
        f"<p>Paragraph {i} explains how the quokka scheduler batches work items for throughput "
        f"and fairness.</p>"
        for i in range(4)
    )
    menu = " ".join(f"<a href='/m{i}'>Menu entry number {i}</a>" for i in range(60))
    html = (
        f"<html><body><div class='menu'>{menu}</div>"
        f"<h1>Scheduler</h1><div class='left'>{column}</div><div class='right'>{column}</div>"
        f"<div class='footer'>Copyright links</div></body></html>"
    )
    page = extract(html, "/scheduler/")
    assert "Paragraph 3 explains" in page.content
    assert any("trafilatura" in w for w in page.warnings)


MAN_PAGE = """Content-type: text/html; charset=UTF-8

<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<HTML><HEAD><TITLE>Man page of QUOKKA</TITLE></HEAD><BODY>
<div class="menu"><a href="/index.html">Home</a> <a href="/docs.html">Documentation</a>
<a href="/download.html">Download</a> <a href="/support.html">Support</a></div>
<H1>QUOKKA</H1>
<div class="fancy_toc"><a onclick="toggle_toc()">&#x25ba; Table Of Contents</a>
<div><a href="#lbAB">NAME</a></div><div><a href="#lbAF">OPTIONS</a></div>
<div><a href="#lbAG">ENVIRONMENT</a></div><div><a href="#lbAH">FILES</a></div>
<div><a href="#lbAI">SEE ALSO</a></div></div>
Section: User Commands (1)<BR>
<A NAME="lbAB">&nbsp;</A>
<H2>NAME</H2>
quokka - schedule work items
<A NAME="lbAF">&nbsp;</A>
<H2>OPTIONS</H2>
<B>quokka</B> interprets the following options when it is invoked:
<DL COMPACT>
<DT><B>-c</B>
<DD>
If the <B>-c</B> option is present, then commands are read from the first non-option argument.
<DT><B>-i</B>
<DD>
If the <B>-i</B> option is present, the scheduler is interactive.
</DL>
<P>
The exit status is zero on success.
<A NAME="lbAG">&nbsp;</A>
<H2>ENVIRONMENT</H2>
<DL COMPACT>
<DT><B>QUOKKA_BATCH</B>
<DD>
The number of work items batched together. The default is 64.
</DL>
</BODY></HTML>
"""


def test_a_page_whose_body_is_its_content_keeps_its_sections_and_definitions():
    """man2html's manual pages (and SQLite's pages) put text, headings and lists straight in
    <body>: read whole, less the menu above the first heading and the table of contents.
    trafilatura, tried before, lost every heading (Bash's manual was one section) and split each
    option from its meaning."""
    page = extract(MAN_PAGE, "/quokka.html")
    assert [(h.level, h.text, h.anchor) for h in page.headings] == [
        (1, "QUOKKA", ""),
        (2, "NAME", "lbAB"),
        (2, "OPTIONS", "lbAF"),
        (2, "ENVIRONMENT", "lbAG"),
    ]
    assert "- **-i**: If the **-i** option is present, the scheduler is interactive." in page.content
    assert "- **QUOKKA_BATCH**: The number of work items batched together." in page.content
    # (the last anchor sits in the paragraph its <P> left open: still the heading's)
    assert "Download" not in page.content and "Content-type" not in page.content
    assert "Table Of Contents" not in page.content and "SEE ALSO" not in page.content  # its own TOC
    assert any("read the whole <body>" in w for w in page.warnings)


def test_docbook_pages_keep_every_section_their_notes_and_their_synopses():
    """DocBook (PostgreSQL): a section holding most of the text is one section among others, not
    the content; a note's `<h3 class="title">` labels the note and is no section; a synopsis made
    of `<code>` pieces is quoted whole."""
    regex = "".join(
        f"<p>Regular expression rule {i} is explained here at some length, with care.</p>" for i in range(40)
    )
    html = (
        "<html><head><title>9.7. Pattern Matching</title></head><body>"
        "<div class='navheader'><a href='/a.html'>Prev</a> <a href='/b.html'>Next</a></div>"
        "<div class='sect1' id='FUNCTIONS-MATCHING'><div class='titlepage'>"
        "<h2 class='title'>9.7. Pattern Matching</h2></div>"
        "<p>There are three separate approaches to pattern matching.</p>"
        "<div class='sect2' id='FUNCTIONS-LIKE'><div class='titlepage'>"
        "<h3 class='title'>9.7.1. LIKE</h3></div>"
        "<pre class='synopsis'><em class='replaceable'><code>string</code></em> LIKE "
        "<em class='replaceable'><code>pattern</code></em></pre>"
        "<p>The key word ILIKE can be used instead of LIKE to make the match case-insensitive "
        "according to the active locale. This is not in the SQL standard but is a PostgreSQL extension.</p>"
        "<div class='note'><h3 class='title'>Note</h3>"
        "<p>LIKE pattern matching always covers the entire string.</p></div>"
        "<p>To match a literal underscore or percent sign the respective character in pattern must be "
        "preceded by the escape character.</p></div>"
        "<div class='sect2' id='FUNCTIONS-POSIX'><div class='titlepage'>"
        f"<h3 class='title'>9.7.2. POSIX</h3></div>{regex}</div>"
        "</div><div class='navfooter'><a href='/a.html'>Prev</a></div></body></html>"
    )
    page = extract(html, "/functions-matching.html")
    assert [h.text for h in page.headings] == ["9.7. Pattern Matching", "9.7.1. LIKE", "9.7.2. POSIX"]
    assert "ILIKE can be used instead of LIKE" in page.content
    assert "**Note:** LIKE pattern matching always covers the entire string." in page.content
    assert "```\nstring LIKE pattern\n```" in page.content


def test_huge_page_is_extracted():
    body = "<p>" + ("word " * 200) + "</p>"
    html = "<html><body><main><h1>Big</h1>" + body * 5000 + "</main></body></html>"
    assert len(html) > 5_000_000
    page = extract(html, "/big/")
    assert page.word_count > 900_000


def test_a_broken_canonical_link_is_ignored():
    """Debian's build of Django REST framework's docs writes `../../https://www.django-rest-
    framework.org/api-guide/throttling/` as the canonical link: a relative link to an absolute
    URL. The page keeps its own URL (the build used to index it as `/https:/www.django-...`)."""
    html = (
        "<html><head><link rel='canonical' href='../../https://docs.quokka.example/api-guide/throttling/'>"
        "</head><body><main><h1>Throttling</h1><p>Rates are per user. See "
        "<a href='../../https://docs.quokka.example/api-guide/caching/'>caching</a>.</p></main></body></html>"
    )
    page = extract(html, "/api-guide/throttling/", site_url=SITE)
    assert page.url == "/api-guide/throttling/"
    assert page.links == []
    assert any("broken canonical" in w for w in page.warnings)


def test_to_site_path():
    assert to_site_path("../b/#x", "/a/c/", SITE) == "/a/b/#x"
    assert to_site_path("https://docs.quokka.example/z/?utm_medium=m&q=1", "/", SITE) == "/z/?q=1"
    assert to_site_path("https://elsewhere.example/z/", "/", SITE) is None
    assert to_site_path("mailto:a@b.c", "/", SITE) is None
    sub = "https://x.example/docs/"
    assert to_site_path("https://x.example/docs/p/", "/", sub) == "/p/"
    assert to_site_path("https://x.example/other/", "/", sub) is None


def test_strip_links():
    assert strip_links("see [Networking](/networking/#proxy) and [x](y)") == "see Networking and [x](y)"


def test_a_list_item_holding_an_example_keeps_its_order():
    # Material for MkDocs: a list item with an explanation, tabbed examples, each with its
    # numbered code annotations, then a closing sentence.
    annotations = "<ol><li><p>Return the value you checked.</p></li></ol>"
    html = (
        "<html><body><main><h1>Validators</h1><ul><li>"
        "<p><strong>After validators</strong>: run after the internal validation.</p>"
        "<div class='tabbed-set'><div class='tabbed-block'>"
        f"<pre><code>check = AfterValidator(is_even)  # (1)!</code></pre>{annotations}</div>"
        "<div class='tabbed-block'>"
        f"<pre><code>@field_validator('n')  # (1)!</code></pre>{annotations}</div></div>"
        "<p>The returned value is what the model stores.</p>"
        "</li><li><p>Plain validators: stop at once.</p></li></ul></main></body></html>"
    )
    page = extract(html, "/validators/")
    assert [(b.kind, b.text) for b in page.blocks[1:]] == [
        ("list", "- **After validators**: run after the internal validation."),
        ("code", "```\ncheck = AfterValidator(is_even)  # (1)!\n```"),
        ("list", "  1. Return the value you checked."),  # once, not once per tab
        ("code", "```\n@field_validator('n')  # (1)!\n```"),
        ("para", "The returned value is what the model stores."),
        ("list", "- Plain validators: stop at once."),
    ]


def test_sphinx_api_entries_are_sections_of_their_own():
    # Sphinx autodoc: one h2 holds many entries; each `dt.sig-object[id]` is a section of its
    # own, as mkdocstrings renders them on MkDocs (a method one level below its class).
    html = (
        "<html><body><main><h1>API</h1><section><h2 id='types'>Types</h2>"
        "<dl class='py class'><dt class='sig sig-object py' id='quokka.Choice'>"
        "<em class='property'>class </em><span class='sig-prename descclassname'>quokka.</span>"
        "<span class='sig-name descname'>Choice</span>(<em>choices</em>)"
        "<a class='headerlink' href='#quokka.Choice'>¶</a></dt>"
        "<dd><p>Checks a value against a fixed set of choices.</p>"
        "<dl class='py method'><dt class='sig sig-object py' id='quokka.Choice.convert'>"
        "<span class='sig-name descname'>convert</span>(<em>value</em>)</dt>"
        "<dd><p>Returns the matching choice.</p></dd></dl></dd></dl>"
        "<dl class='field-list simple'><dt class='field-odd'>Parameters</dt><dd>none</dd></dl>"
        "</section></main></body></html>"
    )
    page = extract(html, "/api/")
    assert [(h.level, h.text, h.anchor) for h in page.headings] == [
        (1, "API", ""),
        (2, "Types", "types"),
        (3, "quokka.Choice", "quokka.Choice"),
        (4, "convert", "quokka.Choice.convert"),
    ]
    assert "### quokka.Choice\n\nclass quokka.Choice(choices)\n\nChecks a value" in page.content
    assert "#### convert\n\nconvert(value)\n\nReturns the matching choice." in page.content


def test_code_right_after_code_is_one_span():
    # Older Sphinx writes a signature's module and name as two <code>s (pyte, bitstring, doit):
    # side by side they read "`pyte.screens.``HistoryScreen`", a broken span in Markdown. Code
    # apart from code stays apart.
    html = (
        "<html><body><main><h1>API</h1><dl class='class'><dt id='pyte.screens.HistoryScreen'>"
        "<em class='property'>class </em><code class='descclassname'>pyte.screens.</code>"
        "<code class='descname'>HistoryScreen</code>(<em>columns</em>, <em>lines</em>)</dt>"
        "<dd><p>A screen that keeps <code>history</code> <code>lines</code>, see "
        "<code>Request.</code><code>meta</code>.</p></dd></dl></main></body></html>"
    )
    page = extract(html, "/api.html")
    assert "`pyte.screens.HistoryScreen`" in page.content, page.content
    assert "``" not in page.content
    assert "keeps `history` `lines`, see `Request.meta`." in page.content


def test_a_definition_keeps_its_term():
    # reST definition lists (environment variables, options, glossaries): the definition's first
    # sentence leads with its term, as a list item; a field list ("Parameters:") is left alone.
    html = (
        "<html><body><main><h1>Environment</h1><p>Quokka reads:</p><dl class='simple'>"
        "<dt>QUOKKA_TOKEN</dt><dd><p>When set, used as the API token.</p><p>Overrides the file.</p></dd>"
        "<dt><code>QUOKKA_HOME</code></dt><dt>QUOKKA_DIR</dt><dd><p>Where state is kept.</p></dd>"
        "<dt>Lonely term</dt></dl>"
        "<dl class='field-list simple'><dt>Parameters:</dt><dd><p>none</p></dd></dl>"
        "</main></body></html>"
    )
    page = extract(html, "/env/")
    assert [(b.kind, b.text) for b in page.blocks[2:]] == [
        ("list", "- **QUOKKA_TOKEN**: When set, used as the API token."),
        ("para", "Overrides the file."),
        ("list", "- **`QUOKKA_HOME`** / **QUOKKA_DIR**: Where state is kept."),
        ("para", "**Lonely term**"),
        ("para", "Parameters:"),
        ("para", "none"),
    ]


def test_nested_list_items_are_kept():
    # Items of a nested list used to vanish with the list they were nested in.
    html = (
        "<html><body><main><h1>Errors</h1><ul><li>HTTPError<ul><li>RequestError<ul>"
        "<li>TimeoutException</li></ul></li><li>HTTPStatusError</li></ul></li><li>InvalidURL</li>"
        "</ul></main></body></html>"
    )
    assert extract(html, "/errors/").content == (
        "# Errors\n\n- HTTPError\n  - RequestError\n    - TimeoutException\n"
        "  - HTTPStatusError\n- InvalidURL\n"
    )


def test_pathological_nesting_is_bounded():
    # Deeply nested lists, tables and definition lists: the text is kept, in bounded time
    # and without running out of stack (each level used to restart the depth count).
    for opening, closing in (
        ("<ul><li>", "</li></ul>"),
        ("<table><tr><td>", "</td></tr></table>"),
        ("<dl><dt>term</dt><dd>", "</dd></dl>"),
        ("<ul><li><div>", "</div></li></ul>"),
    ):
        html = f"<html><body><main><h1>Deep</h1>{opening * 3000}bottom{closing * 3000}</main></body></html>"
        page = extract(html, "/deep/")
        assert "bottom" in page.content, opening
    # No content element: the body is read whole and searched for its table of contents, a
    # bounded number of levels down (checking every level of 2,000 nested divs took 29 s).
    level = "<div>Some plain words to read at this level <a href='#top'>up</a>"
    page = extract(f"<html><body><h1>Deep</h1>{level * 3000}bottom{'</div>' * 3000}</body></html>", "/deep/")
    assert "bottom" in page.content and any("read the whole <body>" in w for w in page.warnings)


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def test_nesting_is_bounded_in_stack_frames_whatever_it_is_made_of():
    # The guard counts the frames each kind of nesting costs (a table cell four, a list
    # item three, a link two), so a walk never needs more than MAX_FRAMES of stack: every
    # nesting below passes with only that much headroom (plus a margin for the leaf calls),
    # where counting nesting levels let a deep table or definition list use 4 frames a level.
    nestings = (
        ("<ul><li>", "</li></ul>"),
        ("<ol><li><p>", "</p></li></ol>"),
        ("<table><tr><td>", "</td></tr></table>"),
        ("<dl><dt>term</dt><dd>", "</dd></dl>"),
        ("<dl><dt>te<table><tr><td>rm", "</td></tr></table></dt><dd>d</dd></dl>"),
        ("<div class='admonition note'><p class='admonition-title'>N</p>", "</div>"),
        ("<details><summary>S</summary>", "</details>"),
        ("<a href='/x/'><span>", "</span></a>"),
        ("<ul><li><table><tr><td><div class='admonition'>", "</div></td></tr></table></li></ul>"),
    )
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_stack_depth() + MAX_FRAMES + 60)
        for opening, closing in nestings:
            deep = f"{opening * 2000}bottom{closing * 2000}"
            html = f"<html><body><main><h1>Deep</h1>{deep}</main></body></html>"
            assert "bottom" in extract(html, "/deep/").content, opening
    finally:
        sys.setrecursionlimit(limit)


def test_ordinary_nesting_keeps_its_structure():
    # Thirty levels of nested lists (far deeper than any real page) are still a list tree.
    html = "<html><body><main><h1>T</h1>" + "<ul><li>x" * 30 + "</li></ul>" * 30 + "</main></body></html>"
    lines = extract(html, "/t/").content.splitlines()
    assert lines[2] == "- x" and lines[-1] == "  " * MAX_INDENT + "- x" and len(lines) == 32


def _page(body: str, head: str = "") -> str:
    return f"<html lang='en'><head><title>T</title>{head}</head><body>{body}</body></html>"


def test_sphinx_headings_take_their_sections_anchor():
    """Sphinx puts the id on the section and a permalink in the heading; a `.. contents::`
    back-link inside the heading points at the table of contents, not the section."""
    html = _page(
        "<div role='main'><section id='tasks'><h1>Tasks<a class='headerlink' href='#tasks'>¶</a></h1>"
        "<nav class='contents' id='contents'><ul><li><a href='#basics' id='id5'>Basics</a></li></ul></nav>"
        "<section id='basics'><span id='task-basics'></span>"
        "<h2><a class='toc-backref' href='#id5' role='doc-backlink'>Basics</a>"
        "<a class='headerlink' href='#basics'>¶</a></h2><p>Create a task from any callable.</p>"
        "<div class='section' id='names'><h3>Names<a class='headerlink' href='#names'>¶</a></h3>"
        "<p>Every task has a name.</p><h4>Loose<a class='headerlink' href='#loose'>¶</a></h4>"
        "<p>Only a permalink.</p></div>"
        "<span id='ref-target'></span><h3>Targeted</h3><p>A reference target before it.</p>"
        "</section></section></div>"
    )
    page = extract(html, "/userguide/tasks.html")
    assert [(h.level, h.text, h.anchor) for h in page.headings] == [
        (1, "Tasks", "tasks"),
        (2, "Basics", "basics"),
        (3, "Names", "names"),
        (4, "Loose", "loose"),
        (3, "Targeted", "ref-target"),
    ]
    assert "¶" not in page.content and "Basics](" not in page.content
    untitled = "<html><head><title>&lt;no title&gt; &#8212; Celery documentation</title></head>"
    untitled += "<body><div role='main'><p>See the contributing guide.</p></div></body></html>"
    assert extract(untitled, "/contributing.html").title == "Contributing"
    # A broken build's title (Markdown read as reStructuredText: "<title>) — Black</title>", no
    # h1) names nothing: the page is named after its file, its folder for an index page.
    broken = untitled.replace("&lt;no title&gt;", ")")
    assert extract(broken, "/usage_and_configuration/the_basics.html").title == "The basics"
    assert extract(broken, "/usage_and_configuration/index.html").title == "Usage and configuration"
    assert extract(broken, "/index.html").title == "/index.html"
    # Nor is a heading that holds no word: its text stays with the section before it.
    stray = extract(broken.replace("<p>See", "<h2>Usage</h2><p>Run it.</p><h2>)</h2><p>See"), "/guide.html")
    assert stray.title == "Guide" and [h.text for h in stray.headings] == ["Usage"]
    assert stray.content.strip().endswith("Run it.\n\nSee the contributing guide.")


def test_docutils_asides_and_hidden_tab_panels_are_content():
    """docutils >= 0.18 writes topics, sidebars and footnotes as <aside>; tab widgets hide all
    panels but one with `hidden`. Both hold text a reader reads; other asides and hidden
    elements do not."""
    html = _page(
        "<main><h1>Intro</h1><aside class='topic'><p class='topic-title'>Celery is…</p>"
        "<p>A simple, flexible and reliable distributed system.</p></aside>"
        "<aside class='sidebar'><p>Requires Python 3.7.</p></aside>"
        "<p>Text<a class='footnote-reference brackets' href='#f1'>1</a>.</p>"
        "<aside class='footnote-list brackets'><aside class='footnote brackets' id='f1'>"
        "<span class='label'><span class='fn-bracket'>[</span><a role='doc-backlink' href='#r1'>1</a>"
        "<span class='fn-bracket'>]</span></span><p>The footnote's words.</p></aside></aside>"
        "<aside class='related'><p>Related pages chrome.</p></aside>"
        "<div class='sphinx-tabs'><div role='tablist'><button role='tab' id='t1'>DataFrame</button>"
        "<button role='tab' id='t2'>Array</button></div>"
        "<div role='tabpanel' aria-labelledby='t1'><p>df = dd.read_csv(path)</p></div>"
        "<div role='tabpanel' aria-labelledby='t2' hidden='true'><p>x = da.ones((10, 10))</p></div></div>"
        "<p hidden>Not shown.</p></main>"
    )
    content = extract(html, "/intro/").content
    for kept in ("Celery is…", "distributed system", "Requires Python 3.7", "footnote's words", "da.ones"):
        assert kept in content, kept
    assert "Celery is…\n\nA simple" in content  # the topic is its own blocks, not glued inline
    assert "[1]\n\nThe footnote's words." in content  # the label, not a link back
    assert "Related pages chrome" not in content and "Not shown" not in content
    # Each panel is led by its tab's label (the panel names its tab by aria-labelledby).
    assert "**DataFrame**\n\ndf = dd.read_csv(path)" in content and "**Array**\n\nx = da.ones" in content


def test_numpydoc_parameters_keep_their_type_apart():
    html = _page(
        "<main><h1>rechunk</h1><dl class='field-list'><dt class='field-odd'>Parameters</dt>"
        "<dd class='field-odd'><dl><dt><strong>balance</strong><span class='classifier'>bool, default "
        "False</span></dt><dd><p>If True, make each chunk the same size.</p></dd>"
        "<dt><strong>x</strong></dt><dd><p>The array.</p></dd></dl></dd></dl></main>"
    )
    content = extract(html, "/rechunk/").content
    assert "- **balance : bool, default False**: If True, make each chunk the same size." in content
    assert "- **x**: The array." in content
    assert "****" not in content


def test_theme_chrome_of_pydata_and_sphinx_and_a_banner_above_the_title_are_dropped():
    html = _page(
        "<main><div class='deck'><p>This document describes the current stable version (5.2).</p></div>"
        "<div class='bd-toc'><div class='tocsection onthispage'>Contents</div></div>"
        "<section id='api'><h1>API<a class='headerlink' href='#api'>¶</a></h1>"
        "<dl class='py function'><dt class='sig sig-object py' id='m.f'><span class='sig-name'>f</span>"
        "<a class='reference internal' href='_modules/m.html#f'><span class='viewcode-link'>"
        "<span class='pre'>[source]</span></span></a></dt><dd><p>Does f.</p></dd></dl></section>"
        "<div class='prev-next-area'><a class='left-prev' href='a.html'><p class='prev-next-subtitle'>"
        "previous</p><p class='prev-next-title'>Arrays</p></a></div></main>"
    )
    page = extract(html, "/api.html")
    assert page.content.startswith("# API\n")
    assert [h.text for h in page.headings] == ["API", "f"]
    for gone in ("stable version", "Contents", "[source]", "previous", "Arrays"):
        assert gone not in page.content, gone
    # Text above the title that is more than a banner stays.
    long = " ".join(["word"] * 80)
    kept = extract(_page(f"<main><p>{long}</p><h1>T</h1><p>Body.</p></main>"), "/t/")
    assert long in kept.content and kept.content.startswith("# T\n")


def test_texinfo_pages_are_read_whole_without_their_navigation():
    """makeinfo (GNU manuals) has no content element: the body is the node. A section that
    holds most of the text does not make the chapter's own introduction disappear."""
    section = "<p>" + "Options change how diff compares files. " * 60 + "</p>"
    html = (
        "<html><head><title>Invoking diff (Comparing and Merging Files)</title>"
        "<meta name='Generator' content='makeinfo'></head><body lang='en'>"
        "<div class='chapter' id='Invoking-diff'><div class='header'><p>Next: <a href='x.html' "
        "accesskey='n' rel='next'>Invoking diff3</a>, Up: <a href='index.html'>Top</a></p></div>"
        "<span id='Invoking-diff-1'></span><h2 class='chapter'>13 Invoking <code>diff</code></h2>"
        "<p>The format for running the <code>diff</code> command is:</p>"
        "<pre class='example'>diff options… files…</pre>"
        "<dl><dt><span><code>--color</code><a class='copiable-link' href='#index-color'> ¶</a></span></dt>"
        "<dd><p>Use color.</p></dd></dl>"
        f"<div class='section' id='diff-Options'><h3 class='section'>13.1 Options</h3>{section}</div>"
        "<hr><div class='header'><p>Next: <a href='x.html'>Invoking diff3</a></p></div></div></body></html>"
    )
    page = extract(html, "/Invoking-diff.html")
    assert page.title == "Invoking diff"
    assert "The format for running the `diff` command is:" in page.content
    assert "- **`--color`**: Use color." in page.content
    assert [(h.text, h.anchor) for h in page.headings][1:] == [
        ("13 Invoking diff", "Invoking-diff"),
        ("13.1 Options", "diff-Options"),
    ]
    assert "Next:" not in page.content and "¶" not in page.content and page.warnings == []


def test_a_texinfo_manuals_indices_are_not_read():
    """`@printindex` writes a table of "entry: section" links after a "Jump to:" table of letters
    (makeinfo 6 classes it `index-pr`, 7 `pr-entries-printindex`): it points elsewhere, and on a
    one-page manual its rows led answers. The index's own introduction stays."""
    letters = (
        "<table><tr><th valign='top'>Jump to: &nbsp; </th><td>"
        "<a class='summary-letter' href='#pr_letter-A'><b>A</b></a></td></tr></table>"
    )
    entries = (
        "<tr><td></td><th align='left'>Index Entry</th><td>&nbsp;</td><th align='left'> Section</th></tr>"
        "<tr><td></td><td valign='top'><a href='#index-AC_005fDEFINE'><code>AC_DEFINE</code></a>:</td>"
        "<td>&nbsp;</td><td valign='top'><a href='#Defining-Symbols'>Defining Symbols</a></td></tr>"
    )
    html = (
        "<html><head><title>Autoconf</title><meta name='Generator' content='makeinfo'></head><body lang='en'>"
        "<div class='section' id='Defining-Symbols'><h3>7.1 Defining C Preprocessor Symbols</h3>"
        "<p>Use <code>AC_DEFINE</code> to define a preprocessor symbol.</p></div>"
        "<div class='appendixsec' id='Macro-Index'><h3>B.1 Macro Index</h3>"
        f"<p>This is an alphabetical list of the Autoconf macros.</p>{letters}"
        f"<table class='index-pr' border='0'>{entries}</table>{letters}</div>"
        "<div class='appendixsec' id='Symbol-Index'><h3>B.2 Symbol Index</h3>"
        "<table class='pr-letters-header-printindex'><tr><th>Jump to: </th><td>"
        "<a class='summary-letter-printindex' href='#x'><b>A</b></a></td></tr></table>"
        f"<table class='pr-entries-printindex' border='0'>{entries}</table></div></body></html>"
    )
    page = extract(html, "/autoconf.html")
    assert "Use `AC_DEFINE` to define a preprocessor symbol." in page.content
    assert "This is an alphabetical list of the Autoconf macros." in page.content
    for gone in ("Index Entry", "Jump to", "[`AC_DEFINE`]", "[Defining Symbols]"):
        assert gone not in page.content, gone


def test_docusaurus_admonitions_tabs_and_mobile_table_of_contents():
    """Docusaurus: the "On this page" list sits inside the article (for phones), admonitions are
    `theme-admonition` with a hashed heading class, and every tab panel but the first is hidden."""
    html = _page(
        "<main><article><div class='theme-doc-toc-mobile tocCollapsible_ETCw'><button>On this page</button>"
        "<div><ul class='table-of-contents'><li><a href='#windows'>Windows</a></li></ul></div></div>"
        "<div class='theme-doc-markdown markdown'><header><h1>Install</h1></header>"
        "<h2 class='anchor' id='windows'>Windows<a href='#windows' class='hash-link'>\u200b</a></h2>"
        "<div class='theme-admonition theme-admonition-tip admonition_xJq3 alert'>"
        "<div class='admonitionHeading_Gvgb'><span><svg></svg></span>tip</div>"
        "<div class='admonitionContent_BuS1'><p>Run as administrator.</p></div></div>"
        "<div class='tabs-container'><ul role='tablist'><li role='tab'>winget</li><li role='tab'>msi</li>"
        "</ul>"
        "<div role='tabpanel'><pre class='language-bash'><code>"
        "winget install acme</code></pre></div><div role='tabpanel' hidden=''><pre class='language-bash'>"
        "<code>msiexec /i acme.msi /qn</code></pre></div></div></div></article></main>"
    )
    page = extract(html, "/docs/install")
    assert [(h.text, h.anchor) for h in page.headings] == [("Install", ""), ("Windows", "windows")]
    assert "**Tip:** Run as administrator." in page.content
    assert "**msi**\n\n```bash\nmsiexec /i acme.msi /qn\n```" in page.content
    assert "**winget**\n\n```bash\nwinget install acme" in page.content and "- winget" not in page.content
    assert "On this page" not in page.content and "[Windows]" not in page.content
    # Other themes' titles keep their case ("dump_json returns bytes" names a method).
    material = "<div class='admonition note'><p class='admonition-title'>dump_json returns bytes</p>"
    material += "<p>It does.</p></div>"
    assert (
        "**dump_json returns bytes:** It does."
        in extract(_page(f"<main><h1>T</h1>{material}</main>"), "/t/").content
    )


def test_doxygen_pages_take_their_content_title_and_code_fragments():
    head = "<meta name='generator' content='Doxygen 1.9.1'/>"
    body = (
        "<div id='top'><div id='titlearea'>LMDB 0.9.24</div><div id='main-nav'></div></div>"
        "<div class='header'><div class='summary'><a href='#func-members'>Functions</a></div>"
        "<div class='headertitle'><div class='title'>Getting Started</div></div></div>"
        "<div class='contents'><div class='textblock'><p>Everything starts with an environment. "
        "<a href='#details'>More...</a></p><div class='fragment'><div class='line'>"
        "<span class='lineno'>    1</span>MDB_env *env;</div><div class='line'>"
        "<span class='lineno'>    2</span>  mdb_env_create(&amp;env);</div></div>"
        "<a name='details' id='details'></a><h2 class='groupheader'>Detailed Description</h2>"
        "<a id='ga1' name='ga1'></a><h2 class='memtitle'><span class='permalink'>"
        "<a href='#ga1'>&#9670;&nbsp;</a></span>mdb_env_open()</h2><p>Open an environment.</p></div></div>"
        "<hr class='footer'/><address class='footer'>Generated by doxygen</address>"
    )
    page = extract(_page(body, head), "/starting.html")
    assert page.title == "Getting Started" and page.warnings == []
    assert "```\nMDB_env *env;\n  mdb_env_create(&env);\n```" in page.content
    assert [(h.text, h.anchor) for h in page.headings] == [
        ("Getting Started", ""),
        ("Detailed Description", "details"),
        ("mdb_env_open()", "ga1"),
    ]
    for gone in ("More...", "◆", "LMDB 0.9.24", "Functions", "Generated by"):
        assert gone not in page.content, gone
    assert extract(_page(body, head), "/lmdb_8h_source.html").exclude
    assert extract(_page(body, head), "/search/all_0.html").exclude
    frame = "<div class='SRPage'><div class='SRStatus' id='Loading'>Loading...</div></div>"
    assert extract(_page(frame, head), "/search/all_1.html").exclude  # no div.contents at all
    assert not extract(_page(body), "/search/all_0.html").exclude  # another generator's page


def test_vitepress_and_docsy_pages():
    vitepress = _page(
        "<div class='VPDoc'><div class='aside'><div class='VPDocAside'><nav class='VPDocAsideOutline'>"
        "<div class='outline-title'>On this page</div></nav></div></div><main class='main'>"
        "<div class='vp-doc'><h1 id='start' tabindex='-1'>Getting Started <a class='header-anchor' "
        "href='#start' aria-label='Permalink to &quot;Getting Started&quot;'>\u200b</a></h1>"
        "<div class='tip custom-block'><p class='custom-block-title'>Compatibility Note</p>"
        "<p>Vite requires Node.js version 18+.</p></div><div class='vp-code-group'><div class='tabs'>"
        "<input type='radio' id='t1'><label for='t1'>npm</label></div><div class='blocks'>"
        "<div class='language-bash vp-adaptive-theme active'><button class='copy'></button>"
        "<span class='lang'>bash</span><pre class='shiki'><code><span class='line'>$ npm create vite@latest"
        "</span></code></pre></div></div></div></div></main><footer class='VPDocFooter'>"
        "<div class='edit-link'><a href='https://github.com/x/edit'>Suggest changes</a></div></footer></div>"
    )
    page = extract(vitepress, "/guide/")
    assert page.content == (
        "# Getting Started\n\n**Compatibility Note:** Vite requires Node.js version 18+.\n\n"
        "**npm**\n\n```bash\n$ npm create vite@latest\n```\n"
    )
    docsy = _page(
        "<main role='main'><div class='td-content'><h1>Install</h1><div class='lead'>Get the CLI.</div>"
        "<p>Run the installer.</p><div class='d-print-none'><h2 class='feedback--title'>Feedback</h2>"
        "<p class='feedback--question'>Was this page helpful?</p><button>Yes</button></div>"
        "<div class='td-page-meta__lastmod'>Last modified March 3, 2024</div></div></main>"
    )
    content = extract(docsy, "/docs/install/").content
    assert content == "# Install\n\nGet the CLI.\n\nRun the installer.\n"


def test_rdoc_methods_are_sections_without_their_hidden_source():
    html = _page(
        "<main role='main'><h1 id='class-Doc'>class Doc</h1>"
        "<section id='public-methods' class='method-section'>"
        "<header><h3>Public Instance Methods</h3></header>"
        "<div id='method-i-title' class='method-detail'><div class='method-heading'>"
        "<span class='method-name'>title</span><span class='method-args'>()</span>"
        "<span class='method-click-advice'>click to toggle source</span></div>"
        "<div class='method-description'><p>Return the doctitle.</p><div class='method-source-code'>"
        "<pre># File lib/doc.rb, line 683\ndef title\n  doctitle\nend</pre></div></div></div>"
        "</section></main>"
    )
    page = extract(html, "/Doc.html")
    assert [(h.level, h.text, h.anchor) for h in page.headings] == [
        (1, "class Doc", "class-Doc"),
        (3, "Public Instance Methods", "public-methods"),
        (4, "title()", "method-i-title"),
    ]
    assert page.content.endswith("#### title()\n\nReturn the doctitle.\n")
    assert "click to toggle" not in page.content and "lib/doc.rb" not in page.content


def test_material_tabs_lead_with_their_labels_nested_sets_included():
    html = _page(
        "<main><h1>Body</h1><div class='tabbed-set tabbed-alternate'><input id='__t1' type='radio'>"
        "<input id='__t2' type='radio'><div class='tabbed-labels'><label for='__t1'>Python 3.10+</label>"
        "<label for='__t2'>Python 3.10+ non-Annotated</label></div><div class='tabbed-content'>"
        "<div class='tabbed-block'><pre><code>a: Annotated[str, Body()]</code></pre></div>"
        "<div class='tabbed-block'><div class='tabbed-set'><div class='tabbed-labels'><label>Linux</label>"
        "</div><div class='tabbed-content'><div class='tabbed-block'><p>pip install x</p></div></div></div>"
        "</div></div></div></main>"
    )
    content = extract(html, "/body/").content
    assert "**Python 3.10+**\n\n```\na: Annotated[str, Body()]\n```" in content
    assert "**Python 3.10+ non-Annotated**\n\n**Linux**\n\npip install x" in content


def test_sphinx_inline_tabs_lead_with_their_labels():
    """sphinx-inline-tabs (Furo's tabs) writes each tab as a radio input, its label and its panel:
    Flask-Limiter's storage backends showed three `Limiter(...)` examples and never said which was
    Redis."""
    html = _page(
        "<main><h1>Storage</h1><p>Here are a few common examples:</p>"
        "<div class='tab-set docutils container'>"
        "<input checked='True' class='tab-input' id='t1' name='s' type='radio'>"
        "<label class='tab-label' for='t1'>Memcached</label>"
        "<div class='tab-content docutils container'><pre>storage_uri='memcached://localhost:11211'</pre></div>"
        "<input class='tab-input' id='t2' name='s' type='radio'>"
        "<label class='tab-label' for='t2'>Redis</label>"
        "<div class='tab-content docutils container'><p>Passed to <code>from_url()</code>.</p>"
        "<pre>storage_uri='redis://localhost:6379'</pre></div></div></main>"
    )
    content = extract(html, "/storage/").content
    assert "**Memcached**\n\n```\nstorage_uri='memcached://localhost:11211'\n```" in content, content
    assert "**Redis**\n\nPassed to `from_url()`.\n\n```\nstorage_uri='redis://localhost:6379'" in content
    assert content.count("Redis") == 1, content


def test_docbooks_screenshot_frames_icon_notes_and_questions_read_as_what_they_are():
    """aptitude's manual (DocBook): each screenshot sits in a one-cell layout table with a "[D]"
    link to its long description, each tip in a table of its icon, its title and its text, and
    the FAQ is a `qandaset` table of question and answer rows. Read as tables, "| [search
    dialog] |" led "How do I search for packages by name?", a tip's sentence was a row under the
    header "[Tip] | Tip", and every answer of the FAQ a row of one table under no question."""
    html = _page(
        "<div class='chapter'><h1 class='title'>Finding packages</h1>"
        "<p>To quickly find a package, press <strong>/</strong> to open a search dialog:</p>"
        "<div class='screenshot'><div class='mediaobject'>"
        "<table summary='manufactured viewport for HTML img'>"
        "<tr><td><img src='s.png' alt='[search dialog]'></td></tr></table><div class='longdesc-link'>"
        "[<a href='ld-1.html'>D</a>]</div></div></div>"
        "<div class='tip'><table summary='Tip'><tr><td rowspan='2'><img alt='[Tip]' src='tip.png'></td>"
        "<th>Tip</th></tr><tr><td><p>You can search backwards by pressing <strong>\\</strong>.</p></td></tr>"
        "</table></div>"
        "<div class='qandaset'><table><tbody><tr class='question'><td><a id='q1'></a><p><strong>3.1."
        "</strong></p></td><td><p>How can I find\n broken packages?</p></td></tr><tr class='answer'><td></td>"
        "<td><p>Use the command Search → Find Broken.</p></td></tr></tbody></table></div></div>"
    )
    page = extract(html, "/ch01.html")
    content = page.content
    tip = "search dialog:\n\n[search dialog]\n\n**Tip:** You can search backwards by pressing"
    assert tip in content, content
    assert "[D]" not in content and "| [Tip]" not in content and "|" not in content, content
    assert "## How can I find broken packages?\n\nUse the command Search → Find Broken." in content, content
    assert ("How can I find broken packages?", "q1") in [(h.text, h.anchor) for h in page.headings]
    # Publican's sidebars (the Debian Administrator's Handbook's "NOTE dpkg or apt?", 420 of them) are
    # notes titled by their title page, the title's own words spaced as written.
    sidebar = _page(
        "<main><h1>dpkg</h1><div class='sidebar'><div class='titlepage'><div><div><p class='title'>"
        "<strong><span class='emphasis'><em>NOTE</em></span> <code class='command'>dpkg</code> or "
        "<code class='command'>apt</code>?</strong></p></div></div></div>"
        "<div class='para'>`dpkg` is a system tool.</div></div></main>"
    )
    assert "**NOTE dpkg or apt?** `dpkg` is a system tool." in extract(sidebar, "/d.html").content
    # A warning that opens with a table of its own (no icon beside a title) keeps its table.
    own = _page(
        "<main><h1>T</h1><div class='warning'><table><tr><th>Option</th><th>Meaning</th></tr>"
        "<tr><td>-x</td><td>exit</td></tr></table></div></main>"
    )
    assert "| Option | Meaning |\n| --- | --- |\n| -x | exit |" in extract(own, "/t.html").content


def test_a_language_switcher_goes_and_a_row_labelled_by_its_th_is_no_header():
    """The Apache manual opens every page with "Available Languages: en | fr | ko" (links with
    `hreflang`), which led an answer; and each directive's summary is a table whose rows are
    labelled by a <th> ("Description:", "Syntax:"), whose first row was read as the header: every
    other row was quoted "Syntax: — Enables HTTP persistent connections: `KeepAlive On|Off`"."""
    html = _page(
        "<div id='page-content'><h1>Core Features</h1><div class='toplang'><p><span>Available Languages: "
        "</span><a href='../en/core.html' title='English'>&nbsp;en&nbsp;</a> |\n"
        "<a href='../fr/core.html' hreflang='fr' rel='alternate'>&nbsp;fr&nbsp;</a> |\n"
        "<a href='../ko/core.html' hreflang='ko' rel='alternate'>&nbsp;ko&nbsp;</a></p></div>"
        "<p>Read the <a href='../fr/core.html' hreflang='fr'>French translation</a> of this page for the "
        "details of every directive below.</p>"
        "<h2 id='keepalive'>KeepAlive Directive</h2><table class='directive'>"
        "<tr><th>Description:</th><td>Enables HTTP persistent connections</td></tr>"
        "<tr><th>Syntax:</th><td><code>KeepAlive On|Off</code></td></tr></table>"
        "<table><tr><td></td><th>Linux</th><th>Windows</th></tr><tr><th>Path</th><td>/etc</td><td>C:\\</td>"
        "</tr></table></div>"
    )
    content = extract(html, "/en/core.html").content
    assert "Available Languages" not in content and "[ko]" not in content, content
    assert "Read the [French translation]" in content  # a sentence that links to one stays
    assert (
        "| Description: | Enables HTTP persistent connections |\n| Syntax: | `KeepAlive On\\|Off` |"
        in content
    )
    assert "|  | Linux | Windows |\n| --- | --- | --- |\n| Path | /etc |" in content, content


def test_a_page_that_does_not_say_its_language_is_in_the_one_its_folder_names():
    """The Debian Administrator's Handbook (Publican) writes `<html>` without `lang` and puts each
    translation in a folder of its own (`/es-ES/…`), the APT guide in `guide.es.html/`: their
    pages were read as English, the site's default, and quoted in answers to English questions.
    `lang` (or XHTML's `xml:lang`) still wins: the Apache manual's untranslated pages under `/es/`
    say `lang="en"`."""
    spanish = "<html><head><title>9.7. Programación de tareas</title></head><body><main><h1>Cron</h1>"
    spanish += "<p>En un sistema Unix, muchas tareas están programadas.</p></main></body></html>"
    assert extract(spanish, "/es-ES/sect.cron.html").locale == "es"
    assert extract(spanish, "/pt_BR/sect.cron.html").locale == "pt"
    assert extract(spanish, "/sect.cron.html").locale == "en"
    assert extract(spanish, "/sect.cron.html", default_locale="es").locale == "es"
    assert extract(spanish, "/api/es/cron.html").locale == "en"  # the first folder only
    # ... or the suffix of its file or folder name (Debian's `-doc` packages: the Debian Reference's
    # `ch02.es.html`, the APT guide's `guide.es.html/ch1.html`); other suffixes name no language.
    assert extract(spanish, "/ch02.es.html").locale == "es"
    assert extract(spanish, "/guide.es.html/ch1.html").locale == "es"
    assert extract(spanish, "/setup.py.html").locale == "en"
    assert extract(spanish, "/docs.es/sub/ch1.html").locale == "en"  # the folder holding it only
    english = (
        "<html lang='en'><head><title>T</title></head><body><main><h1>T</h1><p>Text.</p></main></body></html>"
    )
    assert extract(english, "/es/mod/core.html").locale == "en"
    xhtml = "<html xmlns='http://www.w3.org/1999/xhtml' xml:lang='fr'><head><title>T</title></head>"
    assert (
        extract(xhtml + "<body><main><h1>T</h1><p>Texte.</p></main></body></html>", "/x.html").locale == "fr"
    )


def test_the_space_a_bold_part_ends_with_stays_between_it_and_the_next_word():
    """man2html writes bash's `-z string` test as "<B>-z </B><I>string</I>" and BIND's reference
    "<strong>Blocks: </strong>topmost": the space inside the bold part was dropped with it, and
    the answers read "-zstring" and "**Blocks:**topmost"."""
    html = _page(
        "<main><h1>Conditional expressions</h1><dl><dt><b>-z </b><i>string</i></dt><dd>True if the length "
        "of <i>string</i> is zero.</dd></dl><p><strong>Blocks: </strong>topmost</p>"
        "<p>A <b>bold</b> word and <b> spaced </b>one.</p></main>"
    )
    content = extract(html, "/bash.html").content
    assert "**-z string**: True if the length of string is zero." in content, content
    assert "**Blocks:** topmost" in content and "A **bold** word and **spaced** one." in content, content


def test_a_paragraph_wrapped_in_its_source_is_one_line_as_the_reader_sees_it():
    """Markdown and reST sources are often wrapped at 80 columns and the generators keep those
    line breaks in the HTML, where they are spaces. Kept, every answer quoting such a paragraph
    showed the source's ragged lines (the widget renders a line break as <br>), and an inline
    code span or bold text wrapped in the source was cut in two. Only <br> and <pre> break lines."""
    html = b"""<html><head><title>Config</title></head><body><main><h1>Config</h1>
<p>By default, vdirsyncer looks for its configuration file in the following
locations:</p>
<p>Give either <code class="docutils literal"><span class="pre">"a</span>
<span class="pre">wins"</span></code> or <strong>b
wins</strong> as value.<br>A new line after a break.</p>
<ul><li>An item wrapped
in its source.</li></ul>
<pre><code>[pair contacts]
conflict_resolution = "b wins"</code></pre>
</main></body></html>"""
    content = extract(html, "/config.html").content
    assert "in the following locations:\n" in content
    assert 'Give either `"a wins"` or **b wins** as value.\nA new line after a break.' in content
    assert "- An item wrapped in its source." in content
    assert '```\n[pair contacts]\nconflict_resolution = "b wins"\n```' in content


def test_sphinx_code_without_a_language_gets_no_fence_label():
    """`highlight-default` is Sphinx's "whatever highlight_language is"; shown as "```default"
    it read as a language. A named one is kept."""
    html = b"""<html><head><title>T</title></head><body><main><h1>T</h1>
<div class="highlight-default notranslate"><div class="highlight"><pre><span></span>[pair a]
collections = ["from a", "from b"]</pre></div></div>
<div class="highlight-none notranslate"><div class="highlight"><pre>plain text</pre></div></div>
<div class="highlight-ini notranslate"><div class="highlight"><pre>[storage b]</pre></div></div>
</main></body></html>"""
    content = extract(html, "/t.html").content
    assert '```\n[pair a]\ncollections = ["from a", "from b"]\n```' in content
    assert "```\nplain text\n```" in content
    assert "```ini\n[storage b]\n```" in content
    assert "default" not in content and "```none" not in content


def test_a_terminal_animation_reads_as_its_reader_sees_it_and_other_code_keeps_its_markup():
    """termynal (FastAPI, Typer, SQLModel) keeps a console session as escaped HTML in its <pre> and
    renders the markup with a script: answers quoted `<font color="#4E9A06">fastapi</font> dev`."""
    lt, gt = "&lt;", "&gt;"
    session = [
        '$ <font color="#4E9A06">fastapi</font> dev',
        "",
        '   <span style="background-color:#007166"><font color="#D3D7CF"> server </font></span>  '
        "Server started at "
        '<font color="#729FCF"><u style="text-decoration-style:solid">http://127.0.0.1:8000</u></font>',
        ' <b>[</b><font color="#4E9A06">&amp;apos;/home/user/code&amp;apos;</font><b>]</b>',
    ]
    escaped = "\n".join(session).replace("<", lt).replace(">", gt)
    shown = f'{lt}span style="color: red"{gt}{lt}b{gt}Warning{lt}/b{gt}{lt}/span{gt}'
    html = (
        '<html><head><title>T</title></head><body><main><h1>T</h1>\n<div class="termy">\n'
        f'<pre class="highlight"><code class="language-console">{escaped}</code></pre>\n</div>\n'
        f'<pre><code class="language-html">{shown}</code></pre>\n</main></body></html>'
    ).encode()
    content = extract(html, "/t.html").content
    assert "$ fastapi dev\n" in content
    assert "   server   Server started at http://127.0.0.1:8000\n" in content
    assert " ['/home/user/code']\n```" in content
    assert "font" not in content.split("```html")[0]
    assert '```html\n<span style="color: red"><b>Warning</b></span>\n```' in content  # HTML shown as code


def test_sphinx_default_role_reads_as_code_and_a_cited_title_as_prose():
    """Sphinx renders reST's default role as <cite>: Jinja's "configures Jinja to `trim_blocks`"
    read "configures Jinja to trim_blocks" in answers. A name, an option or a path is code; a
    title in <cite> is not."""
    html = b"""<html><head><title>T</title></head><body><main><h1>T</h1>
<p>If an application configures Jinja to <cite>trim_blocks</cite>, the first newline is removed.
Run <cite>borg check --repair</cite> after a <cite>Broken pipe</cite>, as
<cite>The Art of Computer Programming</cite> explains.</p>
</main></body></html>"""
    content = extract(html, "/t.html").content
    assert "configures Jinja to `trim_blocks`, the first" in content
    assert "Run `borg check --repair` after a Broken pipe, as The Art of Computer Programming" in content


def test_an_option_table_grouped_under_labels_reads_as_labelled_tables_without_a_made_up_header():
    """Sphinx option tables (Borg's `borg create`: no header row, rows grouped under full-width
    labels, an empty first column for indent) read as each label, then its rows; the first label
    was taken for the header and every answer from such a row was an empty "- ". A header-less
    table whose first row names the columns (Flask's "URL | Method | Description") keeps it."""
    html = b"""<html><head><title>T</title></head><body><main><h1>borg create</h1>
<table class="borg-options-table docutils"><tbody>
<tr><td colspan="3"><p><strong>positional arguments</strong></p></td></tr>
<tr><td></td><td><p><code>ARCHIVE</code></p></td><td><p>name of archive to create</p></td></tr>
<tr><td colspan="3"><p><strong>options</strong></p></td></tr>
<tr><td></td><td><p><code>--json</code></p></td><td><p>output stats as JSON.</p></td></tr>
<tr><td></td><td><p><code>-s</code>, <code>--stats</code></p></td><td><p>print statistics</p></td></tr>
</tbody></table>
<table class="docutils"><tbody>
<tr><td><p>URL</p></td><td><p>Method</p></td></tr>
<tr><td><p><code>/users/</code></p></td><td><p><code>GET</code></p></td></tr>
</tbody></table>
</main></body></html>"""
    content = extract(html, "/usage/create.html").content
    assert (
        "**positional arguments**\n\n|  |  |\n| --- | --- |\n| `ARCHIVE` | name of archive to create |\n\n"
        "**options**\n\n|  |  |\n| --- | --- |\n| `--json` | output stats as JSON. |\n"
        "| `-s`, `--stats` | print statistics |"
    ) in content
    assert "| URL | Method |\n| `/users/` | `GET` |" in content


def test_labelled_groups_under_a_header_keep_it_and_a_summary_of_names_has_none():
    """A header row is each group's header; Sphinx's autosummary (a name and its summary, no
    header) no longer spends its first row as the header."""
    html = b"""<html><head><title>T</title></head><body><main><h1>T</h1>
<table><thead><tr><th>Name</th><th>Meaning</th></tr></thead><tbody>
<tr><td colspan="2"><strong>Basics</strong></td></tr><tr><td>a</td><td>first</td></tr>
<tr><td colspan="2"><strong>More</strong></td></tr><tr><td>b</td><td>second</td></tr></tbody></table>
<table class="autosummary longtable"><tbody>
<tr><td><code>Schema</code></td><td>Base schema class.</td></tr>
<tr><td><code>fields</code></td><td>Field classes.</td></tr></tbody></table>
</main></body></html>"""
    content = extract(html, "/t.html").content
    assert (
        "**Basics**\n\n| Name | Meaning |\n| --- | --- |\n| a | first |\n\n**More**\n\n| Name | Meaning |"
        in content
    )
    assert (
        "|  |  |\n| --- | --- |\n| `Schema` | Base schema class. |\n| `fields` | Field classes. |" in content
    )


def test_a_named_anchor_inside_a_heading_is_its_anchor():
    """DocBook (Git's user manual) and older HTML mark a heading's target with `<a name>` inside
    it; the manual's 110 sections were all cited as the whole page."""
    html = b"""<html><head><title>Git User Manual</title></head><body>
<div class="titlepage"><h1 class="title"><a name="id-1"></a>Git User Manual</h1></div>
<div class="section"><h2 class="title"><a name="fixing-mistakes"></a>Fixing mistakes</h2>
<p>If you make a commit that you later wish you had not, there are two ways to fix it.</p></div>
</body></html>"""
    page = extract(html, "/user-manual.html")
    assert [(h.text, h.anchor) for h in page.headings][-1] == ("Fixing mistakes", "fixing-mistakes")


def test_a_self_closed_anchor_in_a_heading_names_its_own_section_not_the_one_before():
    """XHTML DocBook (the Debian Reference) writes `<h3><a id="x"/>Title</h3>`. Read as HTML that
    <a> stays open; the parser re-opens it, empty, inside the next heading before that heading's
    own, and every section was cited at the previous one's anchor ("sudo configuration" at
    `#_an_extra_user_account`), and the paragraphs it holds were counted as link text when
    looking for the content's container."""
    more = b"<p>" + b"Each section says a little more about the system. " * 10 + b"</p>"
    html = b"""<html lang="en"><head><title>Chapter 1. GNU/Linux tutorials</title></head><body>
<div class="navheader"><a href="index.en.html">Home</a></div><div class="chapter">
<div class="titlepage"><h1 class="title"><a id="_tutorials"/>Chapter 1. Tutorials</h1></div>
<div class="section"><div class="titlepage"><h3 class="title"><a id="_an_extra_user_account"/>1.1.11. An extra
user account</h3></div><p>You can create a training user account.</p>
<pre class="screen"># adduser fish</pre>MORE</div>
<div class="section"><div class="titlepage"><h3 class="title"><a id="_sudo_configuration"/>1.1.12. sudo
configuration</h3></div><p>It is common to deploy a simple configuration of sudo.</p>MORE</div>
<div class="section"><div class="titlepage"><h3 class="title"><a id="_play_time"/>1.1.13. Play time</h3>
</div><p>You are now ready to play with the Debian system.</p>MORE</div></div></body></html>"""
    page = extract(html.replace(b"MORE", more), "/ch01.en.html")
    assert [h.anchor for h in page.headings] == [
        "_tutorials",
        "_an_extra_user_account",
        "_sudo_configuration",
        "_play_time",
    ]
    assert "It is common to deploy a simple configuration of sudo." in page.content
    # A heading wrapped in the source is one line, and a heading of the Markdown.
    assert page.headings[2].text == "1.1.12. sudo configuration"
    assert "### 1.1.12. sudo configuration\n" in page.content


def test_a_title_one_level_down_is_the_page_s_heading_not_a_section_of_it():
    """mdBook: the book's name is the menu's h1, outside <main>; the chapter opens with an h2
    holding the page's title. That h2 is the page's heading (its sections are not filed under the
    title twice), and keeps its anchor."""
    html = (
        "<html lang='en'><head><title>Variables and Mutability - The Rust Programming Language</title>"
        "</head><body><h1 class='menu-title'>The Rust Programming Language</h1><main>"
        "<h2 id='variables-and-mutability'><a class='header' href='#variables-and-mutability'>"
        "Variables and Mutability</a></h2><p>By default, variables are immutable.</p>"
        "<h3 id='constants'><a class='header' href='#constants'>Constants</a></h3>"
        "<p>Constants are always immutable.</p></main></body></html>"
    )
    page = extract(html, "/ch03-01-variables-and-mutability.html")
    assert page.title == "Variables and Mutability"
    assert [(h.level, h.text, h.anchor) for h in page.headings] == [
        (1, "Variables and Mutability", "variables-and-mutability"),
        (3, "Constants", "constants"),
    ]
    # A first heading that is not the title is a section under it.
    other = extract(html.replace("Variables and Mutability</a></h2>", "Variables</a></h2>"), "/x.html")
    levels = [(h.level, h.text) for h in other.headings]
    assert levels[:2] == [(1, "Variables and Mutability"), (2, "Variables")]


def test_a_page_whose_h1s_number_its_parts_takes_its_title_from_the_head():
    """SQLite's pages: one h1 per numbered part ("1. Overview", "2. How WAL Works"). The first
    is not the page's title; <title> is ("1. Overview › 10. Backwards Compatibility" was every
    citation of the WAL page)."""
    html = (
        "<html lang='en'><head><title>Write-Ahead Logging</title></head><body><div class='nosearch'>"
        "<a href='index.html'>Home</a></div><div class='fancy'>"
        "<h1 id='overview'><span>1. </span>Overview</h1><p>The default method is a rollback journal.</p>"
        "<h1 id='how_wal_works'><span>2. </span>How WAL Works</h1><p>The original content is kept.</p>"
        "<h2 id='checkpointing'><span>2.1. </span>Checkpointing</h2><p>Moving the WAL back.</p>"
        "</div></body></html>"
    )
    page = extract(html, "/wal.html")
    assert page.title == "Write-Ahead Logging"
    assert [h.text for h in page.headings][:3] == ["Write-Ahead Logging", "1. Overview", "2. How WAL Works"]
    # One h1: the page's title, whatever <title> says.
    single = extract(html.replace("<h1 id='how_wal_works'>", "<h2 id='how_wal_works'>"), "/wal.html")
    assert single.title == "1. Overview"


def test_a_back_of_book_index_is_a_listing():
    """An index's terms are words ("auto-increment, serial"), so links are not most of its text
    (PostgreSQL's: 48%), but it links every few words: navigation, not an answer."""
    entries = "".join(
        f"<dt><span class='primary'>term{i} name, <a href='/page{i}.html'>Where term {i} is</a>, "
        f"<a href='/other{i}.html#x'>Usage</a></span></dt>"
        for i in range(120)
    )
    index = extract(
        f"<html><body><main><h1>Index</h1><dl>{entries}</dl></main></body></html>", "/bookindex.html"
    )
    assert link_share(index.content) < 0.6 and link_index(index)
    prose = "".join(
        f"<p>Sentence {i} explains the <a href='/p{i}.html'>scheduler</a> and how work is batched "
        "before it runs, with the limits that apply to each batch and what happens when one fails.</p>"
        for i in range(30)
    )
    page = extract(f"<html><body><main><h1>Scheduler</h1>{prose}</main></body></html>", "/scheduler.html")
    assert not link_index(page)


def test_a_long_blank_run_in_inline_code_is_read_in_linear_time():
    """Inline code wrapped in the source reads as one space; a run of blanks was tried from every
    position of it (64,000 tabs: 5 s, quadratic), now from its start."""
    import time

    html = "<main><h1>Tabs</h1><p>Run <code>a" + "\t" * 100_000 + "b\n  c</code> now.</p></main>"
    started = time.perf_counter()
    page = extract(html, "/tabs/")
    assert time.perf_counter() - started < 2.0
    assert "b c`" in page.content


def test_a_dropdown_menu_inside_a_sentence_is_not_its_text():
    """HAProxy's manual follows every keyword it names with a Bootstrap dropdown listing the
    sections that define it; hidden until clicked, it was read into the sentence ("…when "sslThis
    keyword is available in sections :Bind options…" or "check-ssl" are set")."""
    html = """<html><body><main><h1>check</h1><pre class="text">Similar to "<span class="dropdown">
<a class="dropdown-toggle" data-toggle="dropdown" href="#">gid<span class="caret"></span></a>
<ul class="dropdown-menu"><li class="dropdown-header">This keyword is available in sections :</li>
<li><a href="#gid-1">Process management and security</a></li></ul></span>" but uses the group name.
</pre><p>The check keyword enables health checks on a server.</p></main></body></html>"""
    page = extract(html, "/configuration.html")
    assert "This keyword is available" not in page.content, page.content
    assert "Process management and security" not in page.content, page.content
    assert "gid" in page.content and "health checks on a server" in page.content, page.content


def test_a_site_menu_inside_the_content_container_is_not_content():
    """lxml's pages (docutils, its own template) hold the whole site's menu in a `div.sidemenu`
    inside the `div.document` that is their content, before the title: every page read "Menu",
    "Like the tool? Help making it better!" and a list of every page's sections, which lxml's CSS
    selector question then matched on its menu entry "lxml.cssselect"."""
    menu = "".join(f'<li class="menu item"><a href="page{i}.html#s">Section {i}</a></li>' for i in range(12))
    html = f"""<html><head><title>lxml.cssselect</title></head><body>
<div class="document" id="lxml-cssselect">
<div class="sidemenu" id="sidemenu"><div class="menutrigger" onclick="trigger_menu(event)">Menu</div>
<div class="menu"><div class="banner">
<a href="index.html#support">Like the tool? Help making it better!</a></div>
<ul id="lxml-section"><li><span class="section title">lxml</span>
<ul class="menu foreign">{menu}</ul></li></ul></div></div>
<h1 class="title">lxml.cssselect</h1>
<p>lxml supports a number of interesting languages for tree traversal and element selection.</p>
<p>The newest child of this family is CSS selection, made available by the lxml.cssselect module.</p>
</div></body></html>"""
    page = extract(html, "/cssselect.html")
    assert "Menu" not in page.content and "Like the tool" not in page.content, page.content
    assert "Section 3" not in page.content, page.content
    assert page.content.startswith("# lxml.cssselect") and "CSS selection, made available" in page.content


POSTSUPER = """<!doctype html public "-//W3C//DTD HTML 4.01 Transitional//EN">
<html> <head><title> Postfix manual - postsuper(1) </title></head> <body> <pre>
POSTSUPER(1)                                                      POSTSUPER(1)

<b>NAME</b>
       postsuper - Postfix superintendent

<b>SYNOPSIS</b>
       <b>postsuper</b> [<b>-psSv</b>]
               [<b>-c</b> <i>config</i><b>_</b><i>dir</i>] [<b>-d</b> <i>queue</i><b>_</b><i>id</i>]

<b>DESCRIPTION</b>
       The  <a href="postsuper.1.html"><b>postsuper</b>(1)</a>  command  does maintenance jobs on the
       Postfix queue.
       It  works on the <b>incoming</b>, <b>active</b> and <b>deferred</b> directories with mes-
       sage files.

       <b>-d</b> <i>queue</i><b>_</b><i>id</i>
              Delete one message with the named queue ID from the named mail
              queue(s).

              Specify "<b>-d ALL</b>" to remove all messages.

       <b>-f</b> <i>queue</i><b>_</b><i>id</i>
              Request forced expiration for one message.

                                                                  POSTSUPER(1)
</pre> </body> </html>"""


def test_a_manual_page_in_one_pre_is_read_as_sections_and_prose():
    """Postfix's manual pages are man2html's: one <pre> whose bold capitals at the margin head
    its sections. Read as one code block, its first 200 characters were all the dense model saw of
    300 lines, and "How do I delete all messages in the queue?" quoted another page although
    `postsuper` came first. Its sections are headings, its paragraphs prose (an option with the
    lines indented under it is one), a word hyphenated at a line's end is one word, and the
    running head is left out; a code block with a bold line stays code."""
    page = extract(POSTSUPER, "/postsuper.1.html")
    text = page.content
    assert "```" not in text and "POSTSUPER(1)" not in text, text
    assert "## NAME\n\npostsuper - Postfix superintendent" in text, text
    assert "## DESCRIPTION" in text and "directories with message files." in text, text
    assert "**-d** queue_id Delete one message with the named queue ID from the named mail queue(s)." in text
    assert 'Specify "**-d ALL**" to remove all messages.' in text
    assert "**-f** queue_id Request forced expiration" in text
    code = extract(
        "<html><body><h1>Shell</h1><pre>$ make\n<b>ERROR</b>\nbuild failed\n<b>NOTE</b>\nsee log</pre>"
        "</body></html>",
        "/shell.html",
    )
    assert "```" in code.content, code.content
