#!/usr/bin/env python3
"""Validate an askdocs evaluation question file against a built MkDocs site.

Usage: python evals/check_questions.py QUESTIONS.jsonl SITE_DIR

Checks (stdlib only):
  * every line parses as a JSON object, ids are unique;
  * required fields are present and well typed (id, question, locale,
    gold_urls, kind; optional needs_all, answer_facts, history);
  * every gold url exists as a page: <SITE_DIR>/<url>/index.html, or the file
    itself for a url naming one (/usage/prune.html);
  * every answer fact (alternatives split on "|", one must match) appears,
    case-insensitively, in the rendered text (HTML tags stripped) of at least
    one gold page;
  * unanswerable questions (gold_urls == []) carry no answer_facts;
  * needs_all is only used with two or more gold urls;
  * history is a list of {"role": "user"|"assistant", "content": str}.
Prints the kind (and locale) distribution; exits 1 if any problem was found.
"""
import collections
import html
import json
import os
import re
import sys

KINDS = {"paraphrase", "exact-token", "keyword", "two-page", "follow-up",
         "unanswerable", "dated", "spanish"}
REQUIRED = {"id": str, "question": str, "locale": str, "gold_urls": list,
            "kind": str}
OPTIONAL = {"needs_all": bool, "answer_facts": list, "history": list}

_SKIP_BLOCKS = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
_TAGS = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_page_cache = {}


def page_file(site, url):
    """The HTML file a site-root-relative url is served from."""
    if url.endswith(".html"):
        return os.path.join(site, url.strip("/"))
    return os.path.join(site, url.strip("/"), "index.html")


def page_text(site, url):
    """Rendered text of the page for `url`, or None if it does not exist."""
    if url in _page_cache:
        return _page_cache[url]
    path = page_file(site, url)
    text = None
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        # Keep only the main content when the theme marks it, so that facts
        # must come from the page itself and not from the site navigation.
        m = re.search(r'<div\b[^>]*\brole="main"[^>]*>(.*)', raw, re.S)
        if m is None:
            m = re.search(r"<body[^>]*>(.*)</body>", raw, re.S)
        body = m.group(1) if m else raw
        body = _SKIP_BLOCKS.sub(" ", body)
        body = _TAGS.sub(" ", body)
        text = _SPACE.sub(" ", html.unescape(body)).lower()
    _page_cache[url] = text
    return text


def norm(s):
    return _SPACE.sub(" ", s).strip().lower()


def check(questions_path, site):
    problems = []
    kinds = collections.Counter()
    kinds_by_locale = collections.Counter()
    seen = set()
    n = 0
    with open(questions_path, encoding="utf-8") as f:
        lines = f.readlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: invalid JSON ({e})")
            continue
        if not isinstance(q, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        n += 1
        qid = q.get("id")
        where = f"line {lineno} ({qid})"
        for key, typ in REQUIRED.items():
            if key not in q:
                problems.append(f"{where}: missing field {key!r}")
            elif not isinstance(q[key], typ):
                problems.append(f"{where}: {key!r} should be {typ.__name__}")
        for key, typ in OPTIONAL.items():
            if key in q and not isinstance(q[key], typ):
                problems.append(f"{where}: {key!r} should be {typ.__name__}")
        unknown = set(q) - set(REQUIRED) - set(OPTIONAL)
        if unknown:
            problems.append(f"{where}: unknown fields {sorted(unknown)}")
        if qid in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(qid)
        if not str(q.get("question", "")).strip():
            problems.append(f"{where}: empty question")
        kind = q.get("kind")
        if kind not in KINDS:
            problems.append(f"{where}: unknown kind {kind!r}")
        kinds[kind] += 1
        kinds_by_locale[(q.get("locale"), kind)] += 1

        gold = q.get("gold_urls") if isinstance(q.get("gold_urls"), list) else []
        locale = q.get("locale")
        texts = []
        for url in gold:
            if not isinstance(url, str) or not url.startswith("/") \
                    or not url.endswith(("/", ".html")) or "#" in url:
                problems.append(f"{where}: bad gold url {url!r}")
                continue
            if locale == "es" and not url.startswith("/es/"):
                problems.append(f"{where}: es question with non-/es/ url {url}")
            if locale == "en" and url.startswith("/es/"):
                problems.append(f"{where}: en question with /es/ url {url}")
            t = page_text(site, url)
            if t is None:
                problems.append(f"{where}: gold url {url} has no "
                                f"{page_file(site, url)}")
            else:
                texts.append(t)
        if len(set(gold)) != len(gold):
            problems.append(f"{where}: duplicate gold urls")

        facts = q.get("answer_facts")
        if not gold:
            if facts:
                problems.append(f"{where}: unanswerable question has answer_facts")
            if q.get("needs_all"):
                problems.append(f"{where}: unanswerable question has needs_all")
            if kind not in ("unanswerable",):
                problems.append(f"{where}: empty gold_urls but kind {kind!r}")
        else:
            if kind == "unanswerable":
                problems.append(f"{where}: kind unanswerable but has gold urls")
            if not facts:
                problems.append(f"{where}: answerable question without answer_facts")
        if q.get("needs_all") and len(gold) < 2:
            problems.append(f"{where}: needs_all with fewer than 2 gold urls")
        if kind == "two-page" and not (q.get("needs_all") and len(gold) == 2):
            problems.append(f"{where}: two-page needs needs_all and 2 gold urls")
        if facts:
            if not 1 <= len(facts) <= 3:
                problems.append(f"{where}: {len(facts)} answer_facts (want 1-3)")
            for fact in facts:
                if not isinstance(fact, str) or not fact.strip():
                    problems.append(f"{where}: bad answer fact {fact!r}")
                    continue
                alts = [norm(a) for a in fact.split("|") if a.strip()]
                if texts and not any(a in t for a in alts for t in texts):
                    problems.append(f"{where}: fact {fact!r} not found in "
                                    f"any gold page {gold}")
            if q.get("needs_all") and texts and len(texts) == len(gold):
                # Each page must contribute at least one fact the other lacks.
                for url, t in zip(gold, texts):
                    if not any(any(norm(a) in t for a in fa.split("|") if a.strip())
                               for fa in facts):
                        problems.append(f"{where}: needs_all but no fact found "
                                        f"on {url}")

        hist = q.get("history")
        if kind == "follow-up" and not hist:
            problems.append(f"{where}: follow-up without history")
        if hist is not None:
            for turn in hist if isinstance(hist, list) else []:
                if not (isinstance(turn, dict)
                        and turn.get("role") in ("user", "assistant")
                        and isinstance(turn.get("content"), str)
                        and turn["content"].strip()
                        and set(turn) == {"role", "content"}):
                    problems.append(f"{where}: bad history turn {turn!r}")

    print(f"{questions_path}: {n} questions checked against {site}")
    print("kinds:")
    for kind, c in sorted(kinds.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        print(f"  {str(kind):14s} {c:3d}  ({100.0 * c / max(n, 1):.1f}%)")
    locales = sorted({loc for loc, _ in kinds_by_locale}, key=str)
    if len(locales) > 1:
        for loc in locales:
            row = {k: c for (l, k), c in kinds_by_locale.items() if l == loc}
            total = sum(row.values())
            detail = ", ".join(f"{k}={c}" for k, c in sorted(row.items()))
            print(f"  locale {loc}: {total} ({detail})")
    if problems:
        print(f"{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        return 1
    print("OK: no problems")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1], sys.argv[2]))
