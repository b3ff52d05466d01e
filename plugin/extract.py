"""Rendered HTML → what a reader sees: main content as Markdown-ish text, plus page facts.

Works on plain strings/bytes so it is testable without any generator. The
main content is the page's `article` / `[role=main]` / `main` (or a theme's
`#main-content`-style container); without one, the smallest container that
holds most of its readable text (code included); only when that fails,
trafilatura's boilerplate removal picks it. Navigation, TOC, breadcrumbs,
"edit this page", search boxes and similar UI are dropped; code blocks are
kept verbatim, tables as pipe rows, admonitions as labelled paragraphs.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from askdocs.shards import Heading

HEADING_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
SKIP_TAGS = {
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "aside",
    "button",
    "form",
    "input",
    "select",
    "textarea",
    "svg",
    "iframe",
    "object",
    "canvas",
    "footer",
    "label",
    "dialog",
    "-comment",
    "link",
    "meta",
}
BLOCK_TAGS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "figure",
    "figcaption",
    "address",
    "center",
    "hgroup",
    "fieldset",
    "body",
    "html",
    "dd",
    "dt",
    "dl",
    "summary",
    "details",
    "blockquote",
    "hr",
    "aside",  # the ones that are content (_is_content_aside)
}
_API_ENTRY = re.compile(r"(?:^|\s)sig-object(?:\s|$)")  # Sphinx >= 4: an API entry's signature line
MAX_INDENT = 6  # nesting levels a list item shows (deeper items are indented as much)
MAX_FRAMES = 400  # stack frames a walk may use below its root (see _Walker); Python allows 1,000
# Where a list item's own line ends: what follows inside the item keeps its order.
_ITEM_BREAKS = ("code", "table", "list")
BOILERPLATE = ", ".join(
    [
        ".headerlink",
        "[role=navigation]",
        "[role=search]",
        "[role=banner]",
        "[role=contentinfo]",
        ".toc",
        "#toc",
        ".table-of-contents",  # Docusaurus's "On this page", also inside the article on phones
        ".theme-doc-toc-mobile",
        ".feedback--title",  # Docsy (Hugo): "Was this page helpful? Yes / No"
        ".feedback--question",
        ".feedback--answer",
        ".feedback--response",
        ".td-page-meta__lastmod",
        "div[class*=language-] > span.lang",  # VitePress's language label over a code block
        ".longdesc-link",  # DocBook: "[D]", a link to an image's long description
        ".method-click-advice",  # RDoc: "click to toggle source" and the source it toggles
        ".method-source-code",
        ".toctree-wrapper",
        ".md-sidebar",
        ".md-header",
        ".md-footer",
        ".md-top",
        ".md-dialog",
        ".md-source-file",
        ".md-content__button",
        ".md-feedback",
        ".md-tags",
        ".md-search",
        ".breadcrumb",
        ".breadcrumbs",
        ".wy-breadcrumbs",
        "[aria-label=breadcrumb]",
        "[aria-label=breadcrumbs]",
        ".rst-footer-buttons",
        ".rst-versions",
        ".edit-link",
        ".edit-this-page",
        ".edit-on-github",
        ".skip-link",
        ".skip-to-content",
        ".sr-only",
        ".visually-hidden",
        ".screen-reader-text",
        ".cookie-banner",
        ".cookie-consent",
        "#cookie-banner",
        ".cookies",
        ".pagination",
        ".prev-next",
        ".prev-next-area",  # pydata / sphinx-book-theme: "previous X next Y"
        ".prev-next-footer",
        ".tocsection",  # their "Contents" label over the page's table of contents
        ".bd-toc",
        ".viewcode-link",  # Sphinx viewcode's "[source]" beside a signature
        ".viewcode-back",
        ".copiable-link",  # texinfo's "¶" after a heading or an index entry
        ".copiable-anchor",
        ".linenos",
        ".linenodiv",
        ".md-clipboard",
        ".copy-button",
        ".searchbox",
        "#searchbox",
        ".search-form",
        # Hidden, unless it is a tab panel: tabs (sphinx-tabs, ARIA tab widgets) hide every
        # panel but the first until a reader clicks, and each holds content.
        "[hidden]:not([role=tabpanel])",
        "[aria-hidden=true]",
        # Bootstrap's dropdown menu, shown only when its toggle is clicked: HAProxy's manual puts
        # one after every keyword it names ("crl-file" then "This keyword is available in
        # sections : Bind options, Server and default-server options"), inside its sentences.
        ".dropdown-menu",
        # A site menu in the content's own container, not in a <nav> (lxml's pages: a
        # `div.sidemenu` of every page's link, then the title, inside the `div.document`).
        "#sidemenu",
        "[class~=sidemenu]",
        "#menu",
        "[class~=menu]",
        "#askdocs-widget",
        "[data-askdocs]",
    ]
)
# Inside code blocks: generator-specific lines and controls a reader does not see
# or would not copy — mdBook's hidden ("boring") Rust lines, line-number gutters
# (Pygments, Hugo/Chroma, Prism, highlight.js), copy and run buttons.
CODE_JUNK = ", ".join(
    [
        ".boring",
        ".linenos",
        ".linenodiv",
        ".lineno",
        ".lnt",
        ".ln",
        ".line-numbers-rows",
        ".hljs-ln-numbers",
        ".gutter",
        "button",
        ".copy",
        ".copy-button",
        ".copy-code-button",
        ".clipboard",
    ]
)
# Wrappers whose id is their heading's anchor (Sphinx's <section id>, texinfo's <div class="chapter" id>).
_SECTION_CLASSES = ("section", "chapter", "appendix", "unnumbered")
# Sidebars that are content: docutils (>= 0.18) writes topics, sidebars and footnotes as <aside>.
_CONTENT_ASIDES = frozenset(["topic", "sidebar", "footnote", "footnote-list", "admonition", "note"])
# Heading anchors that themes append or prepend ("¶", "#", "🔗", or an empty link).
_ANCHOR_MARKS = "¶§🔗#\u200b\ufeff"
MAIN_SELECTORS = (
    "article",
    "[role=main]",
    "main",
    "#main-content",
    "#content",
    ".content",
    ".main-content",
    ".document",
)
# The text a reader reads (for finding the content container when no selector names it).
_READABLE = "p, pre, li, td, dd, blockquote"
_CHROME = (
    "nav, header, footer, aside, dialog, [role=navigation], [role=banner], [role=contentinfo], "
    "[role=dialog], [role=search], .modal"
)
# A page's content is not one code block or one list, however long.
_NOT_CONTAINERS = frozenset(
    ["p", "pre", "code", "li", "ul", "ol", "dl", "dd", "table", "thead", "tbody", "tr", "td", "blockquote"]
)
MAIN_SHARE = 0.7  # of the page's readable text, the content container must hold
SECTION_SHARE = 0.05  # ... and no other section beside it this much (`_sections_beside`)
# A <body> that is the content itself (man2html's manual pages, SQLite's pages: text, headings and
# lists straight in <body>) is read whole when at most this share of its letters is link text;
# else (a page of menus) trafilatura picks its content.
BODY_LINK_SHARE = 0.5
MENU_LINK_SHARE = 0.5  # above the first heading, a block with more link text than this is a menu
# GNU texinfo (makeinfo) pages: the body is the node, less its navigation panels.
_TEXINFO = ("makeinfo", "texi2any", "texi2html")
_TEXINFO_CHROME = "div.header, div.nav-panel, hr"
# A texinfo manual's indices (`@printindex`): tables of "entry: section" links, makeinfo 6 classing
# them `index-cp`, 7 `cp-entries-printindex`, each after a "Jump to: A B C" table of letter links.
# They point elsewhere: on one-page manuals (Autoconf, Bash) their rows were sections of the page
# ("Preprocessor Symbol Index" led "How do I define a preprocessor symbol?" with an entry).
_TEXINFO_INDEX = re.compile(r"index-\w+|\w+-(entries|letters-header|letters-footer)-printindex")
_MANUAL_SUFFIX = re.compile(r"^(.*\S)\s+\(([^()]+)\)$")  # texinfo's <title>: "Node (Manual)"
# Doxygen: the content is div.contents, the title div.headertitle's; a member's "◆" permalink,
# the "More..." links to the details and the separators between members are chrome; a source
# file's listing (`lmdb_8h_source.html`) is code, not documentation, and search/ its search UI.
_DOXYGEN_CHROME = "span.permalink, tr.memSeparator"
BANNER_WORDS = 60  # paragraphs above a page's own <h1> up to this long are a theme's banner (a note is kept)
TRACKING_PARAMS = re.compile(
    r"^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi|ref_src)$", re.I
)
LANGUAGE_CLASS = re.compile(r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)")
_WS = re.compile(r"[ \t\r\f\v\u00a0]+")
# Inline code wrapped in the source: one space (a run of blanks tried from its start only).
_SOURCE_BREAK = re.compile(r"(?<![ \t])[ \t]*\n\s*")
# Sphinx renders reST's default role (`trim_blocks`, written as code by most authors) as <cite>:
# one word, or words with an option, a path or an assignment ("borg check --repair"), read as
# code; a title ("The Art of Computer Programming", "Broken pipe") stays prose.
_CODE_LIKE = re.compile(r"\S{1,80}|(?=.*(?:(?<!\S)--?\w|[=/]))[^\n]{1,80}")
# Sphinx's `highlight-default` (whatever its `highlight_language` is) and `highlight-none` name no
# language: as a fence label ("```default") they would read as one.
_NO_LANGUAGE = ("highlight", "default", "none")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w-]+)""", re.I)


