"""How common a word is in the reader's language, apart from the docs.

A question word the docs never use means little when it is an everyday word
("forever", "slow", "give up": the reader's own phrasing of something the docs
say otherwise) and much when it is rare in the language at large ("Kerberos",
"gevent", "Pyodide": the name of something the docs do not cover). The
word lists are wordfreq's "small" lists: the words used at least about once
per million words, for some 40 languages.
"""

from __future__ import annotations

import logging
from functools import cache

log = logging.getLogger("askdocs.rarity")


@cache
def common_words(locale: str) -> frozenset[str] | None:
    """The language's everyday words (None: no list for this language; nothing is called rare)."""
    from wordfreq import get_frequency_dict

    try:
        return frozenset(get_frequency_dict(locale, "small"))
    except LookupError:
        log.warning("no word-frequency list for locale %r: no question word counts as rare", locale)
        return None


def is_rare(locale: str, word: str) -> bool:
    words = common_words(locale)
    return words is not None and word.lower() not in words
