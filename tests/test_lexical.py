"""Our Lunr indexes load unchanged in lunr.js and rank exactly as lunr.py does."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from askdocs import lexical
from askdocs.lexical import (
    LexicalDoc,
    PostingsScorer,
    bm25_postings,
    build_index,
    contextual_text,
    load_index,
    query_tokens,
    search,
    search_terms,
)
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


# --- The fast index build against lunr.py's Builder (byte-identical serialisations) ---


def _site_lexical_docs(shard_dir) -> dict[str, list[LexicalDoc]]:
    """A built shard set's LexicalDocs per locale, made as plugin/builder.py's `_write` makes them."""
    from askdocs.plugin.extract import strip_links

    from askdocs.shards import ChunkRecord, PageRecord, chunk_text, read_manifest

    manifest = read_manifest(shard_dir)

    def parts(role):
        files = manifest.files_with(role)
        return [row for f in files for row in json.loads((shard_dir / f.path).read_text())]

    pages = [PageRecord.from_json(p) for p in parts("pages")]
    chunks = [ChunkRecord.from_json(c) for c in parts("chunks")]
    docs: dict[str, list[LexicalDoc]] = {}
    for i, c in enumerate(chunks):
        page = pages[c.page]
        docs.setdefault(page.locale, []).append(
            LexicalDoc(str(i), page.title, " ".join(c.headings), strip_links(chunk_text(page, c)))
        )
    return docs


def _assert_same_as_lunr_py(locale: str, docs: list[LexicalDoc]) -> bytes:
    fast = lexical.index_json(locale, docs)
    reference = lexical.dumps(lexical._build_index_reference(locale, docs))
    assert fast == reference
    assert lexical.dumps(build_index(locale, docs)) == reference
    return fast


def test_fast_build_is_byte_identical_to_lunr_py_on_the_example_site(example_site):
    shard_dirs = [example_site.shard_dir]
    if (example_site.private_dir / "manifest.json").is_file():
        shard_dirs.append(example_site.private_dir)
    seen, indexed = set(), 0
    for shard_dir in shard_dirs:
        manifest = json.loads((shard_dir / "manifest.json").read_text())
        lunr_files = [f for f in manifest["files"] if f["role"] == "lunr"]
        stored = {f["locale"]: (shard_dir / f["path"]).read_bytes() for f in lunr_files}
        docs = _site_lexical_docs(shard_dir)
        assert set(docs) == set(stored)
        for locale, locale_docs in docs.items():
            indexed += len(locale_docs)
            serialized = _assert_same_as_lunr_py(locale, locale_docs)
            assert serialized == stored[locale]  # the docs above are the ones the build indexed
            seen.add(locale)
    assert seen == {"en", "es"}
    assert indexed > 20


EDGE_DOCS = [
    LexicalDoc("0", "", "", ""),
    LexicalDoc("1", "Only a title", "", ""),
    LexicalDoc("2", "", "", "Only a body, body, BODY and body again: body body."),
    LexicalDoc("3", "!!! ... ???", "--- - -- ---", "___ _ __init__ -_- _-_ ;;; :: // \\\\ ''' \"\" `` ~ #"),
    LexicalDoc("4", "Café Ünïcödé", "ΑΣ.Β ΣΑΣ ΟΔΟΣ", "İstanbul ﬁle straße ǅemal Ⅻ ½ ² ①"),
    LexicalDoc("5", "日本語のテキスト", "中文 标题", "한국어 본문, 日本語のテキスト。全角　スペース"),
    LexicalDoc("6", "x" * 5000, "y" * 301 + "_" + "z" * 300, "a" * 20000 + " " + "b-" * 2000),
    LexicalDoc("7", "agent agent agent", "agents agent agent's", " ".join(["agent"] * 500 + ["agents"] * 3)),
    LexicalDoc("8", "well-known re-run", "--prefix -x --max-batch-size", "e-mail co-operate x-y-z - -- a--b"),
    LexicalDoc("9", "3.1.0 7431", "1e-9 0x1F 10,000", "HTTP 404 TFX-1042 2024-01-31 v2 ipv4 3rd 1st 42"),
    LexicalDoc("10", "__init__ _private", "TALLYFOX_API_TOKEN", "snake_case_name ___ _x_ a_b-c_d __"),
    LexicalDoc("11", "The and of", "a to in is it", "the and of a to in is it be by for on or with that"),
    LexicalDoc("12", "tab\there", "new\nline\r\ncr", "ff\fvt\vnbsp\xa0thin\u2009ideo\u3000em\u2003nl\u2028x"),
    LexicalDoc("13", "Agent's \"quoted\" (paren) [x]", "httpx.AsyncClient", "path/to/file.py a.b.c @at #"),
    LexicalDoc("14", "Instalación de los servidores", "¿Qué días?", "ñandú pingüino acción Éxito ÁRBOL"),
    LexicalDoc("15", "Установка агента", "Настройки", "серверы сервер сервера — и в на"),
    LexicalDoc("16", "Emoji 🙂 rocket🚀launch", "🙂", "a🙂b 👍🏽 ❤️ \u200b zero\u200bwidth soft\u00adhyphen"),
    LexicalDoc("17", " ", "   ", "\n\n\t "),
]
ES_EDGE_DOCS = [
    LexicalDoc("0", "Instalación", "Requisitos", "Instale el agente; ¿Qué días? ñandú, pingüino, acción."),
    LexicalDoc("1", "de la que el en y", "los las del se", "a de en la que el y los del se las por un para"),
    LexicalDoc("2", "", "", ""),
    LexicalDoc("3", "Facturación", "Facturas-mensuales", "facturas facturar facturación FACTURADO fact_id"),
    LexicalDoc("4", "ÁRBOL Árbol árbol", "MAYÚSCULAS", "¡Hola! «comillas» —raya— ¿pregunta? 2,5 GB 30 días"),
    LexicalDoc("5", "日本語", "Ελληνικά", "Ünïcödé " + "á" * 3000),
]
JA_EDGE_DOCS = [
    LexicalDoc("0", "ページ", "見出し", "本文 テキスト"),
    LexicalDoc("1", "インストール手順", "要件", "サーバーに エージェントを インストールします。ポート 7431"),
    LexicalDoc("2", "", "", "___ --- 本文"),
    LexicalDoc("3", "English words too", "the and of", "TALLYFOX_API_TOKEN httpx.Client 本文 本文"),
]


@pytest.mark.parametrize(
    "locale,docs",
    [
        ("en", EDGE_DOCS),
        ("en", EN_DOCS),
        ("en", [LexicalDoc("0", "The", "and", "of the a")]),  # every word a stop word
        ("en", [LexicalDoc("0", "", "", "")]),  # nothing at all to index
        ("en", [LexicalDoc("0", "The", "", "of"), LexicalDoc("1", "", "and", "x")]),  # a field of stop words
        ("en", [LexicalDoc("7", "Solo", "", "one"), LexicalDoc("7", "Again", "x", "two")]),  # repeated ref
        ("es", ES_EDGE_DOCS),
        ("es", ES_DOCS),
        ("es", EDGE_DOCS),
        ("ja", JA_EDGE_DOCS),
        ("ja", EDGE_DOCS),
        ("ru", EDGE_DOCS),
        ("de", EDGE_DOCS),
    ],
)
def test_fast_build_is_byte_identical_to_lunr_py_on_edge_cases(locale, docs):
    _assert_same_as_lunr_py(locale, docs)


def test_fast_build_is_byte_identical_to_lunr_py_on_random_text():
    import random

    rng = random.Random(1042)
    alphabet = list("abcdefghijklmnopqrstuvwxyz0123456789_-.,;:!?'\"()/ \t\nÁéíñüçßΣσςİı日本語ü") + [
        "\xa0", "\u3000", "\u2003", "the ", " and ", " de ", " los ", "agent", "facturación", "--", "__",
    ]  # fmt: skip

    def text(n):
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))

    for locale in ("en", "es", "ja"):
        docs = [LexicalDoc(str(i), text(20), text(60), text(600)) for i in range(150)]
        _assert_same_as_lunr_py(locale, docs)


def test_fast_build_without_documents_fails_like_lunr_py():
    with pytest.raises(ZeroDivisionError):
        lexical._build_index_reference("en", [])
    with pytest.raises(ZeroDivisionError):
        build_index("en", [])


def test_runtime_postings_are_bm25_over_the_contextual_chunks(example_site):
    """The build's postings files are BM25 over each chunk with its page title and heading
    path, for the same chunks as the Lunr JSON next to them (which lunr.js loads)."""
    from askdocs.plugin.extract import strip_links

    from askdocs.lexical import Postings, bm25_postings, contextual_text
    from askdocs.shards import chunk_text, load_shards

    shards = load_shards(example_site.shard_dir)
    assert set(shards.postings) == {"en", "es"}
    manifest = json.loads((example_site.shard_dir / "manifest.json").read_text())
    for entry in (f for f in manifest["files"] if f["role"] == "lunr"):
        locale = entry["locale"]
        serialized = json.loads((example_site.shard_dir / entry["path"]).read_text())
        stored = shards.postings[locale]
        assert stored.refs == Postings.from_lunr(serialized).refs  # the same chunks, in order
        docs = []
        for ref in stored.refs:
            chunk = shards.chunks[int(ref)]
            page = shards.pages[chunk.page]
            body = chunk_text(page, chunk)
            body = body.partition("\n\n")[2] if chunk.kind == "faq" else strip_links(body)  # FAQ: Q › A
            docs.append((ref, contextual_text(page.title, chunk.headings, body)))
        fresh = bm25_postings(locale, docs)
        assert fresh.terms == stored.terms
        assert np.array_equal(fresh.docs, stored.docs) and np.allclose(fresh.weights, stored.weights)
        assert not stored.docs.flags.writeable  # parsed from the checked bytes, read-only


def test_bm25_over_contextual_chunks_finds_a_section_by_its_heading_path():
    """The runtime's lexical index: a passage is found by words only its page title and
    heading path hold ("Register an endpoint" over a body that is only a command)."""
    docs = [
        ("0", contextual_text("Webhooks", ["Register an endpoint"], "Run `tallyfox webhook add --url URL`.")),
        ("1", contextual_text("Networking", ["Proxy"], "Set HTTPS_PROXY so the endpoint is reached.")),
        ("2", contextual_text("Webhooks", ["Payload"], "The body is JSON.")),
    ]
    scorer = PostingsScorer(bm25_postings("en", docs))
    assert [ref for ref, _, _ in search(scorer, "how do I register an endpoint")][0] == "0"
    # Okapi BM25: a term in fewer documents weighs more; the same term again adds less and less.
    assert scorer.idf("regist") > scorer.idf("webhook") > 0
    assert scorer.idf("nosuchterm") == 0.0
    positions = [0, 1, 2]
    assert (scorer.weights_for("webhook", positions) > 0).tolist() == [True, False, True]


def test_fast_build_is_byte_identical_to_lunr_py_when_refs_repeat():
    """A repeated ref overwrites its field vectors but keeps its first place, as lunr.py's Builder does."""
    import random

    rng = random.Random(3)
    words = str.split("gizmo queue retry timeout backoff install windows proxy webhook token rotate")

    def text(k: int) -> str:
        return " ".join(rng.choices(words, k=k))

    for _ in range(10):
        refs = [str(rng.randint(0, 8)) for _ in range(15)]
        docs = [LexicalDoc(ref, text(3), text(4), text(rng.randint(0, 30))) for ref in refs]
        for locale in ("en", "es"):
            _assert_same_as_lunr_py(locale, docs)