@dataclass
class Block:
    kind: str  # heading | para | code | list | table | note
    text: str
    level: int = 0
    anchor: str = ""
    lastmod: str | None = None
    start: int = 0
    end: int = 0


@dataclass
class ExtractedPage:
    url: str
    title: str
    locale: str
    groups: list[str]
    exclude: bool
    lastmod: str | None
    kind: str
    description: str
    content: str
    blocks: list[Block]
    headings: list[Heading]
    links: list[str]
    faqs: list[tuple[str, str]]
    warnings: list[str] = field(default_factory=list)

    @property
    def word_count(self) -> int:
        return len(self.content.split())

    @property
    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for part in (
            self.url,
            self.title,
            self.locale,
            ",".join(self.groups),
            self.lastmod or "",
            self.kind,
            self.content,
            # and its structure, which chunking follows: a rebuild reuses the chunks of a page
            # whose hash is unchanged
            *(f"{b.kind} {b.level} {b.anchor} {b.lastmod} {b.start} {b.end}\n{b.text}" for b in self.blocks),
        ):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()[:16]


def decode_html(data: bytes | str) -> tuple[str, list[str]]:
    """Bytes → text: declared charset, else UTF-8; invalid bytes replaced, with a warning."""
    if isinstance(data, str):
        return data, []
    match = _META_CHARSET.search(data[:4096])
    charset = match.group(1).decode("ascii", "replace").lower() if match else "utf-8"
    try:
        return data.decode(charset), []
    except (LookupError, UnicodeDecodeError):
        text = data.decode("utf-8", errors="replace")
        return text, [f"not valid {charset}; undecodable bytes were replaced"]


