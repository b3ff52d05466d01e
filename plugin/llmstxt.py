"""llms.txt, llms-full.txt and a Markdown twin of every public page, at the site root.

Written at the end of every build from the public page records (the same text
the shards hold), so restricted and excluded pages can never appear:

- `/llms.txt` (llmstxt.org): `# site title`, `> summary`, then `## sections`
  of `- [Page title](url): one-line description`. Sections follow the first
  folder of each page's path; listing pages (tags, archives) go under
  `## Optional`. One file per locale: the default locale's at the site root,
  every other locale's in its own folder (`/es/llms.txt`), and the root file
  links to them.
- `/llms-full.txt` (and `/es/llms-full.txt`): every public page of the
  locale as Markdown, one after the other.
- a Markdown twin next to each page: `/install/` → `/install/index.md`,
  `/guide/x.html` → `/guide/x.md`. llms.txt links to the twins.

Links inside the Markdown are absolute when the site URL is known; links to
pages a public reader cannot see lose their target and keep their text.
Everything is sorted and carries no build time: two builds give the same bytes.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from array import array
from collections.abc import Container, Iterable
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote

import numpy as np
from askdocs.plugin.extract import redirect_target
from selectolax.lexbor import LexborHTMLParser

from askdocs.shards import PageRecord
from askdocs.spill import RecordFile

LLMS_TXT = "llms.txt"
LLMS_FULL_TXT = "llms-full.txt"
_MD_LINK = re.compile(r"\[([^\[\]]*)\]\((/[^()\s]*)\)")
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s")
_MARKUP = re.compile(r"\*\*|__")
_NOT_PROSE = re.compile(r"^(#|```|\||-\s|\*\s|\d+\.\s|>|\*\*[^*]+:\*\*)")
MAX_DESCRIPTION = 200


def write_llms_files(
    site_dir: Path,
    site_url: str,
    default_locale: str,
    pages: list[PageRecord],
    hidden_urls: Iterable[str] = (),
    log: logging.Logger | None = None,
    *,
    aliases: dict[str, str] | None = None,
) -> None:
    """Write llms.txt, llms-full.txt and the twins of these pages' public ones (see `LlmsFiles`)."""
    public = sorted((p for p in pages if p.public), key=lambda p: p.url)
    urls = {p.url for p in public}
    files = LlmsFiles(site_dir, site_url, default_locale, urls, hidden_urls, log, aliases=aliases)
    for page in public:
        files.add(page)
    files.close()


class LlmsFiles:
    """llms.txt, llms-full.txt and the page twins, written as the public pages come by in URL
    order; twins of hidden pages (left by an earlier build) are removed first.

    A twin is written as its page comes. Each locale's llms-full.txt goes to a temporary
    file until its header is known, and each page's llms.txt entry (title, link, description)
    to a record file, so `close` writes the llms.txt files with no page in memory.

    `public_urls`: every public page's URL; `aliases`: URLs indexed under another URL (a home
    page that repeats a chapter).
    """

    def __init__(
        self,
        site_dir: Path,
        site_url: str,
        default_locale: str,
        public_urls: Container[str],
        hidden_urls: Iterable[str] = (),
        log: logging.Logger | None = None,
        *,
        aliases: dict[str, str] | None = None,
    ) -> None:
        self.site_dir = Path(site_dir)
        self.base = site_url.rstrip("/")
        self.default_locale = default_locale
        self.public_urls = public_urls
        self.log = log
        self.aliases = aliases or {}
        for url in sorted(u for u in set(hidden_urls) if u not in public_urls):  # public once
            stale = _inside(self.site_dir, twin_path(url))
            if stale is not None and stale.is_file():
                stale.unlink()
        self._folder = tempfile.TemporaryDirectory(prefix="askdocs-llms-")
        self._entries = RecordFile(Path(self._folder.name) / "entries")
        self._locales: dict[str, _Locale] = {}
        self._twins = 0

    def _target(self, relpath: str) -> Path | None:
        target = _inside(self.site_dir, relpath)
        if target is None:
            if self.log:
                self.log.warning("llms.txt: %s is outside the site folder; not written", relpath)
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def _write(self, relpath: str, text: str) -> None:
        target = self._target(relpath)
        if target is not None:
            target.write_text(text, encoding="utf-8", newline="\n")

    def add(self, page: PageRecord) -> None:
        """The next public page (in URL order)."""
        markdown = page_markdown(page, self.base, self.public_urls)
        self._write(twin_path(page.url), markdown)
        self._twins += 1
        locale = self._locales.get(page.locale)
        if locale is None:
            locale = self._locales[page.locale] = _Locale(page.locale, Path(self._folder.name), self.aliases)
        fallback = _one_line(_first_sentence(page.content))
        at = self._entries.append((page.url, page.title, page.kind, page.description, fallback))
        locale.add(page, markdown, at, fallback)

    def close(self) -> None:
        try:
            self._close()
        finally:
            for locale in self._locales.values():
                locale.body.close()
            self._entries.close()
            self._folder.cleanup()

    def _close(self) -> None:
        by_locale = self._locales
        others = sorted(loc for loc in by_locale if loc != self.default_locale)
        if self.default_locale in by_locale:
            root = self.default_locale
        elif others:
            root = others.pop(0)
        else:
            return
        titles = {loc: by_locale[loc].site_title(self.site_dir) for loc in by_locale}
        for name in [root, *others]:
            locale = by_locale[name]
            folder = "" if name == root else f"{name}/"
            title, summary = titles[name]
            links = [(loc, f"{self.base}/{loc}/{LLMS_TXT}", titles[loc]) for loc in others if name == root]
            target = self._target(folder + LLMS_TXT)
            if target is not None:
                with target.open("wb") as out:
                    locale.write_llms_txt(out, self._entries, title, summary, self.base, links)
            target = self._target(folder + LLMS_FULL_TXT)
            if target is None:
                continue
            locale.body.flush()
            with target.open("wb") as out, open(locale.body.name, "rb") as body:
                out.write(_header(title, summary).encode("utf-8"))
                shutil.copyfileobj(body, out)
        if self.log:
            locales = ",".join(sorted(by_locale))
            self.log.info("llms.txt: %d page twins, %d locale(s) (%s)", self._twins, len(by_locale), locales)


