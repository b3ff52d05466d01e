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
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

from askdocs.plugin.extract import redirect_target
from selectolax.lexbor import LexborHTMLParser

from askdocs.shards import PageRecord

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
) -> list[Path]:
    """Write llms.txt, llms-full.txt and the page twins; remove twins of hidden pages.

    `aliases`: URLs indexed under another URL (a home page that repeats a chapter).
    """
    site_dir = Path(site_dir)
    public = sorted((p for p in pages if p.public), key=lambda p: p.url)
    public_urls = {p.url for p in public}
    hidden = set(hidden_urls) - public_urls
    for url in sorted(hidden):  # left by an earlier build, when the page was public
        stale = _inside(site_dir, twin_path(url))
        if stale is not None and stale.is_file():
            stale.unlink()
    base = site_url.rstrip("/")
    written: list[Path] = []

    def write(relpath: str, text: str) -> None:
        target = _inside(site_dir, relpath)
        if target is None:
            if log:
                log.warning("llms.txt: %s is outside the site folder; not written", relpath)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
        written.append(target)

    def markdown(page: PageRecord) -> str:
        return page_markdown(page, base, public_urls)

    for page in public:
        write(twin_path(page.url), markdown(page))
    by_locale: dict[str, list[PageRecord]] = {}
    for page in public:
        by_locale.setdefault(page.locale, []).append(page)
    others = sorted(loc for loc in by_locale if loc != default_locale)
    root_locale = default_locale if default_locale in by_locale else (others.pop(0) if others else None)
    if root_locale is None:
        return written
    for locale in [root_locale, *others]:
        group = by_locale[locale]
        folder = "" if locale == root_locale else f"{locale}/"
        prefix = _locale_prefix(locale, group)
        title, summary = _site_title(site_dir, group, prefix, aliases or {})
        links = (
            [
                (
                    loc,
                    f"{base}/{loc}/{LLMS_TXT}",
                    _site_title(site_dir, by_locale[loc], _locale_prefix(loc, by_locale[loc]), aliases or {}),
                )
                for loc in others
            ]
            if locale == root_locale
            else []
        )
        write(folder + LLMS_TXT, llms_txt(title, summary, group, prefix, base, links))
        full = [_header(title, summary)] + [markdown(p) for p in group]
        write(folder + LLMS_FULL_TXT, "\n".join(full))
    if log:
        log.info(
            "llms.txt: %d page twins, %d locale(s) (%s)",
            len(public),
            len(by_locale),
            ",".join(sorted(by_locale)),
        )
    return written


def twin_path(url: str) -> str:
    """A page URL → its Markdown twin, relative to the site root."""
    path = unquote(url.split("#")[0].split("?")[0]).lstrip("/")
    if not path or path.endswith("/"):
        return path + "index.md"
    for suffix in (".html", ".htm"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".md"
    return path + ".md"


def page_markdown(page: PageRecord, base: str, public_urls: set[str]) -> str:
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


def llms_txt(
    title: str,
    summary: str,
    pages: list[PageRecord],
    prefix: str,
    base: str,
    other_locales: list[tuple[str, str, tuple[str, str]]],
) -> str:
    by_url = {p.url: p for p in pages}
    shared = _shared_descriptions(pages)
    sections: dict[str, list[PageRecord]] = {}
    optional: list[PageRecord] = []
    paths = {
        p.url: [s for s in (p.url[len(prefix) :] if p.url.startswith(prefix) else p.url).split("/") if s]
        for p in pages
    }
    folders = {parts[0] for parts in paths.values() if len(parts) > 1}
    for page in pages:
        if page.kind == "listing":
            optional.append(page)
            continue
        parts = paths[page.url]
        # a folder's own page heads the folder's section
        sections.setdefault(parts[0] if parts and parts[0] in folders else "", []).append(page)
    out = [_header(title, summary)]

    def entries(group: list[PageRecord]) -> str:
        lines = []
        for page in group:
            description = _description(page, shared)
            line = f"- [{_link_text(page.title)}]({base}/{twin_path(page.url)})"
            lines.append(f"{line}: {description}" if description else line)
        return "\n".join(lines)

    for key in sorted(sections):
        if key:
            index = by_url.get(f"{prefix}{key}/")
            name = index.title if index is not None else key.replace("-", " ").replace("_", " ").capitalize()
        else:
            name = "Docs"
        out.append(f"## {name}\n\n{entries(sections[key])}\n")
    if other_locales:
        lines = [
            f"- [{_link_text(loc_title)} ({loc})]({url})" + (f": {loc_summary}" if loc_summary else "")
            for loc, url, (loc_title, loc_summary) in other_locales
        ]
        out.append("## Other languages\n\n" + "\n".join(lines) + "\n")
    if optional:
        out.append(f"## Optional\n\n{entries(optional)}\n")
    return "\n".join(out)


def _header(title: str, summary: str) -> str:
    return f"# {title}\n\n> {summary}\n" if summary else f"# {title}\n"


def _locale_prefix(locale: str, pages: list[PageRecord]) -> str:
    folder = f"/{locale}/"
    return folder if all(p.url.startswith(folder) for p in pages) else "/"


def _site_title(
    site_dir: Path, pages: list[PageRecord], prefix: str, aliases: dict[str, str]
) -> tuple[str, str]:
    """The site's name (from its home page's `<title>`) and a one-line summary."""
    home = next((p for p in pages if p.url == aliases.get(prefix, prefix)), None)
    home = home or min(pages, key=lambda p: (len(p.url), p.url))
    name = _site_name(site_dir / twin_path(prefix).replace("index.md", "index.html")) or home.title
    return _one_line(name), _one_line(home.description or _first_sentence(home.content))


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


def _shared_descriptions(pages: list[PageRecord]) -> set[str]:
    """Descriptions on more than one page (a site-wide default) describe none of them."""
    seen: dict[str, int] = {}
    for page in pages:
        if page.description:
            seen[page.description] = seen.get(page.description, 0) + 1
    return {text for text, count in seen.items() if count > 1}


def _description(page: PageRecord, shared: set[str]) -> str:
    if page.description and page.description not in shared:
        return _one_line(page.description)
    return _one_line(_first_sentence(page.content))


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
