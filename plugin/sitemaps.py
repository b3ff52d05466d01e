"""Reading sitemaps: which pages a site publishes, and when they changed."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from askdocs.shards import SHARD_DIR

_URL = re.compile(r"<url>(.*?)</url>", re.S)
_LOC = re.compile(r"<loc>\s*(.*?)\s*</loc>", re.S)
_LASTMOD = re.compile(r"<lastmod>\s*(.*?)\s*</lastmod>", re.S)


def read_sitemaps(site_dir: Path) -> tuple[dict[str, str | None], str]:
    """Every `sitemap.xml` under the site (nested locale builds too): URL → lastmod,
    and the site URL they use."""
    entries: dict[str, str | None] = {}
    for sitemap in sorted(site_dir.rglob("sitemap.xml")):
        if SHARD_DIR in sitemap.relative_to(site_dir).parts:
            continue
        text = sitemap.read_text(encoding="utf-8", errors="replace")
        for block in _URL.findall(text):
            loc = _LOC.search(block)
            if loc:
                lastmod = _LASTMOD.search(block)
                entries[loc.group(1).strip()] = lastmod.group(1).strip() if lastmod else None
    site_url = ""
    if entries:
        parts = urlsplit(min(entries, key=len))
        site_url = f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else ""
    return entries, site_url


def site_relative(loc: str, site_url: str) -> str:
    base = urlsplit(site_url).path if site_url else "/"
    base = base if base.endswith("/") else base + "/"
    path = urlsplit(loc).path
    return "/" + path[len(base) :] if path.startswith(base) else path


def page_dates(site_dir: Path, site_url: str = "") -> dict[str, str]:
    """Sitemap `lastmod` per page path. A sitemap that gives every page the same date
    (MkDocs stamps the build date) says nothing about pages and is ignored: taking it
    would date every page by the build and make shards differ from day to day."""
    entries, sitemap_site = read_sitemaps(site_dir)
    site_url = site_url or sitemap_site
    dates = {site_relative(loc, site_url): lastmod[:10] for loc, lastmod in entries.items() if lastmod}
    if len(dates) >= 2 and len(set(dates.values())) == 1:
        return {}
    return dates
