"""One document, one entry: pages that repeat another page's text under a second URL.

mdBook writes its first chapter twice (`index.html` and `what-is-x.html`), other
generators keep print or alias copies; `rel=canonical` duplicates are already
folded by the builder. Pages whose text (link targets aside), locale and groups
are identical are indexed once, under the page's own URL rather than a folder
index that repeats it.
"""

from __future__ import annotations

import logging

from askdocs.plugin.extract import ExtractedPage, strip_links


def duplicate_urls(pages: list[ExtractedPage], log: logging.Logger) -> dict[str, str]:
    """URL of each page that repeats another page's document → the URL it is indexed as."""
    groups: dict[tuple, list[str]] = {}
    for page in pages:
        key = (page.locale, tuple(page.groups), strip_links(page.content))
        groups.setdefault(key, []).append(page.url)
    dropped: dict[str, str] = {}
    for urls in groups.values():
        if len(urls) > 1:
            kept = min(urls, key=_preference)
            others = sorted(set(urls) - {kept})
            log.info("same document under %s: indexed once, as %s", ", ".join(others), kept)
            dropped.update(dict.fromkeys(others, kept))
    return dropped


def _preference(url: str) -> tuple[bool, int, str]:
    path = url.split("#")[0].split("?")[0]
    is_index = path.endswith("/") or path.endswith("/index.html")
    return (is_index, len(path), path)