# --- Written a bucket at a time: the same bytes as built in memory ---


def _bm25_reference(locale: str, docs) -> lexical.Postings:
    """`bm25_postings` as first written, every posting in memory: what the writer must equal."""
    import math
    from collections import Counter
    from itertools import chain

    pipeline = lexical.pipeline_for(locale)
    terms_of = lexical.TermCache(locale).__getitem__
    refs, sizes, by_term = [], [], {}
    for doc, (ref, text) in enumerate(docs):
        words = lexical._LUNR_TOKEN.findall(lexical.lexical_text(text).lower())
        refs.append(str(ref))
        tf = Counter(chain.from_iterable(map(terms_of, words)))
        sizes.append(sum(tf.values()))
        for term, freq in tf.items():
            by_term.setdefault(term, []).extend((doc, freq))
    lengths = np.array(sizes, dtype=np.float64)
    average = float(lengths.mean()) if len(lengths) and lengths.mean() > 0 else 1.0
    terms, offsets, docs_out, weights = [], [0], [], []
    for term in sorted(by_term):
        entries = by_term[term]
        held = len(entries) // 2
        idf = math.log(1 + (len(refs) - held + 0.5) / (held + 0.5))
        terms.append(term)
        for at in range(0, len(entries), 2):
            doc, freq = entries[at], entries[at + 1]
            norm = freq + lexical.BM25_K1 * (1 - lexical.BM25_B + lexical.BM25_B * lengths[doc] / average)
            docs_out.append(doc)
            weights.append(idf * freq * (lexical.BM25_K1 + 1) / norm)
        offsets.append(len(docs_out))
    return lexical.Postings(terms, np.asarray(offsets, dtype=np.int64), np.array(docs_out, dtype=np.int32),
                            np.array(weights, dtype=np.float64), refs, [f.label for f in pipeline.search_fns])


