"""The development question sets, in two groups that never mix.

`TUNING` sets (site_example, httpx, FastAPI en+es, MkDocs, Uvicorn, Pydantic;
since stop 42 pytest, Scrapy and Tornado, Sphinx sites) are the only ones any
weight, threshold or model in askdocs is fitted or chosen on
(scripts/fit_rerank.py, scripts/fit_confidence.py, scripts/tune_answers.py),
always leave one corpus out. `HELD_OUT` sets (Starlette, Flask, Click,
Marshmallow: MkDocs and Sphinx sites, questions by four authors who never saw
askdocs or its outputs) are only measured, to say what a new site can expect. Sites are built by
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
    group: str  # "tuning" | "held-out"

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
    DevSet("mkdocs", "mkdocs", ("mkdocs.a.jsonl", "mkdocs.b.jsonl"), "tuning"),
    DevSet("uvicorn", "uvicorn", ("uvicorn.a.jsonl", "uvicorn.b.jsonl"), "tuning"),
    DevSet("pydantic", "pydantic", ("pydantic.a.jsonl", "pydantic.b.jsonl"), "tuning"),
    # Stop 42: three Sphinx sites from Debian's rendered -doc packages (scripts/fetch_fresh.sh
    # sphinx-tuning; evals/sphinx/), 45 questions each by helpers who read only the rendered
    # pages: until then every tuning corpus was an MkDocs site while most untuned ones are Sphinx.
    DevSet("pytest", "pytest", ("sphinx/pytest.jsonl",), "tuning"),
    DevSet("scrapy", "scrapy", ("sphinx/scrapy.jsonl",), "tuning"),
    DevSet("tornado", "tornado", ("sphinx/tornado.jsonl",), "tuning"),
)
HELD_OUT = (
    DevSet("starlette", "starlette", ("heldout/starlette.jsonl",), "held-out"),
    DevSet("flask", "flask", ("heldout/flask.jsonl",), "held-out"),
    DevSet("click", "click", ("heldout/click.jsonl",), "held-out"),
    DevSet("marshmallow", "marshmallow", ("heldout/marshmallow.jsonl",), "held-out"),
)
# A second held-out group from a later stop: three sites of other generators and subjects
# (Debian's rendered -doc packages: Django REST framework on MkDocs, BorgBackup and Knot
# Resolver on Sphinx with `.html` URLs), questions written by an author who never ran
# askdocs; fetched by scripts/fetch_fresh.sh. Only measured, never tuned on.
FRESH = (
    DevSet("drf", "drf", ("fresh/drf.jsonl",), "fresh"),
    DevSet("borg", "borg", ("fresh/borg.jsonl",), "fresh"),
    DevSet("knot-resolver", "knot-resolver", ("fresh/knot-resolver.jsonl",), "fresh"),
)
# Small sites asked the way a new user would, questions written by an askdocs developer before
# askdocs had ever been run on that site (evals/newuser/README.md): vdirsyncer (29 pages, Sphinx),
# then (stop 38) Debian's rendered -doc packages of cmd2, Black, Cookiecutter and doit. Only
# measured, never tuned on.
NEW_USER = tuple(
    DevSet(name, name, (f"newuser/{name}.jsonl",), "new-user")
    for name in ("vdirsyncer", "cmd2", "black", "cookiecutter", "doit")
)
# Follow-ups (stop 35): 16 written by an askdocs developer on six held-out, fresh and new-user
# sites before anything was run on them, to measure which follow-ups borrow the previous
# question (`conversation.leans_on_previous`, written while reading the 49 follow-ups of the
# other sets, so those no longer measure it blind). Only measured, never tuned on.
FOLLOW_UPS = tuple(
    DevSet(f"{name} follow-ups", name, (f"followups/{name}.jsonl",), "follow-ups")
    for name in ("borg", "drf", "knot-resolver", "vdirsyncer", "click", "flask")
)
# Written blind (stop 39): two more Debian-rendered Sphinx sites (structlog, pint), questions
# written by a helper that read only the rendered pages and never ran askdocs or saw its outputs
# (evals/blind/README.md); measured once when they were added. Only measured, never tuned on.
# Stop 41 added a third, larger one (Celery 5.2.6, 217 pages, Sphinx with its API reference), written
# the same way: the first set of that size on the generator most untuned sites use.
BLIND = tuple(
    DevSet(name, name, (f"blind/{name}.jsonl",), "blind") for name in ("structlog", "pint", "celery")
)
GROUPS = {
    "tuning": TUNING,
    "held-out": HELD_OUT,
    "fresh": FRESH,
    "new-user": NEW_USER,
    "blind": BLIND,
    "follow-ups": FOLLOW_UPS,
}


def built(sets: tuple[DevSet, ...]) -> list[DevSet]:
    """The sets whose sites are built (scripts/eval.sh --no-chat builds them)."""
    missing = [s.name for s in sets if not s.built]
    if missing:
        print(f"not built (run scripts/eval.sh --no-chat first): {', '.join(missing)}")
    return [s for s in sets if s.built]
