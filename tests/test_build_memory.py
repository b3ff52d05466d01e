"""What a build keeps in memory: the same decisions from leaner structures."""

from __future__ import annotations

import random

from askdocs.plugin.builder import _mark_listings, _norm
from askdocs.plugin.extract import Block, ExtractedPage

WORDS = str.split("queue worker retry timeout backoff schedule cron batch job token secret rotate deploy")


def _page(url: str, paras: list[str], kind: str = "page", links: list[str] | None = None) -> ExtractedPage:
    blocks = [Block("para", text) for text in paras]
    content = "\n\n".join(paras)
    return ExtractedPage(url, url, "en", [], False, None, kind, "", content, blocks, [], links or [], [])


def _reference(pages: list[ExtractedPage]) -> list[str]:
    """The listing rule as first written: a set of owning URLs per shingle."""
    shingles: dict[str, set[int]] = {}
    owners: dict[int, set[str]] = {}
    for page in pages:
        words = " ".join(b.text for b in page.blocks if b.kind in ("para", "list", "note"))
        tokens = _norm(words).split()
        grams = {hash(" ".join(tokens[i : i + 8])) for i in range(len(tokens) - 7)}
        shingles[page.url] = grams
        for gram in grams:
            owners.setdefault(gram, set()).add(page.url)
    kinds = []
    for page in pages:
        grams = shingles[page.url]
        kind = page.kind
        if kind == "page" and len(grams) >= 10:
            shared = [g for g in grams if len(owners[g]) > 1]
            sources = {o for g in shared for o in owners[g]} - {page.url}
            linked = sources & {link.split("#")[0] for link in page.links}
            per_source = [sum(1 for g in shared if o in owners[g]) for o in sources]
            spread = max(per_source, default=0) <= 0.6 * len(shared)
            if len(shared) / len(grams) >= 0.5 and len(sources) >= 2 and len(linked) >= 2 and spread:
                kind = "listing"
        kinds.append(kind)
    return kinds


def test_listings_are_marked_as_the_set_based_rule_marks_them():
    rng = random.Random(5)
    marked = 0
    for trial in range(30):
        sources = [" ".join(rng.choices(WORDS, k=rng.randint(5, 60))) for _ in range(rng.randint(2, 12))]
        pages = [_page(f"/s{trial}-{n}/", [text]) for n, text in enumerate(sources)]
        for n in range(rng.randint(1, 8)):  # digests quoting one, two or more of the sources
            picked = rng.sample(range(len(sources)), rng.randint(1, min(3, len(sources))))
            own = [" ".join(rng.choices(WORDS, k=rng.randint(0, 40)))]
            kind = rng.choice(["page", "page", "page", "changelog"])
            # Digests link to some, all or none of what they quote (a listing links to its sources).
            links = [f"/s{trial}-{i}/#top" for i in picked if rng.random() < 0.7]
            pages.append(_page(f"/d{trial}-{n}/", [sources[i] for i in picked] + own, kind, links))
        rng.shuffle(pages)
        expected = _reference(pages)
        _mark_listings(pages)
        assert [p.kind for p in pages] == expected
        marked += expected.count("listing")
    assert marked >= 5  # the rule was exercised both ways
    shared = " ".join(WORDS * 3)
    twins = [_page(f"/{name}/", [shared, name]) for name in ("nginx", "apache", "caddy")]
    _mark_listings(twins)  # text shared, no links to its sources: pages, not listings
    assert [p.kind for p in twins] == ["page", "page", "page"]
    reference = " ".join(WORDS * 4)
    guide = [_page("/api/", [reference]), _page("/fields/", [" ".join(WORDS[::-1] * 2)])]
    # Mostly one other page, a line of a second, linking to both: a copy, not a listing.
    copy = _page("/schema/", [reference, " ".join(WORDS[::-1])], links=["/api/#x", "/fields/#y"])
    _mark_listings([*guide, copy])
    assert copy.kind == "page"
    assert _mark_listings([]) is None and _mark_listings([_page("/a/", ["too short"])]) is None


def test_a_page_of_links_is_a_listing():
    entries = " ".join(f"[{w}() ({w} method)](/api/#{w})" for w in WORDS * 3)
    index = _page("/genindex/", [entries])
    index.content = entries
    prose = _page("/guide/", [f"{entries} " + " ".join(WORDS * 12)])
    prose.content = prose.blocks[0].text
    _mark_listings([index, prose])
    assert (index.kind, prose.kind) == ("listing", "page")
