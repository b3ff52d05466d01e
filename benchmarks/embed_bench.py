"""Embedding speed: the prepared int8 ONNX model against an fp32 export of the same model.

Measured side by side in one run, in interleaved rounds (so load drift hits
both alike), end to end through `askdocs.embedder.Embedder`:

* query latency p50/p95 (`embed_queries([q])`, one question at a time, after
  warm-up), with 1 and with 2 intra-op threads;
* passage throughput (passages/s) on passages of ~256 model tokens cut from
  the evaluation corpora (evals/corpora), with 1 and with 2 threads;
* int8/fp32 ratios, and the cosine between int8 and fp32 vectors (quality
  check of the quantisation);
* the multilingual model (int8 only) for reference.

    .venv/bin/python benchmarks/embed_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    CORPORA,
    Report,
    Ticker,
    progress,
    questions,
    ratio,
    summary,
    table,
)

from askdocs.embedder import Embedder  # noqa: E402
from askdocs.models import (  # noqa: E402
    DEFAULT_MODEL,
    MULTILINGUAL_MODEL,
    ModelInfo,
    export_fp32,
    locate,
    sha256_file,
)

PASSAGE_TOKENS = 256
_CODE = re.compile(r"```.*?```", re.S)
_MARKUP = re.compile(r"<!--.*?-->|[#>*_`|]+|\{[^}]*\}|\[([^\]]*)\]\([^)]*\)", re.S)


def corpus_text(locale: str) -> str:
    """Prose of the evaluation corpora (Markdown with code and markup stripped)."""
    if locale == "en":
        files = sorted((CORPORA / "fastapi" / "en").rglob("*.md"))
        files += sorted((CORPORA / "httpx" / "docs").rglob("*.md"))
    else:
        files = sorted((CORPORA / "fastapi" / locale).rglob("*.md"))
    parts = []
    for file in files:
        text = _CODE.sub(" ", file.read_text(encoding="utf-8"))
        text = _MARKUP.sub(lambda m: m.group(1) or " ", text)
        parts.append(re.sub(r"\s+", " ", text))
    return " ".join(parts)


def passages(embedder: Embedder, text: str, count: int, tokens: int) -> list[str]:
    """`count` consecutive passages of `tokens` model tokens (special tokens included)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(embedder.info.tokenizer_path))
    tok.no_padding()
    tok.no_truncation()
    body = tokens - 2  # [CLS] ... [SEP] / <s> ... </s>
    prefix = len(tok.encode(embedder.info.passage_prefix, add_special_tokens=False).ids)
    body -= prefix
    encoding = tok.encode(text[: count * tokens * 8], add_special_tokens=False)
    offsets = encoding.offsets
    out = []
    for start in range(0, len(offsets) - body, body):
        first, last = offsets[start][0], offsets[start + body - 1][1]
        out.append(text[first:last])
        if len(out) == count:
            break
    return out


