"""`askdocs eval`: retrieval and answer quality on a question set (the format in docs/pages/evaluation.md).

Retrieval: recall@1/5/10 and MRR of the gold pages, per slice (kind, locale),
optionally beside plain lunr.py search over MkDocs' own `search_index.json`.
`--chat`: every question goes through a real server's `/api/chat`;
answered-rate on answerable questions, refusal-rate on unanswerable ones,
citation precision, answer-fact recall, time to first status and token.
"""

from __future__ import annotations

import json
import re
import statistics
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from askdocs.errors import AskdocsError


@dataclass
class Question:
    id: str
    question: str
    locale: str
    gold: list[str]
    needs_all: bool = False
    facts: list[str] = field(default_factory=list)
    kind: str = ""
    history: list[dict] = field(default_factory=list)

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


def load_questions(path: Path) -> list[Question]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            out.append(
                Question(
                    id=str(data["id"]),
                    question=data["question"],
                    locale=data.get("locale") or "en",
                    gold=[_page(u) for u in data.get("gold_urls", [])],
                    needs_all=bool(data.get("needs_all")),
                    facts=list(data.get("answer_facts") or []),
                    kind=data.get("kind") or "",
                    history=list(data.get("history") or []),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise AskdocsError(f"{path}:{number}: not a question record ({exc})") from exc
    return out


def _page(url: str) -> str:
    return url.split("#")[0].split("?")[0] or "/"


def retrieval_scores(ranked: list[str], question: Question) -> dict[str, float]:
    gold = set(question.gold)
    ranks = [i for i, url in enumerate(ranked) if url in gold]
    out = {"mrr": 1.0 / (ranks[0] + 1) if ranks else 0.0}
    for k in (1, 5, 10):
        found = {url for url in ranked[:k] if url in gold}
        if question.needs_all:
            out[f"r@{k}"] = len(found) / len(gold)
        else:
            out[f"r@{k}"] = 1.0 if found else 0.0
    return out


def _slices(question: Question) -> list[str]:
    return ["all", f"kind:{question.kind or '-'}", f"locale:{question.locale}"]


def summarize(rows: list[dict], metrics: list[str]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        for name in row["slices"]:
            groups[name].append(row)
    return {
        name: {"n": len(items), **{m: statistics.fmean(r[m] for r in items) for m in metrics}}
        for name, items in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0]))
    }


def print_table(title: str, table: dict[str, dict[str, float]], metrics: list[str]) -> None:
    print(f"\n{title}")
    print(f"{'slice':28} {'n':>4} " + " ".join(f"{m:>8}" for m in metrics))
    for name, values in table.items():
        print(f"{name:28} {values['n']:>4} " + " ".join(f"{values[m]:>8.3f}" for m in metrics))


class _Searcher:
    def __init__(self, site: Path, private: str | None) -> None:
        from askdocs.edge_runtime.corpus import load_corpus
        from askdocs.edge_runtime.scope import Reader, make_scope

        corpus, self.embedder = load_corpus(str(site / "_askdocs"), private)
        self.scope = make_scope(corpus, Reader.public())
        self.corpus = corpus

    def query(self, question: Question):
        from askdocs.edge_runtime.conversation import ChatRequest, Turn
        from askdocs.edge_runtime.query import make_query

        history = tuple(Turn(t["role"], t["content"]) for t in question.history)
        return make_query(ChatRequest(question.question, question.locale, history, None), self.scope)

    def pages(self, question: Question, depth: int = 30, weights=None) -> list[str]:
        """The distinct pages of the hybrid search's hits, best first (`weights`: the ranking
        settings, e.g. one stage alone; default: what the runtime serves)."""
        from askdocs.edge_runtime.search import DEFAULT_WEIGHTS, hybrid_search

        query = self.query(question)
        outcome = hybrid_search(self.scope, self.embedder, query, depth, weights or DEFAULT_WEIGHTS)
        ranked: list[str] = []
        for hit in outcome.hits:
            url = self.corpus.chunk_page(hit.ref).url
            if url not in ranked:
                ranked.append(url)
        return ranked


