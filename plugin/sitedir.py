"""`askdocs build SITE_DIR`: index any generator's HTML output (Sphinx, Hugo, Zensical, …).

Pages come from the site's sitemaps (every `sitemap.xml` under the folder,
so nested locale builds count) when there are any, else from walking the
HTML files. Restricted pages an earlier build moved to the private set are
read from there. The shard folders themselves are never indexed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from urllib.parse import unquote

from askdocs.plugin.builder import BuildOptions, BuildReport, IndexBuilder, RawPage
from askdocs.plugin.extract import HEAD_BYTES, redirect_target
from askdocs.plugin.privacy import site_path_of, url_of
from askdocs.plugin.sitemaps import read_sitemaps, site_relative
from selectolax.lexbor import LexborHTMLParser

from askdocs.shards import MANIFEST, PRIVATE_HTML_DIR, SHARD_DIR

SKIP_FILES = {"404.html", "search.html", "genindex.html", "py-modindex.html", "searchindex.html"}
# Sphinx's own folders: `_modules` holds viewcode's highlighted source of every module ("Source
# code for …", often a third of a site's text and third-party code at that), `_static` and the
# others hold assets, not pages.
SKIP_FOLDERS = {"_modules", "_static", "_sources", "_images", "_downloads"}


def _skipped(rel_parts: tuple[str, ...]) -> bool:
    return bool(rel_parts) and (
        rel_parts[0] == SHARD_DIR
        or any(p.startswith(".") for p in rel_parts)
        or any(p in SKIP_FOLDERS for p in rel_parts[:-1])
        or rel_parts[-1] in SKIP_FILES
    )


def _is_shard_folder(folder: Path) -> bool:
    return (folder / MANIFEST).is_file()


def _file_for(site_dir: Path, path: str) -> Path | None:
    path = unquote(path).lstrip("/")
    candidates = (
        [site_dir / path / "index.html"]
        if not path or path.endswith("/")
        else [site_dir / path, site_dir / path / "index.html", site_dir / (path + ".html")]
    )
    return next((c for c in candidates if c.is_file()), None)


log = logging.getLogger("askdocs.build")


class Found:
    """The pages of a site folder, as URLs until they are read: a page's file is its URL's
    (`site_path_of` backwards), in the site folder or, for restricted pages an earlier build
    moved, in the private set's html folder."""

    def __init__(self, site_dir: Path, urls: list[str], moved_dir: Path | None, moved: set[str]) -> None:
        self.site_dir, self.moved_dir = site_dir, moved_dir
        self._urls, self._moved = urls, moved

    def __len__(self) -> int:
        return len(self._urls)

    def file(self, url: str) -> Path:
        rel = url[1:] + "index.html" if url.endswith("/") else url[1:]
        folder = self.moved_dir if url in self._moved and self.moved_dir is not None else self.site_dir
        return folder / rel

    def pages(self) -> Iterator[RawPage]:
        """Each page once, in order; a page handed out is no longer held here."""
        self._urls.reverse()
        while self._urls:
            url = self._urls.pop()
            yield RawPage(url=url, html=None, path=self.file(url))


def discover(
    site_dir: Path, private_dir: Path | None, site_url: str = "", logger: logging.Logger = log
) -> tuple[Found, str]:
    site_dir = site_dir.resolve()
    pages: dict[str, None] = {}  # URLs, in the order of their files' paths
    sources = 0  # Sphinx viewcode pages left out
    sitemap, sitemap_site = read_sitemaps(site_dir)
    site_url = site_url or sitemap_site
    if sitemap:
        for loc in sorted(sitemap):
            file = _file_for(site_dir, site_relative(loc, site_url))
            rel_parts = file.relative_to(site_dir).parts if file is not None else ()
            sources += "_modules" in rel_parts[:-1]
            if file is None or _skipped(rel_parts):
                continue
            pages[site_path_of(file, site_dir)] = None
    else:
        shard_folder = cache(lambda folder: _is_shard_folder(site_dir / folder))
        # Path strings sorted as paths sort (part by part), not held as Path objects.
        files = sorted((f.relative_to(site_dir).as_posix() for f in site_dir.rglob("*.html")), key=_by_parts)
        for rel in files:
            rel_parts = tuple(rel.split("/"))
            sources += "_modules" in rel_parts[:-1]
            inside = ("/".join(rel_parts[:n]) for n in range(1, len(rel_parts)))
            if _skipped(rel_parts) or any(shard_folder(folder) for folder in inside):
                continue
            pages[url_of(rel)] = None
    del sitemap
    if sources:
        logger.info("skipped %d source-code page(s) of Sphinx's viewcode (_modules/)", sources)
    moved = private_dir / PRIVATE_HTML_DIR if private_dir is not None else None
    found = Found(site_dir, [], moved, set())
    # Pages are read when the builder extracts them, one at a time: a site's HTML is never all
    # in memory. A redirect stub shows in a file's head (what `redirect_target` reads).
    redirects = {url: target for url in pages if (target := redirect_target(_head(found.file(url))))}
    if redirects:
        # Generators write a stub per moved page (mdBook, mkdocs-redirects, Hugo aliases):
        # the page it points to is indexed under its own URL.
        examples = ", ".join(f"{url} → {target}" for url, target in sorted(redirects.items())[:3])
        more = f" and {len(redirects) - 3} more" if len(redirects) > 3 else ""
        logger.info("skipped %d redirect page(s) (meta refresh): %s%s", len(redirects), examples, more)
        for url in redirects:
            del pages[url]
    if moved is not None and moved.is_dir():
        for file in sorted(moved.rglob("*.html")):
            url = site_path_of(file, moved)
            if url not in pages:
                pages[url] = None
                found._moved.add(url)
    found._urls = list(pages)
    return found, site_url


def _by_parts(rel: str) -> str:
    """A sort key that orders path strings as `Path` objects order (part by part)."""
    return rel.replace("/", "\0")


def _head(path: Path | None) -> bytes:
    if path is None:
        return b""
    with path.open("rb") as fh:
        return fh.read(HEAD_BYTES)


def default_locale(site_dir: Path) -> str:
    index = site_dir / "index.html"
    if index.is_file():
        node = LexborHTMLParser(index.read_bytes().decode("utf-8", "replace")).css_first("html")
        lang = (node.attributes.get("lang") or "") if node else ""
        if lang:
            return lang.split("-")[0].split("_")[0].lower()
    return "en"


def build_site(options: BuildOptions, *, logger=None) -> BuildReport:
    site_dir = options.site_dir
    if not site_dir.is_dir():
        from askdocs.errors import BuildError

        raise BuildError(f"{site_dir} is not a folder; pass the generator's output (e.g. site/)")
    found, site_url = discover(site_dir, options.resolved_private_dir, options.site_url, logger or log)
    if not options.site_url:
        options.site_url = site_url
    kwargs = {"logger": logger} if logger else {}
    builder = IndexBuilder(options, **kwargs)
    builder.remember_previous()
    for raw in _progress(found.pages(), len(found), options.progress):
        builder.add(raw)
    return builder.build()


def _progress(pages: Iterator[RawPage], total: int, enabled: bool) -> Iterator[RawPage]:
    if not enabled:
        return pages
    from tqdm import tqdm

    return tqdm(pages, total=total, desc="askdocs: reading pages", unit="page", leave=False, disable=None)
