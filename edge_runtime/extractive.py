"""The offline synthesiser: a short answer made only of the documentation's own words.

Evidence sections are cut into units (sentences, list items, table rows,
whole code blocks); the units that carry the question's terms and exact
identifiers are quoted verbatim, in document order, grouped by source, each
group followed by its source as a link ("From: [Title › Section](/page/#anchor)"). Of
two near-identical dated passages only the newest is quoted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from askdocs.edge_runtime.answer_types import Part
from askdocs.edge_runtime.evidence import Evidence
from askdocs.edge_runtime.i18n import phrase
from askdocs.edge_runtime.query import Query

from askdocs import lexical

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡\"'`(\[])")
_FENCE = re.compile(r"^```[^\n]*\n.*?\n```$", re.S | re.M)
_LINK = re.compile(r"\[([^\[\]]+)\]\((/[^()\s]*)\)")
_PROCEDURAL = re.compile(
    r"\b(how|command|install|run|start|configure|set ?up|enable|example|syntax|create|add|"
    r"cómo|como|comando|instalar|ejecutar|iniciar|configurar|habilitar|ejemplo|crear|añadir)\b",
    re.I,
)
_POINTER = re.compile(
    r"^\W*(see|refer to|read|check|for more|véase|vea|consulte|ver|más información)\b", re.I
)
_LIST_ITEM = re.compile(r"\s*(\d+\.|[-*])\s")
MAX_PROSE_WORDS = 180
MAX_CODE_LINES = 24
MAX_UNITS = 40
RELEVANCE_CHARS = 160  # of each unit, for the dense model
DENSE_WEIGHT = 1.2
SELECT_RATIO = 0.35  # units scoring below this share of the best one are left out
MAX_SOURCES = 2
SECOND_SOURCE_RATIO = 0.6
WINDOW = True
WINDOW_WORDS = 60


@dataclass
class Unit:
    evidence: int
    order: int
    kind: str  # prose | code | row
    text: str
    score: float = 0.0


def _units(index: int, evidence: Evidence) -> list[Unit]:
    units: list[Unit] = []
    text = evidence.text
    if evidence.kind == "faq":
        _, _, answer = text.partition("\n\n")
        text = answer or text
    position = 0
    table_header: str | None = None
    for block in _blocks(text):
        if block.startswith("```"):
            units.append(Unit(index, position, "code", block))
        elif block.startswith("#"):
            table_header = None
            continue
        elif block.startswith("|"):
            rows = [r for r in block.split("\n") if r.strip()]
            table_header = rows[0] if rows else None
            for row in rows[2:] if len(rows) > 2 and set(rows[1]) <= set("|- ") else rows[1:]:
                units.append(Unit(index, position, "row", f"{table_header}\n{row}"))
                position += 1
            continue
        elif block.lstrip().startswith(("- ", "* ")) or re.match(r"\s*\d+\.\s", block):
            for item in block.split("\n"):
                if item.strip():
                    units.append(Unit(index, position, "prose", item.strip()))
                    position += 1
            continue
        else:
            for sentence in _SENTENCE.split(block):
                if sentence.strip():
                    units.append(Unit(index, position, "prose", sentence.strip()))
                    position += 1
            continue
        position += 1
    return units


def _blocks(text: str) -> list[str]:
    """Paragraph-level blocks, keeping fenced code intact."""
    out: list[str] = []
    cursor = 0
    for match in _FENCE.finditer(text):
        out.extend(p.strip() for p in text[cursor : match.start()].split("\n\n") if p.strip())
        out.append(match.group(0).strip())
        cursor = match.end()
    out.extend(p.strip() for p in text[cursor:].split("\n\n") if p.strip())
    return out


def _terms(locale: str, text: str) -> set[str]:
    return lexical.stem_terms(locale, _LINK.sub(r"\1", text))


@dataclass
class Composition:
    parts: list[Part]
    cited: list[Evidence]


def compose(
    query: Query,
    evidence: list[Evidence],
    term_weights: dict[str, float] | None = None,
    relevance: Callable[[list[str]], list[float]] | None = None,
) -> Composition:
    """The answer's parts and the evidence it quotes (its citations).

    `relevance` (optional) gives each unit's semantic similarity to the question
    (the dense model); units are scored by it together with term overlap.
    A follow-up's own words (`query.focus`, "and on Windows?") count double against
    those borrowed from the earlier question.
    `term_weights`: how telling each key term is in these docs (`Investigation.term_weights`):
    "memory" says more than "server" in a server product's docs.
    """
    locale, key_terms, identifiers = query.locale, set(query.key_terms), list(query.identifiers)
    focus = set(query.focus)
    rarity = term_weights or {}
    if not evidence:
        return Composition([], [])
    procedural = bool(_PROCEDURAL.search(query.message))
    pool = evidence[:5]
    units = [u for i, e in enumerate(pool) for u in _units(i, e)][:MAX_UNITS]
    dense = None
    if relevance and units:
        dense = _standardized(relevance([u.text[:RELEVANCE_CHARS] for u in units]))
    frequency: dict[str, int] = {}
    unit_terms = []
    for unit in units:
        terms = _terms(locale, unit.text)
        unit_terms.append(terms)
        for t in terms & key_terms:
            frequency[t] = frequency.get(t, 0) + 1
    headings = [_terms(locale, e.heading) for e in pool]
    # How much of the question each whole section covers: answers come from sections
    # that address all of it, not from stray sentences that share a word or two.
    coverage = [
        len((_terms(locale, e.text) | headings[i]) & key_terms) / len(key_terms) if key_terms else 1.0
        for i, e in enumerate(pool)
    ]
    for position, (unit, terms) in enumerate(zip(units, unit_terms, strict=True)):
        source = pool[unit.evidence]
        matched = terms & key_terms
        score = sum(_weight(t, focus) * rarity.get(t, 1.0) / math.sqrt(frequency[t]) for t in matched)
        # The section heading speaks for its body ("## TFX-2210" then "Batch too large.").
        score += 0.5 * sum(
            rarity.get(t, 1.0) / math.sqrt(frequency.get(t, 1))
            for t in (headings[unit.evidence] & key_terms) - matched
        )
        if dense is not None:
            score += DENSE_WEIGHT * dense[position]
        lowered = unit.text.lower()
        heading = source.heading.lower()
        score += sum(2.5 if token in lowered else 1.5 if token in heading else 0.0 for token in identifiers)
        if unit.kind == "code":
            score = score * (1.3 if procedural else 0.6) + (0.5 if procedural else 0.0)
        if source.kind == "faq":
            score += 0.3
        if _POINTER.match(unit.text):
            score *= 0.5  # "See X for more" points elsewhere; the target says it better
        score *= (0.55 + 0.45 * source.score) * (0.4 + 0.6 * coverage[unit.evidence])
        score *= 1.0 if unit.order > 0 else 1.1  # a section's first sentence frames it
        unit.score = score
    chosen = _choose(units, unit_terms, pool)
    if not chosen:
        chosen = [u for u in units if u.evidence == 0][:2]
    chosen = _drop_redundant_sources(chosen, units, unit_terms, key_terms, identifiers, pool)
    chosen = _with_continuations(chosen, units)
    groups: dict[int, list[Unit]] = {}
    for unit in sorted(chosen, key=lambda u: (u.evidence, u.order)):
        groups.setdefault(unit.evidence, []).append(unit)
    parts: list[Part] = []
    cited: list[Evidence] = []
    for index in sorted(groups, key=lambda i: min(-u.score for u in groups[i])):
        source = pool[index]
        dated = (
            f" — {source.lastmod}"
            if source.lastmod and source.kind != "faq" and _has_section_date(source)
            else ""
        )
        label = re.sub(r"([\\\[\]])", r"\\\1", source.label)  # `#[doc]` stays `#[doc]` in the link text
        parts.append(Part("support", _render(groups[index]), source.url))
        parts.append(Part("source", f"{phrase(locale, 'from')}: [{label}]({source.url}){dated}", source.url))
        cited.append(source)
    return Composition(parts, cited)


def _render(units: list[Unit]) -> str:
    """Quoted units in document order: sentences run on, list items keep their lines,
    table rows become list items that name their columns (readable in any renderer)."""
    blocks: list[str] = []
    current: list[str] = []
    mode = ""

    def flush() -> None:
        nonlocal current, mode
        if current:
            blocks.append((" " if mode == "prose" else "\n").join(current))
        current, mode = [], ""

    for unit in units:
        if unit.kind == "code":
            flush()
            blocks.append(_trim_code(unit.text))
            continue
        kind = "list" if unit.kind == "row" or _LIST_ITEM.match(unit.text) else "prose"
        if kind != mode:
            flush()
            mode = kind
        current.append(_row_item(unit.text) if unit.kind == "row" else unit.text)
    flush()
    return "\n\n".join(blocks)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _row_item(text: str) -> str:
    """"| Key | Default |" + "| `port` | `7000` |" → "- `port` — Default: `7000`"."""
    header, _, row = text.partition("\n")
    names, values = _cells(header), _cells(row)
    parts = [f"{name}: {value}" for name, value in zip(names[1:], values[1:], strict=False) if value]
    return "- " + " — ".join([values[0], *parts]) if values else "- " + row


def _has_section_date(evidence: Evidence) -> bool:
    return evidence.heading != evidence.title


def _choose(units: list[Unit], unit_terms: list[set[str]], pool: list[Evidence]) -> list[Unit]:
    stale = _superseded(units, unit_terms, pool)
    ranked = sorted(
        (u for i, u in enumerate(units) if u.score > 0 and i not in stale), key=lambda u: -u.score
    )
    if not ranked:
        return []
    best = ranked[0].score
    chosen: list[Unit] = []
    words = 0
    code = 0
    sources: set[int] = set()
    for unit in ranked:
        if unit.score < best * SELECT_RATIO:
            break
        if unit.evidence not in sources and len(sources) >= MAX_SOURCES:
            continue
        if unit.kind == "code":
            if code >= 1:
                continue
            code += 1
        else:
            length = len(unit.text.split())
            if words + length > MAX_PROSE_WORDS and chosen:
                continue
            words += length
        chosen.append(unit)
        sources.add(unit.evidence)
    if WINDOW and chosen:
        chosen = _around_best(chosen, ranked[0], units, stale)
    return chosen


def _around_best(chosen: list[Unit], best: Unit, units: list[Unit], stale: set[int]) -> list[Unit]:
    """Quote the best unit with its neighbours: the sentences around an answer usually
    carry its conditions and numbers."""
    picked = {id(u) for u in chosen}
    position = {id(u): i for i, u in enumerate(units)}
    section = sorted(
        (u for u in units if u.evidence == best.evidence and position[id(u)] not in stale),
        key=lambda u: u.order,
    )
    at = next(i for i, u in enumerate(section) if u is best)
    words = sum(len(u.text.split()) for u in chosen if u.kind != "code")
    left, right = at - 1, at + 1
    while words < WINDOW_WORDS and (left >= 0 or right < len(section)):
        for index in (right, left):
            if 0 <= index < len(section):
                unit = section[index]
                if id(unit) not in picked and unit.kind != "code":
                    chosen.append(unit)
                    picked.add(id(unit))
                    words += len(unit.text.split())
        left, right = left - 1, right + 1
    return chosen


def _weight(term: str, focus: set[str]) -> float:
    """A follow-up's own terms count double, the ones borrowed from history half."""
    if not focus:
        return 1.0
    return 2.0 if term in focus else 0.5