def query_latencies(
    embedders: dict[str, Embedder], texts: list[str], rounds: int, warmup: int
) -> dict[str, list[float]]:
    """Per-query milliseconds; configs take turns in blocks of len(texts)/rounds queries."""
    for emb in embedders.values():
        for q in texts[:warmup]:
            emb.embed_queries([q])
    out: dict[str, list[float]] = {name: [] for name in embedders}
    block = max(1, len(texts) // rounds)
    tick = Ticker("query latency", len(texts) * len(embedders))
    for start in range(0, len(texts), block):
        for name, emb in embedders.items():
            for q in texts[start : start + block]:
                t0 = time.perf_counter()
                emb.embed_queries([q])
                out[name].append((time.perf_counter() - t0) * 1000)
                tick()
    return out


def passage_throughput(
    embedders: dict[str, Embedder], texts: list[str], rounds: int
) -> tuple[dict[str, dict], dict[str, np.ndarray]]:
    """Passages/s per config, in interleaved rounds; also the vectors (for the cosine check)."""
    per_round: dict[str, list[float]] = {name: [] for name in embedders}
    seconds: dict[str, float] = {name: 0.0 for name in embedders}
    vectors: dict[str, list[np.ndarray]] = {name: [] for name in embedders}
    size = max(1, len(texts) // rounds)
    tick = Ticker("passage throughput", len(texts) * len(embedders), every=10)
    for emb in embedders.values():
        emb.embed_passages(texts[:2])  # warm-up
    for start in range(0, len(texts), size):
        chunk = texts[start : start + size]
        for name, emb in embedders.items():
            t0 = time.perf_counter()
            vecs = emb.embed_passages(chunk, progress=tick)
            took = time.perf_counter() - t0
            per_round[name].append(len(chunk) / took)
            seconds[name] += took
            vectors[name].append(vecs)
    stats = {
        name: {
            "passages": len(texts),
            "seconds": seconds[name],
            "per_s": len(texts) / seconds[name],
            "per_round_per_s": per_round[name],
        }
        for name in embedders
    }
    return stats, {name: np.concatenate(v) for name, v in vectors.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    args = parser.parse_args()
    report = Report("embed_bench", args.quick)
    report.header("embed_bench: int8 vs fp32 query latency and passage throughput")

    n_queries = 40 if args.quick else 200
    n_passages = 16 if args.quick else 160
    rounds = 2 if args.quick else 4
    warmup = 10 if args.quick else 20

    english = [
        q["question"]
        for s in ("httpx", "fastapi", "site_example")
        for q in questions(s)
        if q["locale"] == "en"
    ]
    everything = [q["question"] for s in ("httpx", "fastapi", "site_example") for q in questions(s)]
    english_queries = (english * (n_queries // len(english) + 1))[:n_queries]
    multi_queries = (everything * (n_queries // len(everything) + 1))[:n_queries]

    int8_info = locate(DEFAULT_MODEL)
    with tempfile.TemporaryDirectory(prefix="askdocs-embed-bench-") as tmp:
        progress(f"exporting fp32 ONNX of {DEFAULT_MODEL} with optimum (temp dir) ...")
        t0 = time.perf_counter()
        fp32_onnx = export_fp32(DEFAULT_MODEL, Path(tmp) / "fp32")
        export_s = time.perf_counter() - t0
        fp32_info = dataclasses.replace(
            int8_info, path=fp32_onnx.parent, sha256=sha256_file(fp32_onnx), quantization="fp32"
        )
        sizes = {"int8": int8_info.onnx_path.stat().st_size, "fp32": fp32_onnx.stat().st_size}
        progress(f"fp32 export took {export_s:.1f}s")

        embedders = {
            "int8 1t": Embedder(int8_info, threads=1),
            "fp32 1t": Embedder(fp32_info, threads=1, check_sha=False),
            "int8 2t": Embedder(int8_info, threads=2),
            "fp32 2t": Embedder(fp32_info, threads=2, check_sha=False),
        }
        texts = passages(embedders["int8 1t"], corpus_text("en"), n_passages, PASSAGE_TOKENS)
        lengths = [len(embedders["int8 1t"].token_ids(t)) for t in texts]
        progress(
            f"{len(texts)} passages of {np.mean(lengths):.0f} tokens (min {min(lengths)}, "
            f"max {max(lengths)}); {len(english_queries)} queries per config"
        )

        progress("query latency (int8 vs fp32, 1 and 2 threads, interleaved blocks) ...")
        lat = query_latencies(embedders, english_queries, rounds, warmup)
        progress("passage throughput (interleaved rounds) ...")
        thr, vecs = passage_throughput(embedders, texts, rounds)
        cos = np.sum(vecs["int8 1t"] * vecs["fp32 1t"], axis=1)  # unit vectors
        del embedders

    # -- multilingual reference (int8 only) ---------------------------------
    progress(f"multilingual reference: {MULTILINGUAL_MODEL} int8 ...")
    m_info: ModelInfo = locate(MULTILINGUAL_MODEL)
    m_emb = {"e5 int8 1t": Embedder(m_info, threads=1), "e5 int8 2t": Embedder(m_info, threads=2)}
    half = max(1, n_passages // 2)
    m_en = passages(m_emb["e5 int8 1t"], corpus_text("en"), half, PASSAGE_TOKENS)
    m_es = passages(m_emb["e5 int8 1t"], corpus_text("es"), half, PASSAGE_TOKENS)
    m_texts = [t for pair in zip(m_en, m_es, strict=False) for t in pair]
    m_lat = query_latencies(m_emb, multi_queries, rounds, warmup)
    m_thr, _ = passage_throughput(m_emb, m_texts, rounds)
    m_lengths = [
        len(m_emb["e5 int8 1t"].token_ids(m_emb["e5 int8 1t"].info.passage_prefix + t)) for t in m_texts
    ]
    del m_emb

    # -- tables ---------------------------------------------------------------
    rows = []
    results: dict = {
        "model": DEFAULT_MODEL,
        "fp32_export_seconds": export_s,
        "onnx_bytes": sizes,
        "passage_tokens_mean": float(np.mean(lengths)),
        "queries": len(english_queries),
        "passages": len(texts),
    }
    for threads in (1, 2):
        q8, q32 = summary(lat[f"int8 {threads}t"]), summary(lat[f"fp32 {threads}t"])
        p8, p32 = thr[f"int8 {threads}t"]["per_s"], thr[f"fp32 {threads}t"]["per_s"]
        rows.append(
            [f"query p50 ms, {threads} thread(s)", q8["p50"], q32["p50"], ratio(q8["p50"], q32["p50"])]
        )
        rows.append(
            [f"query p95 ms, {threads} thread(s)", q8["p95"], q32["p95"], ratio(q8["p95"], q32["p95"])]
        )
        rows.append(
            [f"passages/s ({np.mean(lengths):.0f} tok), {threads} thread(s)", p8, p32, ratio(p8, p32)]
        )
        results[f"threads_{threads}"] = {
            "query_ms": {"int8": q8, "fp32": q32},
            "passages_per_s": {"int8": thr[f"int8 {threads}t"], "fp32": thr[f"fp32 {threads}t"]},
            "ratio_query_p50": ratio(q8["p50"], q32["p50"]),
            "ratio_query_p95": ratio(q8["p95"], q32["p95"]),
            "ratio_passages_per_s": ratio(p8, p32),
        }
    rows.append(
        ["model file MB", sizes["int8"] / 1e6, sizes["fp32"] / 1e6, ratio(sizes["int8"], sizes["fp32"])]
    )
    table(
        ["all-MiniLM-L6-v2 (English default)", "int8", "fp32", "int8/fp32"],
        rows,
        title=f"int8 vs fp32, end to end through Embedder ({len(english_queries)} queries, "
        f"{len(texts)} passages per config, {rounds} interleaved rounds)",
    )
    results["cosine_int8_vs_fp32"] = {"mean": float(cos.mean()), "min": float(cos.min())}
    print(f"cosine(int8, fp32) over the passages: mean {cos.mean():.4f}, min {cos.min():.4f}")

    m_rows = []
    for threads in (1, 2):
        s = summary(m_lat[f"e5 int8 {threads}t"])
        m_rows.append([f"{threads} thread(s)", s["p50"], s["p95"], m_thr[f"e5 int8 {threads}t"]["per_s"]])
        results.setdefault(
            "multilingual", {"model": MULTILINGUAL_MODEL, "passage_tokens_mean": float(np.mean(m_lengths))}
        )
        results["multilingual"][f"threads_{threads}"] = {
            "query_ms": s,
            "passages_per_s": m_thr[f"e5 int8 {threads}t"],
        }
    table(
        [
            "multilingual-e5-small int8",
            "query p50 ms",
            "query p95 ms",
            f"passages/s ({np.mean(m_lengths):.0f} tok)",
        ],
        m_rows,
        title="Multilingual model, int8 only (reference; en+es queries and passages)",
    )
    report.results = results

    # Goals: the brief sets none for this benchmark; these are the sanity bars
    # the quantised model exists for (faster than fp32 on every axis, close vectors).
    for threads in (1, 2):
        r = results[f"threads_{threads}"]
        report.goal(
            f"int8/fp32 query p50, {threads} thread(s)",
            r["ratio_query_p50"],
            "<",
            1.0,
            note="int8 must be faster",
        )
        report.goal(
            f"int8/fp32 passages/s, {threads} thread(s)",
            r["ratio_passages_per_s"],
            ">",
            1.0,
            note="int8 must be faster",
        )
    report.goal(
        "cosine(int8, fp32) mean",
        float(cos.mean()),
        ">=",
        0.98,
        note="NOTES.md measured ~0.993 for per-channel int8",
    )
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