def normalize_date(value: str | None) -> str | None:
    if not value:
        return None
    match = _DATE.search(str(value))
    return match.group(1) if match else None


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _norm_inline(text: str) -> str:
    lines = [_clean(line) for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


class _Walker:
    """Turns a DOM subtree into blocks, in one pass.

    `depth` counts the stack frames the walk has used below its root: each call that
    recurses adds the frames it costs (a table cell is four: `_table`, `_inline_text`,
    `_read`, `walk`), and past `MAX_FRAMES` a subtree is kept as plain text. So the
    deepest walk is bounded in frames, not in nesting levels, whatever the nesting is
    made of, and the same page gives the same blocks whoever calls it."""

    def __init__(self, page_url: str, site_url: str = "") -> None:
        self.page_url = page_url
        self.site_url = site_url
        self.blocks: list[Block] = []
        self.links: list[str] = []
        self._inline: list[str] = []
        self._code_end = -1  # len(self._inline) right after an inline code span was added
        self._pending_date: str | None = None
        self._level = 1  # of the last heading: an API entry is a section below it

    def flush(self, kind: str = "para") -> None:
        text = _norm_inline("".join(self._inline))
        self._inline = []
        self._code_end = -1
        if text:
            self.blocks.append(Block(kind, text, lastmod=self._take_date()))

    def _take_date(self) -> str | None:
        date, self._pending_date = self._pending_date, None
        return date

    def walk(self, node: LexborNode, depth: int = 0, skip: tuple[str, ...] = ()) -> None:
        """`skip`: tags of `node`'s own children to leave out (a list item's nested lists)."""
        if depth > MAX_FRAMES:  # pathological nesting: keep the text, skip the structure
            self._inline.append(node.text(deep=True, separator=" "))
            return
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag in skip:
                continue
            if tag == "-text":
                # Outside <pre>, a line break in the HTML source is a space on the page: a
                # paragraph wrapped in its Markdown or reST source is one line to the reader
                # (only <br> breaks it).
                self._inline.append((child.text_content or "").replace("\n", " "))
                continue
            if tag in SKIP_TAGS and not (tag == "aside" and _is_content_aside(child)):
                continue
            if tag in HEADING_TAGS:
                self._heading(child, HEADING_TAGS[tag])
            elif tag == "pre" and (lines := _man_lines(child)) is not None:
                self._man_page(lines, depth + 1)  # _man_page
            elif tag == "pre":
                self._code(child)
            elif tag == "div" and "fragment" in (child.attributes.get("class") or "").split():
                self._fragment(child)
            elif tag in ("ul", "ol"):
                self.flush()
                self._list(child, tag == "ol", 0, depth + 1)  # _list
            elif tag == "table" and child.css_first("pre"):
                self.flush()
                self._code_table(child)
            elif tag == "table":
                self.flush()
                self._table(child, depth + 1)  # _table
            elif tag == "br":
                self._inline.append("\n")
            elif tag == "time":
                self._time(child)
            elif tag == "code":
                code = _SOURCE_BREAK.sub(" ", child.text(deep=True)).strip()
                if code and self._code_end == len(self._inline) and self._inline[-1].endswith("`"):
                    # Code right after code is one name: Sphinx writes a signature's module and
                    # name as two <code>s ("pyte.screens." then "HistoryScreen"), which read
                    # "`pyte.screens.``HistoryScreen`", a broken span in Markdown.
                    self._inline[-1] = f"{self._inline[-1][:-1]}{code}`"
                elif code:
                    self._inline.append(f"`{code}`")
                    self._code_end = len(self._inline)
            elif tag == "cite" and _CODE_LIKE.fullmatch(cited := _clean(child.text(deep=True))):
                self._inline.append(f"`{cited}`")
            elif tag == "a":
                self._anchor(child, depth + 1)  # _anchor
            elif tag == "img":
                alt = (child.attributes.get("alt") or "").strip()
                if alt:
                    self._inline.append(alt)
            elif tag == "header" and not child.css_first("h1, h2, h3, h4, h5, h6"):
                continue
            elif self._is_admonition(child):
                self._admonition(child, depth + 1)  # _admonition
            elif _is_api_entry(child) and child.attributes.get("id"):
                self._api_entry(child, depth + 1)  # _api_entry
            elif tag == "div" and _is_rdoc_method(child):
                self._rdoc_method(child, depth + 1)  # _rdoc_method
            elif tag == "dl" and _is_glossary(child):
                self.flush()
                self._definitions(child, depth + 1)  # _definitions
            elif tag in BLOCK_TAGS:
                self.flush()
                self.walk(child, depth + 1)
                self.flush()
            elif tag in ("strong", "b"):
                raw = child.text(deep=True, separator="")
                inner = _clean(raw.replace("\n", " "))
                if inner:
                    # The space a bold part ends (or starts) with stays outside its marks: man2html
                    # writes "<B>-z </B><I>string</I>", which read "**-z**string".
                    before = " " if raw[:1].isspace() else ""
                    after = " " if raw[-1:].isspace() else ""
                    self._inline.append(f"{before}**{inner}**{after}")
                    for a in child.css("a"):
                        self._link(a)
            else:
                self.walk(child, depth + 1)

    def _heading(self, node: LexborNode, level: int) -> None:
        self.flush()
        anchor = heading_anchor(node)
        for time in node.css("time"):
            self._pending_date = normalize_date(time.attributes.get("datetime"))
        for junk in node.css(".headerlink, time"):
            junk.decompose()
        text = heading_text(node)
        if any(c.isalnum() for c in text):  # not ")" or "}", what a broken build leaves as headings
            self._level = level
            self.blocks.append(Block("heading", text, level=level, anchor=anchor or ""))
            if self._pending_date:
                self.blocks[-1].lastmod = self._take_date()

    def _api_entry(self, node: LexborNode, depth: int) -> None:
        """A Sphinx API entry (`<dt class="sig sig-object …" id="click.Choice">`, autodoc or
        a hand-written directive) is a section of its own, as mkdocstrings' entries are on MkDocs:
        its name is the heading, its anchor the entry's, one level below the heading it is
        under (a method below its class); the signature stays as the section's first line."""
        self.flush()
        name = "".join(part.text(deep=True) for part in node.css(".sig-prename, .sig-name")).strip()
        if not name:
            name = _clean(node.text(deep=True, separator=" ")).split("(")[0][:80]
        nesting, parent = 0, node.parent
        while parent is not None:
            if parent.tag == "dl" and parent.css_first("dt.sig-object"):
                nesting += 1
            parent = parent.parent
        if name:
            level = min(6, self._level + max(nesting, 1))
            self.blocks.append(Block("heading", _clean(name), level=level, anchor=node.attributes["id"]))
        self.walk(node, depth + 1)
        self.flush()

    def _rdoc_method(self, node: LexborNode, depth: int) -> None:
        """An RDoc method or attribute (`<div id="method-i-title" class="method-detail">`): a
        section of its own, named by its heading ("title()", "backend [R]"), one level below
        the heading it is under, as a Sphinx API entry is."""
        self.flush()
        heading = node.css_first(".method-heading")
        name = _clean(heading.text(deep=True, separator="")) if heading is not None else ""
        if heading is not None:
            heading.decompose()
        if name:
            level = min(6, self._level + 1)
            self.blocks.append(Block("heading", name, level=level, anchor=node.attributes["id"] or ""))
        self.walk(node, depth + 1)
        self.flush()

    def _definitions(self, node: LexborNode, depth: int) -> None:
        """A definition list (reST's, Markdown's `def_list`): each definition's first paragraph
        is a list item led by its term ("- **BORG_PASSPHRASE**: When set, use the value…"), so
        that the sentence keeps what it defines; the rest of the definition follows in order."""
        terms: list[str] = []
        for child in node.iter():
            if child.tag == "dt":
                term = self._term(child, depth + 1)  # _term
                if term:
                    terms.append(term)
            elif child.tag == "dd":
                blocks = self._read(child, depth, level=self._level)
                label = " / ".join(f"**{t}**" for t in terms)
                terms = []
                if label and blocks and blocks[0].kind == "para":
                    blocks[0] = Block("list", f"- {label}: {blocks[0].text.replace(chr(10), ' ')}")
                elif label:
                    self.blocks.append(Block("para", label))
                self.blocks.extend(blocks)
        for term in terms:  # a term without a definition
            self.blocks.append(Block("para", f"**{term}**"))

    def _term(self, node: LexborNode, depth: int) -> str:
        """A definition's term as plain text (the label makes it bold), its classifiers after
        " : " as the page shows them (numpydoc's `x : array_like`, which docutils writes as
        `<strong>x</strong><span class="classifier">array_like</span>`)."""
        classifiers = []
        for classifier in node.css(".classifier"):
            classifiers.append(_clean(classifier.text(deep=True, separator=" ")))
            classifier.decompose()
        term = self._inline_text(node, depth).replace("**", "").strip()  # its links are recorded there
        return " : ".join([term, *filter(None, classifiers)]) if term else ""

    def _time(self, node: LexborNode) -> None:
        date = normalize_date(node.attributes.get("datetime"))
        if date:
            heading = next((b for b in reversed(self.blocks) if b.kind == "heading"), None)
            if heading is not None and heading.lastmod is None:
                heading.lastmod = date
            else:
                self._pending_date = date
        self._inline.append(_clean(node.text(deep=True)))

    def _code(self, node: LexborNode) -> None:
        self.flush()
        code_node = node.css_first("code") or node
        if _letters(code_node.text(deep=True)) < _letters(node.text(deep=True)) // 2:
            # Not the block's wrapper but a piece of it (DocBook's synopsis, "<code>string</code>
            # LIKE <code>pattern</code>", was quoted as "string").
            code_node = node
        above = _ancestors(node, 3)  # a language class sits up to two levels up, a terminal's three
        classes = " ".join(
            filter(
                None,
                [code_node.attributes.get("class"), node.attributes.get("class")]
                + [p.attributes.get("class") for p in above[:2]],
            )
        )
        match = LANGUAGE_CLASS.search(classes or "")
        language = match.group(1) if match and match.group(1) not in _NO_LANGUAGE else ""
        for junk in node.css(CODE_JUNK):
            junk.decompose()
        text = code_node.text(deep=True).strip("\n")
        if any(_TERMINAL.search(p.attributes.get("class") or "") for p in above):
            text = html_lib.unescape(_MARKUP_TAG.sub("", text))
        if text.strip():
            self.blocks.append(Block("code", f"```{language}\n{text.rstrip()}\n```"))

    def _man_page(self, lines: list[str], depth: int) -> None:
        """A manual page as man2html writes it (Postfix's 60-odd pages): one <pre> whose bold
        capitals at the margin head its sections ("NAME", "DESCRIPTION") over indented
        paragraphs. Read as a code block it was one unit of 300 lines whose first 200 characters
        ("POSTSUPER(1)   POSTSUPER(1) NAME postsuper - Postfix superintendent") were all the dense
        model saw: "How do I delete all messages in the queue?" found `postsuper` first and
        quoted another page. Its sections are headings and its paragraphs prose; an option and
        the lines indented under it are one paragraph. `lines`: `_man_lines` of the <pre>, markup
        around punctuation already gone ("<i>queue</i><b>_</b><i>id</i>": queue_id)."""
        self.flush()
        paragraph: list[str] = []
        indent = -1

        def close() -> None:
            if paragraph:
                body = LexborHTMLParser(f"<body><p>{' '.join(paragraph)}</p></body>").body
                if body is not None:
                    self.walk(body, depth + 1)
                    self.flush()
                paragraph.clear()

        for line in lines:
            plain = html_lib.unescape(_ANY_TAG.sub("", line))
            if not plain.strip() or _man_running(plain):
                close()
                indent = -1
                continue
            if _MAN_SECTION.fullmatch(line.rstrip()):
                close()
                self.blocks.append(Block("heading", plain.strip(), level=min(6, self._level + 1), anchor=""))
                continue
            here = len(plain) - len(plain.lstrip())
            if paragraph and here < indent:  # back at an option's margin: the next one starts
                close()
            if paragraph and _MAN_HYPHEN.search(paragraph[-1]) and plain.lstrip()[:1].islower():
                paragraph[-1] = paragraph[-1][:-1] + line.strip()  # hyphenated at the line's end
            else:
                paragraph.append(line.strip())
            indent = here

        close()

    def _fragment(self, node: LexborNode) -> None:
        """Doxygen's code block: a `div.line` per line, no <pre>."""
        self.flush()
        for junk in node.css(CODE_JUNK):
            junk.decompose()
        lines = [line.text(deep=True).rstrip() for line in node.css("div.line")]
        text = "\n".join(lines).strip("\n") if lines else node.text(deep=True).strip("\n")
        if text.strip():
            self.blocks.append(Block("code", f"```\n{text}\n```"))

    def _code_table(self, node: LexborNode) -> None:
        """A code block laid out as a table (a line-number column beside the code)."""
        for pre in node.css("pre"):
            if not re.fullmatch(r"[\d\s]*", pre.text(deep=True)):  # the gutter holds only numbers
                self._code(pre)

    def _list(self, node: LexborNode, ordered: bool, level: int, depth: int = 0) -> None:
        if depth > MAX_FRAMES:  # pathological nesting: keep the text, skip the structure
            text = _clean(node.text(deep=True, separator=" "))
            if text:
                self.blocks.append(Block("list", f"{'  ' * min(level, MAX_INDENT)}- {text}"))
            return
        number = 0
        for item in node.iter():
            if item.tag != "li":
                continue
            number += 1
            nested = [(child, child.tag == "ol") for child in item.iter() if child.tag in ("ul", "ol")]
            blocks = self._read(item, depth, skip=("ul", "ol"))
            marker = f"{number}." if ordered else "-"
            prefix = "  " * min(level, MAX_INDENT)
            # The item's own line is its text up to the first code block, table or list
            # inside it; what follows keeps its order (an explanation after the example
            # stays after it, a code block's numbered annotations stay under the code).
            lead = next((i for i, b in enumerate(blocks) if b.kind in _ITEM_BREAKS), len(blocks))
            line = " ".join(b.text.replace("\n", " ") for b in blocks[:lead])
            if line:
                self.blocks.append(Block("list", f"{prefix}{marker} {line}"))
            seen: set[tuple[str, str]] = set()
            for block in blocks[lead:]:
                if (block.kind, block.text) in seen:  # the same notes under each content tab
                    continue
                seen.add((block.kind, block.text))
                if block.kind == "list":
                    block.text = "  " * min(level + 1, MAX_INDENT) + block.text
                self.blocks.append(block)
            for child, child_ordered in nested:
                self._list(child, child_ordered, level + 1, depth + 1)

    def _table(self, node: LexborNode, depth: int = 0) -> None:
        if self._questions_and_answers(node, depth):
            return
        read = []  # (cell texts, whether it is a row of <th> cells, the row's width in columns)
        for tr in _own_rows(node):  # a table nested in a cell is that cell's text
            cells = [cell for cell in tr.iter() if cell.tag in ("td", "th")]
            texts = []
            for cell in cells:  # a loop, not a comprehension: one stack frame less per nested table
                texts.append(self._inline_text(cell, depth).replace("|", "\\|"))
            if any(texts):
                width = sum(_colspan(cell) for cell in cells)
                # A header row is one of <th> cells (an empty corner aside); a row whose first
                # cell only is a <th> is a row with its label (the Apache manual's "Syntax: |
                # `KeepAlive On|Off`" under "Description: | Enables HTTP persistent connections",
                # which read as the table's header).
                header = all(cell.tag == "th" for cell, said in zip(cells, texts, strict=True) if said)
                read.append((texts, header, width))
        if not read:
            return
        if len(read) == 1 and len(read[0][0]) == 1:
            # One cell is a layout, not a table: DocBook frames each screenshot in one ("| [search
            # dialog] |", its image's alt text, led aptitude's "How do I search for packages by
            # name?"). Its text reads as a paragraph.
            self.blocks.append(Block("para", read[0][0][0].replace("\\|", "|")))
            return
        width = max(w for _, _, w in read)
        label = [len(texts) == 1 and w == width > 1 for texts, _, w in read]
        classes = (node.attributes.get("class") or "").split()
        if not any(label) and "autosummary" not in classes:
            rows = []
            for texts, th, _ in read:
                rows.append(_md_row(texts))
                if len(rows) == 1 and th:
                    rows.append(_md_row(["---"] * len(texts)))
            self.blocks.append(Block("table", "\n".join(rows)))
            return
        # Rows grouped under full-width labels (Sphinx's option tables: "options", then its rows)
        # or a summary of names (autosummary), usually without a header row. Each group reads as
        # its label, then a table of its rows under the header (an empty one if there is none); a
        # column empty in every row (an indent) goes.
        named = read[0][1] and not label[0]
        header_texts = read[0][0] if named else []
        body = [t for (t, _, _), is_label in zip(read[named:], label[named:], strict=True) if not is_label]
        columns = max((len(texts) for texts in body), default=0)
        kept = [c for c in range(columns) if any(c < len(t) and t[c].strip() for t in body)]

        def row(texts: list[str]) -> str:
            return _md_row([texts[c] if c < len(texts) else "" for c in kept])

        group: list[str] = []

        def table() -> None:
            if group:
                rule = _md_row(["---"] * len(kept))
                self.blocks.append(Block("table", "\n".join([row(header_texts), rule, *group])))
                group.clear()

        for (texts, _, _), is_label in zip(read[named:], label[named:], strict=True):
            if is_label:
                table()
                self.blocks.append(Block("para", texts[0].replace("\\|", "|")))  # prose: no escape
            else:
                group.append(row(texts))
        table()

    def _read(self, node: LexborNode, depth: int, skip: tuple[str, ...] = (), level: int = 1) -> list[Block]:
        """`node`'s blocks, read apart from the page's (a list item, a cell, a definition, an
        admonition); its links count for the page. `level`: the heading it sits under."""
        sub = _Walker(self.page_url, self.site_url)
        sub._level = level
        sub.walk(node, depth + 2, skip)  # _read, walk
        sub.flush()
        self.links.extend(sub.links)
        return sub.blocks

    def _questions_and_answers(self, node: LexborNode, depth: int) -> bool:
        """DocBook's questions and answers (a `qandaset`: a table of `tr.question` rows, "3.1." |
        "How can I find broken packages?", each followed by its `tr.answer`): each question a
        heading one level down, with the anchor its table of contents links to, its answer the
        section under it. Read as a table, every answer was a row of one long table, quoted as
        "|  | As mentioned in ..." under no question."""
        rows = _own_rows(node)
        kinds = [set((tr.attributes.get("class") or "").split()) & {"question", "answer"} for tr in rows]
        if not rows or not all(kinds) or "question" not in kinds[0]:
            return False
        self.flush()
        for tr, kind in zip(rows, kinds, strict=True):
            cells = [cell for cell in tr.iter() if cell.tag in ("td", "th")]
            if "question" in kind:
                target = tr.css_first("[id]")
                asked = " ".join(cells[-1].text(deep=True, separator=" ").split()) if cells else ""
                if asked:
                    anchor = (target.attributes.get("id") or "") if target is not None else ""
                    self.blocks.append(Block("heading", asked, level=min(6, self._level + 1), anchor=anchor))
            else:
                for cell in cells:
                    self.blocks.extend(self._read(cell, depth, level=min(6, self._level + 1)))
        return True

    def _inline_text(self, node: LexborNode, depth: int = 0) -> str:
        return " ".join(b.text.replace("\n", " ") for b in self._read(node, depth + 1))

    @staticmethod
    def _is_admonition(node: LexborNode) -> bool:
        classes = (node.attributes.get("class") or "").split()
        return node.tag in ("div", "aside", "details") and (
            "admonition" in classes
            or "theme-admonition" in classes  # Docusaurus
            or "custom-block" in classes  # VitePress
            or ("note" in classes and node.tag == "div")
            or node.tag == "details"
            or (
                node.tag == "div"
                and bool(_DOCBOOK_ADMONITIONS & set(classes))
                and _box_title(node) is not None
            )
        )

    def _admonition(self, node: LexborNode, depth: int) -> None:
        self.flush()
        cells = _box_cells(node)
        title_node = node.css_first(
            ".admonition-title, summary, .admonition-heading, [class*=admonitionHeading], .custom-block-title"
        ) or _box_title(node)
        title = _clean(title_node.text(deep=True, separator="")) if title_node else ""
        docusaurus = title_node is not None and "admonitionHeading" in (
            title_node.attributes.get("class") or ""
        )
        if docusaurus and title.isalpha() and title.islower():  # the kind ("tip"), capitalised by CSS
            title = title.capitalize()
        if title_node is not None:
            title_node.decompose()
        if not title:
            classes = (node.attributes.get("class") or "").split()
            kinds = [c for c in classes if c not in ("admonition", "details")]
            title = kinds[0].capitalize() if kinds else "Note"
        if cells is not None:
            blocks = [block for cell in cells for block in self._read(cell, depth)]
        else:
            blocks = self._read(node, depth)
        label = title if title[-1:] in ":?!" else f"{title}:"  # "NOTE dpkg or apt?", not "apt?:"
        if blocks and blocks[0].kind == "para":
            blocks[0].text = f"**{label}** {blocks[0].text}"
            blocks[0].kind = "note"
        else:
            self.blocks.append(Block("note", f"**{label}**"))
        self.blocks.extend(blocks)

    def _anchor(self, node: LexborNode, depth: int) -> None:
        """Internal links stay in the text as Markdown links (`cat` readers follow them)."""
        self._link(node)
        before = len(self._inline)
        self.walk(node, depth + 1)
        inner = _clean("".join(self._inline[before:]).replace("\n", " "))
        href = node.attributes.get("href") or ""
        target = to_site_path(href, self.page_url, self.site_url) if href else None
        if node.attributes.get("role") == "doc-backlink":  # a footnote's way back to its reference
            target = None
        if target and inner and "[" not in inner and "]" not in inner:
            del self._inline[before:]
            self._inline.append(f"[{inner}]({target})")

    def _link(self, node: LexborNode) -> None:
        href = node.attributes.get("href")
        if href:
            self.links.append(href)


# DocBook's admonitions: <div class="note|tip|important|caution|warning"><h3 class="title">Note</h3>
_DOCBOOK_ADMONITIONS = frozenset(["note", "tip", "important", "caution", "warning", "sidebar"])


# What a language switcher says besides its links: "Available Languages: en | fr | ko".
SWITCHER_WORDS = 4
_SWITCHER_WORD = re.compile(r"\w+")


def _texinfo_indices(root: LexborNode) -> list[LexborNode]:
    """The tables of a texinfo manual's indices and of their "Jump to:" letters (`_TEXINFO_INDEX`)."""
    return [
        table
        for table in root.css("table")
        if _TEXINFO_INDEX.fullmatch(table.attributes.get("class") or "")
        or table.css_first("a[class^='summary-letter']") is not None
    ]


def _language_switchers(root: LexborNode) -> list[LexborNode]:
    """The blocks linking to the page in other languages (`<a hreflang>`) and saying little else:
    the Apache manual opens and ends every page with "Available Languages: en | fr | ko | tr",
    which led "Does Apache have a built-in web interface for editing its configuration?"."""
    found: dict[int, LexborNode] = {}
    for link in root.css("a[hreflang]"):
        block = link.parent
        while block is not None and block.tag not in ("p", "div", "ul", "ol", "nav", "li", "td"):
            block = block.parent
        if block is None or block.mem_id in found:
            continue
        if block.tag == "li" and block.parent is not None:
            block = block.parent
        links = " ".join(a.text(deep=True) for a in block.css("a"))
        rest = len(_SWITCHER_WORD.findall(block.text(deep=True))) - len(_SWITCHER_WORD.findall(links))
        if rest <= SWITCHER_WORDS:
            found[block.mem_id] = block
    return list(found.values())


def _box_title(node: LexborNode) -> LexborNode | None:
    """The title an admonition box opens with as a heading or a `.title` element (DocBook's
    `<h3 class="title">Note</h3>`): the note's label, not a section of the page ("Usage › Note ›
    Command-Line Editing" filed the rest of psql's page under a note); or the header cell of the
    table DocBook lays a note out in when it shows an icon (`_box_cells`)."""
    first = next((c for c in node.iter() if c.tag != "-text"), None)
    if first is None:
        return None
    if first.tag in HEADING_TAGS or "title" in (first.attributes.get("class") or "").split():
        return first
    if "titlepage" in (first.attributes.get("class") or "").split():  # DocBook's <sidebar>
        return first.css_first(".title")
    table = _icon_table(first)
    return table.css_first("th") if table is not None else None


def _box_cells(node: LexborNode) -> list[LexborNode] | None:
    """The cells holding a DocBook note's text when it is laid out as a table (`<td><img
    alt="[Tip]"></td><th>Tip</th>`, then the text in a cell of the next row: aptitude's manual):
    read as a table, every tip was a table headed "[Tip] | Tip", each sentence of it a row."""
    table = _icon_table(next((c for c in node.iter() if c.tag != "-text"), None))
    if table is None:
        return None  # a note that opens with a table of its own (no icon) keeps it
    return [cell for cell in table.css("td") if cell.text(deep=True).strip()]


def _icon_table(first: LexborNode | None) -> LexborNode | None:
    """`first`, a note's first element, when it is the table DocBook lays the note out in: an
    icon (<img>) beside the title (<th>)."""
    if first is None or first.tag != "table" or first.css_first("img") is None:
        return None
    return first if first.css_first("th") is not None else None


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _colspan(cell: LexborNode) -> int:
    try:
        return max(1, min(int(cell.attributes.get("colspan") or 1), 1000))
    except ValueError:
        return 1


def _own_rows(table: LexborNode) -> list[LexborNode]:
    """The rows of `table` itself (directly or in its thead/tbody/tfoot), not of tables nested
    in its cells."""
    rows = []
    for child in table.iter():
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows += [tr for tr in child.iter() if tr.tag == "tr"]
    return rows


def _is_api_entry(node: LexborNode) -> bool:
    """Sphinx's signature line of an API entry (`<dt class="sig sig-object py">`)."""
    return node.tag == "dt" and bool(_API_ENTRY.search(node.attributes.get("class") or ""))


def _is_rdoc_method(node: LexborNode) -> bool:
    return (
        "method-detail" in (node.attributes.get("class") or "").split()
        and bool(node.attributes.get("id"))
        and node.css_first(".method-heading") is not None
    )


def _is_glossary(node: LexborNode) -> bool:
    """A plain definition list: not Sphinx's field lists ("Parameters:") nor its API entries."""
    classes = (node.attributes.get("class") or "").split()
    if "field-list" in classes:
        return False
    return not any(_is_api_entry(c) for c in node.iter())


# Tab widgets whose labels and panels are in two lists, matched in order: (the set, its labels,
# its panels). Material for MkDocs, sphinx-design, sphinx-inline-tabs (Furo's: Flask-Limiter's
# storage backends, "Redis" above `storage_uri="redis://..."`), VitePress's code groups, Docusaurus.
_TAB_SETS = (
    (".tabbed-set", ".tabbed-labels > label", ".tabbed-content > .tabbed-block"),
    (".sd-tab-set", "label.sd-tab-label", ".sd-tab-content"),
    (".tab-set", "label.tab-label", ".tab-content"),
    (".vp-code-group", ".tabs > label", ".blocks > div"),
    (".tabs-container", "[role=tab]", "[role=tabpanel]"),
)


def _label_tab_panels(root: LexborNode) -> None:
    """Each tab panel starts with its tab's label as a bold line ("**Windows**", "**Python
    3.10+**"): a panel's install command or code means little without the tab that names it,
    and the labels themselves (buttons, radio labels, a tab list) are not read as content. A
    panel names its tab by `aria-labelledby` (sphinx-tabs) or by its place in its set."""
    labelled: list[tuple[LexborNode, str]] = []
    for panel in root.css("[role=tabpanel][aria-labelledby]"):
        target = panel.attributes.get("aria-labelledby") or ""
        tab = root.css_first(f'[id="{target}"]') if '"' not in target else None
        if tab is not None:
            labelled.append((panel, _clean(tab.text(deep=True, separator=" "))))
    done = {panel.mem_id for panel, _ in labelled}
    for set_selector, label_selector, panel_selector in _TAB_SETS:
        sets = root.css(set_selector)
        owners = {s.mem_id for s in sets}
        for tab_set in sets:
            labels = _owned(tab_set.css(label_selector), tab_set, owners)
            panels = _owned(tab_set.css(panel_selector), tab_set, owners)
            if len(labels) == len(panels):
                for label, panel in zip(labels, panels, strict=True):
                    if panel.mem_id not in done:
                        labelled.append((panel, _clean(label.text(deep=True, separator=" "))))
                        done.add(panel.mem_id)
    for panel, label in labelled:
        if not label:
            continue
        line = LexborHTMLParser(f"<p><strong>{html_lib.escape(label)}</strong></p>").css_first("p")
        if panel.child is not None:
            panel.child.insert_before(line)
        else:
            panel.insert_child(line)
    for tab_list in root.css("[role=tablist]"):
        tab_list.decompose()


def _owned(nodes: list[LexborNode], tab_set: LexborNode, sets: set[int]) -> list[LexborNode]:
    """`nodes` whose nearest enclosing tab set is `tab_set` (not one nested inside it)."""
    kept = []
    for node in nodes:
        up = node.parent
        while up is not None and up.mem_id not in sets:
            up = up.parent
        if up is not None and up.mem_id == tab_set.mem_id:
            kept.append(node)
    return kept


def _is_content_aside(node: LexborNode) -> bool:
    classes = set((node.attributes.get("class") or "").split())
    return bool(classes & _CONTENT_ASIDES) and "contents" not in classes


def heading_anchor(node: LexborNode) -> str:
    """Where a link to the heading lands: its own id (MkDocs); an id or a named anchor inside it
    (DocBook's `<a name>`); the id of the section it opens (Sphinx's `<section id>`, texinfo's
    `<div class="chapter" id>`), which its permalink ("¶", `a.headerlink`) also names; else an
    empty anchor element just before it (Doxygen's `<a name>`, a reference target's `<span id>`);
    else a link inside it to a fragment, other than a table of contents' back-link ("Basics" →
    `#id5`)."""
    anchor = node.attributes.get("id") or ""
    if anchor:
        return anchor
    inner = [e for e in node.css("[id]") if e.attributes.get("id")]
    if len(inner) > 1:
        # XHTML's self-closed `<a id="x"/>` (the Debian Reference's DocBook) read as HTML is an
        # <a> holding the rest of the heading, and the parser re-opens the one left open before
        # it as an empty copy first: "<h3><a id="previous"></a><a id="own">1.1.12. sudo ..."
        # filed every section under the previous one's anchor. The element holding the whole
        # heading is its anchor.
        whole = node.text(deep=True).strip()
        inner = [e for e in inner if e.text(deep=True).strip() == whole] or inner
    if inner:
        return inner[0].attributes.get("id") or ""
    named = node.css_first("a[name]")  # DocBook, older HTML: <h2><a name="undo"></a>Undo</h2>
    if named is not None and named.attributes.get("name"):
        return named.attributes["name"] or ""
    parent = node.parent
    if parent is not None and parent.tag in ("header", "hgroup"):  # <section id><header><h3>
        parent = parent.parent
    if parent is not None and parent.attributes.get("id"):
        classes = (parent.attributes.get("class") or "").split()
        opens = parent.css_first("h1, h2, h3, h4, h5, h6")
        wrapper = parent.tag == "section" or any(c.startswith(_SECTION_CLASSES) for c in classes)
        if wrapper and opens is not None and opens.mem_id == node.mem_id:
            return parent.attributes["id"] or ""
    link = node.css_first("a.headerlink[href^='#']")
    if link is not None:
        return (link.attributes.get("href") or "#")[1:]
    before = node.prev
    while before is not None and before.tag == "-text" and not (before.text_content or "").strip():
        before = before.prev
    if before is not None and before.tag not in ("a", "span"):
        # man2html's `<A NAME>` before an <H2> ends up inside the open paragraph before it
        last = before.last_child
        while last is not None and last.tag == "-text" and not (last.text_content or "").strip():
            last = last.prev
        before = last if last is not None and last.tag in ("a", "span") else before
    if before is not None and before.tag in ("a", "span") and not before.text(deep=True).strip():
        target = before.attributes.get("id") or before.attributes.get("name")
        if target:
            return target
    for link in node.css("a[href^='#']"):
        if "toc-backref" not in (link.attributes.get("class") or "").split():
            return (link.attributes.get("href") or "#")[1:]
    return ""


def heading_text(node: LexborNode) -> str:
    """A heading's text without the theme's anchor link: `C#` and `#[doc]` keep their `#`."""
    for link in node.css("a[href^='#']"):
        if not link.text(deep=True).strip(_ANCHOR_MARKS + " \t\n"):
            link.decompose()  # a bare anchor mark, not part of the title
    # One line: a heading wrapped in the source ("An extra\nuser account") is one title.
    text = " ".join(node.text(deep=True, separator=" ").split())
    return text.strip("¶§🔗\u200b\ufeff ").strip()


HEAD_BYTES = 16384  # where a redirect stub's meta refresh is looked for


def redirect_target(html: bytes | str) -> str | None:
    """Where a redirect stub (`<meta http-equiv="refresh" content="0; url=…">`) points, else None."""
    head = html[:HEAD_BYTES]
    if (b"refresh" if isinstance(head, bytes) else "refresh") not in head.lower():
        return None
    text, _ = decode_html(head)
    for node in LexborHTMLParser(text).css("meta[http-equiv]"):
        if (node.attributes.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        match = re.search(r"url\s*=\s*['\"]?([^'\">\s]+)", node.attributes.get("content") or "", re.I)
        if match:
            return match.group(1)
    return None


# A manual page in one <pre> (man2html): section names in bold capitals at the margin.
_MAN_SECTION = re.compile(r"<b>[A-Z][A-Z0-9 ]*[A-Z0-9]</b>\s*")
_MAN_SECTIONS_KNOWN = ("NAME", "SYNOPSIS", "DESCRIPTION")
# Its running head and foot: "POSTSUPER(1)        POSTSUPER(1)", or the name alone set right.
_MAN_RUNNING_HEAD = re.compile(r"[\w.:-]+\(\w+\)(?:\s.*)?\s[\w.:-]+\(\w+\)")
_MAN_NAME = re.compile(r"[\w.:-]+\(\w+\)")
MAN_FOOT_INDENT = 20
_PRE_TAGS = re.compile(r"^\s*<pre\b[^>]*>|</pre>\s*$", re.I)
_PUNCTUATION_MARKUP = re.compile(r"<(b|i)>((?:_|[^\w<>]){1,3})</\1>")
_MAN_HYPHEN = re.compile(r"[^\W\d_]-$")  # "mes-" at a line's end, "sage" on the next: one word
_ANY_TAG = re.compile(r"<[^<>]*>")
# A terminal animation (termynal: FastAPI, Typer, SQLModel) writes its console session as escaped
# HTML in the <pre> ("$ &lt;font color=…&gt;fastapi&lt;/font&gt; dev") and its script renders
# the markup: a reader sees colours, not tags, and so should answers and the index.
_TERMINAL = re.compile(r"(?<![\w-])termy(?![\w-])")
_MARKUP_TAG = re.compile(r"</?(?:font|span|u|b|i|strong|em)\b[^<>]*>")


def _ancestors(node: LexborNode, count: int) -> list[LexborNode]:
    out = []
    current = node.parent
    while current is not None and len(out) < count:
        out.append(current)
        current = current.parent
    return out


_MD_LINK = re.compile(r"\[([^\[\]]*)\]\((/[^()\s]*)\)")


def strip_links(text: str) -> str:
    """Page text without Markdown link targets, as indexed and embedded."""
    return _MD_LINK.sub(r"\1", text)


def link_share(text: str) -> float:
    """How much of a page's visible text is the text of links to other pages."""
    linked = sum(len(m.group(1)) for m in _MD_LINK.finditer(text))
    return linked / max(len(strip_links(text)), 1)


def render_blocks(blocks: list[Block]) -> str:
    """Blocks → the page text `cat` shows; records each block's span in it."""
    parts: list[str] = []
    offset = 0
    previous_kind = ""
    for block in blocks:
        text = "#" * block.level + " " + block.text if block.kind == "heading" else block.text
        separator = "\n" if (block.kind == "list" and previous_kind == "list") else "\n\n"
        if parts:
            parts.append(separator)
            offset += len(separator)
        block.start = offset
        parts.append(text)
        offset += len(text)
        block.end = offset
        previous_kind = block.kind
    return "".join(parts) + ("\n" if parts else "")


_EMBEDDED_SCHEME = re.compile(r"/[a-z][a-z0-9+.-]*:/", re.I)


def to_site_path(href: str, page_url: str, site_url: str) -> str | None:
    """A link as a site-root-relative path ("/guide/#x"), or None if it leaves the site."""
    href = href.strip()
    if not href or href.startswith(("mailto:", "tel:", "javascript:", "data:")):
        return None
    base_path = urlsplit(site_url).path if site_url else "/"
    base_path = base_path if base_path.endswith("/") else base_path + "/"
    absolute = urljoin("http://askdocs.invalid" + (page_url or "/"), href)
    parts = urlsplit(absolute)
    site = urlsplit(site_url) if site_url else None
    href_parts = urlsplit(href)
    if href_parts.netloc:
        if site is None or href_parts.netloc.lower() != site.netloc.lower():
            return None
        path = href_parts.path
        if not path.startswith(base_path):
            return None
        path = "/" + path[len(base_path) :]
    else:
        path = parts.path
        if _EMBEDDED_SCHEME.search(path):
            return None  # "../../https://example.org/x/": an absolute URL written as a relative one
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not TRACKING_PARAMS.match(k)])
    return urlunsplit(("", "", path or "/", query, parts.fragment))


