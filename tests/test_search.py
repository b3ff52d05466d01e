"""Hybrid retrieval on the example site: dense, lexical, fusion and the sanity checks."""

from __future__ import annotations

import dataclasses
import time

import pytest
from askdocs.edge_runtime.corpus import ChunkRef
from askdocs.edge_runtime.query import identifier_tokens, search_query_for, telling_identifiers
from askdocs.edge_runtime.rerank import Reranker
from askdocs.edge_runtime.results import result_json
from askdocs.edge_runtime.search import (
    ANSWER_WEIGHTS,
    DEFAULT_WEIGHTS,
    RankWeights,
    _exact_ranks,
    fused_candidates,
    hybrid_search,
)
from askdocs.edge_runtime.sitename import names_the_site, site_names

from askdocs import lexical


def search(scope, embedder, text, locale, k=10, weights=DEFAULT_WEIGHTS):
    return hybrid_search(scope, embedder, search_query_for(text, locale, scope), k, weights)


def pages(corpus, outcome) -> list[str]:
    seen = []
    for hit in outcome.hits:
        url = corpus.chunk_page(hit.ref).url
        if url not in seen:
            seen.append(url)
    return seen


def test_dense_answers_a_question_with_no_lexical_overlap(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "What are your monthly fees?", "en", 10)
    assert outcome.retrievers == ["lexical", "dense", "rerank"]
    pricing = [h for h in outcome.hits if corpus.chunk_page(h.ref).url == "/pricing/"]
    assert pricing, pages(corpus, outcome)
    assert all(h.lexical_rank is None for h in pricing)  # found by the dense retriever alone
    assert "/pricing/" in pages(corpus, outcome)[:2]


def test_exact_identifiers_win(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "TFX-1042", "en", 5)
    top = result_json(corpus, outcome, outcome.hits[0])
    assert top["page_url"] == "/errors/"
    assert top["url"] == "/errors/#tfx-1042"  # the sub-section holding the code
    assert identifier_tokens("use --max-batch with TALLYFOX_DATA_DIR") == ("--max-batch", "tallyfox_data_dir")


def test_the_products_own_name_is_not_an_exact_token(example_corpus, public_scope):
    """Readers write "TallyFox" (the identifier pattern reads a name in it, as in "FastAPI" or
    "cmd2"), and most of the docs' chunks say it: matched verbatim, every candidate held it, ties
    kept the site's order, and its first chunks ranked first."""
    corpus, embedder = example_corpus
    query = search_query_for("How many times does TallyFox retry a failed webhook?", "en", public_scope)
    assert query.identifiers == ()
    fused = hybrid_search(public_scope, embedder, query, 5, ANSWER_WEIGHTS)
    assert pages(corpus, fused)[0] == "/guides/webhooks/"
    # Names whose pieces are common words stay names; a rare plain word too.
    tokens = ("tallyfox", "tfx-1042", "--no-service", "tallyfox_data_dir", "iphone")
    assert telling_identifiers(public_scope, "en", tokens) == tokens[1:]


def test_an_everyday_hyphenated_word_is_english_not_a_name(public_scope):
    """Everyday hyphenated words ("built-in", "per-test", "session-wide") are English: as exact
    tokens they sent questions to whatever page held the compound (pytest's flag list held
    "per-test")."""
    written = "Is there a built-in way to run a per-test or session-wide job with mkdocs gh-deploy?"
    query = search_query_for(written, "en", public_scope)
    assert "built-in" not in query.identifiers and "per-test" not in query.identifiers
    assert "session-wide" not in query.identifiers
    # Names stay: a part the language rarely uses, three parts, a capital as written, a flag.
    written = "Does pytest-xdist send Content-Length with class-not-fully-defined and --log-level?"
    tokens = identifier_tokens(written)
    assert telling_identifiers(public_scope, "en", tokens, written) == tokens
    assert "gh-deploy" in telling_identifiers(public_scope, "en", ("gh-deploy",), "mkdocs gh-deploy")


def test_a_count_of_the_readers_things_is_not_an_exact_token(public_scope):
    """In "How do I scale to 1000 hosts?" the number is the reader's count, not a name (test_answers:
    what it led the answer with). A number after what it names ("port 7431", "error 404") is one."""
    assert identifier_tokens("how to scale to 1000 hosts") == ()
    assert identifier_tokens("cap it at 10 requests per second, or 300 seconds, or below 85%") == ()
    assert identifier_tokens("Why do I get 404 errors and 302 responses?") == ("404", "302")
    assert identifier_tokens("port 7431 is blocked; exit code 5; error 404 when upgrading to 3.0") == (
        "7431",
        "404",
        "3.0",
    )
    assert search_query_for("How do I scale to 1000 hosts?", "en", public_scope).identifiers == ()


def test_candidates_holding_the_token_alike_share_its_exact_rank(example_corpus, public_scope):
    """The exact list ranks candidates by how many of the question's tokens they hold; among
    those holding as many, the site's order says nothing about the question, so they share the
    rank (it used to hand the site's first page the best one)."""
    corpus, embedder = example_corpus
    query = search_query_for("What does --max-batch do?", "en", public_scope)
    _, ranked, _ = fused_candidates(public_scope, embedder, query)
    exact = _exact_ranks(public_scope, {hit.ref: hit for hit in ranked}, query)
    assert len(exact) >= 2, exact
    assert set(exact.values()) == {0}


def test_the_docs_own_name_ranks_no_candidate_as_an_exact_token(example_corpus, public_scope):
    """A name made of the site's name ("Flask-Babel" in Flask-Babel's docs, "tallyfox" here) says
    which docs, not which section: the exact list does not read it (it ranked every section
    saying it beside lexical's first); another token of the same question still ranks."""
    corpus, embedder = example_corpus
    assert site_names(public_scope, "en") >= {"tallyfox"}
    query = search_query_for("What does --max-batch do?", "en", public_scope)
    _, ranked, _ = fused_candidates(public_scope, embedder, query)
    candidates = {hit.ref: hit for hit in ranked}
    own = dataclasses.replace(query, identifiers=("tallyfox",))
    assert _exact_ranks(public_scope, candidates, own) == {}
    both = dataclasses.replace(query, identifiers=("tallyfox", "--max-batch"))
    assert _exact_ranks(public_scope, candidates, both) == _exact_ranks(public_scope, candidates, query)
    assert names_the_site("flask-babel", frozenset({"flask", "babel"}))
    assert names_the_site("flufl.lock", frozenset({"flufl", "lock"}))
    assert not names_the_site("flask-login", frozenset({"flask", "babel"}))
    assert not names_the_site("cmd2", frozenset({"cmd"}))


def test_locale_first_and_marked_fallback(example_corpus, public_scope):
    corpus, embedder = example_corpus
    spanish = search(public_scope, embedder, "¿Cómo instalo el agente en Windows?", "es", 10)
    assert spanish.locale == "es" and not spanish.locale_fallback
    assert all(corpus.chunk_page(h.ref).locale == "es" for h in spanish.hits)
    assert pages(corpus, spanish)[0] == "/es/install/"
    french = search(public_scope, embedder, "install windows", "fr", 5)
    assert french.locale == "en" and french.locale_fallback and french.requested_locale == "fr"