def _standardized(values: list[float]) -> list[float]:
    if not values:
        return []
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5 or 1.0
    return [max(-1.0, (v - mean) / spread) for v in values]


def _with_continuations(chosen: list[Unit], units: list[Unit]) -> list[Unit]:
    """A sentence that ends with a colon introduces what follows: quote the list or code too."""
    picked = {id(u) for u in chosen}
    extra: list[Unit] = []
    for unit in chosen:
        if unit.kind == "row":  # a row makes sense with its table: bring small tables whole
            header = unit.text.partition("\n")[0]
            table = [
                u
                for u in units
                if u.evidence == unit.evidence and u.kind == "row" and u.text.partition("\n")[0] == header
            ]
            if len(table) <= 8:
                for row in table:
                    if id(row) not in picked:
                        extra.append(row)
                        picked.add(id(row))
            continue
        if unit.kind != "prose" or not unit.text.rstrip().endswith(":"):
            continue
        following = [u for u in units if u.evidence == unit.evidence and u.order > unit.order]
        for item in sorted(following, key=lambda u: u.order)[:8]:
            if id(item) in picked:
                continue
            if item.kind == "prose" and not _LIST_ITEM.match(item.text) and extra:
                break
            extra.append(item)
            picked.add(id(item))
            if item.kind == "code":
                break
    return chosen + extra