def _man_running(line: str) -> bool:
    """A running head or foot man2html leaves in a page (`line` without its markup): "POSTSUPER(1)
    … POSTSUPER(1)", or the page's name alone, set right."""
    said = line.strip()
    return bool(_MAN_RUNNING_HEAD.fullmatch(said)) or (
        len(line) - len(line.lstrip()) >= MAN_FOOT_INDENT and bool(_MAN_NAME.fullmatch(said))
    )


def _man_lines(pre: LexborNode) -> list[str] | None:
    """The lines (HTML) of a <pre> that is a manual page as man2html writes it (`_MAN_SECTION`):
    two section names or more at the margin, "NAME", "SYNOPSIS" or "DESCRIPTION" among them; None
    for any other <pre> (most hold no <b> and are not serialised at all)."""
    if pre.css_first("b") is None:
        return None
    lines = _PUNCTUATION_MARKUP.sub(r"\2", _PRE_TAGS.sub("", pre.html or "")).split("\n")
    names = [_ANY_TAG.sub("", line).strip() for line in lines if _MAN_SECTION.fullmatch(line.rstrip())]
    return lines if len(names) >= 2 and any(name in _MAN_SECTIONS_KNOWN for name in names) else None


def _select_main(tree: LexborHTMLParser) -> LexborNode | None:
    for selector in MAIN_SELECTORS:
        nodes = tree.css(selector)
        if len(nodes) == 1 and nodes[0].text(deep=True).strip():
            return nodes[0]
    return None


