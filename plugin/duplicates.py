"""One document, one entry: pages that repeat another page's text under a second URL.

mdBook writes its first chapter twice (`index.html` and `what-is-x.html`), other
generators keep print or alias copies; `rel=canonical` duplicates are already
folded by the builder. Pages whose text (link targets aside), locale and groups
are identical are indexed once, under the page's own URL rather than a folder
index that repeats it. The comparison is made on a 16-byte key per page, taken
when the page is read, so no page's text is held for it.
"""

from __future__ import annotations

import hashlib
import json
import logging

import numpy as np
from askdocs.plugin.extract import ExtractedPage, strip_links

KEY_BYTES = 16
_JSON = json.JSONEncoder(ensure_ascii=False).encode


def document_key(page: ExtractedPage) -> bytes:
    """The same 16 bytes for two pages exactly when their locale, groups and text (links
    aside) are the same (sha256 of all three; a collision is not a practical concern)."""
    document = _JSON([page.locale, list(page.groups), strip_links(page.content)])
    return hashlib.sha256(document.encode("utf-8", "surrogatepass")).digest()[:KEY_BYTES]


def duplicate_urls(urls: list[str], keys: np.ndarray, log: logging.Logger) -> dict[str, str]:
    """URL of each page that repeats another page's document → the URL it is indexed as.

    `urls` sorted; `keys`: each one's `document_key`, as rows of KEY_BYTES uint8."""
    key = np.ascontiguousarray(keys, dtype=np.uint8).reshape(-1, KEY_BYTES)
    head = key[:, :8].copy().view("<u8").ravel()  # equal keys have equal heads
    order = np.argsort(head, kind="stable")
    same = head[order][1:] == head[order][:-1]
    candidates = np.unique(order[np.r_[False, same] | np.r_[same, False]]) if same.any() else order[:0]
    groups: dict[bytes, list[str]] = {}  # in URL order of each group's first page
    for index in candidates.tolist():
        groups.setdefault(key[index].tobytes(), []).append(urls[index])
    dropped: dict[str, str] = {}
    for found in sorted((g for g in groups.values() if len(g) > 1), key=lambda g: g[0]):
        kept = min(found, key=_preference)
        others = sorted(set(found) - {kept})
        log.info("same document under %s: indexed once, as %s", ", ".join(others), kept)
        dropped.update(dict.fromkeys(others, kept))
    return dropped


def _preference(url: str) -> tuple[bool, int, str]:
    path = url.split("#")[0].split("?")[0]
    is_index = path.endswith("/") or path.endswith("/index.html")
    return (is_index, len(path), path)
