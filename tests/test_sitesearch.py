"""`askdocs search` and `askdocs export` on the built example site."""

from __future__ import annotations

import json

import numpy as np
from askdocs.edge_runtime.app import create_app
from askdocs.edge_runtime.settings import Settings
from starlette.testclient import TestClient

from askdocs.shards import load_shards, read_manifest
from tests.conftest import RESTRICTED_PHRASES
from tests.test_build import askdocs

QUESTION = "how much memory does the server need"


def test_search_prints_ranked_results(example_site):
    result = askdocs("search", str(example_site.site_dir), QUESTION, "-k", "3")
    lines = result.stdout.splitlines()
    at = lines.index("    http://127.0.0.1:8000/install/#system-requirements")
    assert lines[at - 1] in (" 1. Install › System requirements", " 2. Install › System requirements")
    assert "Server RAM" in lines[at + 1]
    assert sum(1 for line in lines if line[:4].strip().endswith(".")) == 3
    assert "loaded index" not in result.stderr  # start-up lines are not results


def test_search_json_matches_the_http_api(example_site):
    result = askdocs("search", str(example_site.site_dir), "corporate proxy webhooks", "--json", "-k", "5")
    cli = json.loads(result.stdout)
    settings = Settings.from_env(env={}, index=str(example_site.shard_dir), rate_limit=None)
    with TestClient(create_app(settings)) as client:
        api = client.get("/api/search", params={"q": "corporate proxy webhooks", "k": 5}).json()
    assert [r["url"] for r in cli["results"]] == [r["url"] for r in api["results"]]
    assert cli["results"] == api["results"]
    assert cli["retrievers"] == ["lexical", "dense", "rerank"]


def test_search_locale_and_bad_input(example_site, tmp_path):
    spanish = askdocs(
        "search", str(example_site.shard_dir), "instalar en windows", "--locale", "es", "-k", "1"
    )
    assert "/es/install/" in spanish.stdout
    staff_only = askdocs("search", str(example_site.site_dir), "BLUE HERON runbook", "--json")
    assert not any("/internal/" in r["url"] for r in json.loads(staff_only.stdout)["results"])
    missing = askdocs("search", str(tmp_path), "anything", check=False)
    assert missing.returncode == 2 and "holds no askdocs index" in missing.stderr
    bad_k = askdocs("search", str(example_site.site_dir), "x", "-k", "0", check=False)
    assert bad_k.returncode == 2 and "-k must be between 1 and 50" in bad_k.stderr


def test_export_jsonl(example_site, tmp_path):
    out = tmp_path / "chunks.jsonl"
    askdocs("export", str(example_site.site_dir), "--format", "jsonl", "--vectors", "-o", str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    shards = load_shards(example_site.shard_dir)
    assert len(records) == read_manifest(example_site.shard_dir).counts["chunks"] == len(shards.chunks)
    assert len({r["id"] for r in records}) == len(records)
    install = next(r for r in records if r["url"] == "/install/#install")
    assert install["page_url"] == "/install/" and install["title"] == "Install"
    assert install["headings"] == [] and install["locale"] == "en"
    linux = next(r for r in records if r["url"] == "/install/#installer-flags")
    assert linux["headings"] == ["Install on Linux", "Installer flags"]
    # English chunks are sized for the English model (256 tokens): the requirements table is
    # its section's own chunk, quoted as the page has it.
    table = next(r for r in records if "| Server RAM | 2 GB | 8 GB |" in r["text"])
    assert table["url"] == "/install/#system-requirements" and table["headings"] == ["System requirements"]
    assert {"lastmod", "kind", "groups", "model", "model_sha256", "vector_scale"} <= set(install)
    row = records.index(install)
    assert install["vector"] == shards.vectors[row].tolist() and len(install["vector"]) == 384
    vector = np.asarray(install["vector"], np.float32) * install["vector_scale"]
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 0.05  # the normalised embedding, back from int8
    text = out.read_text()
    for phrase in RESTRICTED_PHRASES:
        assert phrase not in text


def test_export_with_the_private_set_marks_groups(example_site):
    result = askdocs("export", str(example_site.site_dir), "--private", str(example_site.private_dir))
    records = [json.loads(line) for line in result.stdout.splitlines()]
    staff = [r for r in records if r["groups"]]
    assert staff and all(
        r["groups"] == ["staff"] and r["page_url"].endswith("/internal/runbook/") for r in staff
    )
    assert "vector" not in records[0]
