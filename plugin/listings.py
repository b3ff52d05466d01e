"""Listing pages: pages whose prose is mostly copied from other pages they link to (tag
pages, digests), and pages that are mostly links (a generated index of names, a sitemap).

A page's shingles are the hashes of its 8-word runs; its opening is the first of them. A
page is a listing when at least half of its shingles occur on other pages too, those come
from at least two other pages, it quotes the opening of at least two of them and links to
those, and no one page supplies most of what it shares. A digest quotes each page from its
start (an excerpt, a summary, the whole page); a manual page that includes the option text
it shares with its neighbours (Git's log, show and diff pages) quotes their middles.
Shingles are taken as each page is read and go to a temporary file as (shingle, page)
rows; `Listings.find` groups them by shingle a bucket at a time, so what stays in memory
is a few numbers per page (the set-based rule took ~20 kB of objects per page, flat arrays
of every pair 12 bytes per shingle).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from askdocs.plugin.extract import _MD_LINK, ExtractedPage, link_share, strip_links

from askdocs.spill import Rows, grouped

SHINGLE_WORDS = 8
ROWS_PER_BUCKET = 1 << 17  # (shingle, page) rows sorted in memory at once (~12 MB with the work)
_WORK_ROWS = 1 << 14  # a listing candidate's shingles paired with their other pages at once
MIN_INDEX_CHARS = 300  # a page of links shorter than this is a small hub page, not an index
MAX_SOURCE_SHARE = 0.6  # of a listing's shared text, at most this much comes from any one page


INDEX_LINKS_PER_WORD = 0.17  # a back-of-book index: a link every six words or so
MIN_INDEX_WORDS = 100


def link_index(page: ExtractedPage) -> bool:
    """A page that is mostly links, or a back-of-book index ("**auto-increment, [serial](…)**",
    entry after entry: its terms are words, but it is there to point elsewhere): a listing
    whatever it shares. PostgreSQL's index (0.20 links per word; a content page of any eval
    site at most 0.13) was the first result for every question whose words it lists."""
    if page.kind != "page" or len(page.content) < MIN_INDEX_CHARS:
        return False
    if link_share(page.content) >= 0.6:
        return True
    words = len(strip_links(page.content).split())
    return words >= MIN_INDEX_WORDS and len(_MD_LINK.findall(page.content)) >= INDEX_LINKS_PER_WORD * words


def normalized(text: str) -> str:
    """Words only, lowercased, one space apart."""
    return re.sub(r"\W+", " ", text).strip().lower()


def shingles(page: ExtractedPage) -> list[int]:
    """The hashes of the page's 8-word runs of prose, in order (repeats kept)."""
    words = " ".join(b.text for b in page.blocks if b.kind in ("para", "list", "note"))
    tokens = normalized(words).split()
    return [hash(" ".join(tokens[i : i + SHINGLE_WORDS])) for i in range(len(tokens) - SHINGLE_WORDS + 1)]


