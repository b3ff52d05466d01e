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
# A follow-up leans on the previous question when it has no subject of its own: it opens with a
# connective ("and if…", "what about…", "ok, and…"), is a few words with at most one of substance
# ("why?", "on Windows?"), says "instead" or "also" of the previous answer, or refers back before
# naming anything itself ("can it open…", "if I set it in Meta…", "inside that function…"), says
# "they" or "those" before naming anything plural ("…the most recent few of them?") or ends on
# "that" ("…for that?"). A pronoun after the message has named its own subject points inside it
# ("My API uses one core. How do I get it to run on all of them?"), and a keyword query names its
# own ("kresd prometheus metrics": borrowing the previous question made the dense model find
# that question's page again). scripts/slips_eval.py --slip new-topic measures both sides.
_LEAD_IN = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|thanks|thank you|great|cool|right|alright|perfect|nice|got it|i see|sure"
    r"|hmm+|vale|gracias|perfecto|bien|entendido|de acuerdo)\b[\s,.!;:-]*)+",
    re.I,
)
_FOLLOW_UP_START = re.compile(
    r"^\s*(and|also|but|so|what about|how about|what if|and if|then|same for|instead|and for|y|¿y|y si|"
    r"¿y si|pero|qué tal|que tal|también|tambien|entonces|y para|¿y para)\b",
    re.I,
)
# "Can I also…", "¿También…?"; and a short "…on Windows too?" ("too slow" is not one).
# A word and what separates words never share a character: with an apostrophe in both (`\W`),
# 1,000 apostrophes could be split so many ways that one message held a worker for minutes.
_EARLY_ALSO = re.compile(r"^[^\w'’]*(?:[\w'’]+[^\w'’]+){0,2}(also|también|tambien)\b", re.I)
_TOO_AT_END = re.compile(r"\b(too|también|tambien)\W*$", re.I)
_BARE_INSTEAD = re.compile(r"\binstead\b(?!\s+of)|\ben\s+(vez|lugar)\b(?!\s+de)", re.I)
# "Is it possible…", "what does it mean…": an "it" that points at nothing.
_DUMMY_IT = re.compile(
    r"\b(is|was|would|will)\s+it\s+(be\s+)?(possible|safe|ok|okay|fine|recommended|necessary|required"
    r"|better|worth|a good idea|bad|true)\b|\bit\s*(is|'s|was)\s+(possible|safe|recommended|necessary"
    r"|required|better|worth)\b|\bdoes\s+it\s+(mean|matter)\b",
    re.I,
)
_PRONOUN = {"it", "they", "them", "those", "these", "eso", "esto", "ello", "ellos", "ellas"}
_PLURAL = {"they", "them", "those", "these", "ellos", "ellas"}
_POSSESSIVE = {"its", "their"}
_DEMONSTRATIVE = {"that", "this", "ese", "esa", "este", "esta", "esos", "esas"}
_ARTICLE = {"a", "an", "the", "any", "some", "un", "una", "el", "la", "algún", "alguna"}
_FUNCTION_WORDS_TEXT = (
    "is are was were be been the a an i you we it they he she my your our their its can could will"
    " would should does do did has have had to of in on for with and or but if not no yes what which"
    " how why when where who whom there here me i'm im please just so then than also any some all"
    " more most very really actually still one get got make only someone something anyone anything"
    " everyone everything nobody nothing el la los las un una de del en y o que qué cómo como por"
    " para con se es mi mis lo le"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
_WORDS = re.compile(r"[\w'’]+")
# An identifier names its subject: snake_case, digits, dotted or path-like, CamelCase, CONSTANT
# (a product's "macOS", "iPhone" or "AWS" is one word like any other).
_NAMED = re.compile(r"_|\d|\w[.:/]\w|^[A-Z][a-z]+[A-Z]|^[A-Z]{5,}$")


def leans_on_previous(message: str) -> bool:
    """True when the message needs the previous question to be understood."""
    text = _LEAD_IN.sub("", message)
    words = _WORDS.findall(text)
    if _FOLLOW_UP_START.search(text) or _EARLY_ALSO.search(text):
        return True
    if len(words) <= 4 and sum(_weight(w) for w in words) <= 1:
        return True
    if len(words) <= 14 and _BARE_INSTEAD.search(text) or len(words) <= 8 and _TOO_AT_END.search(text):
        return True
    words = _WORDS.findall(_DUMMY_IT.sub(" ", text))
    named = 0  # how much of its own subject the message has said so far
    plural = False  # ... and whether it named something "they" or "those" could be
    for i, word in enumerate(words):
        lower = word.lower()
        if lower in _PRONOUN and (named <= 2 or lower in _PLURAL and named <= 4 and not plural):
            return True
        if lower in _POSSESSIVE and named <= 1:
            return True
        if lower in _DEMONSTRATIVE and named <= 1:
            following = words[i + 1].lower() if i + 1 < len(words) else None
            relative = i >= 2 and words[i - 2].lower() in _ARTICLE  # "a rule that checks"
            if not relative and (following is None or following not in _FUNCTION_WORDS):
                return True
        if lower in _DEMONSTRATIVE and i == len(words) - 1 and named <= 5:  # "… for that?", "fix this?"
            return True
        weight = _weight(word)
        named += weight
        plural = plural or (weight > 0 and len(lower) > 3 and lower.endswith("s") and lower[-2] != "s")
    return False


def _weight(word: str) -> int:
    if word.lower() in _FUNCTION_WORDS:
        return 0
    return 3 if _NAMED.search(word) else 1


def search_query(message: str, history: tuple[Turn, ...]) -> str:
    """The text to search for: follow-ups borrow the previous question's terms."""
    previous = next((t.content for t in reversed(history) if t.role == "user"), None)
    if not previous or not leans_on_previous(message):
        return message
    return f"{previous} {message}"


def _jaccard(a: str, b: str) -> float:
    wa = set(_WORD.findall(a.lower()))
    wb = set(_WORD.findall(b.lower()))
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0
