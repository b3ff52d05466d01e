"""The chat request, follow-up rewriting and frustration detection."""

from __future__ import annotations

import re
from dataclasses import dataclass

from askdocs.edge_runtime.errors import ApiError, json_object

MAX_MESSAGE = 4000
MAX_HISTORY = 40


@dataclass(frozen=True)
class Turn:
    role: str
    content: str


@dataclass(frozen=True)
class ChatRequest:
    message: str
    locale: str | None
    history: tuple[Turn, ...]
    page_url: str | None

    @classmethod
    def parse(cls, body: bytes, settings=None) -> ChatRequest:
        data = json_object(body)
        message = data.get("message")
        if not isinstance(message, str) or not message.strip():
            raise ApiError(400, "missing_field", "`message` (non-empty string) is required")
        if len(message) > MAX_MESSAGE:
            raise ApiError(413, "too_large", f"`message` is over {MAX_MESSAGE:,} characters")
        locale = data.get("locale")
        if locale is not None and (
            not isinstance(locale, str)
            or len(locale) > 16
            or not re.fullmatch(r"[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*", locale)
        ):
            raise ApiError(400, "bad_locale", "`locale` must be a language tag such as `en` or `es`")
        history_raw = data.get("history") or []
        if not isinstance(history_raw, list) or len(history_raw) > MAX_HISTORY:
            raise ApiError(400, "bad_history", f"`history` must be a list of at most {MAX_HISTORY} turns")
        history = []
        for turn in history_raw:
            if (
                not isinstance(turn, dict)
                or turn.get("role") not in ("user", "assistant")
                or not isinstance(turn.get("content"), str)
            ):
                raise ApiError(
                    400, "bad_history", 'each history turn is {"role": "user"|"assistant", "content": str}'
                )
            history.append(Turn(turn["role"], turn["content"][:MAX_MESSAGE]))
        page_url = data.get("page_url")
        if page_url is not None and (not isinstance(page_url, str) or len(page_url) > 2000):
            raise ApiError(400, "bad_page_url", "`page_url` must be a string (the reader's page)")
        primary = locale.replace("_", "-").split("-")[0].lower() if locale else None
        return cls(message.strip(), primary, tuple(history), page_url)


_HUMAN = re.compile(
    r"\b(talk|speak|chat)\s+(to|with)\s+(a\s+|an\s+|some\s*one|somebody|your\s+)?"
    r"(human|person|real person|agent|representative|someone|support|staff|people)\b"
    r"|\b(human|real person|live agent)\s+please\b|\bcontact\s+(support|a human|someone)\b"
    r"|\bhablar\s+con\s+(una\s+persona|un\s+humano|alguien|un\s+agente|soporte)\b"
    r"|\b(persona\s+real|agente\s+humano)\b",
    re.I,
)
_FRUSTRATED = re.compile(
    r"\b(useless|not helpful|unhelpful|doesn'?t help|didn'?t help|waste of time|this is stupid"
    r"|you'?re not helping|terrible|awful|frustrat\w*|ridiculous|no sirve|in[uú]til"
    r"|no me ayuda|no ayuda|p[eé]rdida de tiempo|harto|harta)\b",
    re.I,
)
_WORD = re.compile(r"\w+")


def escalation_reason(message: str, history: tuple[Turn, ...]) -> str | None:
    """Why this turn should offer a human at once, if it should."""
    if _HUMAN.search(message):
        return "human_requested"
    if _FRUSTRATED.search(message):
        return "frustration"
    asked = [t.content for t in history if t.role == "user"]
    similar = sum(1 for previous in asked[-3:] if _jaccard(previous, message) >= 0.5)
    if similar >= 2:
        return "repeated_question"
    return None


def only_asks_for_human(message: str) -> bool:
    """True when the message is a request for a person and nothing else to answer."""
    stripped = _HUMAN.sub(" ", message)
    stripped = _FRUSTRATED.sub(" ", stripped)
    words = [w for w in _WORD.findall(stripped.lower()) if w not in _FILLER]
    return len(words) <= 2


_FILLER = {
    "i",
    "want",
    "to",
    "please",
    "can",
    "could",
    "would",
    "like",
    "let",
    "me",
    "a",
    "an",
    "the",
    "now",
    "just",
    "this",
    "is",
    "it",
    "you",
    "your",
    "quiero",
    "por",
    "favor",
    "puedo",
    "gustaría",
    "ahora",
    "esto",
    "es",
    "un",
    "una",
    "con",
    "i'd",
    "id",
    "need",
    "necesito",
}
_FOLLOW_UP_START = re.compile(
    r"^\s*(and|also|what about|how about|what if|and if|then|same for|y|¿y|y si|¿y si|"
    r"qué tal|que tal|también|tambien|entonces|and for|y para|¿y para)\b",
    re.I,
)
_REFERS_BACK = re.compile(r"\b(it|that|this|those|them|there|eso|esto|ese|esa|ello|ahí|allí)\b", re.I)


def search_query(message: str, history: tuple[Turn, ...]) -> str:
    """The text to search for: follow-ups borrow the previous question's terms."""
    previous = next((t.content for t in reversed(history) if t.role == "user"), None)
    if not previous:
        return message
    words = _WORD.findall(message)
    dependent = (
        _FOLLOW_UP_START.search(message) is not None
        or len(words) <= 4
        or (len(words) <= 9 and _REFERS_BACK.search(message) is not None)
    )
    if not dependent:
        return message
    return f"{previous} {message}"


def _jaccard(a: str, b: str) -> float:
    wa = set(_WORD.findall(a.lower()))
    wb = set(_WORD.findall(b.lower()))
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0