class Listings:
    """Shingles of every page read, by page number (the order of `add`)."""

    def __init__(self, folder: Path) -> None:
        self._rows = Rows(folder / "shingles", 2, wide=True)  # (shingle, page)
        self._totals = array("i")  # distinct shingles per page
        self._openings = array("q")  # each page's first shingle (0: none)

    def __len__(self) -> int:
        return len(self._totals)

    def add(self, page: ExtractedPage) -> int:
        """Take the page's shingles; returns its number."""
        number = len(self._totals)
        runs = shingles(page)
        found = set(runs)
        self._totals.append(len(found))
        self._openings.append(runs[0] if runs else 0)
        if found:
            pairs = np.empty((len(found), 2), dtype=np.int64)
            pairs[:, 0], pairs[:, 1] = np.fromiter(found, dtype=np.int64, count=len(found)), number
            self._rows.extend(pairs)
        return number

    def find(
        self, live: np.ndarray, candidate: np.ndarray, quotes: Callable[[int, np.ndarray], int]
    ) -> np.ndarray:
        """Which pages are listings (a mask by page number), among the pages `live` marks (the
        site's pages: a page read again, dropped or indexed under another URL is not), of
        those `candidate` marks (pages of kind "page", not link indexes). `quotes(page,
        sources)`: how many of the pages numbered `sources` the page links to."""
        count = len(self._totals)
        totals = np.frombuffer(self._totals, dtype=np.int32).astype(np.int64)
        shared = np.zeros(count, dtype=np.int64)  # shingles also found on other pages
        crowded = np.zeros(count, dtype=bool)  # one of them on three or more pages
        partner = np.full(count, -1, dtype=np.int64)  # a page sharing a shingle found on two pages
        partners = np.zeros(count, dtype=bool)  # ... and another one
        for _, owner, starts, sizes in self._by_shingle(live):
            owners_of_pair = np.repeat(sizes, sizes)
            shared += np.bincount(owner[owners_of_pair > 1], minlength=count)
            # At least two other pages: a shingle on three or more pages gives any of them two
            # at once; else the distinct partners over the shingles found on exactly two pages.
            crowded[owner[owners_of_pair >= 3]] = True
            first = starts[sizes == 2]
            a, b = owner[first], owner[first + 1]
            page, other = np.r_[a, b], np.r_[b, a]
            if len(page):
                order = np.lexsort((other, page))
                page, other = page[order], other[order]
                heads = np.flatnonzero(np.r_[True, page[1:] != page[:-1]])
                pages, low = page[heads], other[heads]
                high = other[np.r_[heads[1:], len(page)] - 1]
                unknown = partner[pages] < 0
                partner[pages[unknown]] = low[unknown]
                known = partner[pages]
                partners[pages] |= (low != known) | (high != known)
        with np.errstate(divide="ignore", invalid="ignore"):
            mostly_shared = shared / totals >= 0.5
        copies = live & candidate & (totals >= 10) & mostly_shared & (crowded | partners)
        # A listing quotes several pages from their start and links to them (tag pages,
        # digests). Pages that share text without linking to its sources (the nginx and Apache
        # pages of one deployment guide), that repeat mostly one other page (an API page under
        # two names, a guide and the reference it copies) or that share the middles of their
        # sources (option text included in several manual pages) are pages.
        listing = np.zeros(count, dtype=bool)
        for page, sources, times, opened in self._sources(live, copies):
            if quotes(page, sources[opened]) >= 2 and times.max() <= MAX_SOURCE_SHARE * shared[page]:
                listing[page] = True
        return listing

    def _by_shingle(self, live: np.ndarray) -> Iterator[tuple[np.ndarray, ...]]:
        """The live pages' rows a bucket of shingles at a time, sorted by shingle: (each row's
        shingle, each row's page, where each shingle's rows start, how many pages have it)."""
        buckets = max(1, -(-len(self._rows) // ROWS_PER_BUCKET))

        def rows() -> Iterator[np.ndarray]:
            for block in self._rows.blocks():
                yield block[live[block[:, 1]]]

        def bucket_of(block: np.ndarray) -> np.ndarray:
            return block[:, 0].view(np.uint64) % np.uint64(buckets)

        for found in grouped(rows(), bucket_of, buckets, self._rows.path, wide=True):
            if not len(found):
                continue
            order = np.argsort(found[:, 0], kind="stable")
            gram, owner = found[order, 0], found[order, 1]
            starts = np.flatnonzero(np.r_[True, gram[1:] != gram[:-1]])
            yield gram, owner, starts, np.diff(np.r_[starts, len(gram)])

    def _sources(
        self, live: np.ndarray, pages: np.ndarray
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """For each of `pages` (a mask), the other pages it shares shingles with, how many
        each, and whether it has their opening: (page, sources, shingles shared with each,
        opened). The (page, source, opening) rows go to a file and are counted a bucket of
        pages at a time."""
        if not pages.any():
            return
        openings = np.frombuffer(self._openings, dtype=np.int64)
        pairs = Rows(self._rows.path.with_name("sources"), 3, wide=True)
        try:
            for gram, owner, starts, sizes in self._by_shingle(live):
                group = np.repeat(np.arange(len(starts)), sizes)
                mine = np.flatnonzero(pages[owner] & (np.repeat(sizes, sizes) > 1))
                for at in range(0, len(mine), _WORK_ROWS):  # each with the other pages of its shingle
                    rows = mine[at : at + _WORK_ROWS]
                    size = sizes[group[rows]]
                    ends = np.cumsum(size)
                    others = np.repeat(starts[group[rows]] - (ends - size), size) + np.arange(ends[-1])
                    page, other = np.repeat(owner[rows], size), owner[others]
                    keep = page != other
                    opening = openings[other] == gram[others]
                    pairs.extend(np.column_stack((page[keep], other[keep], opening[keep])))
            count = len(self._totals)
            buckets = max(1, -(-len(pairs) // ROWS_PER_BUCKET))
            by_page = grouped(pairs.blocks(), lambda b: b[:, 0] % buckets, buckets, pairs.path, wide=True)
            for found in by_page:
                if not len(found):
                    continue
                keys, where, times = np.unique(
                    found[:, 0] * count + found[:, 1], return_inverse=True, return_counts=True
                )
                opened = np.zeros(len(keys), dtype=bool)
                opened[where[found[:, 2] == 1]] = True
                page = keys // count
                heads = np.flatnonzero(np.r_[True, page[1:] != page[:-1]])
                for start, stop in zip(heads.tolist(), np.r_[heads[1:], len(keys)].tolist(), strict=True):
                    yield int(page[start]), keys[start:stop] % count, times[start:stop], opened[start:stop]
        finally:
            pairs.close()

    def close(self) -> None:
        self._rows.close()