class SectionsBaseline:
    """Plain BM25 over heading sections: one document per section of every page the reader may
    see ("Page › Section", then its text), built from the index's own page records, searched
    with the question alone. The baseline an outside evaluation holds askdocs to; it needs no
    generator's search index, so it serves Sphinx sites as well as MkDocs ones."""

    def __init__(self, searcher: _Searcher) -> None:
        from askdocs.lexical import PostingsScorer, bm25_postings
        from askdocs.plugin.extract import strip_links

        documents: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for set_index, loaded in enumerate(searcher.corpus.sets):
            for page_index, page in enumerate(loaded.pages):
                if not searcher.scope.visible(set_index, page_index):
                    continue
                headed = [(at, heading) for at, _, heading in loaded.sections(page_index)]
                sections = [(0, page.title), *headed]
                ends = [at for at, _ in sections[1:]] + [len(page.content)]
                for (start, heading), end in zip(sections, ends, strict=True):
                    text = strip_links(page.content[start:end]).strip()
                    if text:
                        documents[page.locale].append((page.url, f"{page.title} › {heading}\n\n{text}"))
        self.indexes = {
            locale: (
                PostingsScorer(bm25_postings(locale, [(str(i), t) for i, (_, t) in enumerate(docs)])),
                [url for url, _ in docs],
            )
            for locale, docs in documents.items()
        }

    def pages(self, question: Question) -> list[str]:
        from askdocs.lexical import query_tokens

        found = self.indexes.get(question.locale) or next(iter(self.indexes.values()))
        index, urls = found
        ranked: list[str] = []
        for ref, _score, _ in index.search_terms(query_tokens(question.question), limit=200):
            url = urls[int(ref)]
            if url not in ranked:
                ranked.append(url)
        return ranked


class _Baseline:
    """Plain lunr.py over MkDocs' own search_index.json files (what the search box does)."""

    def __init__(self, site: Path) -> None:
        from lunr import lunr

        self.indexes = []
        for path in sorted(site.rglob("search_index.json")):
            if "_askdocs" in path.parts:
                continue
            prefix = "/" + path.parent.parent.relative_to(site).as_posix().strip(".").strip("/")
            prefix = prefix.rstrip("/") + "/"
            docs = json.loads(path.read_text(encoding="utf-8"))["docs"]
            documents = [
                {"id": str(i), "title": d.get("title", ""), "text": d.get("text", "")}
                for i, d in enumerate(docs)
            ]
            index = lunr(ref="id", fields=[{"field_name": "title", "boost": 10}, "text"], documents=documents)
            urls = [_page(prefix + d.get("location", "")) for d in docs]
            self.indexes.append((prefix, index, urls))

    def pages(self, question: Question) -> list[str]:
        from askdocs.lexical import search

        prefix_wanted = f"/{question.locale}/"
        candidates = [x for x in self.indexes if x[0] == prefix_wanted] or [
            x for x in self.indexes if x[0] == "/"
        ]
        ranked: list[str] = []
        for _, index, urls in candidates:
            for ref, _score, _ in search(index, question.question, limit=60):
                url = urls[int(ref)]
                if url not in ranked:
                    ranked.append(url)
        return ranked