def test_newest_of_conflicting_dated_passages_wins(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "default retention for raw samples", "en", 10)
    anchors = [
        corpus.chunk(h.ref).anchor for h in outcome.hits if corpus.chunk_page(h.ref).url == "/release-notes/"
    ]
    assert "310" in anchors and "240" in anchors
    assert anchors.index("310") < anchors.index("240")


def test_newer_of_two_similar_dated_passages_never_ranks_below_the_older(example_corpus):
    """Whatever the ranker says, newer truth beats older similar text."""
    from askdocs.edge_runtime.search import Hit, _newest_wins

    corpus, _ = example_corpus
    notes = [
        ChunkRef(0, i)
        for i, chunk in enumerate(corpus.sets[0].chunks)
        if corpus.chunk_page(ChunkRef(0, i)).url == "/release-notes/" and chunk.anchor in ("240", "310")
    ]
    older, newer = sorted(notes, key=lambda ref: corpus.chunk(ref).lastmod)
    asked = frozenset(lexical.stem_terms("en", "default retention raw samples"))

    def order(older_score, newer_score, asked=asked, weights=DEFAULT_WEIGHTS):
        ranked = [Hit(older, older_score, matched=asked), Hit(newer, newer_score, matched=asked)]
        return [h.ref for h in _newest_wins(corpus, ranked, weights, asked)]

    assert order(1.0, 0.6) == [newer, older]  # both set the default retention: the newer says it now
    assert order(1.0, 0.2) == [older, newer]  # the newer one hardly matches: not a rival
    assert order(1.0, 0.6, asked=frozenset()) == [older, newer]  # nothing asked in common
    apart = dataclasses.replace(RankWeights(), near_duplicate=2.0, rival=2.0)
    assert order(1.0, 0.6, weights=apart) == [older, newer]


def test_canonical_page_outranks_the_listing_that_repeats_it(example_corpus, public_scope):
    corpus, embedder = example_corpus
    query = "Webhooks let Tallyfox notify another system when an alert fires or resolves"
    ranked = pages(corpus, search(public_scope, embedder, query, "en", 10))
    assert ranked[0] == "/guides/webhooks/"
    assert "/tags/" not in ranked[:1]
    if "/tags/" in ranked:
        assert ranked.index("/tags/") > ranked.index("/guides/webhooks/")


def test_faq_pairs_are_strong_candidates(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "Is there a discount for nonprofits?", "en", 5)
    first = corpus.chunk(outcome.hits[0].ref)
    assert first.kind == "faq" and "KINDFOX40" in corpus.text(outcome.hits[0].ref)


def test_results_are_deduplicated_per_page_and_anchor(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "proxy", "en", 20)
    keys = [
        (corpus.chunk_page(h.ref).url, corpus.chunk(h.ref).anchor, corpus.chunk(h.ref).kind)
        for h in outcome.hits
        if corpus.chunk(h.ref).kind == "section"
    ]
    assert len(keys) == len(set(keys))


def test_snippet_is_plain_text_with_term_offsets(example_corpus, public_scope):
    corpus, embedder = example_corpus
    outcome = search(public_scope, embedder, "webhook signature header", "en", 3)
    result = result_json(corpus, outcome, outcome.hits[0])
    assert "```" not in result["snippet"] and "**" not in result["snippet"]
    assert result["highlights"]
    for start, end in result["highlights"]:
        assert result["snippet"][start:end].lower().startswith(("webhook", "signatur", "header"))
    # Links keep their text, not their Markdown ("[Security](/security/)" reads "Security").
    from askdocs.edge_runtime.search import snippet

    text, marks = snippet("See [rotating tokens](/security/#rotate) first.", "en", {"rotat"})
    assert text == "See rotating tokens first." and text[marks[0][0] : marks[0][1]] == "rotating"


class BrokenEmbedder:
    model_id = "broken"

    def vector(self, text, locale=None):
        raise RuntimeError("onnx session lost")


def test_the_second_stage_serves_and_completes_what_each_retriever_did_not_say(example_corpus, public_scope):
    """The default order is the learned second stage over the fused pool; a candidate found by
    one retriever alone still gets the other's score and the key terms it holds (evidence and
    confidence read them)."""
    corpus, embedder = example_corpus
    assert RankWeights().stage == "rerank"
    outcome = search(public_scope, embedder, "How do I register a webhook endpoint?", "en", 40)
    assert outcome.retrievers == ["lexical", "dense", "rerank"]
    assert outcome.hits[0].score == 1.0 and all(0 < h.score <= 1.0 for h in outcome.hits)
    dense_only = [h for h in outcome.hits if h.lexical_rank is None]
    lexical_only = [h for h in outcome.hits if h.dense_rank is None]
    assert dense_only or lexical_only
    assert all(h.dense_score != 0.0 for h in lexical_only)
    webhook = [h for h in outcome.hits if corpus.chunk_page(h.ref).url == "/guides/webhooks/"]
    assert any("webhook" in h.matched for h in webhook)


def test_a_failed_dense_retriever_is_reported_not_hidden(public_scope):
    outcome = search(public_scope, BrokenEmbedder(), "install windows", "en", 5)
    assert outcome.retrievers == ["lexical", "rerank"]
    assert "onnx session lost" in outcome.errors["dense"]
    assert outcome.hits  # lexical still answers (re-scored without cosines), and says dense was out


class BrokenReranker(Reranker):
    def score(self, rows):
        raise ValueError("weights lost")


def test_a_failed_second_stage_is_reported_and_the_fused_order_serves(example_corpus, public_scope):
    corpus, embedder = example_corpus
    broken = dataclasses.replace(RankWeights(), stage="rerank", reranker=BrokenReranker("broken", {}))
    outcome = search(public_scope, embedder, "install windows", "en", 5, broken)
    assert outcome.retrievers == ["lexical", "dense"]
    assert "weights lost" in outcome.errors["rerank"]
    fused_only = dataclasses.replace(broken, stage="fused")
    fused = search(public_scope, embedder, "install windows", "en", 5, fused_only)
    assert [h.ref for h in outcome.hits] == [h.ref for h in fused.hits]


@pytest.mark.parametrize("stage", ["lexical", "dense", "fused", "rerank"])
def test_each_stage_can_rank_alone(example_corpus, public_scope, stage):
    """What the quality tables compare: each retriever alone, fused, fused + second stage."""
    corpus, embedder = example_corpus
    weights = dataclasses.replace(RankWeights(), stage=stage)
    outcome = search(public_scope, embedder, "How do I register a webhook endpoint?", "en", 10, weights)
    assert pages(corpus, outcome)[0] == "/guides/webhooks/"
    assert ("rerank" in outcome.retrievers) == (stage == "rerank")
    if stage == "lexical":
        assert all(h.lexical_rank is not None for h in outcome.hits)
    if stage == "dense":
        assert all(h.dense_rank is not None for h in outcome.hits)