def _letters(text: str) -> int:
    return len(text) - sum(1 for c in text if c.isspace())


def _densest_container(tree: LexborHTMLParser) -> LexborNode | None:
    """The smallest element holding MAIN_SHARE of the text readers read on the page
    (paragraphs, code, list items, cells, less their link text; not navigation, banners,
    footers or dialogs): the content column of a theme no selector names (Bootstrap's
    `span9`, a bare `div`). None when no element below <body> holds that much."""
    body = tree.body
    if body is None:
        return None
    chrome = {n.mem_id for n in body.css(_CHROME)}
    counts: dict[int, int] = {}  # element -> readable letters inside it
    for item in body.css(_READABLE):
        inner = item.css(_READABLE)  # (selectolax includes the node itself)
        if any(n.mem_id != item.mem_id for n in inner):
            continue  # counted in the items it holds (a nested list's items)
        # Link text is navigation (a menu, a sidebar's table of contents), not reading; an <a>
        # without a target is none (XHTML's `<a id="x"/>` read as HTML holds what follows it).
        links = sum(_letters(a.text(deep=True)) for a in item.css("a[href]"))
        letters = _letters(item.text(deep=True)) - links
        path, node = [], item
        while node is not None and node.tag not in ("body", "html"):
            if node.mem_id in chrome:
                path = []
                break
            path.append(node.mem_id)
            node = node.parent
        if letters > 0 and path:
            for mem_id in path:
                counts[mem_id] = counts.get(mem_id, 0) + letters
    whole = sum(counts.get(child.mem_id, 0) for child in body.iter())
    if not whole:
        return None
    node, found = body, None
    while True:
        child = next(
            (
                c
                for c in node.iter()
                if counts.get(c.mem_id, 0) >= MAIN_SHARE * whole and c.tag not in _NOT_CONTAINERS
            ),
            None,
        )
        if child is None or _sections_beside(node, child, counts, whole):
            return found
        node = found = child