def evaluate_retrieval(questions: list[Question], site: Path, private: str | None, baseline: bool) -> dict:
    searcher = _Searcher(site, private)
    base = _Baseline(site) if baseline else None
    if base is not None and not base.indexes:
        print(f"no baseline: {site} has no MkDocs search_index.json (built by another generator)")
        base = None
    metrics = ["r@1", "r@5", "r@10", "mrr"]
    rows, base_rows, details = [], [], []
    for question in questions:
        if not question.answerable:
            continue
        ranked = searcher.pages(question)
        scores = retrieval_scores(ranked, question)
        rows.append({"slices": _slices(question), **scores})
        detail = {"id": question.id, "kind": question.kind, "ranked": ranked[:5], **scores}
        if base is not None:
            base_ranked = base.pages(question)
            base_scores = retrieval_scores(base_ranked, question)
            base_rows.append({"slices": _slices(question), **base_scores})
            detail["baseline"] = base_scores
        details.append(detail)
    result = {"askdocs": summarize(rows, metrics), "details": details}
    print_table("askdocs hybrid search (page-level)", result["askdocs"], metrics)
    if base is not None:
        result["baseline"] = summarize(base_rows, metrics)
        print_table("baseline: lunr.py over MkDocs search_index.json", result["baseline"], metrics)
    return result