@pytest.mark.parametrize("query", ["BLUE HERON", "on-call runbook escalation", "marigold-anvil-42"])
def test_restricted_pages_only_for_their_group(example_corpus, public_scope, staff_scope, query):
    corpus, embedder = example_corpus
    public = pages(corpus, search(public_scope, embedder, query, "en", 20))
    assert not any("internal" in url for url in public)
    staff = pages(corpus, search(staff_scope, embedder, query, "en", 20))
    assert "/internal/runbook/" in staff[:3]


def test_term_statistics_count_only_what_the_reader_may_see(public_scope, staff_scope):
    """Confidence weighs question terms by how rare they are in the reader's docs: the
    restricted runbook's words must not exist for a public reader, even as a count."""
    terms = set(lexical.stem_terms("en", "heron marigold install"))
    public, public_total = public_scope.document_frequencies("en", terms)
    staff, staff_total = staff_scope.document_frequencies("en", terms)
    (heron,), (install,) = lexical.stem_terms("en", "heron"), lexical.stem_terms("en", "install")
    assert public[heron] == 0 and staff[heron] > 0
    assert staff[install] >= public[install] > 0
    assert staff_total > public_total > 0
    assert public_scope.document_frequencies("en", {"zzzunknownzzz"})[0] == {"zzzunknownzzz": 0}


def test_a_word_the_docs_never_use_says_as_much_as_the_language_makes_it_say(public_scope):
    """`unknown_info`: of two questions with as many words the docs never use, the one whose
    unused words are everyday English (a reader's own phrasing) is less uncovered than the one
    whose unused word is a name; a question read as another language weighs every word alike."""
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.evidence import _information, _word_zipfs
    from askdocs.edge_runtime.query import make_query

    def unknown_info(message: str) -> tuple[float, float]:
        query = make_query(ChatRequest(message, "en", (), None), public_scope)
        terms = set(query.key_terms)
        known = set(public_scope.document_frequencies("en", terms)[0].items())
        unknown = terms - {t for t, n in known if n}
        information = _information(query, terms, _word_zipfs(query, terms))
        return len(unknown) / len(terms), sum(information[t] for t in unknown) / sum(information.values())

    everyday_frac, everyday = unknown_info("Can people come back later to restore a backup?")
    name_frac, name = unknown_info("Can certbot renewals trigger a backup restore?")
    assert everyday_frac > 0 and name_frac > 0
    assert name > name_frac and everyday < everyday_frac and name > 2 * everyday
    query = make_query(ChatRequest("Comment installer Tallyfox sur Windows ?", "en", (), None), public_scope)
    terms = set(query.key_terms)
    assert set(_information(query, terms, _word_zipfs(query, terms)).values()) == {1.0}


def test_a_name_the_docs_never_use_says_as_much_as_a_word_the_language_does_not_list(
    example_corpus, public_scope
):
    """psycopg2's docs never say "Oracle", and "How do I connect to an Oracle database?" was
    answered with the connection's database name: "oracle" is a common enough English word to say
    little. Written as a name (capitalised inside the sentence), a word the docs never use weighs
    as a name does in `unknown_info`, and the confidence falls."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, prepare
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query

    docs = Docs(public_scope, example_corpus[1])

    def case(message: str):
        return prepare(docs, make_query(ChatRequest(message, "en", (), None), public_scope), AnswerSettings())

    name, word = case("How do I send alerts to Slack?"), case("How do I send alerts to slack?")
    assert "slack" in name.investigation.signals["missing_terms"]
    assert name.investigation.signals["unknown_info"] > word.investigation.signals["unknown_info"]
    assert name.confidence < word.confidence


def test_a_follow_up_is_matched_lexically_on_its_own_words(example_corpus, public_scope):
    from askdocs.edge_runtime.conversation import ChatRequest, Turn
    from askdocs.edge_runtime.query import make_query

    corpus, embedder = example_corpus
    history = (Turn("user", "How do I rotate the API token?"), Turn("assistant", "Run token rotate."))
    query = make_query(ChatRequest("and what does a Business seat cost?", "en", history, None), public_scope)
    assert "rotat" in query.terms  # the dense model and the confidence still read the whole context
    lexical_only = dataclasses.replace(DEFAULT_WEIGHTS, stage="lexical")
    outcome = hybrid_search(public_scope, embedder, query, 20, lexical_only)
    # BM25 searched the reader's new words: the previous question's page does not come back first.
    assert pages(corpus, outcome)[0] == "/pricing/", pages(corpus, outcome)
    assert all("rotat" not in h.matched for h in outcome.hits if h.lexical_rank is not None)


def test_a_question_asking_which_release_is_pointed_at_the_release_notes(example_corpus, public_scope):
    """`version_changelog`: only a question that asks which version or release did something
    gets the release notes' signal; any other question is ranked as without it."""
    corpus, embedder = example_corpus
    without = Reranker("without", {**RankWeights().reranker.weights, "version_changelog": 0.0})
    asked = "Which release added the --verify-only flag to backup restore?"
    outcome = search(public_scope, embedder, asked, "en", 10)
    assert pages(corpus, outcome)[0] == "/release-notes/"
    plain = search(
        public_scope, embedder, asked, "en", 10, dataclasses.replace(RankWeights(), reranker=without)
    )
    assert pages(corpus, plain)[0] == "/guides/backups/"  # the page that documents the flag
    how = "How do I check a backup with --verify-only before restoring it?"
    assert pages(corpus, search(public_scope, embedder, how, "en", 10)) == pages(
        corpus,
        search(public_scope, embedder, how, "en", 10, dataclasses.replace(RankWeights(), reranker=without)),
    )


def test_a_follow_ups_borrowed_words_weigh_less_in_the_second_stage(example_corpus, public_scope):
    """The second stage's coverage signals: the words a follow-up borrowed from the previous
    question ("rotate the API token") would make the page that answered it cover the most;
    the reader's own words ("Business seat cost") say what is asked now."""
    from askdocs.edge_runtime import rerank
    from askdocs.edge_runtime.conversation import ChatRequest, Turn
    from askdocs.edge_runtime.query import make_query
    from askdocs.edge_runtime.search import fused_candidates, pool_candidates

    corpus, embedder = example_corpus
    history = (Turn("user", "How do I rotate the API token?"), Turn("assistant", "Run token rotate."))
    query = make_query(ChatRequest("and what does a Business seat cost?", "en", history, None), public_scope)
    fused = dataclasses.replace(DEFAULT_WEIGHTS, stage="fused")
    _, ranked, vector = fused_candidates(public_scope, embedder, query, fused)
    pool = pool_candidates(ranked[: fused.pool])
    cover: dict[str, float] = {}
    for candidate, row in zip(pool, rerank.features(public_scope, query, pool, vector), strict=True):
        url = corpus.chunk_page(candidate.ref).url
        cover[url] = max(cover.get(url, 0.0), row["text_cover"] + row["heading_cover"])
    assert max(cover, key=cover.get) == "/pricing/", cover
    assert cover["/pricing/"] > cover["/security/"] + 0.2  # the token page held the borrowed words


