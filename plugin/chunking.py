"""Heading-aware chunking of extracted pages into spans of the page text.

A chunk is a span of the page's `content`, so overlap costs nothing to
store and `cat` reassembles pages without stitching. Sections (a heading and
its body) are the units; a long section is split at block, then sentence or
line boundaries into windows of at most `limit` model tokens that overlap by
about `overlap` tokens; code blocks stay whole when they fit. Small
neighbouring sections merge until they reach `minimum` tokens.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tokenizers
from askdocs.plugin.extract import Block

_SENTENCE = re.compile(r"(?<=[.!?:;])\s+(?=\S)")


@dataclass(frozen=True)
class ChunkSettings:
    target: int = 400
    overlap: int = 50
    minimum: int = 100

    def describe(self) -> dict:
        """What decides a page's chunks besides the page and the model's tokenizer, as the
        manifest records it: a rebuild reuses the previous build's chunks of an unchanged page
        only when this is the same. `code` changes with this module and the tokenizer library,
        so a new chunker never takes an older one's spans."""
        return {"target": self.target, "overlap": self.overlap, "minimum": self.minimum, "code": _CODE}


_CODE = hashlib.sha256(Path(__file__).read_bytes() + tokenizers.__version__.encode()).hexdigest()[:16]


@dataclass
class Unit:
    start: int
    end: int
    tokens: int
    block_start: bool  # a block (paragraph, code, list item) begins here
    heading: bool = False
    section: _Section | None = None  # where the unit came from (anchor, heading path, date)
    prose: bool = False  # a paragraph/list/note that may be cut at sentences


@dataclass
class Span:
    start: int
    end: int
    anchor: str
    headings: list[str]
    lastmod: str | None
    tokens: int


@dataclass
class _Section:
    anchor: str
    headings: list[str]
    lastmod: str | None
    units: list[Unit]

    @property
    def tokens(self) -> int:
        return sum(u.tokens for u in self.units)


def _pieces(block: Block, content: str) -> list[tuple[int, int]]:
    """Sub-spans of a block that may become window boundaries."""
    text = content[block.start : block.end]
    if block.kind == "code" or block.kind == "table":
        spans, offset = [], block.start
        for line in text.splitlines(keepends=True):
            spans.append((offset, offset + len(line)))
            offset += len(line)
        return spans
    spans, last = [], 0
    for match in _SENTENCE.finditer(text):
        spans.append((block.start + last, block.start + match.start()))
        last = match.end()
    spans.append((block.start + last, block.end))
    return [s for s in spans if s[1] > s[0]]