def _serve_in_thread(site: Path, private: str | None):
    import uvicorn

    from askdocs.edge_runtime.app import create_app
    from askdocs.edge_runtime.settings import Settings

    settings = Settings.from_env(
        index=str(site / "_askdocs"), private=private, rate_limit=None, reload_interval=0.0, answer_cache=0
    )
    app = create_app(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


def ask(base_url: str, question: Question, client) -> dict:
    """Stream one question through /api/chat; timings from the client side."""
    from askdocs.edge_runtime.sse import parse

    started = time.perf_counter()
    first_status = first_token = None
    body = {"message": question.question, "locale": question.locale, "history": question.history}
    raw = []
    with client.stream("POST", base_url + "/api/chat", json=body) as response:
        for chunk in response.iter_text():
            now = time.perf_counter()
            if first_status is None and "event: status" in chunk:
                first_status = now - started
            if first_token is None and "event: token" in chunk:
                first_token = now - started
            raw.append(chunk)
    done_at = time.perf_counter() - started
    events = parse("".join(raw))
    text = "".join(d["text"] for e, d in events if e == "token")
    final = [d for e, d in events if e in ("done", "error")]
    return {
        "text": text,
        "final": final[-1] if final else {},
        "events": events,
        "first_status": first_status,
        "first_token": first_token,
        "done": done_at,
    }


_MD_LINK = re.compile(r"\[([^\[\]]*)\]\([^()\s]*\)")
_MD_MARKS = re.compile(r"`|\*\*|^> ?", re.M)


def fact_found(fact: str, text: str) -> bool:
    """A fact (alternatives split on "|") is in the answer as written or as the reader sees it
    rendered: facts are taken from rendered pages ("Default: 4"), answers are Markdown
    ("Default: `4`")."""
    lowered = text.lower()
    rendered = _MD_MARKS.sub("", _MD_LINK.sub(r"\1", text)).lower()
    return any(alt.strip().lower() in lowered or alt.strip().lower() in rendered for alt in fact.split("|"))


def answer_row(question: Question, answered: bool, citations: list[str], text: str, escalation) -> dict:
    """How one answer scores against its question (the same for /api/chat and in-process)."""
    row: dict = {"slices": _slices(question)}
    if question.answerable:
        row["answered"] = 1.0 if answered else 0.0
        if citations:
            row["cite_precision"] = sum(c in question.gold for c in citations) / len(citations)
        if question.facts and answered:
            row["fact_recall"] = sum(fact_found(f, text) for f in question.facts) / len(question.facts)
    else:
        row["refused"] = 0.0 if answered else 1.0
        row["escalated"] = 1.0 if escalation else 0.0
    return row


def answer_in_process(questions: list[Question], site: Path, private: str | None, settings=None):
    """Each question through the answer pipeline itself (`answer.answer`, what /api/chat streams),
    without a server: (rows, details) for `answer_table`."""
    from askdocs.edge_runtime.answer import AnswerSettings, Docs, answer
    from askdocs.edge_runtime.conversation import ChatRequest, Turn

    searcher = _Searcher(site, private)
    docs = Docs(searcher.scope, searcher.embedder)
    settings = settings or AnswerSettings()
    rows, details = [], []
    for question in questions:
        history = tuple(Turn(t["role"], t["content"]) for t in question.history)
        result = answer(docs, ChatRequest(question.question, question.locale, history, None), settings)
        citations = [_page(c["url"]) for c in result.citations]
        rows.append(answer_row(question, result.answered, citations, result.text, result.escalation))
        details.append(
            {
                "id": question.id,
                "kind": question.kind,
                "answered": result.answered,
                "confidence": result.confidence,
                "citations": citations,
                "gold": question.gold,
                "fact_recall": rows[-1].get("fact_recall"),  # on the whole answer, not the excerpt
                "text": result.text[:600],
            }
        )
    return rows, details


def evaluate_chat(questions: list[Question], site: Path, private: str | None) -> dict:
    import httpx

    server, thread, base_url = _serve_in_thread(site, private)
    rows, details = [], []
    timings = defaultdict(list)
    try:
        with httpx.Client(timeout=120) as client:
            for question in questions:
                result = ask(base_url, question, client)
                final = result["final"]
                answered = bool(final.get("answered"))
                citations = [_page(c["url"]) for c in final.get("citations", [])]
                rows.append(
                    answer_row(question, answered, citations, result["text"], final.get("escalation"))
                )
                for key in ("first_status", "first_token", "done"):
                    if result[key] is not None:
                        timings[key].append(result[key])
                details.append(
                    {
                        "id": question.id,
                        "kind": question.kind,
                        "answered": answered,
                        "mode": final.get("mode"),
                        "confidence": final.get("confidence"),
                        "citations": citations,
                        "gold": question.gold,
                        "fact_recall": rows[-1].get("fact_recall"),  # the whole answer's
                        "text": result["text"][:600],
                    }
                )
    finally:
        server.should_exit = True
        thread.join(10)
    table = answer_table(rows, "answers (/api/chat)")
    latency = {k: {"p50": _pct(v, 50), "p95": _pct(v, 95)} for k, v in timings.items()}
    print(
        "\nlatency (s): "
        + ", ".join(f"{k} p50 {v['p50']:.3f} p95 {v['p95']:.3f}" for k, v in latency.items())
    )
    return {"chat": table, "latency": latency, "details": details}


def answer_table(rows: list[dict], title: str) -> dict:
    table = _chat_table(rows)
    print(f"\n{title}")
    print(f"{'slice':28} {'answered':>9} {'refused':>8} {'escalated':>9} {'cite_prec':>9} {'facts':>7}")
    for name, values in table.items():
        print(
            f"{name:28} "
            + " ".join(
                f"{_fmt(values.get(m)):>{w}}"
                for m, w in (
                    ("answered", 9),
                    ("refused", 8),
                    ("escalated", 9),
                    ("cite_precision", 9),
                    ("fact_recall", 7),
                )
            )
        )
    return table


def _chat_table(rows: list[dict]) -> dict:
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        for name in row["slices"]:
            groups[name].append(row)
    out = {}
    for name, items in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        values: dict = {"n": len(items)}
        for metric in ("answered", "refused", "escalated", "cite_precision", "fact_recall"):
            present = [r[metric] for r in items if metric in r]
            values[metric] = statistics.fmean(present) if present else None
        out[name] = values
    return out


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _pct(values: list[float], pct: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def run_eval(args) -> int:
    site = Path(args.site)
    if not (site / "_askdocs" / "manifest.json").is_file():
        raise AskdocsError(f"{site} has no _askdocs/ shards; build it with askdocs first")
    questions = load_questions(Path(args.questions))
    print(f"{len(questions)} questions from {args.questions} against {site}")
    report = {"retrieval": evaluate_retrieval(questions, site, args.private, args.baseline)}
    if args.chat:
        report["chat"] = evaluate_chat(questions, site, args.private)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0
