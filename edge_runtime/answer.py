"""One answer pipeline: question → query → retrieve → investigate → assess → compose.

Each step is a plain function over explicit inputs; `answer()` runs them all
for the offline (extractive) synthesiser, and `prepare()` + a synthesiser is
what the chat endpoint, `askdocs eval`, the MCP `ask` tool, the tuning scripts
and the benchmarks share. Nothing here streams, caches or logs: the chat
endpoint does that with the typed `Answer` it gets back.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from askdocs.edge_runtime.answer_types import Answer, Part
from askdocs.edge_runtime.conversation import ChatRequest, only_asks_for_human
from askdocs.edge_runtime.embedding import QueryEmbedder
from askdocs.edge_runtime.events import StreamEvent
from askdocs.edge_runtime.evidence import CALL_ARGUMENTS, Evidence, Investigation, investigate, outline
from askdocs.edge_runtime.extractive import (
    Composition,
    compose,
    defined_name,
    gives_no_amount,
    passage_signals,
    refusal,
)
from askdocs.edge_runtime.faqmatch import FaqMatch, duplicate_faq
from askdocs.edge_runtime.fs import DocsFS, FsCaches
from askdocs.edge_runtime.i18n import ask_in_language, phrase
from askdocs.edge_runtime.intents import Intent, intent_reply, recognise, worded_as_first_question
from askdocs.edge_runtime.query import Query, make_query, mentions, names_in, platform_asked, platform_pattern
from askdocs.edge_runtime.scope import Scope
from askdocs.edge_runtime.search import (
    ANSWER_WEIGHTS,
    DEFAULT_WEIGHTS,
    RankWeights,
    SearchOutcome,
    hybrid_search,
    hybrid_search_both,
)

from askdocs import lexical
from askdocs.shards import is_support_page

# Operating point of the confidence model (see evidence.CONFIDENCE and scripts/fit_confidence.py).
DEFAULT_MIN_CONFIDENCE = 0.41
SEARCH_DEPTH = 8
# Sections of one page among the evidence read (the second stage orders pages: uncapped, one
# page's many sections fill the evidence ahead of another page's one that answers).
SECTIONS_PER_PAGE = 3


@dataclass(frozen=True)
class AnswerSettings:
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    weights: RankWeights = ANSWER_WEIGHTS  # the order confidence is judged on
    # The order the evidence is read in (None: `weights`'), at most SECTIONS_PER_PAGE per page.
    evidence_weights: RankWeights | None = DEFAULT_WEIGHTS
    depth: int = SEARCH_DEPTH
    support_url: str | None = None  # where escalations point (None: the site's support page)


@dataclass(frozen=True)
class Docs:
    """What one reader may read, and the model to embed questions with."""

    scope: Scope
    embedder: QueryEmbedder | None
    fs_caches: FsCaches = field(default_factory=FsCaches)

    @property
    def fs(self) -> DocsFS:
        return DocsFS(self.scope, self.fs_caches)


@dataclass
class Case:
    """Everything known about one question before an answer is composed."""

    query: Query
    outcome: SearchOutcome
    investigation: Investigation
    support: dict
    faq: FaqMatch | None = None  # the FAQ record the question duplicates: answered from it
    intent: Intent | None = None  # "what is this?", "how do I get started?": answered from those pages
    # Cosine of texts with another in the question's model (`_relevance_to`), remembered for
    # this question: what confidence read of the passages, composing reads again.
    relevance_to: Callable[[str, list[str]], list[float]] | None = None

    @property
    def confidence(self) -> float:
        return self.investigation.confidence

    @property
    def evidence(self) -> list[Evidence]:
        return self.investigation.evidence

    @property
    def steps(self) -> list[StreamEvent]:
        return self.investigation.steps

    def trace(self) -> dict:
        extra: dict[str, Any] = {
            "confidence": self.confidence,
            "retrievers": self.outcome.retrievers,
            "locale": self.query.locale,
        }
        if self.outcome.errors:
            extra["retriever_errors"] = self.outcome.errors
        if self.query.locale_detected:
            extra["locale_detected"] = True
        if self.query.respelled:
            extra["respelled"] = dict(self.query.respelled)
        if self.faq is not None:
            page = self.investigation.evidence[0]
            extra["faq_match"] = {"url": page.url, "similarity": self.faq.similarity, "bar": self.faq.bar}
        if self.intent is not None:
            extra["intent"] = self.intent.kind
        return extra


def question(
    docs: Docs, message: str, locale: str | None = None, history=(), page_url: str | None = None
) -> Query:
    return make_query(ChatRequest(message, locale, tuple(history), page_url), docs.scope)


def retrieve(docs: Docs, query: Query, settings: AnswerSettings) -> SearchOutcome:
    return hybrid_search(docs.scope, docs.embedder, query, settings.depth, settings.weights)


def searched(docs: Docs, query: Query, settings: AnswerSettings) -> tuple[SearchOutcome, SearchOutcome]:
    """One retrieval in two orders: the one confidence is judged on (`settings.weights`) and the
    hits the evidence is read from: the second stage's order of pages, each page's sections in
    the fused order, at most SECTIONS_PER_PAGE of one page (`spread`), each weighing its fused score (the
    second stage's page scores are steep: a page it ranks second would weigh a third of the
    first, though retrieval matched both about as well)."""
    if settings.evidence_weights is None:
        outcome = retrieve(docs, query, settings)
        return outcome, outcome
    outcome, ranked = hybrid_search_both(
        docs.scope,
        docs.embedder,
        query,
        (settings.depth, settings.weights),
        (settings.depth * SECTIONS_PER_PAGE, settings.evidence_weights),
    )
    corpus = docs.scope.corpus
    hits = spread(ranked.hits, lambda hit: (hit.ref.set, corpus.chunk(hit.ref).page), settings.depth)
    best = max((h.fused for h in hits), default=0.0) or 1.0
    hits = [replace(h, score=h.fused / best) for h in hits]
    return outcome, replace(ranked, hits=hits)


def spread(hits: list, page_of: Callable[[Any], Any], depth: int) -> list:
    """The first `depth` of `hits` (in their order), at most SECTIONS_PER_PAGE of one page; when
    fewer pages matched than that fills (a one-page site: Flask-Babel's docs are one page of 43
    sections), their further sections fill it, in the same order, rather than leave the answer
    three sections to compose from."""
    per_page: dict[Any, int] = {}
    chosen = []
    for hit in hits:
        page = page_of(hit)
        if per_page.get(page, 0) < SECTIONS_PER_PAGE:
            per_page[page] = per_page.get(page, 0) + 1
            chosen.append(hit)
        if len(chosen) == depth:
            return chosen
    taken = {id(h) for h in chosen}
    more = {id(h) for h in [h for h in hits if id(h) not in taken][: depth - len(chosen)]}
    return [h for h in hits if id(h) in taken or id(h) in more]


def prepare(docs: Docs, query: Query, settings: AnswerSettings) -> Case:
    """Retrieve, navigate and assess: the work every synthesiser builds on."""
    outcome, read = searched(docs, query, settings)
    faq = duplicate_faq(docs.scope, docs.embedder, query) if "dense" in outcome.retrievers else None
    intent = recognise(docs.scope, query) if faq is None else None
    # The dense model reads the passages only where it served this question: when it failed,
    # retrieval said so (`outcome.errors`), and composing reads the words alone.
    live = docs.embedder is not None and "dense" in outcome.retrievers
    relevance_to = _relevance_to(docs.embedder, query.locale) if live else None
    passages = None
    # The passages are read in the docs' language: a question written in another is matched by
    # the names it shares with them alone ("Comment installer Tallyfox sur Windows ?").
    if relevance_to is not None and not query.foreign:
        relevance = functools.partial(relevance_to, query.text)
        baseline = outcome.dense_stats[0] if outcome.dense_stats else 0.0
        passages = functools.partial(passage_signals, query, relevance=relevance, baseline=baseline)
    investigation = investigate(
        docs.fs,
        read,
        query,
        faq=faq.ref if faq else None,
        assessed=outcome,
        lead=intent.lead if intent else None,
        lead_at=intent.at if intent and intent.at else None,
        passages=passages,
    )
    if read is not outcome:  # what ran for this answer, and what failed, is reported (trace, /healthz)
        outcome.retrievers.extend(name for name in read.retrievers if name not in outcome.retrievers)
        for name, error in read.errors.items():
            outcome.errors.setdefault(name, error)
    support = support_for(docs.scope, query.locale, settings.support_url)
    return Case(query, outcome, investigation, support, faq, intent, relevance_to)


def human_requested(query: Query, support: dict | None) -> Answer | None:
    """A request for a person and nothing else to answer: offer one at once."""
    if query.escalation and only_asks_for_human(query.message):
        return Answer(
            [Part("note", phrase(query.locale, "human"))],
            False,
            "extractive",
            [],
            support,
            extra={"escalation_reason": query.escalation},
        )
    return None


# Greetings, thanks and assent: a message of these alone ("hi", "thanks!", "ok") asks nothing.
COURTESY = {
    "en": "hi hello hey hiya thanks thank thx ty cheers yes yeah yep nope ok okay please bye goodbye",
    "es": "hola gracias vale sí buenas buenos días adiós ok",
}


@functools.cache
def _courtesy(locale: str) -> frozenset[str]:
    words = " ".join(COURTESY.values())  # "hola" is often asked before the locale is known
    return frozenset(lexical.stem_terms(locale, words))


def unclear(query: Query, support: dict | None) -> Answer | None:
    """A message that asks nothing the docs could answer ("?", "what?", "Can you help me?",
    "----", "hi", "thanks!"): no word of it is a key term (framing and generic words are not;
    greetings and thanks are not either) and it names nothing exactly. Whatever search found
    for it would be chance, and was answered confidently ("how?" quoted two error codes): the
    reader is asked what they are looking for instead. A follow-up ("and then?") has the key
    terms of the question it follows, and is not unclear."""
    if query.identifiers or query.key_terms - _courtesy(query.locale) or worded_as_first_question(query):
        return None
    return Answer(
        [Part("note", phrase(query.locale, "unclear"))],
        False,
        "extractive",
        [],
        support,
        0.0,
        [],
        {"refused_because": "no_question", "locale": query.locale},
    )


def answered_at_once(query: Query, support: dict | None) -> Answer | None:
    """What is answered without searching: a request for a person, or a message that asks nothing."""
    return human_requested(query, support) or unclear(query, support)


def gate(case: Case, settings: AnswerSettings, mode: str = "extractive") -> Answer | None:
    """The refusal, when the docs hold no evidence for the question (None: go on). A question
    the site's FAQ asks in other words is answered from that FAQ, whatever the confidence; below
    it, one asking what a name is that a section is headed by (`defined_name`), naming in code
    what the best evidence says (`code_name_read`), or asking which versions of a thing the best
    evidence names with a version (`platform_version_read`), is still answered."""
    if case.faq is not None or case.intent is not None:
        return None
    if (
        case.confidence < settings.min_confidence
        and defined_name(case.query, case.evidence) is None
        and code_name_read(case.query, case.evidence) is None
        and platform_version_read(case.query, case.evidence) is None
    ):
        return refuse(case, mode)
    if case.evidence and _only_the_contact_page(case, case.evidence[0]):
        return refuse(case, mode, refused_because="contact_page")
    if _version_unsaid(case):
        return refuse(case, mode, refused_because="version_unsaid")
    if _name_unsaid(case):
        return refuse(case, mode, refused_because="name_unsaid")
    return None


_ASKS_WHETHER = re.compile(r"^\W*(?:does|do|did|can|could|is|are|will|would|has|have)\b", re.I)
# A product's or a technology's name: capitalised, with lowercase letters ("PostgreSQL",
# "JavaScript", "Polars"); not a shout ("OK"), a placeholder ("MYTOOL_SERVE_PORT") or a style
# ("camelCase").
# The shape is checked ahead and the letters taken possessively: a long word that fails at its end
# ("Aaaa…a1") is not tried at every split of its letters.
_PRODUCT_NAME = re.compile(
    r"(?<![\w.-])(?!(?:I|If|Is|Are|Does|Do|Can|Could|Will|Would|Has|Have)\b)"
    r"(?=[A-Z][A-Za-z]*[a-z])[A-Za-z]++(?![\w.-])"
)


def platform_version_read(query: Query, evidence: list[Evidence]) -> str | None:
    """Asked which versions of a thing are needed or supported (`platform_asked`: "Which Python
    version does aiosmtplib require?"), the thing the best evidence names with a version, if it
    does ("Python 3.7+, compiled with SSL support, is required.", refused at 0.35): the docs
    state what was asked. Measured on every eval group: no answer changed."""
    name = platform_asked(query.message)
    if name is None or not evidence:
        return None
    return name if re.search(platform_pattern(name), _best_read(evidence), re.I) else None


def _best_read(evidence: list[Evidence]) -> str:
    """The best evidence's heading and text, lowercased: what `platform_version_read` and
    `code_name_read` look in."""
    best = evidence[0]
    return f"{best.heading}\n{best.text}".lower()


# A name written as code: a snake_case or called name, a flag (`error_on_unknown`, `Lock.disown()`,
# `-o`, `--max-batch`, `CELERY_RDBSIG` lowercased), not a version ("3.2") nor a dotted product name.
_CODE_NAME = re.compile(r"[^\s]*(?:_|\()[^\s]*|-{1,2}[a-z][\w-]*")


def code_name_read(query: Query, evidence: list[Evidence]) -> str | None:
    """The name the question writes as code (`_CODE_NAME`) that the best evidence says verbatim,
    if one is: the docs speak of the very thing asked. staticconf's "What does passing
    error_on_unknown to a staticconf loader do?" (its loader's argument list), flufl.lock's "In
    which release were Lock.transfer_to(), Lock.take_possession() and Lock.disown() removed?"
    (the release note) and mando's "How do I write short options like -o in a docstring?" were
    refused at 0.36-0.38: every word known, but no passage stood out for the dense model.
    Measured on every eval group: seven more answers, no unanswerable question answered."""
    if not evidence:
        return None
    names = [t for t in names_in(query.identifiers) if _CODE_NAME.fullmatch(t)]
    said = _best_read(evidence)
    return next((t for t in names if mentions(said, t)), None)


def _name_unsaid(case: Case) -> bool:
    """Asked whether something can be done with or supports a named product the docs never name
    ("Does parso support parsing JavaScript?", "Is there a built-in item pipeline for writing
    items into PostgreSQL?"): that name is what the question is about."""
    query = case.query
    if not _ASKS_WHETHER.match(query.message):
        return False
    names = {
        t for word in _PRODUCT_NAME.findall(query.message) for t in lexical.stem_terms(query.locale, word)
    }
    return bool(names & (query.key_terms - case.investigation.term_weights.keys()))


# A version the question names: "Python 2.4", "3.12", "HTTP/3"; not an address ("10.0.0.53",
# "192.168.x.x"), a path's number ("/items/42") or a name's ("v1.2").
_VERSION_NAMED = re.compile(r"(?<![\w./-])(?:\d+\.\d+(?:\.\d+)?|[A-Z]{2,}/\d+(?:\.\d+)?)(?![\w/]|\.\w)")


def _version_unsaid(case: Case) -> bool:
    """The question names versions and nothing read says any of them: what it asks about is that
    version, which the docs do not cover ("Does wrapt support Python 2.4?" was answered with the
    overview's "a transparent object proxy for Python", "Does WebOb support HTTP/3?" with the 505
    HTTP Version Not Supported exception), whatever else of it they say."""
    # Not a number among a call's arguments ("such as 'hsla(120, 100%, 50%, 0.5)'"): a value.
    named = [v.lower() for v in _VERSION_NAMED.findall(CALL_ARGUMENTS.sub(" ", case.query.message))]
    if not named:
        return False
    read = [f"{e.label}\n{e.text}".lower() for e in case.evidence]
    return not any(mentions(text, token) for token in named for text in read)


# Of the question's key terms, more than this share must be on the support page for it to answer.
CONTACT_COVER = 0.5


def _only_the_contact_page(case: Case, top: Evidence) -> bool:
    """`top` (the best evidence, or what an answer leads with) is the site's support page
    (where the refusal points anyway), and it holds at most half the question's key terms:
    "Does the product phone home?" matched "phone support" on one word, "What happens when my
    license expires?" the portal's "the email address on your license" on one of two. Such an answer is the
    refusal in disguise, and a wrong one: the reader is told what the docs checked and offered
    support instead."""
    support = case.support or {}
    url = support.get("url")
    if not url or support.get("configured") is False or not case.query.key_terms:
        return False
    if top.kind == "faq" or top.page_url != url.split("#")[0]:
        return False
    held = lexical.stem_terms(case.query.locale, f"{top.label}\n{top.text}") & case.query.key_terms
    return len(held) <= CONTACT_COVER * len(case.query.key_terms)


def refuse(case: Case, mode: str = "extractive", **extra: Any) -> Answer:
    query = case.query
    text = refusal(query.locale, case.investigation.checked)
    if query.ask_in:  # the reader wrote in a language the docs are not in: say which they are in
        text += " " + ask_in_language(query.foreign or query.locale, query.ask_in)
        extra.setdefault("refused_because", "language")
    return Answer(
        [Part("note", text)],
        False,
        mode,
        [],
        case.support,
        case.confidence,
        list(case.investigation.checked),
        {**case.trace(), **extra},
    )


def extractive(docs: Docs, case: Case, mode: str = "extractive") -> Answer:
    """Compose from the documentation's own words (the offline synthesiser)."""
    query = case.query
    if case.intent is not None and (reply := intent_reply(docs.scope, case.intent, query)) is not None:
        parts, cited = reply
        return Answer(
            parts, True, mode, cited, None, case.confidence, list(case.investigation.checked), case.trace()
        )
    relevance_to = case.relevance_to
    relevance = functools.partial(relevance_to, query.text) if relevance_to else None
    found = case.investigation
    # Only this synthesiser reads the pages' outline: refusals and LLM answers never pay for it.
    noted = outline(
        docs.scope.corpus, found.opened, {e.url for e in found.evidence}, docs.scope.document_frequencies
    )
    composition: Composition = compose(
        query, case.evidence, found.term_weights, relevance, noted, relevance_to=relevance_to
    )
    if not composition.parts:
        return refuse(case, mode)
    if gives_no_amount(query, composition, found.term_weights):
        return refuse(case, mode, refused_because="number_unsaid")
    if _only_the_contact_page(case, composition.cited[0]):
        return refuse(case, mode, refused_because="contact_page")
    return Answer(
        composition.parts,
        True,
        mode,
        citations(composition.cited),
        None,
        case.confidence,
        list(case.investigation.checked),
        case.trace(),
    )


def with_escalation(answer: Answer, query: Query, support: dict | None) -> Answer:
    """Frustration or a repeated question offers a person next to whatever was answered."""
    if not query.escalation or answer.escalation:
        return answer
    return Answer(
        answer.parts,
        answer.answered,
        answer.mode,
        answer.citations,
        support,
        answer.confidence,
        answer.checked,
        {**answer.extra, "escalation_reason": query.escalation},
    )


def answer(docs: Docs, request: ChatRequest, settings: AnswerSettings = AnswerSettings()) -> Answer:
    """The whole offline pipeline for one question (what `askdocs eval` and the scripts run)."""
    query = make_query(request, docs.scope)
    return answer_query(docs, query, settings)


def answer_query(docs: Docs, query: Query, settings: AnswerSettings) -> Answer:
    support = support_for(docs.scope, query.locale, settings.support_url)
    early = answered_at_once(query, support)
    if early is not None:
        return early
    case = prepare(docs, query, settings)
    result = gate(case, settings) or extractive(docs, case)
    return with_escalation(result, query, case.support)


def support_for(scope: Scope, locale: str, configured: str | None) -> dict:
    """Where escalations point: the configured URL, else the site's contact/support page in
    the reader's language, else the one the build recorded. A site with none gets an
    escalation that says so (`configured: false`) instead of a button that leads nowhere."""
    url = configured
    if not url:
        corpus = scope.corpus
        candidates = [
            u
            for u, where in scope.paths.items()
            if corpus.page(*where).locale == locale and is_support_page(u, corpus.page(*where).title)
        ]
        url = min(candidates, key=len) if candidates else corpus.manifest.support_url
    if not url:
        return {"url": "/", "text": phrase(locale, "no_support"), "configured": False}
    return {"url": url, "text": phrase(locale, "contact")}


def citations(evidence: list[Evidence]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for item in evidence:
        if item.url in seen:
            continue
        seen.add(item.url)
        out.append({"url": item.url, "title": item.label})
    return out


def _relevance_to(embedder: QueryEmbedder, locale: str) -> Callable[[str, list[str]], list[float]]:
    """Cosine of each text with another (the question, or one of its asks), with the locale's own
    model; each pair is computed once (confidence reads the passages an answer then composes
    from). One per question: what it remembers is bounded by what one answer reads."""
    model = embedder.embedder_for(locale)
    known: dict[tuple[str, str], float] = {}

    def score(about: str, texts: list[str]) -> list[float]:
        new = list(dict.fromkeys(t for t in texts if (about, t) not in known))
        if new:
            cosines = model.similarity(embedder.vector(about, locale), new)
            known.update(((about, t), float(v)) for t, v in zip(new, cosines, strict=True))
        return [known[(about, t)] for t in texts]

    return score