def test_a_release_note_holding_a_short_questions_one_word_still_weighs_as_a_release_note(
    example_corpus, public_scope
):
    """`changelog` weighs a release note by the share of the question it lacks: one that says all
    of it may be the newer truth. A question of one word ("What is shrinking?" on Hypothesis'
    docs, whose changelog names shrinking in a hundred lines) is held whole by any line that
    shares that word: it led the answer with "This release adds a heuristic to detect when
    shrinking has finished". A note holds all of a question only as far as the question says
    `CHANGELOG_TERMS` words."""
    from askdocs.edge_runtime import rerank
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query
    from askdocs.edge_runtime.search import fused_candidates, pool_candidates

    corpus, embedder = example_corpus
    fused = dataclasses.replace(DEFAULT_WEIGHTS, stage="fused")

    def release_notes(message: str) -> list[dict]:
        query = make_query(ChatRequest(message, "en", (), None), public_scope)
        _, ranked, vector = fused_candidates(public_scope, embedder, query, fused)
        pool = pool_candidates(ranked[: fused.pool])
        rows = rerank.features(public_scope, query, pool, vector)
        return [
            r for c, r in zip(pool, rows, strict=True) if corpus.chunk_page(c.ref).url == "/release-notes/"
        ]

    holding = [r for r in release_notes("What is the heartbeat?") if r["text_cover"] == 1.0]
    assert holding and all(r["changelog"] == pytest.approx(2 / 3) for r in holding), holding
    full = [
        r for r in release_notes("How often does the agent send its heartbeat?") if r["text_cover"] == 1.0
    ]
    assert full and all(r["changelog"] == 0.0 for r in full), full  # three words, all said: newer truth


def test_a_readers_british_spelling_is_searched_as_the_docs_spell_it(example_corpus, public_scope):
    """The docs write "license"; a reader who writes "licence" finds the same page, and the word
    is not one "the docs never use" for confidence. Words the docs do use are left alone."""
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query

    corpus, embedder = example_corpus
    query = make_query(
        ChatRequest("Where in the console do I change my licence?", "en", (), None), public_scope
    )
    assert "licens" in query.terms and "licenc" not in query.terms, query.terms
    assert query.message == "Where in the console do I change my license?"
    outcome = hybrid_search(public_scope, embedder, query, 10)
    assert pages(corpus, outcome)[0] == "/pricing/", pages(corpus, outcome)
    # "filter" has a British-looking variant ("filtre") the docs never use: unchanged; so is a
    # word the docs use in the reader's spelling.
    kept = make_query(ChatRequest("Can I filter the seat license list?", "en", (), None), public_scope)
    assert kept.message == "Can I filter the seat license list?"


def test_spelling_variants_need_the_docs_to_use_the_other_one():
    from askdocs.edge_runtime.query import docs_spelling, spelling_variants

    assert spelling_variants("colours") == ["colors"]
    assert spelling_variants("initialise") == ["initialize"]
    assert spelling_variants("cancelled") == ["canceled"]
    assert spelling_variants("filed") == []  # not "filled": the rules need letters before the change
    assert spelling_variants("your") == []

    class Docs:
        def __init__(self, vocabulary):
            self.vocabulary = vocabulary

        def document_frequencies(self, locale, terms):
            return {t: (3 if t in self.vocabulary else 0) for t in terms}, 100

    american = Docs({"color", "initi", "behavior"})
    assert docs_spelling(american, "en", "Colours and behaviour?") == "Colors and behavior?"
    both = Docs({"color", "colour"})
    assert docs_spelling(both, "en", "the colour of a tag") == "the colour of a tag"
    assert docs_spelling(american, "es", "colour") == "colour"  # English words only


def test_a_mistyped_word_is_searched_as_the_docs_word_one_edit_away(example_corpus, public_scope):
    """ "webhoks" is a word neither English nor the docs use: searched as written it finds
    nothing, and being rare in the language it reads as the name of something the docs do not
    cover. It is searched as "webhooks", and the answer says so in its trace."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query

    corpus, embedder = example_corpus
    query = make_query(ChatRequest("How many times are webhoks retried?", "en", (), None), public_scope)
    assert query.message == "How many times are webhooks retried?"
    assert query.respelled == (("webhoks", "webhooks"),)
    assert pages(corpus, hybrid_search(public_scope, embedder, query, 10))[0] == "/guides/webhooks/"
    reply = answer(
        Docs(public_scope, embedder),
        ChatRequest("Webhoks: how many retries?", "en", (), None),
        AnswerSettings(),
    )
    assert reply.answered, reply.text
    assert reply.citations[0]["url"] == "/guides/webhooks/#retries", reply.citations
    assert reply.extra["respelled"] == {"Webhoks": "Webhooks"}
    assert "6 times" in reply.text
    # Spelled right, nothing is respelled and the trace says nothing.
    right = answer(
        Docs(public_scope, embedder),
        ChatRequest("How many times are webhooks retried?", "en", (), None),
        AnswerSettings(),
    )
    assert "respelled" not in right.extra


def test_a_word_the_reader_joins_is_searched_as_the_docs_write_it_apart(example_corpus, public_scope):
    """GNU diff's manual writes "white space" and "file name", readers "whitespace" and "filename":
    searched as one word the docs never use, it found nothing and "How do I ignore whitespace
    changes?" was refused. The joined word is searched as the docs' two words where a page writes
    them side by side; never where the docs use the joined word or only ever say the two apart."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import docs_compounds, make_query, respell

    corpus, embedder = example_corpus
    query = make_query(ChatRequest("Can I make an API token readonly?", "en", (), None), public_scope)
    assert query.respelled == (("readonly", "read only"),), query.respelled
    asked = ChatRequest("Can I make an API token readonly?", "en", (), None)
    reply = answer(Docs(public_scope, embedder), asked, AnswerSettings())
    assert reply.answered, reply.text
    assert reply.citations[0]["url"] == "/security/#api-tokens", reply.citations
    assert reply.extra["respelled"] == {"readonly": "read only"}

    class Pages:
        def __init__(self, *texts):
            self.texts = texts

        def document_frequencies(self, locale, terms):
            held = [lexical.stem_terms(locale, x) for x in self.texts]
            return {t: sum(t in h for h in held) for t in terms}, len(self.texts)

        def texts_holding(self, locale, terms, limit=3):
            return [x for x in self.texts if set(terms) <= lexical.stem_terms(locale, x)][:limit]

    manual = Pages("Ignore white space when comparing lines.", "Set the file name strip count.")
    assert docs_compounds(manual, "en", "Ignore whitespace in a filename?") == {
        "whitespace": "white space",
        "filename": "file name",
    }
    assert docs_compounds(manual, "en", "Whitespace?") == {"Whitespace": "White space"}
    assert docs_compounds(Pages("A white paper.", "Free disk space."), "en", "whitespace") == {}
    assert docs_compounds(Pages("Ignore whitespace.", "white space"), "en", "whitespace") == {}
    # Two words the docs join ("back up" where LMDB's manual says "make a backup"), where the docs
    # never write them apart; not a pair that merely joins into a name ("my model": `MyModel`),
    # nor the end of a contraction ("we're moving" is not "removing").
    lmdb = Pages("This function may be used to make a backup of an existing environment.", "Copy a backup.")
    assert docs_compounds(lmdb, "en", "How do I back up an environment?") == {"back up": "backup"}
    assert respell("How do I back up a file?", {"back up": "backup"}) == "How do I backup a file?"
    both = Pages("Make a backup.", "Copy the backup.", "To back up only the settings, add a flag.")
    assert docs_compounds(both, "en", "How do I back up an environment?") == {}
    named = Pages("class MyModel(BaseModel) holds mymodel data", "mymodel.json", "Removing a field.")
    assert docs_compounds(named, "en", "We're moving my model to a new field") == {}
    spanish = Pages("Puedes devolverla directamente.", "Para devolverla, usa Response.")
    assert docs_compounds(spanish, "es", "¿Cómo puedo devolver la respuesta?") == {}


