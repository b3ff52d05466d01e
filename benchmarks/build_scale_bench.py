"""Builds at scale: generated sites of 2k, 5k and 20k short pages through `askdocs build`.

* with embedding (2k, 5k): the real build, embedding fanned out over processes; wall
  time, pages/s, peak RSS of the build process and of its largest embedding worker;
* without embedding (2k, 5k, 20k): the same build with the model replaced by a hash
  stub (measurement only), so what grows with the page count besides embedding shows;
* raw embedding throughput beside it: the same worker pool on the same kind of texts
  with nothing else to do. Goal: the build's texts/s >= 0.8x raw;
* peak memory per page (goal: flat in the number of pages), and an extrapolation to a
  1M-page site (build time on N cores, shard parts per locale, dense index size,
  runtime RSS).

    .venv/bin/python benchmarks/build_scale_bench.py [--quick]
    .venv/bin/python benchmarks/build_scale_bench.py --embed-sizes none   # stub builds only
"""

from __future__ import annotations

import argparse
import html
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import BIN, Report, Server, free_port, progress, ratio, table  # noqa: E402

from askdocs.shards import MAX_PART_BYTES  # noqa: E402

WORDS = str.split(
    "queue worker retry timeout backoff schedule cron batch job token secret rotate deploy "
    "cluster replica shard index cache budget limit quota region bucket upload download "
    "stream event webhook signature header proxy gateway route handler plugin theme locale "
    "release channel pointer rollback snapshot backup restore audit policy group role"
)

STUB = """
import hashlib, json, resource, sys
import numpy as np

def vector(text):
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)

def stub_pool(model, texts, workers, progress=None, embedder=None):
    for i, text in enumerate(texts):
        v = vector(text)
        scale = float(np.abs(v).max() / 127)
        yield i, np.clip(np.rint(v / scale), -127, 127).astype(np.int8), scale
        progress and progress(1)

if __name__ == "__main__":  # embedding workers are spawned: they import this file, and must not build
    import askdocs.plugin.builder as builder
    from askdocs.cli import main

    if sys.argv[1] == "stub":
        from askdocs.embedder import Embedder

        builder.embed_texts = stub_pool  # whichever path the builder takes: processes or in-process
        Embedder.embed_passages = lambda self, texts, progress=None: np.stack([vector(t) for t in texts])
    code = main(["build", sys.argv[2], "-q", "--threads", sys.argv[3]])
    status = dict(l.split(":", 1) for l in open("/proc/self/status") if l.startswith(("VmHWM", "VmRSS")))
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("BENCH " + json.dumps({"code": code, "peak_mb": int(status["VmHWM"].split()[0]) / 1024,
                                 "worker_peak_mb": children}))
"""


def generate(folder: Path, pages: int, seed: int = 7) -> None:
    """Short pages: a title and two paragraphs (~70 words), one chunk each."""
    rng = random.Random(seed)
    for p in range(pages):
        title = f"Note {p}: " + " ".join(rng.sample(WORDS, 3))
        paras = "".join(
            "<p>"
            + html.escape(" ".join(rng.choice(WORDS) for _ in range(35)).capitalize())
            + f" ({p}.{k}).</p>"
            for k in range(2)
        )
        page = folder / f"s{p // 1000:03d}" / f"n{p:06d}"
        page.mkdir(parents=True, exist_ok=True)
        (page / "index.html").write_text(
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"</head><body><main><h1>{html.escape(title)}</h1>{paras}</main></body></html>"
        )


def run_build(site: Path, mode: str, threads: int, script: Path) -> dict:
    shutil.rmtree(site / "_askdocs", ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "ASKDOCS_CORPORA"}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(script), mode, str(site), str(threads)], capture_output=True, text=True, env=env
    )
    seconds = time.perf_counter() - started
    line = next((line for line in result.stdout.splitlines() if line.startswith("BENCH ")), None)
    if result.returncode != 0 or line is None:
        raise RuntimeError(f"build failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}")
    out = json.loads(line[6:])
    manifest = json.loads((site / "_askdocs" / "manifest.json").read_text())
    out.update(
        seconds=seconds,
        chunks=manifest["counts"]["chunks"],
        pages=manifest["counts"]["pages"],
        shard_files=len(manifest["files"]),
        shard_bytes=sum(f["bytes"] for f in manifest["files"]),
        vector_bytes=sum(f["bytes"] for f in manifest["files"] if f["role"] in ("vectors", "titles")),
        roles={
            role: [
                sum(1 for f in manifest["files"] if f["role"] == role),
                sum(f["bytes"] for f in manifest["files"] if f["role"] == role),
                any(f.get("part") is not None for f in manifest["files"] if f["role"] == role),
            ]
            for role in sorted({f["role"] for f in manifest["files"]})
        },
    )
    out["texts"] = out["chunks"]  # format 3 embeds each chunk, nothing else (no page-title vectors)
    out["pages_per_s"] = out["pages"] / seconds
    return out


