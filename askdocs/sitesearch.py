"""`askdocs search` and `askdocs export`: a built site's index from the command line.

`search` runs the runtime's own hybrid search (the same code as `/api/search`)
over the public shards, as an anonymous reader sees them. `export` writes every
chunk as one JSON line, for teams that keep their own vector store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from askdocs.errors import AskdocsError
from askdocs.shards import MANIFEST, SHARD_DIR, chunk_text, load_shards


def shard_folder(site_or_index: str | Path) -> Path:
    """A built site (holding `_askdocs/`) or a shard folder itself."""
    path = Path(site_or_index)
    if (path / MANIFEST).is_file():
        return path
    if (path / SHARD_DIR / MANIFEST).is_file():
        return path / SHARD_DIR
    raise AskdocsError(f"{path} holds no askdocs index (no {SHARD_DIR}/{MANIFEST}); build the site first")


def search_site(site_or_index: str | Path, query: str, k: int = 10, locale: str | None = None) -> dict:
    """What `GET /api/search` answers an anonymous reader, computed in-process."""
    from askdocs.edge_runtime.corpus import load_corpus
    from askdocs.edge_runtime.query import search_query_for
    from askdocs.edge_runtime.results import result_json
    from askdocs.edge_runtime.scope import Reader, make_scope
    from askdocs.edge_runtime.search import hybrid_search

    if not query.strip():
        raise AskdocsError("the query is empty")
    if not 1 <= k <= 50:
        raise AskdocsError("-k must be between 1 and 50")
    corpus, embedder = load_corpus(str(shard_folder(site_or_index)), None)
    scope = make_scope(corpus, Reader.public())
    outcome = hybrid_search(scope, embedder, search_query_for(query, locale, scope), k)
    return {
        "query": query,
        "locale": outcome.locale,
        "requested_locale": outcome.requested_locale,
        "locale_fallback": outcome.locale_fallback,
        "retrievers": outcome.retrievers,
        "retriever_errors": outcome.errors,
        "index_version": corpus.version,
        "site_url": corpus.manifest.site_url,
        "results": [result_json(corpus, outcome, hit) for hit in outcome.hits],
    }


def format_results(response: dict) -> str:
    """Ranked results for a terminal: title › heading, the URL to open, the snippet."""
    base = (response.get("site_url") or "").rstrip("/")
    lines = []
    for rank, result in enumerate(response["results"], 1):
        title = result["title"]
        if result["heading"] and result["heading"] != title:
            title = f"{title} › {result['heading']}"
        lines += [f"{rank:>2}. {title}", f"    {base}{result['url']}", f"    {result['snippet']}", ""]
    if response["locale_fallback"]:
        lines.append(f"(no pages in {response['requested_locale']!r}; searched {response['locale']!r})")
    for name, error in sorted(response["retriever_errors"].items()):
        lines.append(f"({name} search failed: {error})")
    if not response["results"]:
        lines.append("no results")
    return "\n".join(lines).rstrip("\n") + "\n"


def chunk_records(folders: list[Path], *, vectors: bool = False) -> Iterator[dict]:
    """Every chunk of the given shard sets, in index order, as plain JSON-able records."""
    seen: set[str] = set()
    for folder in folders:
        shards = load_shards(folder)
        model = shards.manifest.model
        for i, chunk in enumerate(shards.chunks):
            page = shards.pages[chunk.page]
            chunk_id = chunk.hash if chunk.hash not in seen else f"{chunk.hash}-{i}"
            seen.add(chunk_id)
            record = {
                "id": chunk_id,
                "url": page.url + (f"#{chunk.anchor}" if chunk.anchor else ""),
                "page_url": page.url,
                "title": page.title,
                "headings": chunk.headings,
                "text": chunk_text(page, chunk),
                "locale": page.locale,
                "lastmod": chunk.lastmod,
                "kind": chunk.kind,
                "groups": page.groups,
            }
            if vectors:
                record["model"] = model["id"]
                record["model_sha256"] = model["sha256"]
                record["vector"] = shards.vectors[i].tolist()  # int8; the embedding ≈ vector * scale
                record["vector_scale"] = float(shards.scales[i])
            yield record


def export_jsonl(folders: list[Path], out: IO[str], *, vectors: bool = False) -> int:
    count = 0
    for record in chunk_records(folders, vectors=vectors):
        out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    return count
