"""A reader's slips: search and answers with and without the runtime's handling of each.

Every answerable question of the chosen groups is asked three ways through the pipeline
itself (in-process, like `tune_answers.py`): as written; with the slip; and with the same slip
while the runtime's handling of it is switched off. Nothing is fitted here: the rules have no
weights, and every column is a check.

`--slip typo` (default): one typo, made the same way every run (seeded by the question's id),
in the question's longest word (six letters or more) that the language and the docs both
use: one letter dropped, doubled, swapped with the next or changed, never the first one, and
the result is not a word of the language. Follow-ups get it in their own words. Handled by
`query.docs_typos`.

`--slip small-talk`: the question wrapped in a greeting, a word about the reader and thanks,
one of a few wrappers chosen by the question's id ("Hi! I'm new here. … Thanks a lot!").
Handled by `query.without_small_talk`.

`--slip code-other` / `--slip code-own`: the question after a pasted code block ("Here is my
code:" and a fenced block of 3-15 lines), taken from another page of the site, or from a page
that answers the question (what a reader who adapted the docs' example pastes). Handled by
`query.without_pasted_code`.

`--slip link`: the question beside a link to an issue tracker or a forum ("I found
https://github.com/acme/…/issues/1234 but it did not help. …", "… (see
https://stackoverflow.com/questions/…)"). Handled by `query.without_other_links`.

`--slip new-topic`: the question asked later in a chat, after another question of the same
set about other pages (chosen by the question's id; follow-ups are left out, they have their
own history). Handled by `conversation.leans_on_previous`, which borrows the previous
question's words only for a message that needs them; not handled, every message with history
borrows them (what a chat that always condenses the history into the query does).

Printed per group: page-level R@1 / R@5 / MRR of search, and answered / citation precision /
fact recall of the answers, for each of the three.

    .venv/bin/python scripts/slips_eval.py [GROUP ...] [--slip SLIP] [--json FILE]
    (SLIP: typo, small-talk, new-topic, code-other, code-own, link)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import statistics
from pathlib import Path
from unittest import mock

from askdocs.edge_runtime import conversation
from askdocs.edge_runtime import query as query_module
from askdocs.edge_runtime.rarity import known_words

from askdocs import devsets, lexical
from askdocs.evaluation import Question, _Searcher, answer_in_process, retrieval_scores

_WORD = re.compile(r"(?<![\w.:/-])[a-záéíóúüñ]{6,}(?![\w/-]|[.:]\w)")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def misspelt(question: Question, scope, questions) -> Question | None:
    """The question with one typo in its longest word the docs use (None: no such word)."""
    words = known_words(question.locale) or frozenset()
    candidates = [w for w in _WORD.findall(question.question) if w in words]
    if not candidates:
        return None
    stems = {w: lexical.stem_terms(question.locale, w) for w in candidates}
    counts, _ = scope.document_frequencies(question.locale, set().union(*stems.values()))
    used = [w for w in candidates if stems[w] and all(counts.get(t, 0) for t in stems[w])]
    if not used:
        return None
    word = max(used, key=lambda w: (len(w), -candidates.index(w)))
    rng = random.Random(question.id)
    for _ in range(50):
        i = rng.randrange(1, len(word) - 1)
        op = rng.choice(("drop", "double", "swap", "change"))
        if op == "drop":
            typo = word[:i] + word[i + 1 :]
        elif op == "double":
            typo = word[:i] + word[i] + word[i:]
        elif op == "swap":
            typo = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        else:
            typo = word[:i] + rng.choice(_LETTERS) + word[i + 1 :]
        if typo != word and typo not in words:
            text = re.sub(
                rf"(?<![\w.:/-]){re.escape(word)}(?![\w/-]|[.:]\w)", typo, question.question, count=1
            )
            return dataclasses.replace(question, question=text)
    return None


WRAPPERS = {
    "en": (
        "Hi! I'm new here. {q} Thanks a lot!",
        "Hello, quick question: {q} Cheers",
        "Hey team, {q} Thanks in advance for any help.",
        "Sorry if this was asked before. {q} Thanks!",
    ),
    "es": ("Hola, {q} ¡Gracias!", "Buenas tardes. Soy nuevo aquí. {q} Un saludo"),
}


def wrapped(question: Question, scope, questions) -> Question | None:
    """The question inside a greeting and thanks (None: no wrappers for its language)."""
    options = WRAPPERS.get(question.locale)
    if not options:
        return None
    wrapper = random.Random(question.id).choice(options)
    return dataclasses.replace(question, question=wrapper.format(q=question.question))


def after_another(question: Question, scope, questions) -> Question | None:
    """The question after an exchange about other pages (None: a follow-up, or no such question)."""
    if question.history:
        return None
    gold = set(question.gold)
    others = [q for q in questions if q.answerable and not q.history and not gold & set(q.gold)]
    if not others:
        return None
    previous = random.Random(question.id).choice(others)
    # The assistant's turn is not searched (only the reader's turns are): any text will do.
    history = [
        {"role": "user", "content": previous.question},
        {"role": "assistant", "content": "(its answer)"},
    ]
    return dataclasses.replace(question, history=history)


_FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)


def _code_blocks(scope, locale: str) -> dict[str, list[str]]:
    """The site's code blocks of 3-15 lines, by page URL (cached on the scope's corpus)."""
    cache = scope.corpus.__dict__.setdefault("_slips_code", {})
    if locale not in cache:
        found: dict[str, list[str]] = {}
        for loaded in scope.corpus.sets:
            for page in loaded.pages:
                if page.locale != locale:
                    continue
                blocks = [b.strip("\n") for b in _FENCED.findall(page.content)]
                blocks = [b for b in blocks if 3 <= len(b.splitlines()) <= 15]
                if blocks:
                    found[page.url.split("#")[0]] = blocks
        cache[locale] = found
    return cache[locale]


def _pasted(question: Question, scope, own: bool) -> Question | None:
    blocks = _code_blocks(scope, question.locale)
    gold = set(question.gold)
    pages = sorted(url for url in blocks if (url in gold) == own)
    if not pages:
        return None
    rng = random.Random(question.id)
    block = rng.choice(blocks[rng.choice(pages)])
    opener = rng.choice(("Here is my code:", "This is what I have:", "My config:"))
    return dataclasses.replace(question, question=f"{opener}\n```\n{block}\n```\n{question.question}")


def pasted_other(question: Question, scope, questions) -> Question | None:
    """The question after a code block from another page of the site (chosen by its id)."""
    return _pasted(question, scope, own=False)


def pasted_own(question: Question, scope, questions) -> Question | None:
    """The question after a code block of the page that answers it (None: it has none)."""
    return _pasted(question, scope, own=True)


LINKS = (
    "I found https://github.com/acme/{site}/issues/{n} but it did not help. {q}",
    "{q} (see https://stackoverflow.com/questions/{n})",
    "I read https://discuss.example.org/t/{n} - {q}",
)


def linked(question: Question, scope, questions) -> Question | None:
    """The question beside a link to an issue tracker or a forum (chosen by its id)."""
    rng = random.Random(question.id)
    text = rng.choice(LINKS).format(
        site=question.id.split("-")[0], n=rng.randrange(100, 99999), q=question.question
    )
    return dataclasses.replace(question, question=text)


SLIPS = {  # the slip, and the runtime's handling of it: module, name, what replaces it
    "typo": (misspelt, query_module, "docs_typos", lambda *a, **k: {}),
    "small-talk": (wrapped, query_module, "without_small_talk", lambda text, locale: text),
    "new-topic": (after_another, conversation, "leans_on_previous", lambda message: True),
    "code-other": (pasted_other, query_module, "without_pasted_code", lambda text, locale: text),
    "code-own": (pasted_own, query_module, "without_pasted_code", lambda text, locale: text),
    "link": (linked, query_module, "without_other_links", lambda text, locale: text),
}


def measure(questions: list[Question], dev) -> dict[str, list[float]]:
    """Each question's scores, by metric (a metric only where it applies: citation precision
    for answers with citations, fact recall for answers to questions with facts)."""
    searcher = _Searcher(dev.site, dev.private)
    search = [retrieval_scores(searcher.pages(q), q) for q in questions]
    rows, _ = answer_in_process(questions, dev.site, dev.private)
    out = {name: [s[key] for s in search] for name, key in (("R@1", "r@1"), ("R@5", "r@5"), ("MRR", "mrr"))}
    for metric in ("answered", "cite_precision", "fact_recall"):
        out[metric] = [r[metric] for r in rows if metric in r]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("groups", nargs="*", default=list(devsets.GROUPS))
    parser.add_argument("--slip", choices=sorted(SLIPS), default="typo")
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    slip, module, handler, off = SLIPS[args.slip]
    report: dict = {}
    columns = ("R@1", "R@5", "MRR", "answered", "cite_precision", "fact_recall")
    print(f"{'group / arm':42} {'n':>4} " + " ".join(f"{c:>14}" for c in columns))
    for group in args.groups:
        arms: dict[str, list] = {
            "as written": [],
            f"{args.slip}, handled": [],
            f"{args.slip}, not handled": [],
        }
        for dev in devsets.built(devsets.GROUPS[group]):
            scope = _Searcher(dev.site, dev.private).scope
            questions = dev.load()
            slipped = [(q, slip(q, scope, questions)) for q in questions if q.answerable]
            pairs = [(q, t) for q, t in slipped if t is not None]
            if not pairs:
                continue
            clean, typed = [q for q, _ in pairs], [t for _, t in pairs]
            arms["as written"].append((len(pairs), measure(clean, dev)))
            arms[f"{args.slip}, handled"].append((len(pairs), measure(typed, dev)))
            with mock.patch.object(module, handler, off):
                arms[f"{args.slip}, not handled"].append((len(pairs), measure(typed, dev)))
        report[group] = {}
        for arm, parts in arms.items():  # pooled over the questions of every corpus
            n = sum(k for k, _ in parts)
            values = {c: [v for _, m in parts for v in m[c]] for c in columns}
            pooled = {c: statistics.fmean(v) for c, v in values.items() if v}
            report[group][arm] = {"n": n, **pooled}
            print(
                f"{group + ' / ' + arm:42} {n:>4} "
                + " ".join(f"{pooled.get(c, float('nan')):>14.3f}" for c in columns)
            )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
