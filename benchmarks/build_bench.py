"""Build speed: `askdocs build` of the evaluation corpora, beside raw onnxruntime and Pagefind.

For each site (httpx; FastAPI en + es nested under /es/), built with MkDocs
into a temp dir, all in one run:

* a full in-process `askdocs build` (`build_site(BuildOptions(...,
  progress=False))`): pages/s, chunks/s, and where the time went (reading and
  extraction, chunking, model load, embedding, the Lunr and BM25 writers, the
  rest);
* the build's embedding throughput (texts/s of its embedding phase) as a ratio
  to raw onnxruntime on the very same texts, same model file and thread
  count: a plain `InferenceSession.run` loop one text at a time, and the best
  loop (tokenise all at once, length-sorted padded batches); goal >= 0.8 of
  the best;
* an incremental rebuild after changing ONE page (the builder reuses the
  previous shards' chunks of unchanged pages and vectors of unchanged
  chunks), three times in a row, each after one more edit: the median's time
  ratio to the full build, goal <= 0.05;
* shard bytes per page, and Pagefind (`pagefind[bin]`, Python API) indexing
  the same site folder: its time and bytes per page.

    .venv/bin/python benchmarks/build_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import askdocs.plugin.builder as builder_mod  # noqa: E402
from _benchlib import (  # noqa: E402
    Report,
    Ticker,
    build_corpus_sites,
    dir_bytes,
    progress,
    ratio,
    table,
)
from askdocs.plugin.builder import BuildOptions, IndexBuilder  # noqa: E402
from askdocs.plugin.sitedir import build_site  # noqa: E402

from askdocs.lexical import BM25Writer, LunrWriter  # noqa: E402
from askdocs.models import ModelInfo  # noqa: E402
from askdocs.shards import MANIFEST, SHARD_DIR, load_shards  # noqa: E402

# The page each incremental rebuild edits (one page, one new paragraph).
EDITED_PAGE = {"httpx": "quickstart/index.html", "fastapi": "tutorial/cors/index.html"}
ASSET_ROLES = {"widget", "lunr_js", "model"}  # shipped files that are not index data
RAW_BATCH = 16
INCREMENTAL_RUNS = 3  # one-page edits in a row; the median counts


# -- instrumentation (measurement only: wraps, never changes, the builder) -----
class Probe:
    """Times the builder's phases and captures the texts it embeds."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.embed_s = 0.0
        self.lexical_s = 0.0
        self.chunk_s = 0.0
        self.model_s = 0.0
        self.texts: list[tuple[str, str, int, str]] = []  # (set, kind, row, text)
        self.todo = 0
        self.model: ModelInfo | None = None
        self.threads = 0

    def install(self) -> None:
        probe = self
        original_embed = IndexBuilder._embed
        self.original_embed = original_embed
        original_choose = IndexBuilder._choose_embedders

        def _embed(self, sets, todo):
            default = self.model(self.options.default_locale).sha256
            for embedder, texts in todo.groups():  # what this build embeds with the default model
                if embedder.info.sha256 != default:
                    continue  # (another locale's: raw onnxruntime runs the default model only)
                for at in range(len(texts)):
                    name, row = texts.target(at)
                    probe.texts.append((name, "chunk", row, texts[at]))
            embedded = self.report.embedded
            t0 = time.perf_counter()
            out = original_embed(self, sets, todo)
            probe.embed_s += time.perf_counter() - t0
            probe.todo += self.report.embedded - embedded
            probe.model = self.model(self.options.default_locale)
            probe.threads = self.options.threads or os.cpu_count() or 1
            return out

        def timed(method, phase: str):
            """`method`, its time added to the probe's `phase` seconds."""

            def wrapper(*a, **kw):
                t0 = time.perf_counter()
                try:
                    return method(*a, **kw)
                finally:
                    setattr(probe, phase, getattr(probe, phase) + time.perf_counter() - t0)

            return wrapper

        IndexBuilder._embed = _embed
        IndexBuilder._choose_embedders = timed(original_choose, "model_s")
        builder_mod.chunk_page = timed(builder_mod.chunk_page, "chunk_s")
        for writer in (LunrWriter, BM25Writer):  # each chunk counted as added, then written out
            writer.add = timed(writer.add, "lexical_s")
            writer.write = timed(writer.write, "lexical_s")