def _sections(
    blocks: Sequence[Block], content: str, count: Callable[[Sequence[str]], list[int]], limit: int
) -> list[_Section]:
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    current: _Section | None = None
    block_tokens = count([content[b.start : b.end] for b in blocks])
    for block, tokens in zip(blocks, block_tokens, strict=True):
        if block.kind == "heading":
            path = [(lvl, txt) for lvl, txt in path if lvl < block.level]
            if block.level > 1:
                path.append((block.level, block.text))
            date = block.lastmod
            if date is None:
                # A subsection inherits its parent section's date.
                date = next(
                    (s.lastmod for s in reversed(sections) if len(s.headings) < len(path) and s.lastmod), None
                )
            current = _Section(block.anchor, [t for _, t in path], date, [])
            sections.append(current)
        elif current is None:
            current = _Section("", [], None, [])
            sections.append(current)
        elif block.lastmod and current.lastmod is None:
            current.lastmod = block.lastmod
        if tokens <= limit:
            current.units.append(
                Unit(
                    block.start,
                    block.end,
                    tokens,
                    True,
                    block.kind == "heading",
                    current,
                    block.kind in ("para", "list", "note"),
                )
            )
            continue
        pieces = _pieces(block, content)
        piece_tokens = count([content[s:e] for s, e in pieces])
        for index, ((s, e), t) in enumerate(zip(pieces, piece_tokens, strict=True)):
            while t > limit:  # one enormous sentence or line: cut by characters
                cut = s + max(1, (e - s) * limit // t)
                current.units.append(Unit(s, cut, limit, index == 0 and s == block.start, False, current))
                s, t = cut, t - limit
            current.units.append(Unit(s, e, t, index == 0, False, current))
    return [s for s in sections if s.units]


def _windows(section: _Section, limit: int, overlap: int) -> list[Span]:
    units = section.units
    spans: list[Span] = []
    i = 0
    while i < len(units):
        total, j = 0, i
        while j < len(units) and (total + units[j].tokens <= limit or j == i):
            total += units[j].tokens
            j += 1
        # Prefer ending on a block boundary when that keeps most of the window.
        if j < len(units):
            k = j
            while k > i + 1 and not units[k].block_start:
                k -= 1
            if k > i + 1 and sum(u.tokens for u in units[i:k]) >= limit // 2:
                j = k
                total = sum(u.tokens for u in units[i:j])
        # A window is labelled by the section of its first body text (a bare
        # heading that opens it belongs to the same place).
        owner = next((u.section for u in units[i:j] if not u.heading), units[i].section) or section
        spans.append(
            Span(units[i].start, units[j - 1].end, owner.anchor, owner.headings, owner.lastmod, total)
        )
        if j >= len(units):
            break
        back, k = 0, j
        while k - 1 > i and back + units[k - 1].tokens <= overlap:
            back += units[k - 1].tokens
            k -= 1
        i = k
    return spans


def chunk_page(
    blocks: Sequence[Block],
    content: str,
    count: Callable[[Sequence[str]], list[int]],
    settings: ChunkSettings,
    limit: int,
) -> list[Span]:
    """Spans of `content` to embed and index, in page order."""
    limit = max(16, min(settings.target, limit))
    sections = _sections(blocks, content, count, limit)
    merged: list[_Section] = []
    carry: list[Unit] = []  # bare headings wait for the body that follows them
    for section in sections:
        if all(u.heading for u in section.units):
            carry.extend(section.units)
            continue
        units, carry = carry + section.units, []
        previous = merged[-1] if merged else None
        tokens = sum(u.tokens for u in units)
        if (
            previous is not None
            and previous.tokens < settings.minimum
            and previous.tokens + tokens <= limit
            and len(section.headings) >= len(previous.headings)
            # Differently dated sections (release notes) stay apart for recency.
            and previous.lastmod == section.lastmod
        ):
            previous.units.extend(units)
        else:
            merged.append(_Section(section.anchor, section.headings, section.lastmod, units))
    if carry:
        if merged:
            merged[-1].units.extend(carry)
        else:
            first = carry[0].section
            merged.append(_Section(first.anchor, first.headings, first.lastmod, carry))
    spans: list[Span] = []
    for section in merged:
        if section.tokens > limit:
            section.units = _sentences(section.units, content, count, settings.overlap)
        spans.extend(_windows(section, limit, settings.overlap))
    return spans


def _sentences(
    units: list[Unit], content: str, count: Callable[[Sequence[str]], list[int]], overlap: int
) -> list[Unit]:
    """Cut prose into sentences so that windows can overlap by about `overlap` tokens."""
    out: list[Unit] = []
    for unit in units:
        if not unit.prose or unit.tokens <= overlap // 2:
            out.append(unit)
            continue
        text = content[unit.start : unit.end]
        pieces, last = [], 0
        for match in _SENTENCE.finditer(text):
            pieces.append((unit.start + last, unit.start + match.start()))
            last = match.end()
        pieces.append((unit.start + last, unit.end))
        pieces = [p for p in pieces if p[1] > p[0]]
        tokens = count([content[a:b] for a, b in pieces])
        for index, ((a, b), t) in enumerate(zip(pieces, tokens, strict=True)):
            out.append(Unit(a, b, t, index == 0, False, unit.section, True))
    return out
