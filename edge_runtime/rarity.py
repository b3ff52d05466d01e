"""How common a word is in the reader's language, apart from the docs.

A question word the docs never use means little when it is an everyday word
("forever", "slow", "give up": the reader's own phrasing of something the docs
say otherwise) and much when it is rare in the language at large ("Kerberos",
"gevent", "Pyodide": the name of something the docs do not cover). The
word lists are wordfreq's "small" lists: the words used at least about once
per million words, for some 40 languages.
"""

from __future__ import annotations

import hashlib
import logging
import math
from functools import cache
from importlib import resources

import numpy as np

log = logging.getLogger("askdocs.rarity")


@cache
def _frequencies(locale: str) -> dict[str, float] | None:
    """wordfreq's "small" list: each everyday word's share of the language's words."""
    from wordfreq import get_frequency_dict

    try:
        return get_frequency_dict(locale, "small")
    except LookupError:
        log.warning("no word-frequency list for locale %r: no question word counts as rare", locale)
        return None


@cache
def common_words(locale: str) -> frozenset[str] | None:
    """The language's everyday words (None: no list for this language; nothing is called rare)."""
    frequencies = _frequencies(locale)
    return None if frequencies is None else frozenset(frequencies)


# The Zipf value (log10 of uses per billion words) given a word the "small" list does not hold:
# it holds every word used about once per million words or more (Zipf 3), so such a word is rarer
# than that: a name, a term of art, a typo.
UNLISTED_ZIPF = 1.0


def zipf(locale: str, word: str) -> float | None:
    """How common `word` is in the language on the Zipf scale (7: "the", 4: "threshold", 3 and
    below: rare); None when there is no list for the language."""
    frequencies = _frequencies(locale)
    if frequencies is None:
        return None
    share = frequencies.get(word.lower())
    return math.log10(share * 1e9) if share else UNLISTED_ZIPF


# A word used at least this often (Zipf scale: 1.5 is about three times per hundred million
# words) is a word of the language, however technical ("systemd", "uplink", "backend", "Redis"):
# never taken for a typo. Misspellings are rarer ("webhoks", "memroy"; a few common ones, like
# "recieve", are above it and stay as written). Only words of `WORD_MIN_LETTERS` or more are
# listed: shorter ones are never taken for typos.
WORD_ZIPF = 1.5
WORD_MIN_LETTERS = 5
# Languages whose word list askdocs ships (scripts/gen_known_words.py writes them from
# wordfreq's "large" lists): the list itself is 30-40 MB of Python strings once read, the
# shipped hashes 0.6 MB.
KNOWN_WORDS = ("en", "es")


class WordSet:
    """A language's words as sorted 32-bit hashes (`word_hash`): `word in words`. Of the few
    hundred million non-words, about one in thirty thousand reads as a word by chance."""

    def __init__(self, hashes: np.ndarray) -> None:
        self.hashes = hashes

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        h = word_hash(word)
        i = int(np.searchsorted(self.hashes, h))
        return i < len(self.hashes) and int(self.hashes[i]) == h

    def __len__(self) -> int:
        return len(self.hashes)


def word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=4).digest(), "little")


# Everyday words: used at least once per ten thousand words (Zipf 4). A question's word that
# starts an asked word and is not one of these is taken for its abbreviation ("approx").
FREQUENT_ZIPF = 4.0


def language_words(locale: str, zipf: float = WORD_ZIPF, min_letters: int = WORD_MIN_LETTERS) -> list[str]:
    """The words of wordfreq's "large" list for `locale` used at least `zipf`, of `min_letters`
    letters or more (what the shipped hashes hold)."""
    from wordfreq import available_languages, read_cBpack

    buckets = read_cBpack(available_languages("large")[locale])  # bucket i: -i centibels
    top = round(900 - 100 * zipf)  # Zipf = (900 - i) / 100
    return [w for bucket in buckets[: top + 1] for w in bucket if len(w) >= min_letters]


# What each shipped file holds: (file name, Zipf floor, fewest letters).
WORD_FILES = {"words": (WORD_ZIPF, WORD_MIN_LETTERS), "frequent": (FREQUENT_ZIPF, 1)}


def word_hashes(name: str, locale: str) -> np.ndarray:
    """What askdocs/data/NAME-LOCALE.u32 holds, from the installed wordfreq
    (scripts/gen_known_words.py writes it; tests/test_search.py compares)."""
    zipf, min_letters = WORD_FILES[name]
    words = language_words(locale, zipf, min_letters)
    return np.unique(np.array([word_hash(w) for w in words], dtype="<u4"))


@cache
def _word_file(name: str, locale: str) -> WordSet | None:
    if locale not in KNOWN_WORDS:
        return None
    raw = resources.files("askdocs").joinpath(f"data/{name}-{locale}.u32").read_bytes()
    return WordSet(np.frombuffer(raw, dtype="<u4"))


def known_words(locale: str) -> WordSet | None:
    """The words of the language at all (None: askdocs ships no list for it, and no word is
    taken for a typo)."""
    return _word_file("words", locale)


def frequent_words(locale: str) -> WordSet | None:
    """The language's everyday words, Zipf `FREQUENT_ZIPF` or more (None: no shipped list).
    wordfreq's own `zipf_frequency` would read its whole list first: some 27 MB held for good."""
    return _word_file("frequent", locale)
