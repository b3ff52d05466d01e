"""Heading-aware chunking: limits, overlap, code blocks, small sections, dates."""

from __future__ import annotations

from askdocs.plugin.chunking import ChunkSettings, chunk_page
from askdocs.plugin.extract import Block, render_blocks


def count(texts):
    return [len(t.split()) for t in texts]


def page(*blocks: Block) -> tuple[list[Block], str]:
    blocks = list(blocks)
    return blocks, render_blocks(blocks)


def sentence(n: int, word: str = "alpha") -> str:
    return " ".join([word] * (n - 1)) + " end."


def test_long_section_splits_within_limit_with_overlap():
    paragraphs = [Block("para", " ".join(sentence(20, f"w{i}") for _ in range(3))) for i in range(10)]
    blocks, content = page(Block("heading", "Guide", 1), Block("heading", "Long", 2, "long"), *paragraphs)
    spans = chunk_page(blocks, content, count, ChunkSettings(target=100, overlap=25, minimum=10), 400)
    assert len(spans) >= 6
    for span in spans:
        assert span.tokens <= 100
        assert len(content[span.start : span.end].split()) <= 100
        assert span.anchor == "long" and span.headings == ["Long"]
    for first, second in zip(spans, spans[1:], strict=False):
        assert second.start < first.end  # overlap: the next window repeats the tail
        assert first.end - second.start < len(content[first.start : first.end])


def test_limit_caps_target_at_what_the_model_embeds():
    body = [Block("para", sentence(30)) for _ in range(40)]
    blocks, content = page(Block("heading", "T", 1), *body)
    spans = chunk_page(blocks, content, count, ChunkSettings(target=400), limit=120)
    assert all(s.tokens <= 120 for s in spans)


def test_code_block_is_not_split_when_it_fits():
    code = "```python\n" + "\n".join(f"line_{i} = {i}" for i in range(30)) + "\n```"
    blocks, content = page(
        Block("heading", "T", 1),
        Block("heading", "Code", 2, "code"),
        Block("para", sentence(50)),
        Block("code", code),
        Block("para", sentence(50)),
    )
    spans = chunk_page(blocks, content, count, ChunkSettings(target=120, overlap=10, minimum=10), 400)
    holders = [s for s in spans if "line_0 = 0" in content[s.start : s.end]]
    assert holders
    assert any("line_29 = 29" in content[s.start : s.end] for s in holders)


def test_giant_code_block_is_split_by_lines():
    code = "```\n" + "\n".join(f"x{i} y{i} z{i}" for i in range(400)) + "\n```"
    blocks, content = page(Block("heading", "T", 1), Block("code", code))
    spans = chunk_page(blocks, content, count, ChunkSettings(target=100, overlap=10), 400)
    assert len(spans) > 10
    assert all(s.tokens <= 100 for s in spans)
    joined = "".join(content[s.start : s.end] for s in spans)
    assert "x399 y399 z399" in joined


def test_small_sections_merge_but_dated_sections_stay_apart():
    blocks, content = page(
        Block("heading", "Notes", 1),
        Block("heading", "3.1.0", 2, "310", lastmod="2026-02-03"),
        Block("para", sentence(8)),
        Block("heading", "2.4.0", 2, "240", lastmod="2025-06-09"),
        Block("para", sentence(8)),
        Block("heading", "Misc", 2, "misc"),
        Block("para", sentence(8)),
        Block("heading", "More", 2, "more"),
        Block("para", sentence(8)),
    )
    spans = chunk_page(blocks, content, count, ChunkSettings(target=400, overlap=50, minimum=100), 400)
    dated = {s.anchor: s.lastmod for s in spans}
    assert dated["310"] == "2026-02-03"
    assert dated["240"] == "2025-06-09"
    assert "3.1.0" not in content[[s for s in spans if s.anchor == "240"][0].start :][:5]
    # The undated small sections were merged into fewer chunks.
    assert len(spans) < 5


def test_every_part_of_the_page_is_covered():
    body = [
        Block("heading", f"S{i}", 2, f"s{i}") if i % 4 == 0 else Block("para", sentence(40, f"t{i}"))
        for i in range(40)
    ]
    blocks, content = page(Block("heading", "T", 1), *body)
    spans = chunk_page(blocks, content, count, ChunkSettings(target=90, overlap=20, minimum=30), 400)
    covered = set()
    for span in spans:
        covered.update(range(span.start, span.end))
    for block in blocks:
        assert block.start in covered, block.text[:30]