def _sections_beside(node: LexborNode, child: LexborNode, counts: dict[int, int], whole: int) -> bool:
    """Whether `child` is one section among others of `node`: another child holds a heading and
    at least SECTION_SHARE of the page's readable text. PostgreSQL's "Pattern Matching" page is
    three sections, one of them (POSIX regular expressions) 80% of its text; taken as the
    content, it lost LIKE and SIMILAR TO."""
    for other in node.iter():
        if other.mem_id == child.mem_id or counts.get(other.mem_id, 0) < SECTION_SHARE * whole:
            continue
        if other.tag in HEADING_TAGS or other.css_first("h1, h2, h3, h4, h5, h6") is not None:
            return True
    return False


TOC_LINKS = 5  # a table of contents links to at least this many of the page's own sections
# ...and is nothing but those links (Flask's "app (Flask), session (SessionMixin)" names things)
TOC_LINK_SHARE = 0.9
TOC_DEPTH = 12  # levels below the content element a table of contents is looked for


def _in_page_tocs(main: LexborNode) -> list[LexborNode]:
    """Tables of contents no class names (SQLite's `div.fancy_toc`): blocks of links that are
    nearly all of their text, every one to a section of this very page ("#overview",
    "#how_wal_works"). Read as content, every page's first chunk was its list of section titles.
    Only on pages whose theme marks no content element: in a marked one, a list of links to the
    page's own entries is content ("This calls the following methods: …"). Looked for down to
    TOC_DEPTH levels (a check reads the block's whole subtree: on 2,000 nested divs, every level
    took 29 s)."""
    found: list[LexborNode] = []
    level = [c for c in main.iter() if c.tag != "-text"]
    for _ in range(TOC_DEPTH):
        below: list[LexborNode] = []
        for node in level:
            if node.tag in ("div", "ul", "ol", "table") and _is_toc(node):
                found.append(node)
            else:
                below.extend(c for c in node.iter() if c.tag != "-text")
        level = below
    return found


