"""Regenerate askdocs/data/{words,frequent}-LOCALE.u32: word lists of the languages askdocs ships.

From wordfreq's "large" lists (the installed wordfreq): `words` holds every word used at least
`rarity.WORD_ZIPF` with `rarity.WORD_MIN_LETTERS` letters or more (typos are read against it),
`frequent` every word used at least `rarity.FREQUENT_ZIPF` (abbreviations are read against it),
as sorted little-endian 32-bit hashes (`rarity.word_hash`). The runtime reads these instead of
the lists themselves (tens of MB once read). tests/test_search.py checks the files still match.

    .venv/bin/python scripts/gen_known_words.py
"""

from __future__ import annotations

from pathlib import Path

from askdocs.edge_runtime.rarity import KNOWN_WORDS, WORD_FILES, word_hashes

DATA = Path(__file__).resolve().parents[1] / "askdocs" / "data"


def main() -> None:
    for name in WORD_FILES:
        for locale in KNOWN_WORDS:
            out = DATA / f"{name}-{locale}.u32"
            out.write_bytes(word_hashes(name, locale).tobytes())
            print(f"{out.name}: {out.stat().st_size // 4:,} words")


if __name__ == "__main__":
    main()
