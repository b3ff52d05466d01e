"""One ONNX embedder for the build and the runtime (onnxruntime + tokenizers + numpy only)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from askdocs.models import ModelInfo, verify


class Embedder:
    """Sentence embeddings from a prepared int8 ONNX model.

    Each text is embedded on its own (batch of one): the int8 model quantises
    activations dynamically per input tensor, so batching texts together makes
    a text's vector depend on its batch-mates. One at a time, a chunk's vector
    is a pure function of its text, which keeps incremental builds identical to
    full ones.
    """

    def __init__(self, info: ModelInfo, *, threads: int = 1, check_sha: bool = True) -> None:
        if check_sha:
            verify(info)
        self.info = info
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(info.onnx_path), options, providers=["CPUExecutionProvider"])
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(info.tokenizer_path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=info.max_tokens)
        self._counter: Tokenizer | None = None  # build side only: loaded on first count

    @property
    def dim(self) -> int:
        return self.info.dim

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens of each text, special tokens excluded, without truncation."""
        if not texts:
            return []
        if self._counter is None:
            self._counter = Tokenizer.from_file(str(self.info.tokenizer_path))
            self._counter.no_padding()
            self._counter.no_truncation()
        encodings = self._counter.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def token_ids(self, text: str) -> list[int]:
        return self._tokenizer.encode(text).ids

    def _embed_one(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        if self.info.pooling == "cls":
            vector = hidden[0, 0]
        else:
            weights = mask[0].astype(np.float32)[:, None]
            vector = (hidden[0] * weights).sum(axis=0) / max(weights.sum(), 1.0)
        vector = vector.astype(np.float32)
        if self.info.normalize:
            vector /= max(float(np.linalg.norm(vector)), 1e-12)
        return vector

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