def _is_toc(node: LexborNode) -> bool:
    anchors = node.css("a")
    # (a link without a target is the box's own toggle: "► Table Of Contents")
    targets = [a.attributes["href"] or "" for a in anchors if "href" in a.attributes]
    if len(targets) < TOC_LINKS or not all(t.startswith("#") for t in targets):
        return False
    text = _letters(node.text(deep=True))
    return bool(text) and sum(_letters(a.text(deep=True)) for a in anchors) >= TOC_LINK_SHARE * text


def _bare_body(tree: LexborHTMLParser) -> LexborNode | None:
    """The <body> as the content, when its text is mostly reading and not links (see
    BODY_LINK_SHARE), less its chrome (`_CHROME`) and the menus above its first heading (blocks
    of three or more links that are most of their text: SQLite's "Home Menu About
    Documentation…"). trafilatura, the alternative, loses headings and definition lists and
    flattens code blocks into paragraphs (every section of Bash's manual page was one)."""
    body = tree.body
    if body is None:
        return None
    letters = _letters(body.text(deep=True))
    links = sum(_letters(a.text(deep=True)) for a in body.css("a"))
    if not letters or links > BODY_LINK_SHARE * letters:
        return None
    for junk in body.css(_CHROME):
        junk.decompose()
    first = body.css_first("h1, h2, h3, h4, h5, h6")
    if first is None:
        return body
    above = []
    for node in body.iter():
        if node.css_first("h1, h2, h3, h4, h5, h6") is not None:
            break  # the heading itself, or the block holding it: the content starts here
        above.append(node)
    for node in above:
        anchors = node.css("a")
        text = _letters(node.text(deep=True))
        if len(anchors) >= 3 and sum(_letters(a.text(deep=True)) for a in anchors) > MENU_LINK_SHARE * text:
            node.decompose()
    return body


# A page's language named by the folder it is in, for pages that do not say it (`<html>` without
# `lang`): the Debian Administrator's Handbook (Publican) puts each translation in its own folder,
# `/es-ES/sect.task-scheduling-cron-atd.html`, and its Spanish pages were read as the site's
# default language, English, and quoted in answers to English questions. Only ISO 639-1 codes of
# languages documentation is translated into, with a region or not ("es", "es-ES", "pt_BR").
_LANGUAGE_CODES = (
    r"(ar|bg|ca|cs|da|de|el|en|es|et|eu|fa|fi|fr|gl|he|hi|hr|hu|id|it|ja|ko|lt|lv|nb|nl|nn|no|pl|pt"
    r"|ro|ru|sk|sl|sr|sv|th|tr|uk|vi|zh)(?:[-_][A-Za-z]{2,4})?"
)
_PATH_LANGUAGE = re.compile(rf"/{_LANGUAGE_CODES}/")
# ... or by a suffix of its file or folder name, as Debian's documentation packages name their
# translations: the Debian Reference's `ch02.en.html`, the APT guide's `guide.de.html/ch1.html`.
_SUFFIX_LANGUAGE = re.compile(rf"[^/.]\.{_LANGUAGE_CODES}(?:\.x?html?)?(?:/[^/]*)?$")


def _path_language(url: str) -> str:
    """The language code the page's first folder names, or the suffix of its file or folder
    name, if one names one."""
    path = urlsplit(url).path or "/"
    match = _PATH_LANGUAGE.match(path) or _SUFFIX_LANGUAGE.search(path)
    return match.group(1) if match else ""


def _meta(tree: LexborHTMLParser, name: str) -> str | None:
    for node in tree.css("meta"):
        attrs = node.attributes
        if (attrs.get("name") or attrs.get("property") or "").lower() == name:
            return attrs.get("content")
    return None


def _title(tree: LexborHTMLParser, main: LexborNode | None) -> str:
    scope = main or tree.body
    h1s = scope.css("h1") if scope is not None else []
    if len(h1s) > 1 and (named := _named_title(tree)):
        return named  # h1s that number the page's parts ("1. Overview", "2. How WAL Works")
    h1 = h1s[0] if h1s else None
    if h1 is not None:
        clone = LexborHTMLParser(h1.html or "").css_first("h1")
        if clone is not None:
            for junk in clone.css(".headerlink"):
                junk.decompose()
            text = heading_text(clone)
            if text:
                return text
    return _named_title(tree)


_PAGE_SUFFIX = re.compile(r"\.(?:html?|php|aspx?)$", re.I)


def path_title(url: str) -> str:
    """The name of a page that has no title of its own, from its address: its file's words
    ("/usage/the_basics.html" -> "The basics"), its folder's for an index page; the address
    itself when it holds no word (the site's root)."""
    parts = [p for p in url.split("#")[0].split("?")[0].split("/") if p]
    while parts and _PAGE_SUFFIX.sub("", parts[-1]).lower() == "index":
        parts.pop()
    words = " ".join(re.sub(r"[_\-.+~]+", " ", _PAGE_SUFFIX.sub("", parts[-1])).split()) if parts else ""
    if not any(c.isalpha() for c in words):
        return url
    return words[:1].upper() + words[1:]


def _named_title(tree: LexborHTMLParser) -> str:
    """The title the page's head gives (og:title, else <title> without the site's name)."""
    og = _meta(tree, "og:title")
    if og:
        return _clean(og)
    title = tree.css_first("title")
    text = _clean(title.text()) if title else ""
    if text.startswith("<no title>"):  # Sphinx's, for a document without a section title
        return ""
    for separator in (" - ", " | ", " — ", " · "):
        if separator in text:
            return text.split(separator)[0].strip()
    return text