def run_build(site: Path, probe: Probe) -> dict:
    probe.reset()
    options = BuildOptions(site_dir=site, progress=False)
    t0 = time.perf_counter()
    report = build_site(options)
    total = time.perf_counter() - t0
    return {
        "seconds": total,
        "pages": report.pages,
        "chunks": report.chunks,
        "reused": report.reused,
        "embedded": report.embedded,
        "chunked": report.chunked,
        "warnings": report.warnings,
        "locales": report.locales,
        "model": probe.model.id if probe.model else None,
        "threads": probe.threads,
        "phases": {
            "read_extract_s": total - report.seconds,
            "chunk_s": probe.chunk_s,
            "model_load_s": probe.model_s,
            "embedding_s": probe.embed_s,
            "lexical_s": probe.lexical_s,
            "other_s": report.seconds - probe.model_s - probe.embed_s - probe.lexical_s - probe.chunk_s,
        },
        "embedded_per_s": probe.todo / probe.embed_s if probe.embed_s and probe.todo else None,
    }


# -- raw onnxruntime ---------------------------------------------------------
class RawEmbedder:
    """The best plain onnxruntime loop we could write: same model file, same thread count;
    tokenising included (all texts at once, in Rust), pooling vectorised."""

    def __init__(self, info: ModelInfo, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        self.info = info
        self.session = ort.InferenceSession(str(info.onnx_path), options, providers=["CPUExecutionProvider"])
        self.names = {i.name for i in self.session.get_inputs()}
        self.tok = Tokenizer.from_file(str(info.tokenizer_path))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=info.max_tokens)
        self.pad = next(
            (i for i in (self.tok.token_to_id("[PAD]"), self.tok.token_to_id("<pad>")) if i is not None), 0
        )
        self.run(["warm-up"], 1)

    def run(self, texts: list[str], batch: int, tick=None) -> tuple[float, np.ndarray]:
        """Seconds to embed `texts` (one text per run, or length-sorted padded batches)."""
        out = np.zeros((len(texts), self.info.dim), np.float32)
        t0 = time.perf_counter()
        encodings = self.tok.encode_batch([self.info.passage_prefix + t for t in texts])
        order = list(range(len(texts)))
        if batch > 1:
            order.sort(key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.full((len(rows), width), self.pad, np.int64)
            mask = np.zeros((len(rows), width), np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.names:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[rows] = pooled
            if tick is not None:
                tick(len(rows))
        return time.perf_counter() - t0, out


def interleaved(info: ModelInfo, texts: list[str], threads: int, slices: int, probe: Probe) -> dict:
    """The builder's own embedding step (`IndexBuilder._embed`, unwrapped, on a fresh builder
    with nothing to reuse) and both raw loops over the same texts, taking turns slice by
    slice, so load drift on the shared machine hits all three alike."""
    from askdocs.plugin.builder import _Todo, build_embedder
    from askdocs.plugin.setwriter import SetWriter

    embedder = build_embedder(info, threads)
    builder = IndexBuilder(
        BuildOptions(site_dir=Path(tempfile.gettempdir()), progress=False, threads=threads),
        embedders={info.sha256: embedder},
    )
    spill = Path(tempfile.mkdtemp(prefix="askdocs-bench-embed-"))
    raw = RawEmbedder(info, threads)
    variants = {"builder": 0, "batch1": 1, f"batch{RAW_BATCH}_sorted": RAW_BATCH}
    seconds = dict.fromkeys(variants, 0.0)
    vectors = {k: np.zeros((len(texts), info.dim), np.float32) for k in variants if k != "builder"}
    tick = Ticker("builder path + raw onnxruntime, interleaved", len(texts) * len(variants), every=10)
    for k in range(slices):
        rows = list(range(k, len(texts), slices))
        part = [texts[i] for i in rows]
        for name, batch in variants.items():
            if name == "builder":
                todo = _Todo(spill)
                for row, text in enumerate(part):
                    todo.add("public", row, text, embedder)
                data = SetWriter("public", spill, info.dim)
                t0 = time.perf_counter()
                probe.original_embed(builder, {"public": data}, todo)
                seconds[name] += time.perf_counter() - t0
                tick(len(part))
                continue
            took, vecs = raw.run(part, batch, tick)
            seconds[name] += took
            vectors[name][rows] = vecs
    return {
        name: {"seconds": seconds[name], "per_s": len(texts) / seconds[name], "vectors": vectors.get(name)}
        for name in variants
    }


def build_vectors(shard_dir: Path, texts: list[tuple[str, str, int, str]]) -> np.ndarray | None:
    """The build's own (dequantised, normalised) vectors for the public texts, in `texts` order."""
    shards = load_shards(shard_dir)
    rows = []
    for name, _kind, row, _ in texts:
        if name != "public":
            return None
        v = shards.vectors[row].astype(np.float32)
        rows.append(v / max(float(np.linalg.norm(v)), 1e-12))
    return np.stack(rows)


# -- incremental edit, sizes, Pagefind ------------------------------------------
def edit_one_page(site: Path, rel: str) -> None:
    path = site / rel
    html = path.read_text(encoding="utf-8")
    edited, count = re.subn(
        r"(</h1>)",
        r"\1<p>Benchmark edit: this paragraph was added to one page to time an incremental "
        r"askdocs build, which should embed only the chunks whose text changed.</p>",
        html,
        count=1,
    )
    if not count:
        raise RuntimeError(f"no </h1> in {path} to edit")
    path.write_text(edited, encoding="utf-8")


def shard_sizes(shard_dir: Path) -> dict:
    manifest = json.loads((shard_dir / MANIFEST).read_text(encoding="utf-8"))
    by_role: dict[str, int] = {}
    for entry in manifest["files"]:
        by_role[entry["role"]] = by_role.get(entry["role"], 0) + entry["bytes"]
    total = dir_bytes(shard_dir)
    assets = sum(v for k, v in by_role.items() if k in ASSET_ROLES)
    return {"total": total, "index": total - assets, "assets": assets, "by_role": by_role}


async def _pagefind(site: Path, out: Path) -> tuple[float, int]:
    from pagefind.index import IndexConfig, PagefindIndex

    t0 = time.perf_counter()
    async with PagefindIndex(IndexConfig(output_path=str(out))) as index:
        result = await index.add_directory(str(site))
    return time.perf_counter() - t0, int(result["page_count"])


def pagefind_index(site: Path, out: Path) -> dict:
    seconds, pages = asyncio.run(_pagefind(site, out))
    total = dir_bytes(out)
    index = dir_bytes(
        out,
        lambda p: (
            p.suffix in (".pf_meta", ".pf_index", ".pf_fragment", ".pf_filter")
            or p.name == "pagefind-entry.json"
        ),
    )
    return {"seconds": seconds, "pages": pages, "total": total, "index": index, "assets": total - index}


# -- main --------------------------------------------------------------------
def bench_site(name: str, site: Path, tmp: Path, probe: Probe, quick: bool, mkdocs_s: float) -> dict:
    progress(f"{name}: full askdocs build (in-process, progress=False) ...")
    full = run_build(site, probe)
    texts = list(probe.texts)
    model = probe.model
    assert model is not None
    progress(
        f"{name}: {full['pages']} pages, {full['chunks']} chunks, {full['embedded']} texts "
        f"embedded with {full['model']} in {full['seconds']:.1f}s"
    )
    sample = texts if not quick else texts[:120]
    plain = [t for _, _, _, t in sample]
    progress(
        f"{name}: the builder's embedding step and raw onnxruntime on the same {len(plain)} texts, "
        f"{full['threads']} threads, interleaved"
    )
    runs = interleaved(model, plain, full["threads"], 2 if quick else 6, probe)
    ref = build_vectors(site / SHARD_DIR, sample)
    raw: dict = {"texts": len(plain)}
    for key, run in runs.items():
        raw[key] = {"seconds": run["seconds"], "per_s": run["per_s"]}
        if ref is not None and run["vectors"] is not None:
            cos = np.sum(run["vectors"] * ref, axis=1)
            raw[key]["cosine_to_build"] = float(np.mean(cos))
            raw[key]["cosine_to_build_min"] = float(np.min(cos))
    raw["best"] = max((k for k in runs if k != "builder"), key=lambda k: raw[k]["per_s"])

    progress(f"{name}: incremental rebuild after editing {EDITED_PAGE[name]} ...")
    sizes_before = shard_sizes(site / SHARD_DIR)
    runs = []
    for _ in range(INCREMENTAL_RUNS):
        edit_one_page(site, EDITED_PAGE[name])
        runs.append(run_build(site, probe))
    incremental = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    incremental["runs_seconds"] = [r["seconds"] for r in runs]

    progress(f"{name}: Pagefind indexing the same site folder ...")
    pagefind = pagefind_index(site, tmp / f"pagefind-{name}")
    return {
        "mkdocs_seconds": mkdocs_s,
        "full": full,
        "embedding_interleaved": raw,
        "incremental": incremental,
        "edited_page": EDITED_PAGE[name],
        "shard_bytes": sizes_before,
        "pagefind": pagefind,
    }


def print_site(name: str, r: dict, report: Report) -> None:
    full, inc, emb, pf, sizes = (
        r["full"],
        r["incremental"],
        r["embedding_interleaved"],
        r["pagefind"],
        r["shard_bytes"],
    )
    best = emb[emb["best"]]
    builder_rate = emb["builder"]["per_s"]
    whole_rate = full["embedded_per_s"]
    pages = full["pages"]
    print(
        f"\n### {name}: {pages} pages, {full['chunks']} chunks, locales "
        f"{','.join(full['locales'])}, model {full['model']}, {full['threads']} threads "
        f"(MkDocs build {r['mkdocs_seconds']:.1f}s)"
    )
    table(
        ["full askdocs build", "value"],
        [
            ["wall seconds", full["seconds"]],
            ["pages/s", pages / full["seconds"]],
            ["chunks/s", full["chunks"] / full["seconds"]],
            ["texts embedded (chunks)", full["embedded"]],
            *[[f"  phase: {k.removesuffix('_s')} s", v] for k, v in full["phases"].items()],
        ],
    )
    rows = [
        [
            "full build's embedding phase (earlier, alone)",
            whole_rate,
            ratio(whole_rate, best["per_s"]),
            "-",
            "-",
        ],
        [
            "builder embedding step (IndexBuilder._embed)",
            builder_rate,
            ratio(builder_rate, best["per_s"]),
            "-",
            "-",
        ],
    ]
    for key in ("batch1", f"batch{RAW_BATCH}_sorted"):
        label = (
            "raw ORT, one text per run"
            if key == "batch1"
            else f"raw ORT, length-sorted batches of {RAW_BATCH}"
        )
        rows.append(
            [
                label + (" (best raw)" if key == emb["best"] else ""),
                emb[key]["per_s"],
                ratio(emb[key]["per_s"], best["per_s"]),
                emb[key].get("cosine_to_build"),
                emb[key].get("cosine_to_build_min"),
            ]
        )
    table(
        [
            "embedding throughput (same texts, model, threads)",
            "texts/s",
            "/best raw",
            "cos to build",
            "min cos",
        ],
        rows,
        title="rows 2-4 ran interleaved, slice by slice; row 1 is the full build's phase, measured first",
    )
    table(
        ["incremental rebuild (one page edited; median of 3)", "full", "incremental", "incr/full"],
        [
            ["wall seconds", full["seconds"], inc["seconds"], ratio(inc["seconds"], full["seconds"])],
            ["  the three runs", None, " / ".join(f"{t:.2f}" for t in inc["runs_seconds"]), None],
            ["pages chunked anew", full["chunked"], inc["chunked"], None],
            ["texts embedded", full["embedded"], inc["embedded"], None],
            ["vectors reused", full["reused"], inc["reused"], None],
            *[
                [f"phase: {k.removesuffix('_s')} s", full["phases"][k], v, ratio(v, full["phases"][k])]
                for k, v in inc["phases"].items()
            ],
        ],
    )
    table(
        ["index size and time, same site folder", "askdocs", "Pagefind", "askdocs/Pagefind"],
        [
            ["pages indexed", pages, pf["pages"], None],
            [
                "index time s (askdocs: full build)",
                full["seconds"],
                pf["seconds"],
                ratio(full["seconds"], pf["seconds"]),
            ],
            [
                "bytes/page, all files",
                sizes["total"] / pages,
                pf["total"] / pf["pages"],
                ratio(sizes["total"] / pages, pf["total"] / pf["pages"]),
            ],
            [
                "bytes/page, index data only",
                sizes["index"] / pages,
                pf["index"] / pf["pages"],
                ratio(sizes["index"] / pages, pf["index"] / pf["pages"]),
            ],
        ],
    )
    roles = ", ".join(
        f"{k} {v / pages:,.0f}" for k, v in sorted(sizes["by_role"].items(), key=lambda kv: -kv[1])
    )
    print(f"askdocs bytes/page by role: {roles}")
    report.goal(
        f"{name}: builder embedding / best raw onnxruntime throughput (interleaved)",
        ratio(builder_rate, best["per_s"]),
        ">=",
        0.8,
        note=f"best raw = {emb['best']}; the full build's phase measured alone: "
        f"{ratio(whole_rate, best['per_s']):.2f}",
    )
    report.goal(
        f"{name}: incremental / full build time",
        ratio(inc["seconds"], full["seconds"]),
        "<=",
        0.05,
        note=f"{inc['embedded']} texts re-embedded",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run (httpx only)")
    args = parser.parse_args()
    report = Report("build_bench", args.quick)
    report.header("build_bench: askdocs build vs raw onnxruntime, incremental, Pagefind")
    sites = ["httpx"] if args.quick else ["httpx", "fastapi"]
    probe = Probe()
    probe.install()
    with tempfile.TemporaryDirectory(prefix="askdocs-build-bench-") as tmp_name:
        tmp = Path(tmp_name)
        progress(f"building {', '.join(sites)} with MkDocs into a temp dir ...")
        mkdocs_s = build_corpus_sites(tmp, sites)
        for name in sites:
            result = bench_site(name, tmp / name, tmp, probe, args.quick, mkdocs_s[name])
            report.results[name] = result
            print_site(name, result, report)
    if args.quick:
        report.note("--quick: the interleaved embedding comparison ran on the first 120 texts only")
    report.note(
        "raw 'batches' pad length-sorted texts together; with dynamic int8 "
        "quantisation a text's vector then depends on its batch-mates (see the cosine "
        "column), which the builder avoids on purpose by embedding one text per run"
    )
    report.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main())