def test_a_word_the_docs_never_use_is_searched_as_its_synonym_they_do(example_corpus, public_scope):
    """Python-Markdown's docs say "headers", never "headings": "How do I add permalinks to headings?"
    read "headings" as a thing the docs do not cover and was refused. A reader's word the docs never
    use is searched as its synonym when the docs use that (listed in `respelled`); a word the docs
    use stays, and so does one whose synonym they do not use either."""
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import docs_synonyms, make_query

    class Pages:
        def __init__(self, *texts):
            self.held = [lexical.stem_terms("en", x) for x in texts]

        def document_frequencies(self, locale, terms):
            return {t: sum(t in h for h in self.held) for t in terms}, len(self.held)

    markdown = Pages(
        "The toc extension adds ids to headers.", "Set `permalink` to add a link to each header."
    )
    assert docs_synonyms(markdown, "en", "How do I add permalinks to headings?") == {"headings": "headers"}
    assert docs_synonyms(markdown, "en", "Headings?") == {"Headings": "Headers"}
    both = Pages("Headers and headings alike.", "A heading.")
    assert docs_synonyms(both, "en", "How do I add permalinks to headings?") == {}
    assert docs_synonyms(Pages("Nothing here."), "en", "headings") == {}
    # cachelib's reference says "Sets multiple keys and values", never "several": "How do I store
    # several values at once?" was refused.
    cachelib = Pages("Sets multiple keys and values from a mapping.", "Deletes multiple keys at once.")
    assert docs_synonyms(cachelib, "en", "How do I store several values at once?") == {"several": "multiple"}
    # The forms of an irregular verb stem apart: pytest-mock's docs say "undoing the mocking
    # automatically after the end of the test", never "undone"; a stop word ("do") is left alone.
    mock = Pages("Besides undoing the mocking automatically after the end of the test.", "It is done.")
    asked = "Are patches undone automatically after each test? What do I do?"
    assert docs_synonyms(mock, "en", asked) == {"undone": "undo"}
    assert docs_synonyms(Pages("The file is written.", "Write it."), "en", "written or wrote?") == {
        "wrote": "write"
    }
    # The demo site says "directory", never "folder".
    query = make_query(ChatRequest("Where is the data folder?", "en", (), None), public_scope)
    assert query.respelled == (("folder", "directory"),), query.respelled
    assert "directori" in query.key_terms, query.key_terms


def test_a_name_written_without_its_separators_is_searched_as_the_docs_write_it(
    example_corpus, public_scope, staff_scope
):
    """ "TFX1042" and "TALLYFOXDATADIR": names the docs write `TFX-1042` and `TALLYFOX_DATA_DIR`
    were words nothing in the docs holds, and the question was refused. Each is searched as the
    docs write it (the trace says so); a name only a restricted page uses is not, for a reader
    who may not read it."""
    from askdocs.edge_runtime.answer import Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import docs_joined_names

    corpus, embedder = example_corpus
    assert docs_joined_names(public_scope, "en", "What does TFX1042 mean?") == {"TFX1042": "TFX-1042"}
    assert docs_joined_names(public_scope, "en", "set TALLYFOXDATADIR") == {
        "TALLYFOXDATADIR": "TALLYFOX_DATA_DIR"
    }
    assert docs_joined_names(public_scope, "en", "where is datadir set") == {"datadir": "data_dir"}
    assert docs_joined_names(public_scope, "en", "What does TFX-1042 mean? And 2024?") == {}
    # Not a part of a longer name, nor a name in another convention (the reader's own camelCase).
    for other in ("datadirectory_tfx1042", "see app/_tfx1042.py", "tallyfoxDataDir"):
        assert docs_joined_names(public_scope, "en", other) == {}, other
    reply = answer(Docs(public_scope, embedder), ChatRequest("What does TFX1042 mean?", "en", (), None))
    assert reply.answered and reply.citations[0]["url"] == "/errors/#tfx-1042", reply.text
    assert reply.extra["respelled"] == {"TFX1042": "TFX-1042"}
    # `marigold-anvil-42` is on the restricted runbook only.
    assert docs_joined_names(staff_scope, "en", "what is anvil42") == {"anvil42": "anvil-42"}
    assert docs_joined_names(public_scope, "en", "what is anvil42") == {}


def test_typos_are_read_only_where_a_word_is_no_word_at_all(public_scope, staff_scope):
    """What is taken for a typo: a plain word of five letters or more that neither the language
    nor the reader's visible docs use. Words of the language ("backend", "systemd", "Redis"),
    names inside a sentence ("my Procfile"), parts of code names, a changed first letter
    ("gevent" is not "event") and words only restricted pages use are left alone."""
    from askdocs.edge_runtime.query import docs_typos, one_edit, respell

    assert docs_typos(public_scope, "en", "how do I instlal the agent") == {"instlal": "install"}
    assert docs_typos(public_scope, "en", "Windwos installer flags") == {"Windwos": "Windows"}
    assert docs_typos(public_scope, "en", "my Procfile, backend and systemd with Redis") == {}
    # A capitalised word inside a sentence is a name: read as a name the docs use, never as a
    # word of the language ("Windows", "Profile").
    assert docs_typos(public_scope, "en", "install it on Windwos") == {}
    assert docs_typos(public_scope, "en", "Does Tallyfx run on ARM?") == {"Tallyfx": "Tallyfox"}
    assert docs_typos(public_scope, "en", "set max_retires, httpx.Clinet and --webhok-url") == {}
    assert docs_typos(public_scope, "en", "does it support gevent") == {}
    assert docs_typos(public_scope, "en", "how many times are webhooks retried") == {}
    # "marigold" is a word of the staff runbook only: a public reader's "marigld" stays as written.
    assert docs_typos(staff_scope, "en", "the marigld failover") == {"marigld": "marigold"}
    assert docs_typos(public_scope, "en", "the marigld failover") == {}
    assert docs_typos(None, "en", "webhoks") == {}
    assert docs_typos(public_scope, "fr", "webhoks") == {}  # no letters known for the language: no guess
    # Bounded: the first TYPO_MAX_WORDS such words of a message are read, whatever its length.
    many = "webhoks instlal memroy proxxy retreis tokenn " * 60
    assert list(docs_typos(public_scope, "en", many)) == ["webhoks", "instlal", "memroy", "proxxy"]
    edits = one_edit("webhok", "abcdefghijklmnopqrstuvwxyz")
    assert {"webhook", "webhk", "wehbok", "webhoks"} <= edits and "webhok" not in edits
    assert all(e[0] == "w" for e in edits)
    assert respell("Webhoks? webhoks_url webhoks", {"webhoks": "webhooks"}) == "Webhoks? webhoks_url webhooks"


