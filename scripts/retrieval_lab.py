"""Retrieval lab: each retriever alone, fusions and second stages, per question kind.

Loads built sites (shards) and a question set, computes per-question candidate
rankings for several retrievers and combinations, and prints page-level
R@1/R@5/MRR per kind. Embeddings of a second model are cached under
.artifacts/lab/. Experimental; the runtime does not import it.

    .venv/bin/python scripts/retrieval_lab.py httpx=.artifacts/eval/httpx ...
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from askdocs import lexical
from askdocs.embedder import Embedder
from askdocs.evaluation import load_questions, retrieval_scores
from askdocs.models import locate

CACHE = Path(".artifacts/lab")


def contextual(corpus, ref) -> str:
    chunk = corpus.chunk(ref)
    page = corpus.chunk_page(ref)
    header = " › ".join([page.title, *chunk.headings])
    return f"{header}\n\n{corpus.text(ref)}"


def tokens(locale: str, text: str) -> list[str]:
    pipeline = lexical.pipeline_for(locale)
    toks = lexical.Tokenizer(lexical.lexical_text(text))
    for fn in pipeline.index_fns:
        toks = [r for i, t in enumerate(toks) if (r := fn(t, i, toks))]
    return [str(t) for t in toks]


class BM25:
    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.n = len(docs)
        self.lengths = np.array([len(d) for d in docs], dtype=np.float64)
        self.avg = self.lengths.mean() if self.n else 1.0
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                self.postings[term].append((i, tf))

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: list[str]) -> np.ndarray:
        out = np.zeros(self.n)
        for term in set(query):
            idf = self.idf(term)
            for i, tf in self.postings.get(term, ()):
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                out[i] += idf * tf * (self.k1 + 1) / norm
        return out


class Site:
    def __init__(self, name: str, path: Path, private: str | None = None) -> None:
        from askdocs.edge_runtime.corpus import ChunkRef, load_corpus
        from askdocs.edge_runtime.embedding import QueryEmbedder
        from askdocs.edge_runtime.scope import Reader, make_scope

        self.name = name
        corpus, embedder = load_corpus(str(path / "_askdocs"), private)
        self.corpus = corpus
        self.scope = make_scope(corpus, Reader.public())
        self.embedder = QueryEmbedder(embedder)
        self.refs = [
            ChunkRef(s, i)
            for s, loaded in enumerate(corpus.sets)
            for i in range(len(loaded.chunks))
            if self.scope.chunk_masks[s][i]
        ]
        self.locale = [corpus.chunk_page(r).locale for r in self.refs]
        self.page = [corpus.chunk_page(r).url for r in self.refs]
        self.kind = [corpus.chunk(r).kind for r in self.refs]
        self.ctx = [contextual(corpus, r) for r in self.refs]
        self.plain = [corpus.text(r) for r in self.refs]
        self._bm25: dict = {}
        self._vectors: dict = {}

    def bm25(self, locale: str, variant: str = "ctx") -> tuple[BM25, list[int]]:
        key = (locale, variant)
        if key not in self._bm25:
            rows = [i for i, loc in enumerate(self.locale) if loc == locale]
            texts = self.ctx if variant == "ctx" else self.plain
            self._bm25[key] = (BM25([tokens(locale, texts[i]) for i in rows]), rows)
        return self._bm25[key]

    def titles(self, model: str) -> dict[str, np.ndarray]:
        key = ("titles", model)
        if key not in self._vectors:
            emb, _ = self.vectors(model)
            urls = sorted(set(self.page))
            titles = {}
            for url in urls:
                ref = self.refs[self.page.index(url)]
                page = self.corpus.chunk_page(ref)
                titles[url] = emb.embed_passages([page.title + (". " + page.description if page.description else "")])[0]
            self._vectors[key] = titles
        return self._vectors[key]

    def vectors(self, model: str) -> tuple[Embedder, np.ndarray]:
        if model not in self._vectors:
            info = locate(model)
            emb = Embedder(info, threads=2, check_sha=False)
            CACHE.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256(("\0".join(self.ctx) + info.sha256).encode()).hexdigest()[:16]
            path = CACHE / f"{self.name}-{info.id.replace('/', '_')}-{digest}.npy"
            if path.exists():
                matrix = np.load(path)
            else:
                print(f"embedding {len(self.ctx)} chunks of {self.name} with {info.id}", file=sys.stderr)
                matrix = emb.embed_passages(self.ctx)
                np.save(path, matrix)
            self._vectors[model] = (emb, matrix)
        return self._vectors[model]


def rank_rows(scores: np.ndarray, rows: list[int], limit: int = 100) -> list[int]:
    order = np.argsort(-scores, kind="stable")[:limit]
    return [rows[i] for i in order if scores[i] > 0 or True]


def pages_of(site: Site, ranked_rows: list[int]) -> list[str]:
    out: list[str] = []
    for r in ranked_rows:
        url = site.page[r]
        if url not in out:
            out.append(url)
    return out


def rrf(rankings: list[list[int]], weights: list[float] | None = None, k: int = 60) -> list[int]:
    weights = weights or [1.0] * len(rankings)
    score: dict[int, float] = defaultdict(float)
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, row in enumerate(ranking):
            score[row] += w / (k + rank + 1)
    return sorted(score, key=lambda r: -score[r])


def run(sites: dict[str, Site], questions: dict[str, list], methods: list[str]) -> None:
    table: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for name, site in sites.items():
        for q in questions[name]:
            if not q.answerable:
                continue
            from askdocs.edge_runtime.conversation import Turn, search_query

            text = search_query(q.question, tuple(Turn(t["role"], t["content"]) for t in q.history))
            locale = q.locale
            rankings = {}
            bm, rows = site.bm25(locale, "ctx")
            rankings["bm25ctx"] = rank_rows(bm.scores(tokens(locale, text)), rows)
            bm, rows = site.bm25(locale, "plain")
            rankings["bm25plain"] = rank_rows(bm.scores(tokens(locale, text)), rows)
            loc_rows = [i for i, loc in enumerate(site.locale) if loc == locale]
            for model in ("sentence-transformers/all-MiniLM-L6-v2", "intfloat/multilingual-e5-small"):
                emb, matrix = site.vectors(model)
                qv = emb.embed_queries([text])[0]
                sims = matrix[loc_rows] @ qv
                short = "minilm" if "MiniLM" in model else "e5"
                rankings[short] = rank_rows(sims, loc_rows)
            from askdocs.edge_runtime.query import search_query_for
            from askdocs.edge_runtime.search import hybrid_search

            outcome = hybrid_search(site.scope, site.embedder, search_query_for(text, locale, site.scope), 60,
                                    dedupe=False)
            index = {r: i for i, r in enumerate(site.refs)}
            rankings["askdocs"] = [index[h.ref] for h in outcome.hits if h.ref in index]
            lex = [index[h.ref] for h in sorted(
                (h for h in outcome.hits if h.lexical_rank is not None), key=lambda h: h.lexical_rank)]
            rankings["lunr"] = lex
            rankings["rrf(bm25ctx,minilm)"] = rrf([rankings["bm25ctx"], rankings["minilm"]])
            rankings["rrf(bm25ctx,e5)"] = rrf([rankings["bm25ctx"], rankings["e5"]])
            rankings["rrf(bm25ctx,minilm,e5)"] = rrf(
                [rankings["bm25ctx"], rankings["minilm"], rankings["e5"]])
            rankings["rrf(lunr,minilm,e5)"] = rrf([rankings["lunr"], rankings["minilm"], rankings["e5"]])
            rankings["rrf(bm25ctx,lunr,minilm,e5)"] = rrf(
                [rankings["bm25ctx"], rankings["lunr"], rankings["minilm"], rankings["e5"]])
            for method, ranking in rankings.items():
                scores = retrieval_scores(pages_of(site, ranking), q)
                for slice_ in ("all", f"kind:{q.kind}"):
                    table[method][slice_].append(scores)
    slices = sorted({s for m in table.values() for s in m}, key=lambda s: (s != "all", s))
    for metric in ("r@1", "r@5", "mrr"):
        print(f"\n== {metric}")
        print(f"{'method':32}" + "".join(f"{s[5:] if s.startswith('kind:') else s:>13}" for s in slices))
        counts = {s: len(next(iter(table.values()))[s]) for s in slices}
        print(f"{'n':32}" + "".join(f"{counts[s]:>13}" for s in slices))
        for method in table:
            row = [np.mean([x[metric] for x in table[method][s]]) for s in slices]
            print(f"{method:32}" + "".join(f"{v:>13.3f}" for v in row))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="+", help="name=site_dir[:questions.jsonl]")
    parser.add_argument("--second", default="", help="second stage with these dense models (minilm,e5)")
    args = parser.parse_args()
    sites, questions = {}, {}
    for spec in args.sets:
        name, _, rest = spec.partition("=")
        site_dir, _, qfile = rest.partition(":")
        sites[name] = Site(name, Path(site_dir))
        questions[name] = load_questions(Path(qfile or f"evals/{name}.jsonl"))
    if args.second:
        second_stage(sites, questions, tuple(args.second.split(",")))
    else:
        run(sites, questions, [])


# ---------------------------------------------------------------------------------------------
# Second stage: features of fused candidates, a listwise linear model, leave-one-corpus-out.

FEATURES = [
    "rrf_lex", "rrf_d1", "rrf_d2", "lex_norm", "d1_delta", "d2_delta", "title_delta",
    "head_cov", "body_cov", "ident", "faq", "changelog", "changelog_t", "page_hits", "page_lex",
]


def candidate_table(site: Site, q, models: tuple[str, ...], pool: int = 40):
    from askdocs.edge_runtime.conversation import Turn, search_query
    from askdocs.edge_runtime.query import TEMPORAL, identifier_tokens, key_terms

    text = search_query(q.question, tuple(Turn(t["role"], t["content"]) for t in q.history))
    locale = q.locale
    bm, rows = site.bm25(locale, "ctx")
    qtok = tokens(locale, text)
    lex_scores = bm.scores(qtok)
    lex_rank = rank_rows(lex_scores, rows)
    lex_of = {rows[i]: lex_scores[i] for i in range(len(rows))}
    loc_rows = [i for i, loc in enumerate(site.locale) if loc == locale]
    dense_rank, dense_of = [], []
    for model in models:
        emb, matrix = site.vectors(model)
        qv = emb.embed_queries([text])[0]
        sims = matrix[loc_rows] @ qv
        dense_rank.append(rank_rows(sims, loc_rows))
        dense_of.append({loc_rows[i]: float(sims[i]) for i in range(len(loc_rows))})
    fused = rrf([lex_rank[:pool]] + [d[:pool] for d in dense_rank])[:pool]
    keys = set(key_terms(locale, text))
    idents = identifier_tokens(text)
    temporal = bool(TEMPORAL.search(text))
    idf = {t: bm.idf(t) for t in keys}
    total_idf = sum(idf.values()) or 1.0
    titles = site.titles(models[0])
    emb0, _ = site.vectors(models[0])
    qv0 = emb0.embed_queries([text])[0]
    lex_pos = {r: i for i, r in enumerate(lex_rank[:100])}
    dpos = [{r: i for i, r in enumerate(d[:100])} for d in dense_rank]
    max_lex = max((lex_of.get(r, 0.0) for r in fused), default=1.0) or 1.0
    max_d = [max((d.get(r, -1) for r in fused), default=0.0) for d in dense_of]
    title_cos = {r: float(titles[site.page[r]] @ qv0) for r in fused}
    max_t = max(title_cos.values(), default=0.0)
    page_count: dict[str, int] = Counter(site.page[r] for r in fused[:20])
    page_lex: dict[str, float] = defaultdict(float)
    for r in fused:
        page_lex[site.page[r]] = max(page_lex[site.page[r]], lex_of.get(r, 0.0) / max_lex)
    out = []
    for r in fused:
        head_terms = set(tokens(locale, site.ctx[r].split("\n\n", 1)[0]))
        body_terms = set(tokens(locale, site.ctx[r]))
        lowered = site.ctx[r].lower()
        kind = site.kind[r]
        page_kind = site.corpus.chunk_page(site.refs[r]).kind
        row = {
            "rrf_lex": 60 / (61 + lex_pos[r]) if r in lex_pos else 0.0,
            "rrf_d1": 60 / (61 + dpos[0][r]) if r in dpos[0] else 0.0,
            "rrf_d2": (60 / (61 + dpos[1][r]) if r in dpos[1] else 0.0) if len(dpos) > 1 else 0.0,
            "lex_norm": lex_of.get(r, 0.0) / max_lex,
            "d1_delta": dense_of[0].get(r, max_d[0] - 0.3) - max_d[0],
            "d2_delta": (dense_of[1].get(r, max_d[1] - 0.3) - max_d[1]) if len(dense_of) > 1 else 0.0,
            "title_delta": title_cos[r] - max_t,
            "head_cov": sum(idf[t] for t in keys & head_terms) / total_idf,
            "body_cov": sum(idf[t] for t in keys & body_terms) / total_idf,
            "ident": sum(1 for t in idents if t in lowered) / len(idents) if idents else 0.0,
            "faq": 1.0 if kind == "faq" else 0.0,
            "changelog": 1.0 if page_kind == "changelog" and not temporal else 0.0,
            "changelog_t": 1.0 if page_kind == "changelog" and temporal else 0.0,
            "page_hits": math.log1p(page_count.get(site.page[r], 0)),
            "page_lex": page_lex[site.page[r]],
        }
        out.append((r, [row[f] for f in FEATURES]))
    return fused, out


def fit_listwise(groups, l2: float = 0.01, steps: int = 1500, rate: float = 0.5):
    """groups: list of (X [n, f], y [n] in {0,1}); softmax over each group, maximise P(gold)."""
    f = groups[0][0].shape[1]
    w = np.zeros(f)
    for _ in range(steps):
        grad = np.zeros(f)
        for x, y in groups:
            s = x @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            pg = p[y > 0]
            if pg.sum() <= 0:
                continue
            q = np.zeros_like(p)
            q[y > 0] = pg / pg.sum()
            grad += x.T @ (p - q)
        w -= rate * (grad / len(groups) + l2 * w)
    return w


def second_stage(sites: dict[str, Site], questions: dict[str, list], models=("minilm",)) -> None:
    names = {"minilm": "sentence-transformers/all-MiniLM-L6-v2", "e5": "intfloat/multilingual-e5-small"}
    data = {}
    for name, site in sites.items():
        rows = []
        for q in questions[name]:
            if not q.answerable:
                continue
            chosen = models if not (q.locale != "en") else tuple(m for m in ("e5", "minilm") if m in models)
            fused, table = candidate_table(site, q, tuple(names[m] for m in chosen))
            x = np.array([v for _, v in table])
            y = np.array([1.0 if site.page[r] in q.gold else 0.0 for r, _ in table])
            rows.append((q, fused, x, y))
        data[name] = rows
    results = defaultdict(lambda: defaultdict(list))
    weights_seen = {}
    for held in sites:
        train = [(x, y) for n, rows in data.items() if n != held for (_, _, x, y) in rows if y.any()]
        mean = np.mean(np.vstack([x for x, _ in train]), axis=0)
        std = np.std(np.vstack([x for x, _ in train]), axis=0) + 1e-6
        w = fit_listwise([((x - mean) / std, y) for x, y in train])
        weights_seen[held] = dict(zip(FEATURES, np.round(w / std, 3)))
        site = sites[held]
        for q, fused, x, y in data[held]:
            order = np.argsort(-(((x - mean) / std) @ w), kind="stable")
            reranked = [fused[i] for i in order]
            for method, ranking in (("fused", fused), ("reranked", reranked)):
                scores = retrieval_scores(pages_of(site, ranking), q)
                for slice_ in ("all", f"kind:{q.kind}", f"site:{held}"):
                    results[method][slice_].append(scores)
    slices = sorted({s for m in results.values() for s in m}, key=lambda s: (s != "all", s))
    for metric in ("r@1", "r@5", "mrr"):
        print(f"\n== {metric} (leave-one-corpus-out, models {models})")
        print(f"{'method':12}" + "".join(f"{s.split(':')[-1][:12]:>13}" for s in slices))
        for method in results:
            row = [np.mean([x[metric] for x in results[method][s]]) for s in slices]
            print(f"{method:12}" + "".join(f"{v:>13.3f}" for v in row))
    for held, w in weights_seen.items():
        print(held, w)


if __name__ == "__main__":
    main()
