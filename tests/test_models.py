"""The int8 ONNX embedding model: fidelity to fp32, tokenizer parity, metadata, clear errors."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from askdocs import models
from askdocs.embedder import Embedder, quantize
from askdocs.errors import ModelNotFound

SENTENCES = [
    "How do I install the agent on Windows?",
    "The default retention for raw samples is now 30 days.",
    "Set TALLYFOX_HTTPS_PROXY to route outbound traffic through a corporate proxy.",
    "Webhook requests carry an X-Tallyfox-Signature header.",
    "with httpx.Client() as client: r = client.get('https://example.com')",
    "Timeouts can be configured on the client or per request.",
    "¿Cómo instalo el agente en Windows?",
    "What are your monthly fees?",
    "Plans are billed every 30 days per seat.",
    "Error TFX-1042: the data directory is not writable.",
    "Use --grace 0 to invalidate the old token immediately.",
    "FastAPI validates request bodies with Pydantic models.",
    "CORS middleware lets a frontend on another origin call your API.",
    "Backups are single .tfxb archives holding samples, tokens and settings.",
    "The server needs at least 2 GB of RAM and 20 GB of SSD.",
    "A",
    "",
    "Streaming responses: iterate over response.iter_bytes() to avoid loading everything.",
    "Les réponses sont diffusées en continu au client.",
    "日本語のテキストもトークン化できます。",
]


def _fp32_vectors(onnx_path, info, texts):
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(info.tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(info.max_tokens)
    names = {i.name for i in session.get_inputs()}
    out = []
    for text in texts:
        encoding = tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0][0]
        vector = (hidden * mask[0][:, None]).sum(0) / mask.sum()
        out.append(vector / np.linalg.norm(vector))
    return np.array(out)


@pytest.mark.slow
def test_int8_matches_fp32(tmp_path, model_info):
    fp32 = models.export_fp32(models.DEFAULT_MODEL, tmp_path / "fp32")
    reference = _fp32_vectors(fp32, model_info, SENTENCES)
    embedder = Embedder(model_info)
    int8 = embedder.embed_passages(SENTENCES)
    cosines = (reference * int8).sum(axis=1)
    assert cosines.min() >= 0.975, cosines  # 0.979 for the worst sentence with this export
    assert cosines.mean() >= 0.99
    # Storing vectors as int8 changes nothing that matters for ranking.
    q, scales = quantize(int8)
    restored = q.astype(np.float32) * scales[:, None]
    assert ((restored / np.linalg.norm(restored, axis=1, keepdims=True)) * int8).sum(1).min() > 0.999


def test_token_ids_match_the_reference_tokenizer(model_info):
    transformers = pytest.importorskip("transformers")
    source = models.KNOWN_MODELS[models.DEFAULT_MODEL].offline_source()
    reference = transformers.AutoTokenizer.from_pretrained(str(source))
    embedder = Embedder(model_info)
    long_text = " ".join(["tokenization"] * 400)
    for text in [*SENTENCES, long_text]:
        expected = reference(text, truncation=True, max_length=model_info.max_tokens)["input_ids"]
        assert embedder.token_ids(text) == expected, text


def test_metadata_sha_matches_the_file(model_info):
    assert models.sha256_file(model_info.onnx_path) == model_info.sha256
    assert model_info.dim == 384 and model_info.quantization == "int8-dynamic-per-channel"
    assert model_info.max_tokens == 256 and model_info.pooling == "mean"
    assert models.locate("default").sha256 == model_info.sha256


def test_prepare_is_idempotent(model_info, monkeypatch):
    def explode(*args, **kwargs):
        raise AssertionError("should not export again")

    monkeypatch.setattr(models, "_source_folder", explode)
    assert models.prepare(models.DEFAULT_MODEL, log=lambda m: None).sha256 == model_info.sha256


def test_missing_model_names_the_command(tmp_path, monkeypatch):
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path))
    with pytest.raises(ModelNotFound, match="askdocs model prepare"):
        models.locate(models.DEFAULT_MODEL)


def test_corrupt_model_is_detected(tmp_path, model_info):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(model_info.path, copy)
    data = bytearray((copy / "model.onnx").read_bytes())
    data[-100] ^= 0xFF
    (copy / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelNotFound, match="corrupt"):
        Embedder(models.ModelInfo.load(copy))


@pytest.mark.slow
def test_export_is_reproducible(tmp_path, monkeypatch, model_info):
    monkeypatch.setenv("ASKDOCS_HOME", str(tmp_path / "home"))
    again = models.prepare(models.DEFAULT_MODEL, log=lambda m: None)
    assert again.sha256 == model_info.sha256
    assert again.path != model_info.path


def test_auto_model_choice():
    assert models.choose_models("auto", {"en"}) == {"en": models.DEFAULT_MODEL}
    assert models.choose_models("auto", {"en", "es"}) == {
        "en": models.DEFAULT_MODEL,
        "es": models.MULTILINGUAL_MODEL,
    }
    assert models.choose_models("auto", {"de"}) == {"de": models.MULTILINGUAL_MODEL}
    assert models.choose_models("my/model", {"es", "en"}) == {"en": "my/model", "es": "my/model"}


def test_a_passage_ranked_on_the_fly_scores_as_its_stored_vector_whatever_its_company(
    model_info, monkeypatch
):
    """`similarity` (an answer's sentences against the question) embeds each passage on its own:
    its cosine is the one its stored vector would give, the same alone or beside any others (in
    padded batches it moved by up to 0.05 with its batch-mates), and the vectors it keeps are
    bounded."""
    from askdocs import embedder as module

    embedder = Embedder(model_info)
    query = embedder.embed_queries(["how do I rotate the API token?"])[0]
    target = "Rotate the token with `tallyfox token rotate`; the old one stops working at once."
    others = [
        "A very long sentence about backups, retention windows and the storage quotas of every plan " * 3,
        "Short.",
        "| Plan | Seats |\n| Team | 10 |",
    ]
    stored = float(embedder.embed_passages([target])[0] @ query)
    alone = embedder.similarity(query, [target])[0]
    among = embedder.similarity(query, [*others, target, *others])[len(others)]
    assert alone == pytest.approx(stored, abs=1e-6) and among == pytest.approx(stored, abs=1e-6)
    assert embedder.similarity(query, []).shape == (0,)

    monkeypatch.setattr(module, "PASSAGE_CACHE", 3)
    fresh = Embedder(model_info)
    fresh.similarity(query, [f"sentence number {i}" for i in range(10)])
    assert len(fresh._passages) == 3
