"""After a build, no file under the public site dir holds restricted text.

Restricted pages' HTML moves to `<private_dir>/html/`; their entries leave
MkDocs' `search_index.json`, `sitemap.xml(.gz)` and Atom/RSS feeds; links to
them leave the public pages (navigation, next/previous, listing entries), so
not even their titles remain.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import shutil
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

from askdocs.errors import BuildError, ShardError
from askdocs.shards import MANIFEST, PRIVATE_HTML_DIR, SHARD_DIR, peek_manifest

# A block takes the whitespace before it with it; the run is tried from its start only
# (`(?<!\s)`): from every position of it, 64,000 spaces or tabs in a sitemap took 5 s.
_URL_BLOCK = re.compile(r"(?<!\s)\s*<url>.*?</url>", re.S)
_LOC = re.compile(r"<loc>\s*(.*?)\s*</loc>", re.S)
_FEED_ENTRY = re.compile(r"(?<!\s)\s*<(entry|item)\b.*?</\1>", re.S)
_FEED_LINK = re.compile(r"<link[^>]*href=\"([^\"]+)\"|<link>\s*([^<]+)</link>")


def check_private_dir(private_dir: Path, site_dir: Path) -> None:
    """Refuse a private dir that would be uploaded with a published site."""
    target = private_dir.resolve()
    site = site_dir.resolve()
    for folder in [target, *target.parents]:
        if folder == site or (folder / "index.html").is_file():
            raise BuildError(
                f"the private shard folder {private_dir} would land inside the published site "
                f"{folder} (it holds index.html), so restricted pages would be public. Set the "
                "`private_dir` plugin option (or `askdocs build --private-dir`) to a folder "
                "outside every published site."
            )


def _existing(private_dir: Path) -> dict | None:
    """The manifest fields of the shard set already there (any format version), if any."""
    if not (private_dir / MANIFEST).is_file():
        return None
    try:
        return peek_manifest(private_dir)
    except ShardError:
        return None


def check_owner(private_dir: Path, owner: str) -> None:
    """Two sites must not share one private folder (the second would overwrite the first)."""
    manifest = _existing(private_dir)
    if manifest is not None and manifest.get("owner") not in (None, owner):
        raise BuildError(
            f"the private shard folder {private_dir} holds the restricted pages of another site "
            f"({manifest.get('owner')}); give each site its own folder with the `private_dir` plugin "
            "option (or `askdocs build --private-dir`)"
        )


def remove_stale_private_set(private_dir: Path, owner: str, log: logging.Logger) -> None:
    """A site with no restricted pages keeps no private set from an earlier build."""
    manifest = _existing(private_dir)
    if manifest is not None and manifest.get("visibility") == "private" and manifest.get("owner") == owner:
        shutil.rmtree(private_dir)
        log.info("no restricted pages any more; removed the old private set %s", private_dir)


def site_path_of(file: Path, site_dir: Path) -> str:
    return url_of(file.relative_to(site_dir).as_posix())


def url_of(rel: str) -> str:
    """A page's URL from its file's path in the site folder (`x/index.html` → `/x/`)."""
    if rel == "index.html":
        return "/"
    if rel.endswith("/index.html"):
        return "/" + rel[: -len("index.html")]
    return "/" + rel


def html_file_for(url: str, site_dir: Path) -> Path:
    path = url.split("#")[0].split("?")[0].lstrip("/")
    if not path or path.endswith("/"):
        return site_dir / path / "index.html"
    return site_dir / path


def protect(
    *,
    site_dir: Path,
    site_url: str,
    restricted: list[tuple[str, Path | None]],
    private_dir: Path,
    keep_html: bool,
    log: logging.Logger,
) -> None:
    if not restricted:
        return
    urls = {url for url, _ in restricted}
    for search_index in sorted(site_dir.rglob("search_index.json")):
        _scrub_search_index(search_index, site_dir, urls)
    for sitemap in sorted(site_dir.rglob("sitemap.xml")):
        _scrub_sitemap(sitemap, site_url, urls)
    _scrub_feeds(site_dir, urls, site_url)
    if keep_html:
        return
    for url, path in restricted:
        source = path if path is not None and path.is_file() else html_file_for(url, site_dir)
        if not source.is_file() or not _inside(source, site_dir):
            continue
        target = private_dir / PRIVATE_HTML_DIR / source.relative_to(site_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(source), target)
        folder = source.parent
        while folder != site_dir and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
        log.info("moved restricted page %s to %s", url, target)
    _scrub_links(site_dir, urls)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _scrub_search_index(path: Path, site_dir: Path, urls: set[str]) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    docs = data.get("docs") if isinstance(data, dict) else None
    if not isinstance(docs, list):
        return
    prefix = "/" + path.parent.parent.relative_to(site_dir).as_posix().strip(".").strip("/")
    prefix = prefix.rstrip("/") + "/"
    kept = [d for d in docs if (prefix + str(d.get("location", ""))).split("#")[0] not in urls]
    if len(kept) != len(docs):
        data["docs"] = kept
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _scrub_sitemap(path: Path, site_url: str, urls: set[str]) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    base = urlsplit(site_url).path if site_url else "/"
    base = base if base.endswith("/") else base + "/"

    def keep(block: re.Match) -> str:
        loc = _LOC.search(block.group(0))
        if loc is None:
            return block.group(0)
        path_part = urlsplit(loc.group(1)).path
        rel = "/" + path_part[len(base) :] if path_part.startswith(base) else path_part
        return "" if rel in urls else block.group(0)

    scrubbed = _URL_BLOCK.sub(keep, text)
    if scrubbed != text:
        path.write_text(scrubbed, encoding="utf-8")
        gz = path.with_name(path.name + ".gz")
        if gz.is_file():
            with gzip.GzipFile(gz, "wb", mtime=0) as fh:
                fh.write(scrubbed.encode("utf-8"))


def _scrub_links(site_dir: Path, urls: set[str]) -> None:
    needles = {u.rstrip("/").rsplit("/", 1)[-1].encode() for u in urls if u.strip("/")}
    for file in sorted(site_dir.rglob("*.html")):
        rel_parts = file.relative_to(site_dir).parts
        if rel_parts and rel_parts[0] == SHARD_DIR:
            continue
        raw = file.read_bytes()
        if not any(n in raw for n in needles):
            continue
        page_url = site_path_of(file, site_dir)
        tree = LexborHTMLParser(raw.decode("utf-8", errors="replace"))
        changed = False
        for node in tree.css("a[href], link[href]"):
            href = node.attributes.get("href") or ""
            target = urlsplit(urljoin("http://x" + page_url, href)).path
            if target not in urls:
                continue
            _container(node).decompose()
            changed = True
        if changed:
            tmp = file.with_name(file.name + ".askdocs-tmp")
            tmp.write_text(tree.html or "", encoding="utf-8")
            os.replace(tmp, file)


def _container(link):
    """What to remove with a link to a restricted page: its list item or table row, the
    listing entry it titles (an `article` whose heading holds it), else the link alone."""
    in_heading = False
    node = link.parent
    while node is not None and node.tag not in ("body", "html"):
        if node.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            in_heading = True
        if node.tag in ("li", "tr"):
            return node
        if node.tag == "article" and in_heading:
            return node
        node = node.parent
    return link


def _scrub_feeds(site_dir: Path, urls: set[str], site_url: str) -> None:
    """Atom/RSS entries about restricted pages leave the feeds."""
    base = urlsplit(site_url).path if site_url else "/"
    base = base if base.endswith("/") else base + "/"
    for feed in sorted(site_dir.rglob("*.xml")):
        if feed.name == "sitemap.xml" or SHARD_DIR in feed.relative_to(site_dir).parts:
            continue
        text = feed.read_text(encoding="utf-8", errors="replace")
        if "<entry" not in text and "<item" not in text:
            continue

        def keep(match: re.Match) -> str:
            for href in _FEED_LINK.findall(match.group(0)):
                target = href[0] or href[1]
                path = urlsplit(target.strip()).path
                rel = "/" + path[len(base) :] if path.startswith(base) else path
                if rel in urls:
                    return ""
            return match.group(0)

        scrubbed = _FEED_ENTRY.sub(keep, text)
        if scrubbed != text:
            feed.write_text(scrubbed, encoding="utf-8")
