"""The live index and its reloads.

`IndexHolder.state` is one immutable `Live` (corpus + query embedder). A
reload builds a complete new `Live` off to the side and replaces the
reference in one assignment; a request reads `holder.state` once and uses
that object throughout, so it never mixes two index versions. A reload that
fails keeps the old index, and says so in the log, /healthz and metrics.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from askdocs.edge_runtime.corpus import Corpus, load_corpus
from askdocs.edge_runtime.embedding import QueryEmbedder

from askdocs.remote import is_url
from askdocs.shards import MANIFEST

log = logging.getLogger("askdocs.runtime")


@dataclass(frozen=True)
class Live:
    corpus: Corpus
    embedder: QueryEmbedder
    fingerprint: str
    loaded_at: float


def _manifest_bytes(source: str) -> bytes:
    if is_url(source):
        response = httpx.get(source.rstrip("/") + "/" + MANIFEST, timeout=30, follow_redirects=True)
        response.raise_for_status()
        return response.content
    return (Path(source) / MANIFEST).read_bytes()


def fingerprint(index: str, private: str | None) -> str:
    digest = hashlib.sha256()
    for source in (index, private):
        if source:
            digest.update(_manifest_bytes(source))
    return digest.hexdigest()


class IndexHolder:
    def __init__(self, index: str, private: str | None) -> None:
        self.index = index
        self.private = private
        self._lock = threading.Lock()
        self.last_error: str | None = None
        self.last_check: float | None = None
        self.reloads = 0
        stamp = fingerprint(index, private)
        corpus, embedder = load_corpus(index, private)
        self.state = Live(corpus, QueryEmbedder(embedder), stamp, time.time())

    def check(self) -> bool:
        """Reload if a manifest changed. Returns True when a new index went live."""
        with self._lock:
            self.last_check = time.time()
            try:
                stamp = fingerprint(self.index, self.private)
                if stamp == self.state.fingerprint:
                    return False
                current = self.state
                corpus, embedder = load_corpus(self.index, self.private, embedder=current.embedder.embedder)
                query_embedder = (
                    current.embedder if embedder is current.embedder.embedder else QueryEmbedder(embedder)
                )
                self.state = Live(corpus, query_embedder, stamp, time.time())
                self.reloads += 1
                self.last_error = None
                log.info("index reloaded: now %s (was %s)", corpus.version, current.corpus.version)
                return True
            except Exception as exc:
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error(
                    "index reload failed, still serving %s: %s", self.state.corpus.version, self.last_error
                )
                raise