@pytest.fixture
def tiny_buckets(monkeypatch):
    """Blocks of a few rows and buckets of a few postings: every path of the on-disk sort runs."""
    from askdocs import spill

    monkeypatch.setattr(spill, "BLOCK_ROWS", 5)
    monkeypatch.setattr(spill, "BLOCK_RECORDS", 3)
    monkeypatch.setattr(spill, "MAX_OPEN", 5)  # dozens of buckets: distributed in two steps
    monkeypatch.setattr(lexical, "_POSTINGS_PER_BUCKET", 7)
    monkeypatch.setattr(lexical, "_WORK_ROWS", 4)


def _random_docs(seed: int, count: int) -> list[LexicalDoc]:
    import random

    rng = random.Random(seed)
    words = str.split("gizmo queue retry timeout backoff install windows proxy webhook the and de los")
    words += ["Ünïcödé", "agent's", "x" * 40, "TFX-1042", "facturación", '"quoted"', "back\\slash", "日本語"]

    def text(k: int) -> str:
        return " ".join(rng.choices(words, k=k)) + f" n{rng.randint(0, 10**6)}"

    return [
        LexicalDoc(str(i), text(3), text(rng.randint(0, 5)), text(rng.randint(0, 60))) for i in range(count)
    ]


@pytest.mark.parametrize("on_disk", [False, True], ids=["default", "tiny-buckets"])
def test_lunr_and_bm25_written_in_buckets_equal_the_in_memory_builds(on_disk, request):
    if on_disk:
        request.getfixturevalue("tiny_buckets")
    for locale, docs in [("en", _random_docs(1, 120)), ("es", _random_docs(2, 80)), ("en", EDGE_DOCS),
                         ("ja", JA_EDGE_DOCS)]:  # fmt: skip
        _assert_same_as_lunr_py(locale, docs)
        texts = [(d.ref, contextual_text(d.title, [d.headings], d.body)) for d in docs]
        written, reference = bm25_postings(locale, texts), _bm25_reference(locale, texts)
        assert written.terms == reference.terms and written.refs == reference.refs
        assert written.pipeline == reference.pipeline
        assert np.array_equal(written.offsets, reference.offsets)
        assert np.array_equal(written.docs, reference.docs)
        assert written.weights.tobytes() == reference.weights.tobytes()  # bit for bit
    docs = _random_docs(3, 40)
    repeated = [LexicalDoc(str(i % 9), d.title, d.headings, d.body) for i, d in enumerate(docs)]
    _assert_same_as_lunr_py("en", repeated)
    assert bm25_postings("en", []).terms == _bm25_reference("en", []).terms == []
