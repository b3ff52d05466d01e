"""Hybrid retrieval on the example site: dense, lexical, fusion and the sanity checks."""

from __future__ import annotations

import dataclasses

import pytest
from askdocs.edge_runtime.query import identifier_tokens, search_query_for
from askdocs.edge_runtime.results import result_json
from askdocs.edge_runtime.search import DEFAULT_WEIGHTS, RankWeights, hybrid_search

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
    assert outcome.retrievers == ["lexical", "dense"]
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


def test_recency_weight_is_what_orders_them(example_corpus, public_scope):
    corpus, embedder = example_corpus
    flat = dataclasses.replace(RankWeights(), recency=0.0, near_duplicate=2.0)
    outcome = search(public_scope, embedder, "default retention for raw samples", "en", 10, flat)
    scores = {
        corpus.chunk(h.ref).anchor: h.score
        for h in outcome.hits
        if corpus.chunk_page(h.ref).url == "/release-notes/"
    }
    tuned = search(public_scope, embedder, "default retention for raw samples", "en", 10)
    tuned_scores = {
        corpus.chunk(h.ref).anchor: h.score
        for h in tuned.hits
        if corpus.chunk_page(h.ref).url == "/release-notes/"
    }
    assert tuned_scores["310"] / tuned_scores["240"] > scores["310"] / scores["240"]


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


class BrokenEmbedder:
    model_id = "broken"

    def vector(self, text):
        raise RuntimeError("onnx session lost")


def test_a_failed_dense_retriever_is_reported_not_hidden(public_scope):
    outcome = search(public_scope, BrokenEmbedder(), "install windows", "en", 5)
    assert outcome.retrievers == ["lexical"]
    assert "onnx session lost" in outcome.errors["dense"]
    assert outcome.hits  # lexical still answers, and says it was alone


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
