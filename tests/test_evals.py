"""The dev question sets run from a fresh clone: their corpora are in the repository."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import ROOT

EVALS = ROOT / "evals"
CORPORA = EVALS / "corpora"


def _corpus_of(question_file) -> str:
    return question_file.stem.split(".")[0]


def test_every_question_set_has_its_corpus_with_a_licence():
    sets = sorted(EVALS.glob("*.jsonl")) + sorted((EVALS / "heldout").glob("*.jsonl"))
    assert len(sets) >= 9
    for question_file in sets:
        corpus = _corpus_of(question_file)
        if corpus == "site_example":
            continue
        folder = CORPORA / corpus
        assert (folder / "mkdocs.yml").is_file() or (folder / "docs" / "conf.py").is_file(), question_file
        assert any(folder.glob("LICENSE*")), corpus
        assert f"`{corpus}/" in (CORPORA / "README.md").read_text()  # its provenance row
        for line in question_file.read_text(encoding="utf-8").splitlines():
            for url in json.loads(line)["gold_urls"]:
                parts = url.strip("/").split("/")
                if corpus == "fastapi":  # two builds: en/ at the root, es/ under /es/
                    parts = parts if parts[0] == "es" else ["en", *parts]
                else:
                    parts = ["docs", *parts]
                base = folder.joinpath(*[p for p in parts if p])
                candidates = [base.parent / (base.name + s) for s in (".md", ".rst")]
                candidates += [base / "index.md", base / "index.rst", base / "README.md"]
                assert any(c.is_file() for c in candidates), (question_file.name, url)


def test_nothing_points_outside_the_repository():
    needles = ["../" + "shared", "CONTRACT" + ".md", "(CONTRACT" + ")"]  # split: this file is tracked too
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in tracked.stdout.splitlines():
        path = ROOT / name
        if path.suffix in {".py", ".sh", ".md", ".yml", ".js", ".toml"} or name == "Makefile":
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not [n for n in needles if n in text], name


@pytest.mark.slow
def test_eval_script_runs_on_a_vendored_corpus(tmp_path):
    result = subprocess.run(
        ["scripts/eval.sh", "--no-chat", "uvicorn.a"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "OUT": str(tmp_path)},
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "askdocs hybrid search (page-level)" in result.stdout
    report = json.loads((tmp_path / "uvicorn.a-report.json").read_text())
    assert report
    missing = subprocess.run(["scripts/eval.sh", "nosuchset"], cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode == 2 and "no question set evals/nosuchset.jsonl" in missing.stderr


def test_a_fact_is_found_as_written_or_as_rendered():
    from askdocs.evaluation import fact_found

    answer = "- **navigation_depth**: the depth. Default: `4`.\n\n> See [the theme page](/themes/#rtd)."
    assert fact_found("Default: 4", answer)  # facts come from rendered pages, answers are Markdown
    assert fact_found("the theme page", answer) and fact_found("`4`|nothing", answer)
    assert not fact_found("Default: 5", answer) and not fact_found("/themes/ page", answer)