def test_a_pasted_stack_trace_is_searched_by_its_error_not_its_frames(example_corpus, public_scope):
    """Readers paste the traceback. Its frames (paths, line numbers, function names, the code of
    each line) are words no page uses and drown the error. The error line is what is searched;
    the reader's own words around the paste stay."""
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query, without_stack_frames

    pasted = (
        "I keep getting this:\nTraceback (most recent call last):\n"
        '  File "/srv/hooks/app.py", line 12, in <module>\n    client.deliver(event)\n'
        '  File "/usr/lib/python3/site-packages/relay/api.py", line 88, in deliver\n'
        "    raise DeliveryFailed(code)\n"
        "relay.DeliveryFailed: TFX-3005\nwhat is wrong?"
    )
    cleaned = without_stack_frames(pasted)
    assert cleaned == "I keep getting this:\nrelay.DeliveryFailed: TFX-3005\nwhat is wrong?"
    query = make_query(ChatRequest(pasted, "en", (), None), public_scope)
    assert not {"srv", "usr", "lib", "python3", "site", "packag", "modul", "deliv", "line"} & query.key_terms
    corpus, embedder = example_corpus
    outcome = hybrid_search(public_scope, embedder, query, 10)
    assert corpus.chunk_page(outcome.hits[0].ref).url == "/errors/", pages(corpus, outcome)
    # On one line (the paste lost its line breaks), and JavaScript's frames.
    one_line = 'Traceback (most recent call last): File "a.py", line 3, in <module> f() ValueError: bad'
    assert without_stack_frames(one_line) == "f() ValueError: bad"
    js = (
        "TypeError: x is not a function\n    at Object.<anonymous> (/app/index.js:3:9)\n"
        "    at node:internal/main:12:3"
    )
    assert without_stack_frames(js) == "TypeError: x is not a function"
    for kept in ("Where do I look at the logs?", 'What does File "a" mean?', "at 10:30 the job failed"):
        assert without_stack_frames(kept) == kept


def test_pasted_code_around_a_question_is_not_searched(example_corpus, public_scope):
    """Readers paste their config or code before asking. Its keys, values and paths are words no
    page uses and drowned the question: it was refused (0.40; asked alone, 0.71)."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import without_pasted_code

    asked = "Why does the agent not use the proxy?"
    fenced = (
        "Here is my config:\n```yaml\nserver:\n  port: 8080\n  data_dir: /var/lib/tallyfox\n"
        f"proxy:\n  url: http://proxy:3128\n```\n{asked}"
    )
    assert without_pasted_code(fenced, "en") == asked  # and the line announcing the paste
    told = "I run it behind nginx. This is what I have:\n```\nlocation / {\n}\n```\nhow do I set the header?"
    assert without_pasted_code(told, "en") == "I run it behind nginx.\nhow do I set the header?"
    bare = "\n".join(
        ("my code:", "import httpx", "client = httpx.Client(timeout=5)", "r = client.get(url)", "r.close()")
    )
    assert without_pasted_code(f"{bare}\nhow do I retry?", "en") == "how do I retry?"
    corpus, embedder = example_corpus
    reply = answer(Docs(public_scope, embedder), ChatRequest(fenced, "en", (), None), AnswerSettings())
    assert reply.answered, reply.text
    assert reply.citations[0]["url"] == "/networking/#outbound-proxy", reply.citations
    for kept in (
        "```\nserver:\n  port: 8080\n```",  # code alone: it is what is asked about
        "Error:\nrelay.DeliveryFailed: TFX-3005\nwhat does it mean?",  # one line of output
        "I set these (see below)\nfoo (bar)\nnot sure (really)\nwhy?",  # nothing left to ask
        "How do I set the port?",
    ):
        assert without_pasted_code(kept, "en") == kept
    # Bounded: lines of brackets and colons take no longer than plain text.
    started = time.perf_counter()
    without_pasted_code("(" * 3999 + "\nwhy x", "en")
    without_pasted_code("a: b\n" * 790 + "how do I install it?", "en")
    assert time.perf_counter() - started < 1


def test_small_talk_around_a_question_is_not_searched(example_corpus, public_scope):
    """A new reader's greeting, thanks and "I'm new here" are words no page uses: the question
    inside them was refused. Sentences of nothing else, and a greeting or thanks at either end
    of one, are not searched; a message of small talk alone stays, and words that only look
    like it inside a question ("a thank you page", "a hello world example") stay too."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest, Turn
    from askdocs.edge_runtime.query import make_query, without_small_talk

    asked = "Hi! I'm new here and a bit lost. How do I install Tallyfox on Windows? Thanks a lot!"
    assert without_small_talk(asked, "en") == "How do I install Tallyfox on Windows?"
    assert (
        without_small_talk("hello, quick question: what port is used? cheers", "en") == "what port is used?"
    )
    assert without_small_talk("Sorry if this was asked before. How do I set the port?", "en") == (
        "How do I set the port?"
    )
    assert without_small_talk("Hola, ¿cómo instalo Tallyfox? ¡Gracias!", "es") == "¿cómo instalo Tallyfox?"
    assert (
        without_small_talk("Buenas tardes. Soy nuevo aquí. ¿Qué puerto usa? Un saludo", "es")
        == "¿Qué puerto usa?"
    )
    for kept in (
        "Thanks!",
        "hi",
        "How do I get a thank you page after signup?",
        "Is there a hello world example?",
    ):
        assert without_small_talk(kept, "en") == kept
    assert without_small_talk("I'm stuck at TFX-1042, what now?", "en") == "I'm stuck at TFX-1042, what now?"
    assert (
        without_small_talk("Hi! How do I install it?", "fr") == "Hi! How do I install it?"
    )  # no list: unchanged
    # A run of small talk that a single pattern would cut every way it can (exponential time)
    # is read one phrase after the other.
    started = time.perf_counter()
    without_small_talk("thanks for any help thanks " * 140 + "zz", "en")
    assert time.perf_counter() - started < 2

    corpus, embedder = example_corpus
    docs = Docs(public_scope, embedder)
    reply = answer(docs, ChatRequest(asked, "en", (), None), AnswerSettings())
    assert reply.answered, reply.text
    assert reply.citations[0]["url"] == "/install/#install-on-windows", reply.citations
    # A follow-up borrows the words of the question before it, not its small talk.
    history = (Turn("user", asked), Turn("assistant", reply.text))
    query = make_query(ChatRequest("And on macOS?", "en", history, None), public_scope)
    assert not {"new", "lost", "lot", "thank", "bit"} & query.key_terms, query.key_terms


