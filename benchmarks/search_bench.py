"""Search speed and runtime memory: hybrid search vs bare Lunr, dense scaling, RSS at ~50k chunks.

All in one run:

1. In-process on the built FastAPI site (en + es) with the dev questions of
   `evals/fastapi.jsonl`: `hybrid_search` + the `/api/search` result
   rendering, with the query-embedding cache disabled ("cold": the query is
   embedded) and with the vector cached ("warm": search minus embedding),
   beside bare lunr.py on the same Lunr index and the query embedding alone,
   interleaved per question. Then the same questions through the real
   Starlette app (`TestClient`, first pass cold, later passes warm).
   Goals: search/(lunr + embedding) <= 1.0 and (search - embedding)/lunr <= 1.0.
2. Dense search time at 10k / 100k / 1M synthetic int8 vectors of dim 384
   with `DenseMatrix(...).top(q, 10)` on one core (a subprocess with
   OMP_NUM_THREADS=1 / OPENBLAS_NUM_THREADS=1); goal <= 100 ms at 1M. When it
   misses, usearch's exact int8 search (one thread) is measured beside it.
3. Lexical (bare Lunr) search time on the largest evaluation corpus, per locale.
4. Runtime RSS at ~50k chunks: a generated plain HTML site (2,000 pages x 25
   sections of corpus sentences) built once with `askdocs build` and cached
   in `.artifacts/bench/cache/`, served by `askdocs serve --index DIR` as a
   subprocess; RSS from /proc after a few searches. Goal <= 400 MB.

    .venv/bin/python benchmarks/search_bench.py [--quick] [--rebuild]

The first full run builds the FastAPI site (~2 min) and the 50k-chunk set
(embedding ~50k passages with the English model: 10-30 min on 2 cores,
depending on load); later runs reuse both from the cache.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import (  # noqa: E402
    BIN,
    CACHE,
    CORPORA,
    ROOT,
    Report,
    Server,
    Ticker,
    build_corpus_sites,
    free_port,
    progress,
    questions,
    ratio,
    run_with_progress,
    summary,
    table,
)

SYNTH_VERSION = 1
SYNTH_PAGES, SYNTH_SECTIONS = 2000, 25
QUICK_SYNTH_PAGES = 40
DENSE_SIZES = (10_000, 100_000, 1_000_000)
DENSE_GOAL_MS = 100.0
RSS_GOAL_MB = 400.0


# -- cached builds -------------------------------------------------------------
def _hash_files(paths: list[Path], digest) -> None:
    for path in sorted(paths):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())


def source_fingerprint() -> str:
    """Corpus + build-side code + model: a cached site is reused only when none changed."""
    from askdocs.models import MULTILINGUAL_MODEL, locate

    digest = hashlib.sha256()
    _hash_files([p for p in (CORPORA / "fastapi").rglob("*") if p.is_file()], digest)
    _hash_files([p for d in ("askdocs", "plugin") for p in (ROOT / d).rglob("*.py")], digest)
    digest.update(locate(MULTILINGUAL_MODEL).sha256.encode())
    return digest.hexdigest()[:20]


def _shards_ok(shard_dir: Path) -> bool:
    from askdocs.errors import AskdocsError
    from askdocs.shards import read_manifest

    try:
        read_manifest(shard_dir)
        return True
    except AskdocsError:
        return False


def ensure_site(name: str, rebuild: bool) -> Path:
    """The built corpus site (MkDocs + `askdocs build`), cached under .artifacts/bench/cache."""
    entry = CACHE / f"site-{name}"
    stamp_file = entry / "stamp.json"
    key = source_fingerprint() if name == "fastapi" else "httpx"
    site = entry / "site"
    if (
        not rebuild
        and stamp_file.is_file()
        and _shards_ok(site / "_askdocs")
        and json.loads(stamp_file.read_text()).get("key") == key
    ):
        progress(f"reusing cached {name} site ({entry})")
        return site
    progress(f"building the {name} site (MkDocs + askdocs build) into {entry} ...")
    if entry.exists():
        shutil.rmtree(entry)
    entry.mkdir(parents=True)
    build_corpus_sites(entry / "mk", [name])
    (entry / "mk" / name).rename(site)
    (entry / "mk").rmdir()
    t0 = time.perf_counter()
    code, output = run_with_progress(
        [str(BIN / "askdocs"), "build", str(site), "--private-dir", str(entry / "private")],
        f"askdocs build ({name})",
    )
    if code != 0:
        raise RuntimeError(f"askdocs build of {name} failed ({code}):\n{output[-3000:]}")
    stamp_file.write_text(json.dumps({"key": key, "build_seconds": time.perf_counter() - t0}))
    return site


def _sentences() -> list[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from embed_bench import corpus_text

    text = corpus_text("en").replace("///", " ")
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        sentence = re.sub(r"\s+", " ", sentence).strip(" /")
        if 6 <= len(sentence.split()) <= 40 and sentence[:1].isalpha():
            out.append(sentence)
    return out


def generate_site(folder: Path, pages: int, sections: int, seed: int = 1234) -> int:
    """A plain HTML site: `pages` pages of `sections` h2 sections (~85 words each)."""
    rng = random.Random(seed)
    pool = _sentences()
    words = [w.strip(".,:;()") for s in pool[:3000] for w in s.split() if w.isalpha() and len(w) > 3]
    for p in range(pages):
        topic = " ".join(rng.sample(words, 3))
        title = f"Synthetic guide {p}: {topic}"
        parts = [f"<h1>{html.escape(title)}</h1>"]
        for s in range(sections):
            heading = " ".join(rng.sample(words, rng.randint(2, 5))).capitalize()
            body, count = [], 0
            target = rng.randint(80, 95)
            while count < target:
                sentence = rng.choice(pool)
                body.append(sentence)
                count += len(sentence.split())
            split = max(1, len(body) // 2)
            paras = "".join(
                f"<p>{html.escape(' '.join(chunk))}</p>" for chunk in (body[:split], body[split:]) if chunk
            )
            parts.append(f'<h2 id="s{s}">{html.escape(heading)}</h2>{paras}')
        page_dir = folder / f"part-{p // 100:02d}" / f"guide-{p:04d}"
        page_dir.mkdir(parents=True, exist_ok=True)
        (page_dir / "index.html").write_text(
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title></head><body>"
            '<nav><a href="/">Home</a></nav>'
            f"<main>{''.join(parts)}</main><footer>Synthetic benchmark site</footer>"
            "</body></html>",
            encoding="utf-8",
        )
    return pages


def ensure_synthetic(pages: int, rebuild: bool, use_cache: bool) -> tuple[Path, dict, Path | None]:
    """(shard dir, stamp, temp dir to delete or None) for the synthetic ~50k-chunk set."""
    from askdocs.models import DEFAULT_MODEL, locate
    from askdocs.shards import FORMAT_VERSION

    key = f"v{SYNTH_VERSION}-{pages}x{SYNTH_SECTIONS}-f{FORMAT_VERSION}-{locate(DEFAULT_MODEL).sha256[:12]}"
    entry = CACHE / f"synthetic-{pages}x{SYNTH_SECTIONS}"
    stamp_file = entry / "stamp.json"
    if use_cache and not rebuild and stamp_file.is_file() and _shards_ok(entry / "_askdocs"):
        stamp = json.loads(stamp_file.read_text())
        if stamp.get("key") == key:
            progress(f"reusing cached synthetic shard set ({stamp['chunks']:,} chunks, {entry})")
            return entry / "_askdocs", stamp, None
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="synthetic-build-", dir=CACHE if use_cache else None))
    site = work / "site"
    progress(f"generating a plain HTML site of {pages} pages x {SYNTH_SECTIONS} sections ...")
    generate_site(site, pages, SYNTH_SECTIONS)
    progress(
        "building it with `askdocs build` (English -> all-MiniLM-L6-v2); progress below. "
        + ("This is cached for later runs." if use_cache else "")
    )
    t0 = time.perf_counter()
    code, output = run_with_progress(
        [str(BIN / "askdocs"), "build", str(site)], "askdocs build (synthetic)", every=20
    )
    seconds = time.perf_counter() - t0
    if code != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise RuntimeError(f"askdocs build of the synthetic site failed ({code}):\n{output[-3000:]}")
    manifest = json.loads((site / "_askdocs" / "manifest.json").read_text())
    stamp = {
        "key": key,
        "pages": manifest["counts"]["pages"],
        "chunks": manifest["counts"]["chunks"],
        "build_seconds": seconds,
        "summary": output.strip().splitlines()[-1] if output.strip() else "",
    }
    progress(f"synthetic build: {stamp['chunks']:,} chunks in {seconds:.0f}s")
    if not use_cache:
        return site / "_askdocs", stamp, work
    if entry.exists():
        shutil.rmtree(entry)
    entry.mkdir(parents=True)
    (site / "_askdocs").rename(entry / "_askdocs")
    stamp_file.write_text(json.dumps(stamp, indent=2))
    shutil.rmtree(work, ignore_errors=True)
    return entry / "_askdocs", stamp, None


# -- 1. hybrid vs lunr, in process and over the app ----------------------------
def search_latencies(site: Path, qs: list[dict], rounds: int) -> dict:
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.embedding import QueryEmbedder
    from askdocs.edge_runtime.query import search_query_for
    from askdocs.edge_runtime.results import result_json
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.edge_runtime.search import hybrid_search

    from askdocs import lexical

    shard_dir = site / "_askdocs"
    t0 = time.perf_counter()
    corpus, embedder = load_corpus(str(shard_dir), None)
    load_s = time.perf_counter() - t0
    scope = make_scope(corpus, Reader.public())
    # The runtime drops the parsed Lunr JSON after load: read the shard files again.
    raw = {
        entry.locale: json.loads((shard_dir / entry.path).read_text(encoding="utf-8"))
        for entry in corpus.manifest.files_with("lunr")
    }
    # lunr.py itself is the baseline; the runtime's own lexical index (what hybrid_search
    # queries: BM25 postings over the contextual chunks) is timed beside it for reference.
    bare = {loc: lexical.load_lunr(data) for loc, data in raw.items()}
    runtime_lexical = corpus.sets[0].lexical
    warm = embedder
    cold = QueryEmbedder(embedder.by_locale, embedder.default_locale, cache_size=0)  # keeps nothing

    def api_work(qe, q, loc):
        outcome = hybrid_search(scope, qe, search_query_for(q, loc, scope), 10)
        [result_json(corpus, outcome, hit) for hit in outcome.hits]
        return outcome

    for item in qs:  # warm-up: fills `warm`'s cache, touches every code path once
        loc = item["locale"]
        api_work(warm, item["question"], loc)
        lexical.search(bare.get(loc) or next(iter(bare.values())), item["question"])
    names = ("lunr", "scorer", "embed", "cold", "warm")
    samples: dict[str, list[float]] = {n: [] for n in names}
    hybrid_only: dict[str, list[float]] = {"cold": [], "warm": []}
    per_locale: dict[str, list[float]] = {}
    per_locale_scorer: dict[str, list[float]] = {}
    tick = Ticker("in-process search", rounds * len(qs))
    for r in range(rounds):
        for i, item in enumerate(qs):
            q, loc = item["question"], item["locale"]
            turn = (i + r) % len(names)
            order = names[turn:] + names[:turn]  # rotate who goes first
            for name in order:
                t = time.perf_counter()
                if name == "lunr":
                    lexical.search(bare[loc], q)
                elif name == "scorer":
                    lexical.search(runtime_lexical[loc], q)
                elif name == "embed":
                    embedder.embedder_for(loc).embed_queries([q])
                else:
                    outcome = api_work(cold if name == "cold" else warm, q, loc)
                    hybrid_only[name].append(outcome.took_ms)
                ms = (time.perf_counter() - t) * 1000
                samples[name].append(ms)
                if name == "lunr":
                    per_locale.setdefault(loc, []).append(ms)
                elif name == "scorer":
                    per_locale_scorer.setdefault(loc, []).append(ms)
            tick()
    sizes = {loc: len(json.dumps(data)) for loc, data in raw.items()}
    chunks = {loc: int((corpus.sets[0].chunk_locale == corpus.locales.index(loc)).sum()) for loc in raw}
    return {
        "load_seconds": load_s,
        "samples": samples,
        "hybrid_only": hybrid_only,
        "per_locale": per_locale,
        "per_locale_scorer": per_locale_scorer,
        "runtime_lexical_type": type(next(iter(runtime_lexical.values()))).__name__,
        "lunr_json_bytes": sizes,
        "chunks_per_locale": chunks,
        "chunks": len(corpus.sets[0].chunks),
        "pages": len(corpus.sets[0].pages),
    }


def app_latencies(site: Path, qs: list[dict], rounds: int) -> dict:
    import warnings

    from askdocs.edge_runtime.app import create_app
    from askdocs.edge_runtime.settings import Settings

    warnings.filterwarnings("ignore", message=".*starlette.testclient.*")
    from starlette.testclient import TestClient

    settings = Settings.from_env(env={}, index=str(site / "_askdocs"), rate_limit=None, reload_interval=0.0)
    app = create_app(settings)
    cold: list[float] = []
    warm: list[float] = []
    errors = 0
    tick = Ticker("Starlette app (TestClient)", rounds * len(qs))
    with TestClient(app) as client:
        client.get("/api/search", params={"q": "warm up the app", "locale": "en"})
        for r in range(rounds):
            for item in qs:
                t = time.perf_counter()
                response = client.get("/api/search", params={"q": item["question"], "locale": item["locale"]})
                ms = (time.perf_counter() - t) * 1000
                errors += response.status_code != 200
                (cold if r == 0 else warm).append(ms)
                tick()
    return {"cold": cold, "warm": warm, "errors": errors}


def run_one_blas(site: Path, name: str, rounds: int) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory(prefix="askdocs-search-1blas-") as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run(
            [sys.executable, __file__, "--inproc-worker", str(site), name, str(rounds), str(out)],
            env=env,
            check=True,
        )
        return json.loads(out.read_text())


# -- 2. dense scaling (subprocess, one core) -----------------------------------
def dense_worker(sizes: list[int], n_queries: int, out: Path, force_usearch: bool) -> None:
    import numpy as np
    from askdocs.edge_runtime.dense import DenseMatrix

    rng = np.random.default_rng(7)
    queries = rng.standard_normal((n_queries + 2, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    results: dict = {"dense": {}, "usearch": {}}
    data: dict[int, np.ndarray] = {}
    tops: dict[int, list[list[int]]] = {}
    for n in sizes:
        progress(f"dense: {n:,} synthetic int8 vectors ...")
        vectors = rng.integers(-127, 128, size=(n, 384), dtype=np.int8)
        t0 = time.perf_counter()
        matrix = DenseMatrix(vectors)
        init_s = time.perf_counter() - t0
        mask = np.ones(n, dtype=bool)
        plain, masked, top = [], [], []
        for i, q in enumerate(queries):
            t = time.perf_counter()
            hits = matrix.top(q, 10)
            ms = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            matrix.top(q, 10, mask)
            ms_mask = (time.perf_counter() - t) * 1000
            if i >= 2:  # the first two are warm-up
                plain.append(ms)
                masked.append(ms_mask)
                top.append([h[0] for h in hits])
        results["dense"][str(n)] = {
            "init_s": init_s,
            "top10_ms": summary(plain),
            "top10_with_mask_ms": summary(masked),
            "keeps_float32": matrix._float is not None,
        }
        data[n], tops[n] = vectors, top
        del matrix
    big = str(max(sizes))
    missed = results["dense"][big]["top10_ms"]["p50"] > DENSE_GOAL_MS
    if missed or force_usearch:
        from usearch.index import MetricKind, search

        for n in sizes:
            progress(f"usearch exact int8 search (1 thread): {n:,} vectors ...")
            vectors = data[n]
            times, recall = [], []
            for i, q in enumerate(queries):
                qi = np.clip(np.rint(q / np.abs(q).max() * 127), -127, 127).astype(np.int8)
                t = time.perf_counter()
                found = search(vectors, qi[None, :], 10, MetricKind.Cos, exact=True, threads=1)
                ms = (time.perf_counter() - t) * 1000
                if i >= 2:
                    times.append(ms)
                    keys = set(np.asarray(found.keys).ravel().tolist())
                    recall.append(len(keys & set(tops[n][i - 2])) / 10)
            results["usearch"][str(n)] = {
                "top10_ms": summary(times),
                "recall_at_10_vs_dense": float(np.mean(recall)),
            }
    import usearch

    results["usearch_version"] = usearch.__version__
    results["numpy_version"] = np.__version__
    out.write_text(json.dumps(results))


def run_dense(sizes: list[int], n_queries: int, force_usearch: bool) -> dict:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
    }
    with tempfile.TemporaryDirectory(prefix="askdocs-dense-") as tmp:
        out = Path(tmp) / "dense.json"
        cmd = [
            sys.executable,
            __file__,
            "--dense-worker",
            ",".join(map(str, sizes)),
            "--dense-queries",
            str(n_queries),
            "--dense-out",
            str(out),
        ]
        if force_usearch:
            cmd.append("--force-usearch")
        subprocess.run(cmd, env=env, check=True)
        return json.loads(out.read_text())


# -- 4. RSS of a real server -----------------------------------------------------
def rss_at_scale(shard_dir: Path, qs: list[dict], tmp: Path) -> dict:
    import httpx

    port = free_port()
    admin = "search-bench-admin-token"  # the chunk counts are operator-only in /healthz
    env = {**os.environ, "ASKDOCS_RATE_LIMIT": "off", "ASKDOCS_ADMIN_TOKEN": admin}
    cmd = [str(BIN / "askdocs"), "serve", "--index", str(shard_dir), "--port", str(port)]
    progress(f"starting `askdocs serve --index {shard_dir}` ...")
    with Server(cmd, env, tmp / "serve-50k.log", f"http://127.0.0.1:{port}/healthz") as server:
        startup = server.wait_ready(timeout=600)
        idle = server.rss()
        times = []
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            for item in qs:
                t = time.perf_counter()
                response = client.get("/api/search", params={"q": item["question"], "locale": "en"})
                times.append((time.perf_counter() - t) * 1000)
                response.raise_for_status()
            health = client.get("/healthz", headers={"Authorization": f"Bearer {admin}"}).json()
        after = server.rss()
    return {
        "startup_s": startup,
        "rss_idle_mb": idle.get("rss"),
        "rss_after_mb": after.get("rss"),
        "peak_mb": after.get("peak"),
        "search_ms": summary(times),
        "chunks": health["index"]["counts"]["chunks"],
        "pages": health["index"]["counts"]["pages"],
    }


def rss_breakdown_worker(shard_dir: str, out: str) -> None:
    """Where the memory goes: RSS after each loading stage (diagnostic, own process)."""
    from _benchlib import rss_mb

    stages = [("python + askdocs runtime imports", rss_mb()["rss"])]
    import askdocs.edge_runtime.app  # noqa: F401
    from askdocs.edge_runtime.corpus import resolve_model
    from askdocs.edge_runtime.dense import DenseMatrix

    from askdocs import lexical
    from askdocs.embedder import Embedder
    from askdocs.shards import load_shards

    stages.append(("+ runtime modules", rss_mb()["rss"]))
    shards = load_shards(Path(shard_dir))
    stages.append(("+ shards loaded (pages, chunks, BM25 postings)", rss_mb()["rss"]))
    indexes = {loc: lexical.PostingsScorer(p) for loc, p in shards.postings.items()}
    stages.append(("+ lexical scorers", rss_mb()["rss"]))
    dense = DenseMatrix(shards.vectors)
    stages.append(("+ DenseMatrix (float32 copy when <= 120k rows)", rss_mb()["rss"]))
    for locale in shards.manifest.locales:
        embedder = Embedder(resolve_model(shards.manifest.model_for(locale), Path(shard_dir)), threads=1)
        embedder.embed_queries(["warm up"])
    stages.append(("+ query embedder (ONNX session)", rss_mb()["rss"]))
    del indexes, dense
    Path(out).write_text(json.dumps(stages))


# -- main ------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    parser.add_argument("--rebuild", action="store_true", help="ignore cached builds")
    parser.add_argument("--dense-worker", help=argparse.SUPPRESS)
    parser.add_argument("--dense-queries", type=int, default=30, help=argparse.SUPPRESS)
    parser.add_argument("--dense-out", help=argparse.SUPPRESS)
    parser.add_argument("--force-usearch", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rss-worker", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--inproc-worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dense_worker:
        dense_worker(
            [int(x) for x in args.dense_worker.split(",")],
            args.dense_queries,
            Path(args.dense_out),
            args.force_usearch,
        )
        return 0
    if args.rss_worker:
        rss_breakdown_worker(*args.rss_worker)
        return 0
    if args.inproc_worker:
        site_arg, name, rounds_arg, out_arg = args.inproc_worker
        found = search_latencies(Path(site_arg), questions(name), int(rounds_arg))
        Path(out_arg).write_text(
            json.dumps(
                {
                    "ms": {k: summary(v) for k, v in found["samples"].items()},
                    "hybrid_only_ms": {k: summary(v) for k, v in found["hybrid_only"].items()},
                }
            )
        )
        return 0

    report = Report("search_bench", args.quick)
    report.header("search_bench: hybrid search vs bare Lunr, dense scaling, RSS at ~50k chunks")
    quick = args.quick
    site_name = "httpx" if quick else "fastapi"
    rounds = 2 if quick else 8
    results: dict = report.results

    # 1 + 3: hybrid vs lunr --------------------------------------------------
    site = ensure_site(site_name, args.rebuild)
    qs = questions(site_name)
    progress(f"in-process search on {site_name}: {len(qs)} questions x {rounds} rounds ...")
    inproc = search_latencies(site, qs, rounds)
    progress("the same questions through the Starlette app (TestClient) ...")
    app = app_latencies(site, qs, max(2, rounds // 2))
    progress(
        "what-if: the same in-process loop in a subprocess with one BLAS thread (OPENBLAS_NUM_THREADS=1) ..."
    )
    one_blas = run_one_blas(site, site_name, max(2, rounds // 2))
    s = {k: summary(v) for k, v in inproc["samples"].items()}
    hy = {k: summary(v) for k, v in inproc["hybrid_only"].items()}
    a_cold, a_warm = summary(app["cold"]), summary(app["warm"])
    lunr, emb = s["lunr"], s["embed"]
    print(
        f"\nsite: {site_name} ({inproc['pages']} pages, {inproc['chunks']} chunks, locales "
        f"{', '.join(sorted(inproc['per_locale']))}); index load {inproc['load_seconds']:.1f}s; "
        f"{len(qs)} dev questions x {rounds} rounds, interleaved"
    )

    def row(label, st):
        return [label, st["p50"], st["p95"], ratio(st["p50"], lunr["p50"]), ratio(st["p95"], lunr["p95"])]

    table(
        ["latency ms", "p50", "p95", "p50/lunr", "p95/lunr"],
        [
            row("bare lunr.py search (same Lunr index)", lunr),
            row(f"runtime lexical scorer alone ({inproc['runtime_lexical_type']})", s["scorer"]),
            row("query embedding alone (cache off)", emb),
            row("hybrid_search only, cold (embeds)", hy["cold"]),
            row("hybrid_search only, warm (cached vector)", hy["warm"]),
            row("/api/search work in-process, cold", s["cold"]),
            row("/api/search work in-process, warm", s["warm"]),
            row("/api/search via TestClient, first pass", a_cold),
            row("/api/search via TestClient, repeat passes", a_warm),
            ["what-if, separate process, OPENBLAS_NUM_THREADS=1:", "", "", "", ""],
            row("  bare lunr.py search", one_blas["ms"]["lunr"]),
            row("  /api/search work in-process, cold", one_blas["ms"]["cold"]),
            row("  /api/search work in-process, warm", one_blas["ms"]["warm"]),
        ],
        title="/api/search vs bare Lunr (in-process = hybrid_search + result rendering; "
        "ratios to the main run's lunr)",
    )
    derived = {
        "inproc_cold_over_lunr_plus_embed_p50": ratio(s["cold"]["p50"], lunr["p50"] + emb["p50"]),
        "inproc_cold_minus_embed_over_lunr_p50": ratio(s["cold"]["p50"] - emb["p50"], lunr["p50"]),
        "inproc_warm_over_lunr_p50": ratio(s["warm"]["p50"], lunr["p50"]),
        "app_cold_over_lunr_plus_embed_p50": ratio(a_cold["p50"], lunr["p50"] + emb["p50"]),
        "app_cold_minus_embed_over_lunr_p50": ratio(a_cold["p50"] - emb["p50"], lunr["p50"]),
        "app_warm_over_lunr_p50": ratio(a_warm["p50"], lunr["p50"]),
        "inproc_warm_over_runtime_scorer_p50": ratio(s["warm"]["p50"], s["scorer"]["p50"]),
        "one_blas_thread_warm_over_its_lunr_p50": ratio(
            one_blas["ms"]["warm"]["p50"], one_blas["ms"]["lunr"]["p50"]
        ),
        "one_blas_thread_cold_minus_embed_over_its_lunr_p50": ratio(
            one_blas["ms"]["cold"]["p50"] - one_blas["ms"]["embed"]["p50"], one_blas["ms"]["lunr"]["p50"]
        ),
    }
    table(["derived ratio (p50)", "value"], [[k, v] for k, v in derived.items()])
    results["search"] = {
        "site": site_name,
        "questions": len(qs),
        "rounds": rounds,
        "pages": inproc["pages"],
        "chunks": inproc["chunks"],
        "index_load_seconds": inproc["load_seconds"],
        "ms": s,
        "hybrid_only_ms": hy,
        "app_ms": {"first_pass": a_cold, "repeat": a_warm, "errors": app["errors"]},
        "what_if_one_blas_thread": one_blas,
        "ratios": derived,
    }
    report.goal(
        "in-process /api/search (cold) / (lunr + query embedding), p50",
        derived["inproc_cold_over_lunr_plus_embed_p50"],
        "<=",
        1.0,
    )
    report.goal(
        "in-process (/api/search - embedding) / lunr, p50",
        derived["inproc_cold_minus_embed_over_lunr_p50"],
        "<=",
        1.0,
    )
    report.goal(
        "in-process /api/search (warm, vector cached) / lunr, p50",
        derived["inproc_warm_over_lunr_p50"],
        "<=",
        1.0,
    )
    report.goal(
        "TestClient /api/search (first pass) / (lunr + embedding), p50",
        derived["app_cold_over_lunr_plus_embed_p50"],
        "<=",
        1.0,
    )
    report.goal("TestClient /api/search errors", app["errors"], "==", 0)

    lex_rows = []
    for loc, vals in sorted(inproc["per_locale"].items()):
        st = summary(vals)
        sc = summary(inproc["per_locale_scorer"].get(loc, []))
        lex_rows.append(
            [
                loc,
                inproc["chunks_per_locale"][loc],
                inproc["lunr_json_bytes"][loc] / 1e6,
                st["p50"],
                st["p95"],
                st["max"],
                sc.get("p50"),
                sc.get("p95"),
                ratio(sc.get("p50"), st["p50"]),
            ]
        )
    table(
        [
            "locale",
            "chunks",
            "lunr JSON MB",
            "lunr.py p50",
            "p95",
            "max",
            "runtime p50",
            "p95",
            "runtime/lunr.py",
        ],
        lex_rows,
        title=f"Lexical search on the largest evaluation corpus ({site_name}), ms: bare lunr.py and the "
        f"runtime's scorer ({inproc['runtime_lexical_type']})",
    )
    results["lexical_by_locale"] = {
        r[0]: {
            "chunks": r[1],
            "lunr_json_mb": r[2],
            "lunr_py": {"p50_ms": r[3], "p95_ms": r[4], "max_ms": r[5]},
            "runtime_scorer": {"p50_ms": r[6], "p95_ms": r[7]},
        }
        for r in lex_rows
    }

    # 2: dense ------------------------------------------------------------------
    sizes = [10_000, 100_000] if quick else list(DENSE_SIZES)
    progress(f"dense scaling at {', '.join(f'{n:,}' for n in sizes)} vectors (one core) ...")
    dense = run_dense(sizes, 8 if quick else 30, force_usearch=quick)
    rows = []
    for n in sizes:
        d = dense["dense"][str(n)]
        u = dense["usearch"].get(str(n))
        rows.append(
            [
                f"{n:,}",
                d["init_s"],
                d["top10_ms"]["p50"],
                d["top10_ms"]["p95"],
                d["top10_with_mask_ms"]["p50"],
                u["top10_ms"]["p50"] if u else None,
                u["top10_ms"]["p95"] if u else None,
                ratio(d["top10_ms"]["p50"], u["top10_ms"]["p50"]) if u else None,
                u["recall_at_10_vs_dense"] if u else None,
            ]
        )
    table(
        [
            "vectors (int8, dim 384)",
            "init s",
            "Dense p50",
            "Dense p95",
            "+mask p50",
            "usearch p50",
            "usearch p95",
            "Dense/usearch",
            "usearch recall@10",
        ],
        rows,
        title="Dense top-10, one core (ms); DenseMatrix vs usearch exact int8 "
        "(usearch measured when DenseMatrix misses the 1M goal)",
    )
    results["dense"] = dense
    big = str(max(sizes))
    report.goal(
        f"DenseMatrix.top(q, 10) at {int(big):,} vectors, one core, p50",
        dense["dense"][big]["top10_ms"]["p50"],
        "<=",
        DENSE_GOAL_MS,
        " ms",
    )
    if dense["usearch"].get(big):
        report.goal(
            f"usearch exact int8 at {int(big):,} vectors, one core, p50 (alternative)",
            dense["usearch"][big]["top10_ms"]["p50"],
            "<=",
            DENSE_GOAL_MS,
            " ms",
        )

    # 4: RSS at ~50k chunks ------------------------------------------------------
    pages = QUICK_SYNTH_PAGES if quick else SYNTH_PAGES
    cached_full = CACHE / f"synthetic-{SYNTH_PAGES}x{SYNTH_SECTIONS}" / "_askdocs"
    with tempfile.TemporaryDirectory(prefix="askdocs-search-bench-") as tmp_name:
        tmp = Path(tmp_name)
        if quick and (cached_full / "manifest.json").is_file():
            pages = SYNTH_PAGES
        shard_dir, stamp, work = ensure_synthetic(
            pages, args.rebuild and not quick, use_cache=pages == SYNTH_PAGES
        )
        try:
            en = [q for s_ in ("fastapi", "httpx") for q in questions(s_) if q["locale"] == "en"]
            rss = rss_at_scale(shard_dir, en[: 10 if quick else 30], tmp)
            rss["build_seconds"] = stamp.get("build_seconds")
            if (rss["rss_after_mb"] or 0) > RSS_GOAL_MB or (rss["peak_mb"] or 0) > RSS_GOAL_MB:
                progress("RSS over the goal: measuring where the memory goes ...")
                out = tmp / "rss.json"
                subprocess.run(
                    [sys.executable, __file__, "--rss-worker", str(shard_dir), str(out)], check=True
                )
                rss["breakdown"] = json.loads(out.read_text())
        finally:
            if work is not None:
                shutil.rmtree(work, ignore_errors=True)
    results["rss"] = rss
    table(
        ["askdocs serve --index (synthetic set)", "value"],
        [
            ["pages", rss["pages"]],
            ["chunks", rss["chunks"]],
            ["askdocs build of the set, s (cached)", rss["build_seconds"]],
            ["server start-up until /healthz, s", rss["startup_s"]],
            ["RSS idle after start, MB", rss["rss_idle_mb"]],
            ["RSS after searches, MB", rss["rss_after_mb"]],
            ["peak RSS (VmHWM), MB", rss["peak_mb"]],
            ["search over HTTP p50 ms", rss["search_ms"]["p50"]],
            ["search over HTTP p95 ms", rss["search_ms"]["p95"]],
        ],
        title="Runtime memory at scale",
    )
    if "breakdown" in rss:
        prev = 0.0
        rows = []
        for label, mb in rss["breakdown"]:
            rows.append([label, mb, mb - prev])
            prev = mb
        table(["loading stage (separate process)", "RSS MB", "delta MB"], rows, title="Where the memory goes")
    scale = f"{rss['chunks']:,} chunks"
    report.goal(f"server RSS after searches at {scale}", rss["rss_after_mb"], "<=", RSS_GOAL_MB, " MB")
    report.goal(f"server peak RSS (VmHWM) at {scale}", rss["peak_mb"], "<=", RSS_GOAL_MB, " MB")
    if quick and rss["chunks"] < 40_000:
        report.note(f"--quick: RSS measured at {scale}, not ~50k (the 50k set is not cached yet)")
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
