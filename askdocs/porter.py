"""lunr.js 2.3.9's English Porter stemmer, ported rule for rule.

lunr.py's own stemmer follows the original Porter step 1c (`days` → `dai`)
while lunr.js only turns y into i after a consonant (`days` → `day`), so an
index stemmed by lunr.py misses in lunr.js. askdocs registers this port as
the `stemmer` pipeline function so both sides agree.
"""

from __future__ import annotations

import re
from functools import lru_cache

STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "bli": "ble",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
    "logi": "log",
}
STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}

_c = "[^aeiou]"
_v = "[aeiouy]"
_C = _c + "[^aeiouy]*"
_V = _v + "[aeiou]*"
MGR0 = re.compile("^(" + _C + ")?" + _V + _C)
MEQ1 = re.compile("^(" + _C + ")?" + _V + _C + "(" + _V + ")?$")
MGR1 = re.compile("^(" + _C + ")?" + _V + _C + _V + _C)
S_V = re.compile("^(" + _C + ")?" + _v)

RE_1A = re.compile(r"^(.+?)(ss|i)es$")
RE2_1A = re.compile(r"^(.+?)([^s])s$")
RE_1B = re.compile(r"^(.+?)eed$")
RE2_1B = re.compile(r"^(.+?)(ed|ing)$")
RE_1B_2 = re.compile(r".$")
RE2_1B_2 = re.compile(r"(at|bl|iz)$")
RE3_1B_2 = re.compile(r"([^aeiouylsz])\1$")
RE4_1B_2 = re.compile("^" + _C + _v + "[^aeiouwxy]$")
RE_1C = re.compile(r"^(.+?[^aeiou])y$")
RE_2 = re.compile("^(.+?)(" + "|".join(STEP2) + ")$")
RE_3 = re.compile("^(.+?)(" + "|".join(STEP3) + ")$")
RE_4 = re.compile(r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$")
RE2_4 = re.compile(r"^(.+?)(s|t)(ion)$")
RE_5 = re.compile(r"^(.+?)e$")
RE_5_1 = re.compile(r"ll$")
RE3_5 = re.compile("^" + _C + _v + "[^aeiouwxy]$")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    if len(word) < 3:
        return word
    first = word[0]
    w = word
    if first == "y":
        w = "Y" + w[1:]
    # Step 1a
    if RE_1A.search(w):
        w = RE_1A.sub(r"\1\2", w, count=1)
    elif RE2_1A.search(w):
        w = RE2_1A.sub(r"\1\2", w, count=1)
    # Step 1b
    if match := RE_1B.search(w):
        if MGR0.search(match.group(1)):
            w = RE_1B_2.sub("", w, count=1)
    elif match := RE2_1B.search(w):
        stem_ = match.group(1)
        if S_V.search(stem_):
            w = stem_
            if RE2_1B_2.search(w):
                w += "e"
            elif RE3_1B_2.search(w):
                w = RE_1B_2.sub("", w, count=1)
            elif RE4_1B_2.search(w):
                w += "e"
    # Step 1c
    if match := RE_1C.search(w):
        w = match.group(1) + "i"
    # Step 2
    if (match := RE_2.search(w)) and MGR0.search(match.group(1)):
        w = match.group(1) + STEP2[match.group(2)]
    # Step 3
    if (match := RE_3.search(w)) and MGR0.search(match.group(1)):
        w = match.group(1) + STEP3[match.group(2)]
    # Step 4
    if match := RE_4.search(w):
        if MGR1.search(match.group(1)):
            w = match.group(1)
    elif match := RE2_4.search(w):
        stem_ = match.group(1) + match.group(2)
        if MGR1.search(stem_):
            w = stem_
    # Step 5
    if match := RE_5.search(w):
        stem_ = match.group(1)
        if MGR1.search(stem_) or (MEQ1.search(stem_) and not RE3_5.search(stem_)):
            w = stem_
    if RE_5_1.search(w) and MGR1.search(w):
        w = RE_1B_2.sub("", w, count=1)
    if first == "y":
        w = "y" + w[1:]
    return w


def stemmer(token, i=None, tokens=None):
    return token.update(lambda s, metadata=None: stem(s))