def test_shorthand_is_searched_spelled_out_too():
    """Shorthand ("redirect stdout", "set the params", "which deps"): BM25 also matches the words a manual
    spells out; the reader's own word stays (docs use shorthand as well)."""
    from askdocs.edge_runtime.query import spelled_out, with_expansions

    assert with_expansions("en", "redirect stdout to a file") == "redirect stdout to a file standard output"
    assert with_expansions("en", "which deps and params?") == "which deps and params? dependencies parameters"
    assert with_expansions("en", "install the lib") == "install the lib library"
    assert with_expansions("en", "env vars or the file?") == "env vars or the file? environment variables"
    assert with_expansions("en", "install the library") == "install the library"
    # "the minimum Python version" is pytest's backwards-compatibility page; "a file-like obj" what
    # FastAPI's `UploadFile` attributes say it is.
    assert with_expansions("en", "min Python version?") == "min Python version? minimum"
    assert with_expansions("en", "a file-like obj") == "a file-like obj object"
    assert with_expansions("es", "el repo") == "el repo"  # English shorthand only
    table = spelled_out("en")
    assert table["param"] == frozenset(lexical.stem_terms("en", "parameter"))
    assert table["perm"] == frozenset(lexical.stem_terms("en", "permissions"))
    # One protocol, two names: a TLS question where the docs say SSL (httpx's "mutual TLS" question
    # is answered on its "SSL" page, which its contributing page's proxy setup no longer joins),
    # and back. "HTTPS" is not an abbreviation of either: it stems as "HTTP" does.
    assert with_expansions("en", "mutual TLS?") == "mutual TLS? SSL"
    assert with_expansions("en", "SSL support") == "SSL support TLS"
    assert with_expansions("en", "enable HTTPS") == "enable HTTPS"
    assert table["ssl"] == lexical.stem_terms("en", "TLS") and table["tl"] == frozenset({"ssl"})


def test_a_pasted_link_to_the_docs_is_searched_as_its_page(public_scope, staff_scope):
    """A link to a page of these docs, wherever they are served (a prefix like /en/latest/ is
    read past), is searched as the page's title and its anchor's words; other links, the site's
    root and pages the reader may not see stay as written."""
    from askdocs.edge_runtime.query import docs_links_named

    asked = "I followed https://docs.tallyfox.example/en/latest/install/#install-on-windows, it fails"
    assert docs_links_named(public_scope, asked) == "I followed Install install on windows, it fails"
    assert docs_links_named(public_scope, "see https://x.example/guides/webhooks/.") == "see Webhooks."
    for kept in ("proxy at http://proxy.corp:3128 now", "https://x.example/ and https://x.example/docs/"):
        assert docs_links_named(public_scope, kept) == kept
    runbook = "what does https://docs.tallyfox.example/internal/runbook/ say"
    assert docs_links_named(public_scope, runbook) == runbook
    assert docs_links_named(staff_scope, runbook) != runbook