def _drop_redundant_sources(
    chosen: list[Unit],
    units: list[Unit],
    unit_terms: list[set[str]],
    key_terms: set[str],
    identifiers: list[str],
    pool: list[Evidence],
) -> list[Unit]:
    """A second source is quoted only when it adds what the first lacks (two-page answers),
    or when the first points to it ("configure it as described on [Networking](...)")."""
    if not chosen:
        return chosen
    primary = max(chosen, key=lambda u: u.score).evidence
    index = {id(u): i for i, u in enumerate(units)}

    def covers(group: list[Unit]) -> set[str]:
        found: set[str] = set()
        for unit in group:
            found |= unit_terms[index[id(unit)]] & key_terms
            found |= {t for t in identifiers if t in unit.text.lower()}
        return found

    first = [u for u in chosen if u.evidence == primary]
    covered = covers(first)
    best = max(u.score for u in chosen)
    targets = {target.split("#")[0] for u in first for _, target in _LINK.findall(u.text)}
    pointed = [i for i, e in enumerate(pool) if i != primary and e.page_url in targets]
    extra = [
        u
        for u in chosen
        if u.evidence != primary
        and (u.evidence in pointed or u.score >= SECOND_SOURCE_RATIO * best and covers([u]) - covered)
    ]
    if pointed and not any(u.evidence in pointed for u in extra):
        target_units = [u for u in units if u.evidence == pointed[0] and u.score > 0]
        extra += sorted(target_units, key=lambda u: -u.score)[:2]
    return first + extra


