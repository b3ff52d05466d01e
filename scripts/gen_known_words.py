"""Regenerate askdocs/data/words-LOCALE.u32: the words of each language askdocs reads typos in.

From wordfreq's "large" lists (the installed wordfreq; askdocs pins it in pyproject.toml): every
word used at least `rarity.WORD_ZIPF` with `rarity.WORD_MIN_LETTERS` letters or more, as sorted
little-endian 32-bit hashes (`rarity.word_hash`). The runtime reads these instead of the lists
themselves (tens of MB once read). tests/test_search.py checks the files still match.

    .venv/bin/python scripts/gen_known_words.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from askdocs.edge_runtime.rarity import KNOWN_WORDS, language_words, word_hash

DATA = Path(__file__).resolve().parents[1] / "askdocs" / "data"


def hashes(locale: str) -> bytes:
    return np.unique(np.array([word_hash(w) for w in language_words(locale)], dtype="<u4")).tobytes()


def main() -> None:
    for locale in KNOWN_WORDS:
        out = DATA / f"words-{locale}.u32"
        out.write_bytes(hashes(locale))
        print(f"{out.name}: {out.stat().st_size // 4:,} words")


if __name__ == "__main__":
    main()
