"""Grounding: an LLM answer's exact tokens must be in its evidence before the reader sees them.

Small models invent commands, flags, numbers and identifiers that no page
contains, and echo the prompt's delimiters. `compose_grounded` wraps the LLM
synthesiser: the streamed answer is checked one sentence (or one code block)
at a time, and a unit is shown only when every *critical token* in it — code
spans and code lines, `--flags`, numbers, dotted/underscored/camelCase
identifiers, on-site link targets — occurs in the evidence the model was given
(case-insensitive, whitespace-normalised). Units that fail are dropped and
counted; prompt delimiters (`<source …>`, `</source>`, ChatML markers) are
removed. Nothing is silent: the `done` event carries `grounding` (tokens
checked, unsupported tokens, units dropped), an answer that lost units ends
with a visible note, and one that lost everything becomes the extractive
answer labelled `extractive-fallback` with `fallback_reason: "ungrounded"`.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field

from askdocs.edge_runtime import events
from askdocs.edge_runtime.answer import Case, Docs, citations, extractive
from askdocs.edge_runtime.answer_types import Answer, Part
from askdocs.edge_runtime.errors import ApiError
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.llm import LLMClient
from askdocs.edge_runtime.llm_answer import Emit, Usage, compose_llm
from starlette.concurrency import run_in_threadpool

NOTES = {
    "en": {
        "dropped": "(Parts of the model's answer were left out: they could not be confirmed in the "
        "documentation.)",
        "ungrounded": "(The language model's answer could not be confirmed in the documentation, so "
        "this answer quotes the documentation directly.)",
    },
    "es": {
        "dropped": "(Se omitieron partes de la respuesta del modelo: no se pudieron confirmar en la "
        "documentación.)",
        "ungrounded": "(La respuesta del modelo de lenguaje no se pudo confirmar en la documentación, "
        "así que esta respuesta cita la documentación directamente.)",
    },
}

# Prompt delimiters a model may echo (prompts.sources_block, ChatML, the refusal sentinel mid-text).
# Stray HTML block tags a small model copies from its training data (`</pre>`) go too.
DELIMITER = re.compile(
    r"</?\s*sources?\b[^>\n]{0,300}>|<\|[a-z_]{1,24}\|>|</?(?:s|im_start|im_end)>"
    r"|</?(?:pre|code|div|span|p|br|html|body)\s*/?>",
    re.I,
)
_CITE = re.compile(r"\[\d{1,3}(?:\s*,\s*\d{1,3})*\]")
_LINK = re.compile(r"\[([^\]\n]{0,300})\]\(([^)\s]{0,800})\)")
_CODE_SPAN = re.compile(r"`([^`\n]{1,400})`")
_FLAG = re.compile(r"(?<![\w\-/])--?[A-Za-z][\w\-]*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?![\w])")
_IDENT = re.compile(
    r"(?<![\w.])(?:[A-Za-z_][\w\-]*(?:[./][\w\-]+)+|[A-Za-z]*_[\w]+|[a-z]+[A-Z][\w]*)(?![\w])"
)
# Tokens that mix letters and digits: error codes, versions, algorithms (TFX-1042, v3, HMAC-SHA256).
_CODE = re.compile(r"(?<![\w.\-])(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[A-Za-z0-9][\w\-]*[A-Za-z0-9]")
_URL = re.compile(r"https?://[^\s)\]>`'\"]+")
_SPACE = re.compile(r"\s+")
# A character with which a critical token, a link or a delimiter may begin.
_SUSPECT = re.compile(r"[`\d<>_\[\]/\\|]|--|\w[.:@]\w|[a-z][A-Z]|https?:")
_LIST_NUMBER = re.compile(r"^\s*\d{1,2}[.)]\s")
MAX_UNIT = 400  # characters of prose held back at most before a unit is checked anyway
MAX_BLOCK = 4000  # characters of an unclosed code block before it is checked anyway


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


@dataclass
class Evidence:
    """The text the model was shown (normalised), and the pages a link may point at."""

    text: str
    pages: set[str]

    @classmethod
    def of(cls, docs: Docs, case: Case, limit: int = 6) -> Evidence:
        parts = []
        for item in case.evidence[:limit]:
            parts += [item.text, item.label, item.url, item.page_url]
        try:
            pages = set(docs.fs.tree.pages)
        except Exception:  # noqa: BLE001 - a scope without a tree only loses the link check
            pages = set()
        return cls(_norm("\n".join(parts)), pages)

    def add(self, text: str) -> None:
        self.text += " " + _norm(text)

    def has(self, token: str) -> bool:
        needle = _norm(token)
        if not needle:
            return True
        if needle[0].isdigit():
            return re.search(r"(?<![\d.])" + re.escape(needle) + r"(?!\d)", self.text) is not None
        return needle in self.text

    def has_page(self, target: str) -> bool:
        if target.startswith("#"):
            return True
        path = target.split("#", 1)[0].split("?", 1)[0]
        candidates = (path, path.rstrip("/") + "/", path.rstrip("/"))
        return any(c in self.pages for c in candidates) or self.has(path)


def critical_tokens(unit: str) -> list[str]:
    """The exact tokens of one sentence or code block that must be found in the evidence."""
    tokens: list[str] = []
    text = _CITE.sub(" ", unit)
    fence = text.lstrip().startswith("```")
    if fence:
        lines = text.strip().split("\n")[1:]
        for line in lines:
            line = line.strip()
            if line and not line.startswith("```"):
                tokens.append(line)
        return tokens
    text = _LIST_NUMBER.sub(" ", text)
    for span in _CODE_SPAN.findall(text):
        tokens.append(span.strip())
    prose = _CODE_SPAN.sub(" ", text)
    prose = _LINK.sub(lambda m: " " + m.group(1) + " ", prose)
    for pattern in (_URL, _FLAG, _IDENT, _CODE, _NUMBER):
        for match in pattern.findall(prose):
            token = match.rstrip(".,:;")
            segments = re.split(r"[./_\-]", token)
            if pattern is _IDENT and all(len(s) <= 1 for s in segments):
                continue  # e.g, i.e
            tokens.append(token)
        prose = pattern.sub(" ", prose)
    return [t for t in tokens if t]


def _supported(token: str, evidence: Evidence) -> bool:
    if evidence.has(token):
        return True
    words = [w.strip(".,;:()'\"") for w in token.split()]
    words = [w for w in words if w]
    # A multi-word code span or line is grounded when each of its words is.
    return len(words) > 1 and all(evidence.has(w) for w in words)


@dataclass
class Report:
    units: int = 0
    dropped: int = 0
    tokens: int = 0
    unsupported: list[str] = field(default_factory=list)
    delimiters: int = 0
    links_dropped: int = 0

    def to_json(self) -> dict:
        return {
            "units": self.units,
            "dropped": self.dropped,
            "tokens": self.tokens,
            "unsupported": self.unsupported[:12],
            "delimiters_removed": self.delimiters,
        }


class Guard:
    """A streaming filter: feed model text, get back only the grounded units."""

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self.report = Report()
        self.shown: list[str] = []
        self._buffer = ""
        self._released = 0  # characters at the start of the buffer already shown

    @property
    def text(self) -> str:
        return "".join(self.shown)

    def feed(self, text: str) -> list[str]:
        self._buffer += text
        # Complete delimiters go before the buffer is cut into units (a partial one waits).
        self._buffer, count = DELIMITER.subn("", self._buffer)
        self.report.delimiters += count
        out = []
        while True:
            end = self._unit_end(self._buffer)
            if end is None:
                break
            unit, self._buffer = self._buffer[:end], self._buffer[end:]
            piece = self._check(unit, self._released)
            self._released = 0
            if piece:
                out.append(piece)
        # Plain prose streams on at once: the words of a unit so far that hold no character a
        # critical token could start with go out now; from the first such character on, the
        # rest of the unit waits for its check.
        cut = self._buffer.rfind(" ")
        if cut >= self._released and not self._buffer.lstrip().startswith("```"):
            head = self._buffer[: cut + 1]
            if head.strip() and not _SUSPECT.search(head):
                out.append(self._show(head[self._released :]))
                self._released = len(head)
        return [p for p in out if p]

    def finish(self) -> list[str]:
        unit, self._buffer = self._buffer, ""
        piece = self._check(unit, self._released) if unit else ""
        self._released = 0
        return [piece] if piece else []

    @staticmethod
    def _unit_end(buffer: str) -> int | None:
        """Where the first complete sentence, line or code block of `buffer` ends (None: not yet)."""
        head = buffer.lstrip()
        lead = len(buffer) - len(head)
        if head.startswith("```"):
            close = head.find("\n```", 3)
            if close < 0:
                return lead + MAX_BLOCK if len(head) > MAX_BLOCK else None
            line_end = head.find("\n", close + 4)
            if line_end < 0:
                return None
            return lead + line_end + 1
        ticks = 0
        for i, ch in enumerate(buffer):
            if ch == "`":
                ticks += 1
            elif ch == "\n":
                if buffer[:i].strip():
                    return _after_space(buffer, i)
            elif ch in ".!?" and ticks % 2 == 0 and i + 1 < len(buffer) and buffer[i + 1] in " \t\n":
                if buffer[i - 1 : i].isdigit() and _LIST_NUMBER.match(buffer[: i + 2]):
                    continue
                return _after_space(buffer, i + 1)
        if len(buffer) > MAX_UNIT:
            cut = buffer.rfind(" ", 0, MAX_UNIT)
            return cut + 1 if cut > 0 else MAX_UNIT
        return None

    def _check(self, unit: str, released: int = 0) -> str:
        """The part of `unit` past its first `released` characters (already shown) to show."""
        if released:
            # The shown prefix ends at a space and holds no critical token: check what follows.
            rest = unit[released:]
            return self._check(rest) if rest.strip() else self._show(rest)
        cleaned, count = DELIMITER.subn("", unit)
        self.report.delimiters += count
        if not cleaned.strip():
            return self._show(cleaned if "\n" in cleaned and self.shown else "")
        self.report.units += 1
        tokens = critical_tokens(cleaned)
        self.report.tokens += len(tokens)
        missing = [t for t in tokens if not _supported(t, self.evidence)]
        for target in (m.group(2) for m in _LINK.finditer(cleaned)):
            self.report.tokens += 1
            if not self.evidence.has_page(target):
                missing.append(target)
        if missing:
            self.report.dropped += 1
            for token in missing:
                if token not in self.report.unsupported:
                    self.report.unsupported.append(token)
            trailing = cleaned[len(cleaned.rstrip()) :]
            return self._show("\n" if "\n" in trailing and self.shown else "")
        return self._show(cleaned)

    def _show(self, piece: str) -> str:
        if piece:
            self.shown.append(piece)
        return piece


def _after_space(buffer: str, at: int) -> int:
    while at < len(buffer) and buffer[at] in " \t\n":
        at += 1
    return at


async def compose_grounded(
    docs: Docs, case: Case, llm: LLMClient, emit: Emit, on_usage: Usage | None = None
) -> Answer:
    """`compose_llm`, with every streamed unit checked against the evidence before it is shown."""
    evidence = Evidence.of(docs, case)
    guard = Guard(evidence)

    async def guarded(event: StreamEvent) -> None:
        if event.event == "token":
            for piece in guard.feed(event.data["text"]):
                await emit(events.token(piece))
            return
        if event.event == "tool" and event.data.get("name") == "cat":
            path = (event.data.get("args") or {}).get("path", "")
            with contextlib.suppress(ApiError, KeyError):
                evidence.add(docs.fs.cat(path)["content"][:8000])
        await emit(event)

    answer = await compose_llm(docs, case, llm, guarded, on_usage)
    for piece in guard.finish():
        await emit(events.token(piece))
    return await settle(answer, guard, docs, case)


async def settle(answer: Answer, guard: Guard, docs: Docs, case: Case) -> Answer:
    """The answer as the reader saw it: model text replaced by its grounded part, labelled."""
    report = guard.report
    shown = guard.text
    locale = case.query.locale if case.query.locale in NOTES else "en"
    extra = {**answer.extra, "grounding": report.to_json()}
    if not any(p.kind == "llm" for p in answer.parts):
        return _with(answer, answer.parts, extra=extra)
    others = [p for p in answer.parts if p.kind != "llm"]
    if answer.mode == "llm" and not shown.strip():
        fallback = await run_in_threadpool(extractive, docs, case, "extractive-fallback")
        return Answer(
            [Part("note", NOTES[locale]["ungrounded"]), *fallback.parts],
            fallback.answered,
            "extractive-fallback",
            fallback.citations,
            fallback.escalation,
            fallback.confidence,
            fallback.checked,
            {**fallback.extra, "fallback_reason": "ungrounded", "grounding": report.to_json()},
        )
    parts = [Part("llm", shown)] if shown.strip() else []
    if report.dropped and answer.mode == "llm":
        parts.append(Part("note", NOTES[locale]["dropped"]))
    cited = _citing_what_is_shown(answer.citations, shown, case) if answer.mode == "llm" else None
    return _with(answer, parts + others, extra=extra, cited=cited)


def _citing_what_is_shown(cited: list[dict], shown: str, case: Case, limit: int = 6) -> list[dict]:
    """The answer's citations, and the evidence sections that hold an exact token it shows
    which none of them holds: the model named `--expires` from the CLI page but cited only the
    security page. Every exact token shown is in a page the answer cites."""
    items = [(e, Evidence(_norm(e.text), set())) for e in case.evidence[:limit]]
    urls = {c["url"] for c in cited}
    held = Evidence(" ".join(text.text for e, text in items if e.url in urls), set())
    added = []
    for unit in re.split(r"\n\s*\n", shown):
        for token in critical_tokens(unit):
            if token.startswith("/") or _supported(token, held):
                continue
            holder = next((e for e, text in items if _supported(token, text)), None)
            if holder is not None and holder.url not in urls:
                urls.add(holder.url)
                added.append(holder)
                held.add(holder.text)
    return cited + citations(added)


def _with(answer: Answer, parts: list[Part], extra: dict, cited: list[dict] | None = None) -> Answer:
    return Answer(
        parts,
        answer.answered,
        answer.mode,
        answer.citations if cited is None else cited,
        answer.escalation,
        answer.confidence,
        answer.checked,
        extra,
    )