def parse_faq_jsonld(raw: str) -> tuple[list[tuple[str, str]], list[str]]:
    """FAQPage/QAPage pairs from one JSON-LD block (answers as plain text)."""
    warnings: list[str] = []
    try:
        data = json.loads(raw)
    except ValueError:
        import json_repair

        data = json_repair.loads(raw)
        warnings.append("malformed JSON-LD was repaired before reading its FAQ")
    pairs: list[tuple[str, str]] = []

    def text_of(value) -> str:
        if isinstance(value, list):
            value = value[0] if value else ""
        if isinstance(value, dict):
            value = value.get("text") or value.get("name") or ""
        if not isinstance(value, str):
            return ""
        if "<" in value:
            value = LexborHTMLParser(f"<body>{value}</body>").body.text(deep=True, separator=" ")
        return _clean(value)

    def visit(node) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        types = node.get("@type")
        types = types if isinstance(types, list) else [types]
        if "Question" in types:
            question = text_of(node.get("name")) or text_of(node.get("text"))
            answer = text_of(node.get("acceptedAnswer")) or text_of(node.get("suggestedAnswer"))
            if question and answer:
                pairs.append((question, answer))
            return
        for key in ("@graph", "mainEntity", "hasPart", "itemListElement"):
            if key in node:
                visit(node[key])

    visit(data)
    return pairs, warnings


def extract(
    html: str | bytes,
    url: str,
    *,
    site_url: str = "",
    default_locale: str = "en",
    meta: dict | None = None,
) -> ExtractedPage:
    """Extract one rendered page. Never raises on bad HTML; problems become warnings."""
    meta = meta or {}
    text, warnings = decode_html(html)
    tree = LexborHTMLParser(text)
    html_node = tree.css_first("html")
    lang = (
        (html_node.attributes.get("lang") or html_node.attributes.get("xml:lang") or "") if html_node else ""
    )
    lang = lang or _path_language(url)
    locale = (meta.get("locale") or lang.split("-")[0].split("_")[0] or default_locale).lower()

    groups_meta = _meta(tree, "askdocs:groups")
    groups = meta.get("groups")
    if groups is None:
        groups = [g.strip() for g in (groups_meta or "").split(",") if g.strip()]
    exclude_meta = (_meta(tree, "askdocs:exclude") or "").strip().lower() in ("true", "1", "yes")
    robots = (_meta(tree, "robots") or "").lower()
    exclude = bool(meta.get("exclude")) or exclude_meta or "noindex" in robots

    canonical = url
    link = tree.css_first("link[rel=canonical]")
    href = link.attributes.get("href") if link is not None else None
    if href:
        resolved = to_site_path(href, url, site_url)
        if resolved:
            canonical = resolved.split("#")[0].split("?")[0] or url
        elif _EMBEDDED_SCHEME.search(href) and not urlsplit(href).scheme:
            warnings.append(f"ignored a broken canonical link {href!r}")

    faqs: list[tuple[str, str]] = []
    for script in tree.css("script[type='application/ld+json']"):
        pairs, problems = parse_faq_jsonld(script.text(deep=True))
        faqs.extend(pairs)
        warnings.extend(problems)

    lastmod = (
        normalize_date(meta.get("lastmod"))
        or normalize_date(_meta(tree, "article:modified_time"))
        or normalize_date(_meta(tree, "askdocs:lastmod"))
        or normalize_date(_meta(tree, "article:published_time"))
    )
    description = _clean(_meta(tree, "description") or "")

    generator = (_meta(tree, "generator") or "").strip().lower()
    texinfo, doxygen = generator.startswith(_TEXINFO), generator.startswith("doxygen")
    if texinfo:
        main = tree.body
        for junk in main.css(_TEXINFO_CHROME) if main is not None else ():
            junk.decompose()
        for index in _texinfo_indices(main) if main is not None else ():
            index.decompose()
    elif doxygen:
        main = tree.css_first("div.contents")
        for junk in main.css(_DOXYGEN_CHROME) if main is not None else ():
            junk.decompose()
        for link in main.css("a") if main is not None else ():
            if link.text(deep=True).strip() == "More...":
                link.decompose()
        path = urlsplit(url).path
        exclude = exclude or path.endswith("_source.html") or "/search/" in path  # its search frames
    else:
        main = _select_main(tree)
    # A theme that marks no content element marks no table of contents either (`_in_page_tocs`).
    unmarked = main is None
    if main is None:
        main = _densest_container(tree)
        if main is not None:
            warnings.append(
                f"no <main>/<article> element; took the <{main.tag}> holding most of the page's text"
            )
    if main is None:
        main = _bare_body(tree)
        if main is not None:
            warnings.append(
                "no <main>/<article> element and no container holding most of the text: "
                "read the whole <body>, less the menus above its first heading"
            )
    if main is None:
        main = _trafilatura_main(text)
        if main is not None:
            warnings.append("no <main>/<article> element; used trafilatura's boilerplate removal")
    if main is None:
        main = tree.body
    headertitle = tree.css_first("div.headertitle div.title") if doxygen else None
    title = (
        _clean(str(meta.get("title") or ""))
        or (_clean(headertitle.text(deep=True, separator=" ")) if headertitle is not None else "")
        or _title(tree, main)
    )
    if texinfo and not meta.get("title") and (named := _MANUAL_SUFFIX.match(title)):
        title = named.group(2) if named.group(1) == "Top" else named.group(1)
    if not any(c.isalnum() for c in title):
        title = ""  # ")" or "}": what a broken build left in <title>, not a name
    blocks: list[Block] = []
    links: list[str] = []
    if main is not None:
        _label_tab_panels(main)  # before the tab lists are removed
        for heading in main.css("h1, h2, h3, h4, h5, h6"):  # before permalinks are removed
            if not heading.attributes.get("id"):
                anchor = heading_anchor(heading)
                if anchor:
                    heading.attrs["id"] = anchor
        for junk in main.css(BOILERPLATE):
            junk.decompose()
        for switcher in _language_switchers(main):
            switcher.decompose()
        for toc in _in_page_tocs(main) if unmarked else ():
            toc.decompose()
        walker = _Walker(url, site_url)
        walker.walk(main)
        walker.flush()
        blocks, links = walker.blocks, walker.links
    first = next((i for i, b in enumerate(blocks) if b.kind == "heading" and b.level == 1), None)
    if first is None and title:
        # The title one level down, the content's first heading (mdBook: "## Variables and
        # Mutability" in <main>, the book's name the h1 of the menu): the page's own heading,
        # not a section of a page titled the same ("Variables and Mutability › Variables and
        # Mutability › Constants").
        top = next((i for i, b in enumerate(blocks) if b.kind == "heading"), None)
        if top is not None and " ".join(blocks[top].text.split()).lower() == " ".join(title.split()).lower():
            blocks[top].level, first = 1, top
    if first and blocks[first].text.lower() == title.lower():  # a banner or badges above the title
        above = sum(len(b.text.split()) if b.kind == "para" else BANNER_WORDS for b in blocks[:first])
        if above < BANNER_WORDS:
            del blocks[:first]
    opened = bool(blocks) and blocks[0].kind == "heading" and blocks[0].level == 1
    if opened and blocks[0].text != title:
        # h1s that number the page's parts ("1. Overview"): the title from the head heads them.
        opened = sum(b.kind == "heading" and b.level == 1 for b in blocks) < 2
    if not opened and title:
        blocks.insert(0, Block("heading", title, level=1, anchor=""))
    content = render_blocks(blocks)
    if not content.strip():
        warnings.append("no readable content")

    resolved_links = sorted(
        {p for href in links if (p := to_site_path(href, url, site_url)) and not p.startswith("#")}
    )
    headings = [Heading(b.level, b.text, b.anchor) for b in blocks if b.kind == "heading"]
    kind = meta.get("kind") or (_meta(tree, "askdocs:kind") or "page")
    return ExtractedPage(
        url=canonical,
        title=title or path_title(canonical),
        locale=locale,
        groups=sorted(set(groups)),
        exclude=exclude,
        lastmod=lastmod,
        kind=kind,
        description=description,
        content=content,
        blocks=blocks,
        headings=headings,
        links=[link for link in resolved_links if link.split("#")[0] != canonical],
        faqs=faqs,
        warnings=warnings,
    )


def _trafilatura_main(html: str) -> LexborNode | None:
    import trafilatura

    result = trafilatura.extract(
        html,
        output_format="html",
        include_tables=True,
        include_formatting=True,
        include_links=True,
        include_comments=False,
        favor_recall=True,
    )
    if not result:
        return None
    return LexborHTMLParser(result).body
