"""The typed result of the answer pipeline: parts of text, citations, and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Part:
    """A piece of the answer text: `lead` (the sentence or row that answers), `support`
    (context quoted around it), `code`, `source` (where it comes from), `note`."""

    kind: str
    text: str
    url: str | None = None


@dataclass
class Answer:
    parts: list[Part]
    answered: bool
    mode: str  # extractive | llm | extractive-fallback
    citations: list[dict]
    escalation: dict | None
    confidence: float | None = None
    checked: list[str] = field(default_factory=list)
    # Why it went this way and what ran: retrievers, retriever_errors, locale, fallback_reason,
    # escalation_reason, llm_declined, ... (reported in `done`, the log and /metrics).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return render(self.parts)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Answer:
        parts = [Part(**p) for p in data.get("parts", [])]
        return cls(**{**data, "parts": parts})


def render(parts: list[Part]) -> str:
    """The answer as Markdown: parts separated by blank lines."""
    return "\n\n".join(p.text for p in parts if p.text)
