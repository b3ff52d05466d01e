"""The development question sets, in two groups that never mix.

`TUNING` sets are the only ones any weight, threshold or model in askdocs is
fitted on (scripts/fit_rerank.py, scripts/fit_confidence.py,
scripts/tune_answers.py). `HELD_OUT` sets (MkDocs, Uvicorn and Pydantic
docs, questions by two authors who never saw askdocs' outputs) and `FRESH` sets
(Starlette, Flask, Click, Marshmallow: MkDocs and Sphinx sites, one author each)
are only measured, to say what a new site can expect. Sites are built by
`scripts/eval.sh` into `.artifacts/eval/<corpus>/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from askdocs.evaluation import Question, load_questions

ROOT = Path(__file__).resolve().parent.parent
BUILT = Path(".artifacts/eval")


@dataclass(frozen=True)
class DevSet:
    name: str
    corpus: str  # the built site under BUILT
    questions: tuple[str, ...]  # files under evals/
    group: str  # "tuning" | "held-out" | "fresh"

    @property
    def site(self) -> Path:
        return BUILT / self.corpus

    @property
    def private(self) -> str | None:
        folder = BUILT / "askdocs-private"
        return str(folder) if self.corpus == "site_example" and folder.is_dir() else None

    def load(self) -> list[Question]:
        out: list[Question] = []
        for name in self.questions:
            out += load_questions(ROOT / "evals" / name)
        return out

    @property
    def built(self) -> bool:
        return (self.site / "_askdocs" / "manifest.json").is_file()


TUNING = (
    DevSet("site_example", "site_example", ("site_example.jsonl",), "tuning"),
    DevSet("httpx", "httpx", ("httpx.jsonl",), "tuning"),
    DevSet("fastapi", "fastapi", ("fastapi.jsonl",), "tuning"),
)
HELD_OUT = (
    DevSet("mkdocs", "mkdocs", ("heldout/mkdocs.a.jsonl", "heldout/mkdocs.b.jsonl"), "held-out"),
    DevSet("uvicorn", "uvicorn", ("heldout/uvicorn.a.jsonl", "heldout/uvicorn.b.jsonl"), "held-out"),
    DevSet("pydantic", "pydantic", ("heldout/pydantic.a.jsonl", "heldout/pydantic.b.jsonl"), "held-out"),
)
# Written later by four more authors (one per corpus) who never saw askdocs, on docs built with
# MkDocs and with Sphinx: never fitted on, and measured only once the methods were chosen.
FRESH = (
    DevSet("starlette", "starlette", ("fresh/starlette.jsonl",), "fresh"),
    DevSet("flask", "flask", ("fresh/flask.jsonl",), "fresh"),
    DevSet("click", "click", ("fresh/click.jsonl",), "fresh"),
    DevSet("marshmallow", "marshmallow", ("fresh/marshmallow.jsonl",), "fresh"),
)
GROUPS = {"tuning": TUNING, "held-out": HELD_OUT, "fresh": FRESH}


def built(sets: tuple[DevSet, ...]) -> list[DevSet]:
    """The sets whose sites are built (scripts/eval.sh --no-chat builds them)."""
    missing = [s.name for s in sets if not s.built]
    if missing:
        print(f"not built (run scripts/eval.sh --no-chat first): {', '.join(missing)}")
    return [s for s in sets if s.built]