def _superseded(units: list[Unit], unit_terms: list[set[str]], pool: list[Evidence]) -> set[int]:
    """Units with a near-identical passage in newer-dated evidence (only the newest is quoted)."""
    stale: set[int] = set()
    for i, unit in enumerate(units):
        mine = pool[unit.evidence].lastmod
        if not mine or len(unit_terms[i]) < 3:
            continue
        for j, other in enumerate(units):
            theirs = pool[other.evidence].lastmod
            if other.evidence == unit.evidence or not theirs or theirs <= mine:
                continue
            union = unit_terms[i] | unit_terms[j]
            if len(unit_terms[i] & unit_terms[j]) / len(union) >= 0.4:
                stale.add(i)
                break
    return stale


def _trim_code(block: str) -> str:
    lines = block.split("\n")
    if len(lines) <= MAX_CODE_LINES + 2:
        return block
    return "\n".join(lines[: MAX_CODE_LINES + 1] + ["…", "```"])


def refusal(locale: str, checked: list[str]) -> str:
    if checked:
        places = (
            ", ".join(checked[:-1]) + (f" {phrase(locale, 'and')} " if len(checked) > 1 else "") + checked[-1]
        )
        return phrase(locale, "checked", places=places)
    return phrase(locale, "checked_nothing")