class _Locale:
    """One locale's pages as they come: its llms-full.txt so far, and its llms.txt entries."""

    def __init__(self, locale: str, folder: Path, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.body = (folder / f"full.{locale}").open("wb")
        self.folder_prefix = f"/{locale}/"
        self.in_folder = True  # every URL starts with /<locale>/
        self.entries = array("q")  # where each page's entry is in the record file
        self.described = array("q")  # a hash of each page's description (0: none)
        # The pages the home page may be: at "/" or "/<locale>/" (or what they are indexed
        # as), else ("") the one with the shortest URL; (url, title, one-line summary) each.
        self.homes: dict[str, tuple[str, str, str]] = {}

    def add(self, page: PageRecord, markdown: str, at: int, first_line: str) -> None:
        """The page's Markdown, where its entry is, and its first sentence on one line."""
        self.body.write(("\n" + markdown).encode("utf-8"))
        self.in_folder = self.in_folder and page.url.startswith(self.folder_prefix)
        self.entries.append(at)
        self.described.append((hash(page.description) or 1) if page.description else 0)
        home = (page.url, page.title, _one_line(page.description) if page.description else first_line)
        for prefix in ("/", self.folder_prefix):
            if page.url == self.aliases.get(prefix, prefix):
                self.homes[prefix] = home
        shortest = self.homes.get("")
        if shortest is None or (len(page.url), page.url) < (len(shortest[0]), shortest[0]):
            self.homes[""] = home

    @property
    def prefix(self) -> str:
        return self.folder_prefix if self.in_folder else "/"

    def site_title(self, site_dir: Path) -> tuple[str, str]:
        """The site's name (from its home page's `<title>`) and a one-line summary."""
        prefix = self.prefix
        _, title, summary = self.homes.get(prefix) or self.homes[""]
        name = _site_name(site_dir / twin_path(prefix).replace("index.md", "index.html")) or title
        return _one_line(name), summary

    def write_llms_txt(
        self,
        out: BinaryIO,
        entries: RecordFile,
        title: str,
        summary: str,
        base: str,
        other_locales: list[tuple[str, str, tuple[str, str]]],
    ) -> None:
        """`# title`, `> summary`, a section of links per top folder, other languages, and
        listings under Optional; written a line at a time."""
        prefix = self.prefix
        shared = self._shared_descriptions(entries)

        def parts(url: str) -> list[str]:
            return [s for s in (url[len(prefix) :] if url.startswith(prefix) else url).split("/") if s]

        folders = {found[0] for at in self.entries if len(found := parts(entries.read(at)[0])) > 1}
        keys: dict[str, int] = {}
        section = array("i")  # each entry's section (-1: a listing, under Optional)
        index_titles: dict[str, str] = {}  # a folder's own page heads the folder's section
        for at in self.entries:
            url, page_title, kind, _, _ = entries.read(at)
            found = parts(url)
            if found and url == f"{prefix}{found[0]}/":
                index_titles[found[0]] = page_title
            if kind == "listing":
                section.append(-1)
                continue
            key = found[0] if found and found[0] in folders else ""
            section.append(keys.setdefault(key, len(keys)))
        where = np.frombuffer(self.entries, dtype=np.int64)
        in_section = np.frombuffer(section, dtype=np.int32)

        def write(text: str) -> None:
            out.write(text.encode("utf-8"))

        def lines(heading: str, selected: np.ndarray) -> None:  # "\n## heading\n\n- [...](...)\n..."
            write(f"\n## {heading}\n\n")
            for n, at in enumerate(where[selected].tolist()):
                url, page_title, _, description, fallback = entries.read(at)
                own = _one_line(description) if description and description not in shared else fallback
                line = f"- [{_link_text(page_title)}]({base}/{twin_path(url)})"
                write(("\n" if n else "") + (f"{line}: {own}" if own else line))
            write("\n")

        write(_header(title, summary))
        for key in sorted(keys):
            if key in index_titles:
                name = index_titles[key]
            elif key:
                name = key.replace("-", " ").replace("_", " ").capitalize()
            else:
                name = "Docs"
            lines(name, np.flatnonzero(in_section == keys[key]))
        if other_locales:
            links = [
                f"- [{_link_text(loc_title)} ({loc})]({url})" + (f": {loc_summary}" if loc_summary else "")
                for loc, url, (loc_title, loc_summary) in other_locales
            ]
            write("\n## Other languages\n\n" + "\n".join(links) + "\n")
        optional = np.flatnonzero(in_section == -1)
        if len(optional):
            lines("Optional", optional)

    def _shared_descriptions(self, entries: RecordFile) -> set[str]:
        """Descriptions on more than one page (a site-wide default) describe none of them."""
        hashes = np.frombuffer(self.described, dtype=np.int64)
        values, counts = np.unique(hashes[hashes != 0], return_counts=True)
        maybe = np.isin(hashes, values[counts > 1])  # the same hash: the same text, or a collision
        seen: dict[str, int] = {}
        for at in np.frombuffer(self.entries, dtype=np.int64)[maybe].tolist():
            description = entries.read(at)[3]
            seen[description] = seen.get(description, 0) + 1
        return {text for text, count in seen.items() if count > 1}


def twin_path(url: str) -> str:
    """A page URL → its Markdown twin, relative to the site root."""
    path = unquote(url.split("#")[0].split("?")[0]).lstrip("/")
    if not path or path.endswith("/"):
        return path + "index.md"
    for suffix in (".html", ".htm"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".md"
    return path + ".md"


def page_markdown(page: PageRecord, base: str, public_urls: Container[str]) -> str:
    """The page's text as Markdown with a `Source:` line under its title."""

    def link(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        page_part = target.split("#")[0].split("?")[0]
        if page_part and page_part not in public_urls and _looks_like_page(page_part):
            return text
        return f"[{text}]({base}{target})"

    content = _MD_LINK.sub(link, page.content).strip("\n")
    source = f"Source: {base}{page.url}"
    first, _, rest = content.partition("\n")
    if first.startswith("# "):
        body = f"{first}\n\n{source}\n{rest}" if rest else f"{first}\n\n{source}"
    else:
        body = f"# {page.title}\n\n{source}\n\n{content}"
    return body.rstrip("\n") + "\n"


def _header(title: str, summary: str) -> str:
    return f"# {title}\n\n> {summary}\n" if summary else f"# {title}\n"


def _site_name(home_file: Path) -> str:
    """`og:site_name`, else the site part of the home page's `<title>` ("Intro - The Book")."""
    try:
        head = home_file.read_bytes()[:65536]
    except OSError:
        return ""
    if redirect_target(head):
        return ""
    tree = LexborHTMLParser(head.decode("utf-8", "replace"))
    for node in tree.css("meta[property='og:site_name']"):
        if (node.attributes.get("content") or "").strip():
            return node.attributes["content"].strip()
    title = tree.css_first("title")
    text = " ".join(title.text().split()) if title is not None else ""
    for separator in (" - ", " | ", " — ", " · ", " – "):
        if separator in text:
            return text.rsplit(separator, 1)[1].strip()
    return text


def _first_sentence(content: str) -> str:
    """The first sentence of the first plain paragraph (not a heading, list, table or code)."""
    in_code = False
    for block in content.split("\n\n"):
        line = block.strip()
        if line.startswith("```"):
            in_code = not line.endswith("```") or line == "```"
            continue
        if in_code:
            in_code = not line.endswith("```")
            continue
        if not line or _NOT_PROSE.match(line):
            continue
        text = _MARKUP.sub("", _MD_LINK.sub(r"\1", line.replace("\n", " ")))
        return _SENTENCE_END.split(text, maxsplit=1)[0]
    return ""


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
    return text


def _link_text(title: str) -> str:
    return title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _looks_like_page(path: str) -> bool:
    """Links to assets (images, downloads) are not pages; they keep their target."""
    name = path.rsplit("/", 1)[-1]
    return not name or "." not in name or name.endswith((".html", ".htm"))


def _inside(site_dir: Path, relpath: str) -> Path | None:
    target = (site_dir / relpath).resolve()
    try:
        target.relative_to(site_dir.resolve())
    except ValueError:
        return None
    return target
