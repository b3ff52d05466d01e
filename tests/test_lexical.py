"""Our Lunr indexes load unchanged in lunr.js and rank exactly as lunr.py does."""

from __future__ import annotations

import json
import subprocess

import pytest

from askdocs import lexical
from askdocs.lexical import LexicalDoc, build_index, load_index, query_tokens, search, search_terms
from tests.conftest import NODE_DIR, node_available

EN_DOCS = [
    LexicalDoc(
        "0", "Install", "System requirements", "Install the agent with --prefix /opt and check TFX-1042."
    ),
    LexicalDoc(
        "1", "Configuration", "Environment variables", "Set TALLYFOX_API_TOKEN before starting the agents."
    ),
    LexicalDoc(
        "2", "Networking", "Outbound proxy", "Route traffic through httpx.Client proxies on port 7431."
    ),
    LexicalDoc("3", "Plans", "How billing works", "Seats are billed every 30 days; invoices in USD."),
    LexicalDoc(
        "4", "Release notes", "3.1.0", "The default retention is now 30 days for running installations."
    ),
]
ES_DOCS = [
    LexicalDoc(
        "0",
        "Instalación",
        "Requisitos",
        "Instale el agente en servidores con 2 GB de memoria; error TFX-1042.",
    ),
    LexicalDoc(
        "1",
        "Configuración",
        "Variables de entorno",
        "Defina TALLYFOX_API_TOKEN antes de iniciar los agentes.",
    ),
    LexicalDoc(
        "2",
        "Redes",
        "Proxy de salida",
        "Las peticiones salientes usan el proxy configurado en el puerto 7431.",
    ),
    LexicalDoc(
        "3", "Planes", "Facturación", "Los asientos se facturan cada 30 días; las facturas llegan por correo."
    ),
]
QUERIES = {
    "en": [
        "install agent",
        "TFX-1042",
        "--prefix",
        "tallyfox_api_token",
        "proxies port 7431",
        "billing invoices",
        "retention days running",
        "nothing matches zebra",
        "the and of",
    ],
    "es": [
        "instalar agentes",
        "TFX-1042",
        "facturas correo",
        "peticiones salientes proxy",
        "variables de entorno",
        "memoria servidores",
        "cada 30 días",
    ],
}


def _python(serialized: dict, queries: list[list[str]]):
    index = load_index(serialized)
    return [[[ref, round(score, 6)] for ref, score, _ in search_terms(index, q, 100)] for q in queries]


def _node(tmp_path, serialized: dict, queries: list[list[str]]):
    index_file = tmp_path / "index.json"
    query_file = tmp_path / "queries.json"
    index_file.write_bytes(lexical.dumps(serialized))
    query_file.write_text(json.dumps(queries))
    output = subprocess.run(
        ["node", str(NODE_DIR / "lunr_query.js"), str(index_file), str(query_file)],
        capture_output=True,
        text=True,
        check=True,
        cwd=NODE_DIR,
    ).stdout
    return [[[ref, round(score, 6)] for ref, score in hits] for hits in json.loads(output)]


@pytest.mark.skipif(not node_available(), reason="needs node and tests/node/node_modules (npm install)")
@pytest.mark.parametrize("locale,docs", [("en", EN_DOCS), ("es", ES_DOCS)])
def test_lunr_js_loads_our_index_and_agrees(tmp_path, locale, docs):
    serialized = build_index(locale, docs)
    queries = [query_tokens(q) for q in QUERIES[locale]]
    python = _python(serialized, queries)
    node = _node(tmp_path, serialized, queries)
    assert node == python
    assert sum(1 for hits in python if hits) >= len(queries) - 2  # the queries do hit


@pytest.mark.skipif(not node_available(), reason="needs node and tests/node/node_modules (npm install)")
def test_parity_on_the_built_example_site(tmp_path, example_site):
    manifest = json.loads((example_site.shard_dir / "manifest.json").read_text())
    for entry in (f for f in manifest["files"] if f["role"] == "lunr"):
        serialized = json.loads((example_site.shard_dir / entry["path"]).read_text())
        words = {
            "en": ["install windows", "TALLYFOX_HTTPS_PROXY", "webhook signature", "retention"],
            "es": ["instalar windows", "firma webhook", "retención", "copias de seguridad"],
        }
        queries = [query_tokens(q) for q in words[entry["locale"]]]
        assert _node(tmp_path, serialized, queries) == _python(serialized, queries)


def test_spanish_pipeline_stems_and_drops_stop_words():
    terms = lexical.stem_terms("es", "Las facturas de los servidores")
    assert terms == {"factur", "servidor"}
    # Digits and identifiers survive (lunr-languages' trimmer would drop "1042").
    assert {"tfx", "1042"} <= lexical.stem_terms("es", "error TFX-1042")


def test_query_text_never_reaches_the_query_parser():
    index = load_index(build_index("en", EN_DOCS))
    for nasty in ["-prefix", "title:install", "install^10", "agent~2", "+required -excluded", "*", "(", ":"]:
        search(index, nasty)  # would raise QueryParseError through index.search()
    assert search(index, "   ") == []
    assert query_tokens("httpx.Client --max-batch") == ["httpx", "client", "max", "batch"]


def test_unknown_language_builds_unstemmed_index():
    serialized = build_index("ja", [LexicalDoc("0", "ページ", "見出し", "本文 テキスト")])
    assert serialized["pipeline"] == []
    assert [r for r, _, _ in search(load_index(serialized), "本文")] == ["0"]


def test_our_scorer_ranks_exactly_like_lunr_py(example_site):
    """The runtime's scorer against lunr.py itself, on the real index and real questions."""
    from pathlib import Path

    from askdocs.evaluation import load_questions
    from askdocs.lexical import load_lunr

    manifest = json.loads((example_site.shard_dir / "manifest.json").read_text())
    questions = load_questions(Path(__file__).parents[1] / "evals" / "site_example.jsonl")
    for entry in (f for f in manifest["files"] if f["role"] == "lunr"):
        serialized = json.loads((example_site.shard_dir / entry["path"]).read_text())
        ours, reference = load_index(serialized), load_lunr(serialized)
        for question in questions:
            terms = query_tokens(question.question)
            expected = search_terms(reference, terms, 1000)
            got = search_terms(ours, terms, 1000)
            assert {r: round(s, 9) for r, s, _ in got} == {r: round(s, 9) for r, s, _ in expected}
            assert [m for _, _, m in sorted(got)] == [m for _, _, m in sorted(expected)]
            scores = [s for _, s, _ in got]
            assert scores == sorted(scores, reverse=True)


def test_stemming_is_thread_safe():
    """The runtime stems from a thread pool; shared Snowball stemmers corrupt words."""
    from concurrent.futures import ThreadPoolExecutor

    words = [f"{w}{i}" for i in range(400) for w in ("instalaciones", "configurando", "peticiones",
                                                   "servidores", "facturación", "corriendo")]
    expected = [lexical.stem_terms("es", w) for w in words]

    def run(chunk):
        return [lexical.stem_terms("es", w) for w in chunk]

    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(run, [words] * 8))
    finally:
        sys.setswitchinterval(interval)
    assert all(result == expected for result in results)
