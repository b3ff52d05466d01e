"""The live index and its reloads.

`IndexHolder.state` is one immutable `Live` (corpus + query embedder). A
reload builds a complete new `Live` off to the side and replaces the
reference in one assignment; a request reads `holder.state` once and uses
that object throughout, so it never mixes two index versions. A reload that
fails keeps the old index, and says so in the log, /healthz and metrics.

The index is a shard folder or URL (a changed manifest is a new index), or a
release channel's pointer (`.../current.json`, see `askdocs.releases`): then
a new release id is a new index, and a replica whose origin is unreachable at
start-up serves the last release it verified, saying so.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from askdocs.edge_runtime.corpus import Corpus, load_corpus
from askdocs.edge_runtime.embedding import QueryEmbedder

from askdocs.errors import ShardError
from askdocs.releases import (
    Pointer,
    PointerReader,
    channel_base,
    is_pointer,
    recall,
    release_source,
    remember,
)
from askdocs.remote import is_url, materialize
from askdocs.shards import MANIFEST

log = logging.getLogger("askdocs.runtime")


@dataclass(frozen=True)
class Live:
    corpus: Corpus
    embedder: QueryEmbedder
    fingerprint: str
    loaded_at: float
    release: str | None = None


def _manifest_bytes(source: str) -> bytes:
    if is_url(source):
        response = httpx.get(source.rstrip("/") + "/" + MANIFEST, timeout=30, follow_redirects=True)
        response.raise_for_status()
        return response.content
    return (Path(source) / MANIFEST).read_bytes()


def _files_stat(folder: Path, manifest: bytes) -> bytes:
    """Size and mtime of every file a local manifest lists: an edit in place changes the stamp.

    The runtime serves from memory it owns (`askdocs.shards`), so such an edit cannot change
    results or crash it; the changed stamp makes the next check try a reload, whose sha256
    check fails and is reported while the old index keeps serving.
    """
    try:
        files = [entry["path"] for entry in json.loads(manifest)["files"]]
    except (ValueError, KeyError, TypeError):
        return b""  # an unreadable manifest: the reload itself says what is wrong
    stamps = []
    for name in files:
        try:
            stat = (folder / str(name)).stat()
            stamps.append(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}")
        except OSError:
            stamps.append(f"{name}\0missing")
    return "\n".join(stamps).encode()


def fingerprint(index: str, private: str | None) -> str:
    digest = hashlib.sha256()
    for source in (index, private):
        if source:
            manifest = _manifest_bytes(source)
            digest.update(manifest)
            if not is_url(source):
                digest.update(_files_stat(Path(source), manifest))
    return digest.hexdigest()


class IndexHolder:
    def __init__(self, index: str, private: str | None) -> None:
        self.index = index
        self.private = private
        self._lock = threading.Lock()
        self.last_error: str | None = None
        self.last_check: float | None = None
        self.reloads = 0
        self.channel = PointerReader(index) if is_pointer(index) else None
        self.release_from: str | None = None  # "origin" | "local-cache" (channels only)
        self.origin_error: str | None = None
        if self.channel is None:
            stamp = fingerprint(index, private)
            corpus, embedder = load_corpus(index, private)
            self.state = Live(corpus, embedder, stamp, time.time())
        else:
            self.state = self._start_from_channel()

    def check(self) -> bool:
        """Reload if the index changed. Returns True when a new index went live."""
        with self._lock:
            self.last_check = time.time()
            try:
                return self._check_channel() if self.channel is not None else self._check_folder()
            except Exception as exc:
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error(
                    "index reload failed, still serving %s: %s", self.state.corpus.version, self.last_error
                )
                raise

    def _check_folder(self) -> bool:
        stamp = fingerprint(self.index, self.private)
        if stamp == self.state.fingerprint:
            return False
        current = self.state
        corpus, embedder = load_corpus(self.index, self.private, reuse=current.embedder)
        self._go_live(Live(corpus, embedder, stamp, time.time()))
        return True

    def _check_channel(self) -> bool:
        assert self.channel is not None
        try:
            pointer = self.channel.read()
        except ShardError as exc:
            self.origin_error = str(exc)
            raise
        self.origin_error = None
        if pointer is None:
            if self.release_from == "local-cache":
                log.info("origin reachable again; release %s is still current", self.state.release)
            self.release_from = "origin"
            self.last_error = None
            return False
        self._go_live(self._load_release(pointer, self.state.embedder))
        self.release_from = "origin"
        return True

    def _go_live(self, live: Live) -> None:
        current = self.state
        self.state = live
        self.reloads += 1
        self.last_error = None
        log.info(
            "index reloaded: now %s%s (was %s)",
            live.corpus.version,
            f" (release {live.release})" if live.release else "",
            current.corpus.version,
        )

    def _load_release(self, pointer: Pointer, embedder: QueryEmbedder | None) -> Live:
        """Download (if remote) and verify a whole release, public and private, before it goes live."""
        assert self.channel is not None
        public = materialize(release_source(channel_base(self.index), pointer.release))
        private = materialize(release_source(self.private, pointer.release)) if self.private else None
        corpus, embedder = load_corpus(str(public), str(private) if private else None, reuse=embedder)
        try:
            remember(self.index, pointer.release, public, private)
        except OSError as exc:  # the memo only speeds a start when the origin is down: serve, say so
            log.warning(
                "could not record release %s in the cache (%s): a start with the origin down "
                "will not find it",
                pointer.release,
                exc,
            )
        self.channel.accept(pointer)
        return Live(corpus, embedder, "release:" + pointer.release, time.time(), pointer.release)

    def _start_from_channel(self) -> Live:
        assert self.channel is not None
        try:
            pointer = self.channel.read()
            assert pointer is not None  # the first read always returns the pointer
            live = self._load_release(pointer, None)
            self.release_from = "origin"
            return live
        except ShardError as exc:
            memo = recall(self.index)
            if memo is None:
                raise ShardError(
                    f"{exc} (and this machine has no earlier verified release of {self.index} to start from)"
                ) from exc
            self.origin_error = str(exc)
            self.release_from = "local-cache"
            log.warning(
                "release channel unreachable (%s); serving release %s from the local cache",
                exc,
                memo["release"],
            )
            corpus, embedder = load_corpus(memo["public"], memo["private"])  # verifies every sha256 again
            self.channel.accept(Pointer(memo["release"], None))
            return Live(corpus, embedder, "release:" + memo["release"], time.time(), memo["release"])

    def release_health(self) -> dict | None:
        if self.channel is None:
            return None
        return {
            "id": self.state.release,
            "from": self.release_from,
            "origin_error": self.origin_error,
        }
