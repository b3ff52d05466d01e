"""One ONNX embedder for the build and the runtime (onnxruntime + tokenizers + numpy only)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from askdocs.models import ModelInfo, verify

# Passage vectors `Embedder.similarity` keeps (1.5 KB each for a 384-dimension model: 6 MB).
PASSAGE_CACHE = 4096


class Embedder:
    """Sentence embeddings from a prepared int8 ONNX model.

    Each text is embedded on its own (batch of one): the int8 model quantises
    activations dynamically per input tensor, so batching texts together makes
    a text's vector depend on its batch-mates. One at a time, a chunk's vector
    is a pure function of its text, which keeps incremental builds identical to
    full ones.
    """

    def __init__(
        self,
        info: ModelInfo,
        *,
        threads: int = 1,
        check_sha: bool = True,
        reuse_check: bool = False,
        spinning: bool = False,
        lazy_tokenizer: bool = False,
    ) -> None:
        if check_sha:
            verify(info, reuse=reuse_check)
        self.info = info
        self.threads = threads
        # Whether the session's worker threads (threads > 1) spin between the model's operators
        # instead of sleeping: a build's embedding loop, alone on the machine, runs ~30 % faster
        # with two threads; a server's threads would spin against each other on a busy host.
        self.spinning = spinning
        self._session: ort.InferenceSession | None = None  # loaded on first use
        self._background: threading.Thread | None = None  # load_in_background's
        self._lock = threading.Lock()
        # At most this many model runs at once. Each concurrent run makes ONNX Runtime's memory
        # arena grow by its activations, and the arena never shrinks: 20 readers at once took a
        # server from 550 MB to 1.3 GB, and it kept climbing. More runs than cores buys no speed.
        self._runs = threading.BoundedSemaphore(max(1, min(4, os.cpu_count() or 1)))
        # A build loads it when a page is chunked or a text embedded: a rebuild that changed only
        # English pages never reads the multilingual model's 17 MB tokenizer.
        self._loaded_tokenizer: Tokenizer | None = None
        self._tokenizer_lock = threading.Lock()
        self._passages: OrderedDict[str, np.ndarray] = OrderedDict()  # `similarity`'s, bounded
        self._cache_lock = threading.Lock()
        if not lazy_tokenizer:
            self._tokenizer  # noqa: B018 (loads it now)

    @property
    def _tokenizer(self) -> Tokenizer:
        if self._loaded_tokenizer is None:
            with self._tokenizer_lock:
                if self._loaded_tokenizer is None:
                    tokenizer = Tokenizer.from_file(str(self.info.tokenizer_path))
                    tokenizer.no_padding()
                    tokenizer.enable_truncation(max_length=self.info.max_tokens)
                    self._loaded_tokenizer = tokenizer
        return self._loaded_tokenizer

    @property
    def session(self) -> ort.InferenceSession:
        """The ONNX session, created on first use (a build that reuses every vector
        never loads it)."""
        if self._session is None:
            with self._lock:
                if self._session is None:
                    options = ort.SessionOptions()
                    options.intra_op_num_threads = self.threads
                    options.inter_op_num_threads = 1
                    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                    options.log_severity_level = 3
                    spin = "1" if self.spinning else "0"
                    options.add_session_config_entry("session.intra_op.allow_spinning", spin)
                    self._session = ort.InferenceSession(
                        str(self.info.onnx_path), options, providers=["CPUExecutionProvider"]
                    )
                    self._input_names = {i.name for i in self._session.get_inputs()}
        return self._session

    def load_in_background(self) -> None:
        """Start loading the tokenizer and the session on a thread of their own: a build that
        will embed overlaps the session's load (onnxruntime releases the GIL while it builds the
        session; the tokenizer's load holds it, measured: about 30 ms here) with its other work.
        Whoever needs them first waits on the same locks; a load that fails there is not
        reported here but raised by the first use, which loads again."""
        if self._session is not None or self._background is not None:
            return

        def load() -> None:
            try:
                self._tokenizer  # noqa: B018
                self.session  # noqa: B018
            except Exception:  # noqa: BLE001 (raised again, where it is used)
                pass

        self._background = threading.Thread(target=load, name="askdocs-model-load", daemon=True)
        self._background.start()

    def wait_loaded(self) -> None:
        """Wait for `load_in_background`'s thread, if one was started (no load outlives a build)."""
        if self._background is not None:
            self._background.join()

    @property
    def dim(self) -> int:
        return self.info.dim

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens of each text, special tokens excluded, without truncation
        (what truncation cut off comes back as `overflowing`)."""
        # One text at a time: a page's few pieces are too little work for the tokenizer's
        # thread pool, whose threads then spin and wake between the build's calls.
        encodings = [self._tokenizer.encode(text, add_special_tokens=False) for text in texts]
        return [len(e.ids) + sum(len(o.ids) for o in e.overflowing) for e in encodings]

    def token_ids(self, text: str) -> list[int]:
        return self._tokenizer.encode(text).ids

    def similarity(self, query: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """Cosine of a query vector with passages ranked on the fly (an answer's sentences).

        Each passage is embedded on its own, as stored vectors are: in padded batches of 32 a
        passage's cosine moved by up to 0.05 with its batch-mates (the int8 model quantises
        activations per input tensor), and the padding cost more than the batching saved (60
        sentences of an answer: 0.39-0.59 s in batches, 0.21-0.25 s one at a time). The last
        `PASSAGE_CACHE` passages' vectors are kept: the same sections answer many questions."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        return np.stack([self._passage(t) for t in texts]) @ query

    def _passage(self, text: str) -> np.ndarray:
        with self._cache_lock:
            vector = self._passages.get(text)
            if vector is not None:
                self._passages.move_to_end(text)
                return vector
        vector = self._embed_one(self.info.passage_prefix + text)
        vector.setflags(write=False)
        with self._cache_lock:
            self._passages[text] = vector
            while len(self._passages) > PASSAGE_CACHE:
                self._passages.popitem(last=False)
        return vector

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        session = self.session
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._runs:
            return session.run(None, feeds)[0]

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.info.pooling == "cls":
            vectors = hidden[:, 0]
        else:
            weights = mask.astype(np.float32)[:, :, None]
            vectors = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        vectors = vectors.astype(np.float32)
        if self.info.normalize:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def _embed_one(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask], dtype=np.int64)
        return self._pool(self._run(ids, mask), mask)[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.info.query_prefix + t for t in texts])

    def embed_passages(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        return self._embed([self.info.passage_prefix + t for t in texts], progress)

    def _embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._embed_one(text)
            if progress is not None:
                progress(1)
        return out


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-vector int8 quantisation: v ≈ q * scale."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return q, scales