def runtime_rss(site: Path, work: Path) -> float:
    """RSS (MB) of `askdocs serve` on the site's shards after a few searches."""
    import httpx

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ASKDOCS_CORPORA"}
    env.update(ASKDOCS_RATE_LIMIT="off", ASKDOCS_RELOAD_INTERVAL="0")
    server = Server(
        [str(BIN / "askdocs"), "serve", "--index", str(site / "_askdocs"), "--port", str(port)],
        env,
        work / f"serve-{site.name}.log",
        f"http://127.0.0.1:{port}/healthz",
    )
    try:
        server.wait_ready()
        for q in ("retry backoff queue", "rotate token secret", "release rollback pointer", "cache quota"):
            httpx.get(f"http://127.0.0.1:{port}/api/search", params={"q": q}, timeout=60).raise_for_status()
        return server.rss().get("rss", 0.0)
    finally:
        server.stop()


def raw_rate(site: Path, threads: int, n: int) -> float:
    """texts/s of the worker pool alone on texts like the build's (title + heading + text)."""
    from askdocs.plugin.embedpool import embed_texts

    from askdocs.models import DEFAULT_MODEL, locate

    texts = []
    for page in sorted(site.rglob("index.html"))[:n]:  # format 3: a page's one text, no title text
        body = page.read_text()
        title = body.split("<title>")[1].split("</title>")[0]
        text = " ".join(p.split("</p>")[0] for p in body.split("<p>")[1:])
        texts.append(f"{title}\n\n{text}")
    started = time.perf_counter()
    count = sum(1 for _ in embed_texts(locate(DEFAULT_MODEL), texts, threads))
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--embed-sizes",
        help="page counts built with real embedding (default 2000,5000; none: stub builds only)",
    )
    parser.add_argument("--stub-sizes", help="page counts built with the stub (default 2000,5000,20000)")
    parser.add_argument("--raw-texts", type=int, help="texts for the raw pool rate (default 2000)")
    args = parser.parse_args()
    report = Report("build_scale_bench", args.quick)
    report.header("Builds at scale: 2k / 5k / 20k short pages")
    threads = os.cpu_count() or 1
    embed_sizes, stub_sizes = (
        ([300, 600], [300, 600, 2000]) if args.quick else ([2000, 5000], [2000, 5000, 20000])
    )
    if args.embed_sizes:  # a loaded machine: fewer real-embedding sizes keep the run within ~20 min
        embed_sizes = [] if args.embed_sizes == "none" else [int(x) for x in args.embed_sizes.split(",")]
    if args.stub_sizes:
        stub_sizes = [int(x) for x in args.stub_sizes.split(",")]
    raw_texts = args.raw_texts or (600 if args.quick else 2000)
    work = Path(tempfile.mkdtemp(prefix="askdocs-build-scale-"))
    script = work / "build.py"
    script.write_text(STUB)
    runs: dict[str, dict[int, dict]] = {"embed": {}, "stub": {}}
    try:
        for size in sorted(set(embed_sizes) | set(stub_sizes)):
            site = work / f"site-{size}"
            generate(site, size)
            if size in stub_sizes:
                progress(f"{size:,} pages, embedding stubbed")
                runs["stub"][size] = run_build(site, "stub", threads, script)
                runs["stub"][size]["runtime_rss_mb"] = runtime_rss(site, work)
            if size in embed_sizes:
                # The raw pool right before and right after the build: the machine is shared, so the
                # ratio compares like with like (the mean of the two against the build between them).
                progress(f"{size:,} pages: raw embedding throughput (the same worker pool, nothing else)")
                before = raw_rate(site, threads, raw_texts)
                progress(f"{size:,} pages, real embedding in {threads} processes")
                runs["embed"][size] = run_build(site, "real", threads, script)
                progress(f"{size:,} pages: raw embedding throughput again")
                after = raw_rate(site, threads, raw_texts)
                runs["embed"][size]["raw_texts_per_s"] = [before, after]
            shutil.rmtree(site)
        raw = sum(runs["embed"][max(embed_sizes)]["raw_texts_per_s"]) / 2 if embed_sizes else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.results.update({"runs": runs, "raw_texts_per_s": raw, "threads": threads})
    rows = []
    for mode in ("embed", "stub"):
        for size, r in sorted(runs[mode].items()):
            label = f"{size:,} {'real' if mode == 'embed' else 'stub'}"
            per_page = r["peak_mb"] * 1024 / size
            rows.append([label, r["seconds"], r["pages_per_s"], r["texts"] / r["seconds"], r["peak_mb"],
                         per_page, r["worker_peak_mb"], r["shard_bytes"] / size])  # fmt: skip
    table(
        [
            "pages / model",
            "seconds",
            "pages/s",
            "texts/s",
            "peak MB",
            "peak kB/page",
            "worker MB",
            "shard B/page",
        ],
        rows,
        title=f"askdocs build of short pages ({threads} cores; raw pool: "
        + (f"{raw:.1f} texts/s)" if raw else "not measured)"),
    )
    if embed_sizes:
        biggest = runs["embed"][max(embed_sizes)]
        build_rate = biggest["texts"] / biggest["seconds"]
        report.goal("build texts/s vs raw embedding texts/s", ratio(build_rate, raw), ">=", 0.8)
    small, large = runs["stub"][min(stub_sizes)], runs["stub"][max(stub_sizes)]
    growth = ratio(large["peak_mb"] - small["peak_mb"], (max(stub_sizes) - min(stub_sizes)) / 1000)
    report.goal(
        "peak build memory growth per 1,000 pages (flat = 0)", growth, "<=", 1.0, " MB",
        note="what still grows: the URL and a few numbers per page and chunk, the vocabulary",
    )  # fmt: skip
    # -- a 1M-page site, on paper --------------------------------------------------
    pages = 1_000_000
    texts_per_page = large["texts"] / large["pages"]
    rest_per_page = large["seconds"] / large["pages"]  # everything but the model, one process
    extrapolation = {}
    per_core = raw / threads if raw else None
    for cores in (2, 16, 64) if per_core else ():
        hours = (pages * texts_per_page / (per_core * cores) + pages * rest_per_page) / 3600
        extrapolation[cores] = hours
    vector_bytes = pages * texts_per_page * 384
    shard_bytes = large["shard_bytes"] / large["pages"] * pages
    scale = pages / large["pages"]
    files: dict[str, tuple[int, float]] = {}  # role: (files, largest file MB) at 1M pages
    for role, (count, size, parted) in large["roles"].items():
        if role in ("widget", "model"):
            continue
        if small["roles"].get(role, [0, 0])[1] == size:  # does not grow with the site (lunr.js)
            files[role] = (count, size / count / 1e6)
            continue
        total = size * scale
        if parted:
            files[role] = (math.ceil(total / MAX_PART_BYTES), MAX_PART_BYTES / 1e6)
        else:  # one file per locale, growing with the site
            files[role] = (count, total / count / 1e6)
    peak = large["peak_mb"] + (growth or 0) * pages / 1000
    small_rss, large_rss = small["runtime_rss_mb"], large["runtime_rss_mb"]
    rss_per_page = (large_rss - small_rss) / (large["pages"] - small["pages"])
    runtime = large_rss + rss_per_page * (pages - large["pages"])
    report.results["one_million"] = {
        "texts": pages * texts_per_page,
        "build_hours_by_cores": extrapolation,
        "dense_index_gb": vector_bytes / 1e9,
        "shard_gb": shard_bytes / 1e9,
        "files": files,
        "build_peak_mb": peak,
        "runtime_rss_mb": runtime,
        "runtime_rss_kb_per_page": rss_per_page * 1024,
    }
    table(
        ["role", "files at 1M pages", "largest file MB"],
        [[role, n, mb] for role, (n, mb) in sorted(files.items())],
        title="Shard files of a 1M-page site (one locale; parts are capped, the rest is one file per locale)",
    )
    embedding = (
        ", ".join(f"{h:.1f} h on {c} cores" for c, h in extrapolation.items())
        + f" (embedding at {per_core:.1f} texts/s per core,"
        if per_core
        else "(embedding not measured;"
    )
    print(
        f"\n1M short pages (extrapolated): {pages * texts_per_page / 1e6:.1f}M texts to embed; build "
        + embedding
        + f" the rest {rest_per_page * 1000:.1f} ms/page on one);"
        f" dense vectors {vector_bytes / 1e9:.2f} GB int8; shards {shard_bytes / 1e9:.1f} GB;"
        f" build peak ~{peak / 1024:.1f} GB at today's growth; runtime RSS ~{runtime / 1024:.1f} GB"
        f" ({rss_per_page * 1024:.1f} kB per page; {small_rss:.0f} MB at {small['pages']:,} pages,"
        f" {large_rss:.0f} MB at {large['pages']:,})"
    )
    report.finish()


if __name__ == "__main__":
    main()