def test_links_elsewhere_are_not_searched(example_corpus, public_scope):
    """A link to an issue tracker or a forum beside a question: its host, path and numbers are
    words no page uses. Not searched when the rest still asks something; a message that is
    mostly its link keeps it."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest, Turn
    from askdocs.edge_runtime.query import make_query, without_other_links

    asked = "How many times are webhooks retried?"
    linked = f"I found https://github.com/acme/tallyfox/issues/1234 but it did not help. {asked}"
    assert without_other_links(linked, "en") == asked  # and the sentence about the link
    assert without_other_links(f"{asked} (see https://stackoverflow.com/questions/123).", "en") == asked
    told = f"I read https://discuss.example.org/t/1234 - {asked.lower()}"
    assert without_other_links(told, "en") == asked.lower()
    told = "I read https://discuss.example.org/t/1234 - the agent exits with code 7. Why?"
    assert without_other_links(told, "en") == "the agent exits with code 7. Why?"
    for kept in (
        "what is https://x.example/t/1234?",  # nothing else is asked
        "My frontend at http://localhost:3000 cannot call the API. Why?",  # values the question is about
        "The site will live at https://example.com/docs/ rather than at the root: how do I tell it?",
        asked,
    ):
        assert without_other_links(kept, "en") == kept
    corpus, embedder = example_corpus
    docs = Docs(public_scope, embedder)
    alone = answer(docs, ChatRequest(asked, "en", (), None), AnswerSettings())
    reply = answer(docs, ChatRequest(linked, "en", (), None), AnswerSettings())
    assert reply.answered and reply.citations == alone.citations, (reply.citations, alone.citations)
    # A follow-up borrows the earlier question without its link, as that question was searched.
    follow_up = "and how long is the event kept after that?"
    clean = make_query(ChatRequest(follow_up, "en", (Turn("user", asked),), None), public_scope)
    after_link = make_query(ChatRequest(follow_up, "en", (Turn("user", linked),), None), public_scope)
    assert clean.text != follow_up and after_link.text == clean.text, after_link.text


def test_the_shipped_word_lists_match_wordfreq():
    """askdocs/data/words-*.u32 are what scripts/gen_known_words.py writes from the installed
    wordfreq: a word of the language is known, a typo is not."""
    import numpy as np
    from askdocs.edge_runtime.rarity import KNOWN_WORDS, frequent_words, known_words, word_hashes

    for locale in KNOWN_WORDS:
        for name, words in (("words", known_words(locale)), ("frequent", frequent_words(locale))):
            assert np.array_equal(words.hashes, word_hashes(name, locale)), (
                f"regenerate: scripts/gen_known_words.py ({name}-{locale})"
            )
    # The everyday words are the ones wordfreq puts at Zipf 4 or more, as `zipf_frequency` reads them.
    from wordfreq import zipf_frequency

    for word in ("install", "server", "approximately", "approx", "auth", "param", "kubernetes", "the"):
        assert (word in frequent_words("en")) == (zipf_frequency(word, "en") >= 4.0), word
    assert "backend" in known_words("en") and "webhoks" not in known_words("en")
    assert "contraseña" in known_words("es") and "contrasena" not in known_words("es")
    assert known_words("fr") is None


def test_support_says_whether_the_docs_say_a_questions_words_together(public_scope, staff_scope):
    """`Scope.support`, a confidence signal: words one section says together score 1; words
    the docs use only apart ("winget" on the install page, "SAML" on the SSO page) score 0;
    restricted pages never count for a public reader."""
    (winget,), (saml,), (msi,) = (lexical.stem_terms("en", w) for w in ("winget", "SAML", "MSI"))
    assert public_scope.support("en", {winget: 1.0, msi: 1.0}) == 1.0
    assert public_scope.support("en", {winget: 1.0, saml: 1.0}) == 0.0
    assert public_scope.support("en", {winget: 2.0}) == 1.0  # one known word: nothing to say apart
    (marigold,), (failover,) = lexical.stem_terms("en", "marigold"), lexical.stem_terms("en", "failover")
    assert staff_scope.support("en", {marigold: 1.0, failover: 1.0}) == 1.0  # the runbook's own line
    weights = {t: 1.0 for t in (marigold, failover) if public_scope.document_frequencies("en", {t})[0][t]}
    assert public_scope.support("en", weights) == 1.0  # at most one of them is visible publicly


def test_support_reads_only_the_rarer_terms_chunks_and_stays_exact(public_scope, monkeypatch):
    """A term held by more than `SUPPORT_COMMON` chunks is looked up in the chunks of the rarer
    ones instead of read whole (bounded cost on a large site); with one such term the value is
    the same as reading everything."""
    from askdocs.edge_runtime import scope as scope_module

    words = ("tallyfox", "winget", "MSI", "SAML", "webhook")
    weights = {next(iter(lexical.stem_terms("en", w))): 1.0 + i / 10 for i, w in enumerate(words)}
    exact = public_scope.support("en", weights)
    counts, _ = public_scope.document_frequencies("en", set(weights))
    most, second = sorted(counts.values(), reverse=True)[:2]
    assert most > second  # "tallyfox" is on every page
    monkeypatch.setattr(scope_module, "SUPPORT_COMMON", second)
    assert public_scope.support("en", weights) == exact
    assert 0.0 < exact < 1.0


def test_the_page_that_explains_a_name_comes_before_the_release_note_that_names_it(
    example_corpus, public_scope
):
    """`changelog_named`: a question about a flag, not about history, is answered where the flag
    is explained; the release note that added it holds the name too and weighs less for it. A
    question that asks which release did it is still pointed at the release notes."""
    from askdocs.edge_runtime import rerank
    from askdocs.edge_runtime.conversation import ChatRequest
    from askdocs.edge_runtime.query import make_query
    from askdocs.edge_runtime.search import fused_candidates, pool_candidates

    corpus, embedder = example_corpus
    what = "What does server.tls.min_version do?"
    named: dict[str, float] = {}
    query = make_query(ChatRequest(what, "en", (), None), public_scope)
    fused = dataclasses.replace(DEFAULT_WEIGHTS, stage="fused")
    _, ranked, vector = fused_candidates(public_scope, embedder, query, fused)
    pool = pool_candidates(ranked[: fused.pool])
    for candidate, row in zip(pool, rerank.features(public_scope, query, pool, vector), strict=True):
        url = corpus.chunk_page(candidate.ref).url
        named[url] = max(named.get(url, 0.0), row["changelog_named"])
    assert named["/release-notes/"] == 1.0 and named["/networking/"] == 0.0, named
    assert pages(corpus, search(public_scope, embedder, what, "en", 10))[0] == "/networking/"
    without = Reranker("without", {**RankWeights().reranker.weights, "changelog_named": 0.0})
    plain = search(
        public_scope, embedder, what, "en", 10, dataclasses.replace(RankWeights(), reranker=without)
    )
    assert pages(corpus, plain)[0] == "/release-notes/"  # where 3.1.0 added it
    asked = "Which release added the --verify-only flag to backup restore?"
    query = make_query(ChatRequest(asked, "en", (), None), public_scope)
    _, ranked, vector = fused_candidates(public_scope, embedder, query, fused)
    pool = pool_candidates(ranked[: fused.pool])
    assert all(row["changelog_named"] == 0.0 for row in rerank.features(public_scope, query, pool, vector))
    assert pages(corpus, search(public_scope, embedder, asked, "en", 10))[0] == "/release-notes/"


def test_a_text_documented_again_under_every_class_takes_one_rank(tmp_path, multilingual_info):
    """Sphinx documents an inherited method again under every class that inherits it: lxml's
    `findtext` under each of objectify's element classes (a fifth of its chunks repeat one
    another). The copies took every rank of both retrievers for "How do I get all the text inside
    an element?", above the tutorial that answers it. Each retriever ranks one copy of a text."""
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.plugin.builder import BuildOptions
    from askdocs.plugin.sitedir import build_site

    # Each entry long enough to be a chunk of its own, as each of lxml's is.
    more = " ".join(f"Keyword {n} is passed on to the parser of the subtree unchanged." for n in range(30))
    entry = (
        '<dl class="py method"><dt class="sig sig-object py" id="lxml.objectify.{cls}.findtext">'
        "findtext(self, path, default=None, namespaces=None)</dt><dd><p>Finds text for the first "
        "matching subelement, by tag name or path. {more}</p></dd></dl>"
        '<dl class="py method"><dt class="sig sig-object py" id="lxml.objectify.{cls}.getchildren">'
        "getchildren(self)</dt><dd><p>Returns all direct children of the element. The text inside "
        "them is not included. {more}</p></dd></dl>"
    )
    classes = [f"{kind}Element" for kind in ("Float", "String", "Bool", "None", "Number", "Int", "Tree")]
    reference = "<h1>lxml.objectify</h1>" + "".join(
        f'<h2 id="lxml.objectify.{cls}">lxml.objectify.{cls}</h2><p>The {cls} class. {more}</p>'
        + entry.format(cls=cls, more=more)
        for cls in classes
    )
    tutorial = (
        "<h1>The lxml.etree Tutorial</h1><h2 id='elements-contain-text'>Elements contain text</h2>"
        "<p>Elements can contain text. To read every piece of text of a subtree, in document "
        "order, call <code>itertext()</code>; <code>tostring(root, method='text')</code> joins it "
        "into one string.</p><h2 id='parsing'>Parsing</h2><p>The parse() function reads a file.</p>"
    )
    site = tmp_path / "site"
    for rel, title, body in (
        ("objectify.html", "lxml.objectify", reference),
        ("tutorial.html", "Tutorial", tutorial),
    ):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(
            f'<!doctype html><html lang="en"><head><title>{title}</title></head>'
            f"<body><main>{body}</main></body></html>"
        )
    build_site(BuildOptions(site_dir=site, default_locale="en", progress=False, llms_txt=False))
    corpus, embedder = load_corpus(str(site / "_askdocs"), None)
    scope = make_scope(corpus, Reader.public())
    query = search_query_for("How do I get all the text inside an element?", "en", scope)
    outcome, ranked, _ = fused_candidates(scope, embedder, query, ANSWER_WEIGHTS)
    texts = [corpus.text(hit.ref) for hit in ranked]
    assert len(texts) == len(set(texts)), "a repeated text took two ranks"
    for rank in ("lexical_rank", "dense_rank"):
        ranks = sorted(getattr(h, rank) for h in ranked if getattr(h, rank) is not None)
        assert ranks == list(range(len(ranks))), (rank, ranks)  # no rank left to a dropped copy
    top = [
        corpus.chunk_page(h.ref).url for h in hybrid_search(scope, embedder, query, 3, ANSWER_WEIGHTS).hits
    ]
    assert "/tutorial.html" in top, top
