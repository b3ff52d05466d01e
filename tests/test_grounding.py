"""The grounding guard on its own: exact tokens of an LLM answer must be in the evidence."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import uvicorn
from askdocs.edge_runtime.app import create_app
from askdocs.edge_runtime.grounding import Evidence, Guard, critical_tokens
from askdocs.edge_runtime.holder import IndexHolder
from askdocs.edge_runtime.settings import LLMSettings, Settings
from askdocs.edge_runtime.sse import parse

from tests.fake_llm import FakeLLM, Reply

EVIDENCE_TEXT = """Build the site with `askdocs build --site site/ --out _askdocs`.
The widget keeps 20 turns of history; set ASKDOCS_RATE_LIMIT=30/minute to change the limit.
Use httpx.Client(timeout=5.0) for a client."""


def evidence() -> Evidence:
    return Evidence(EVIDENCE_TEXT.lower().replace("\n", " "), {"/", "/guide/", "/api/"})


def run(pieces: list[str]) -> tuple[str, Guard]:
    guard = Guard(evidence())
    shown = []
    for piece in pieces:
        shown += guard.feed(piece)
    shown += guard.finish()
    assert "".join(shown) == guard.text
    return guard.text, guard


def chars(text: str) -> list[str]:
    """Stream a reply in small uneven pieces, as a model does."""
    return [text[i : i + 3] for i in range(0, len(text), 3)]


def test_critical_tokens_pick_code_flags_numbers_identifiers():
    tokens = critical_tokens(
        "Run `askdocs build` with --out and keep 20 turns in httpx.Client, e.g. now [1]."
    )
    assert "askdocs build" in tokens
    assert "--out" in tokens
    assert "20" in tokens
    assert "httpx.Client" in tokens
    assert "e.g" not in tokens and "1" not in tokens  # prose abbreviations and citation markers
    assert critical_tokens("Error TFX-1042 uses HMAC-SHA256 since v3.") == ["TFX-1042", "HMAC-SHA256", "v3"]


def test_grounded_answer_passes_unchanged():
    answer = "Build it with `askdocs build --out _askdocs` [1]. The widget keeps 20 turns [2].\n"
    text, guard = run(chars(answer))
    assert text == answer
    assert guard.report.dropped == 0 and guard.report.tokens == 2


def test_invented_flag_and_number_are_dropped_and_counted():
    answer = (
        "Build the site with `askdocs build` [1]. Add `--turbo-mode` to go faster [1]. "
        "The widget keeps 45 turns [2]. Rate limits are configurable [2]."
    )
    text, guard = run(chars(answer))
    assert "turbo" not in text and "45" not in text
    assert "askdocs build" in text and "configurable" in text
    assert guard.report.dropped == 2
    assert "--turbo-mode" in guard.report.unsupported and "45" in guard.report.unsupported


def test_prompt_delimiters_never_reach_the_reader():
    answer = 'The widget keeps 20 turns [1].</source>\n<source n="2" url="/x">Use httpx.Client [2].<|im_end|>'
    text, guard = run(chars(answer))
    assert "source" not in text and "<|" not in text
    assert "20 turns" in text and "httpx.Client" in text
    assert guard.report.delimiters == 3


def test_code_block_checked_line_by_line_as_a_unit():
    good = "Like this:\n\n```bash\naskdocs build --site site/ --out _askdocs\n```\n"
    text, _ = run(chars(good))
    assert text == good
    bad = "Like this:\n\n```bash\naskdocs deploy --cloud\n```\nDone."
    text, guard = run(chars(bad))
    assert "deploy" not in text and "Like this:" in text and "Done." in text
    assert guard.report.dropped == 1


def test_a_token_shown_from_an_uncited_section_brings_its_citation():
    """The model named `--expires` from the CLI section but cited only the security page: the
    section that holds it is cited too, so every exact token shown is in a cited page."""
    from types import SimpleNamespace

    from askdocs.edge_runtime.corpus import ChunkRef
    from askdocs.edge_runtime.evidence import Evidence as Section
    from askdocs.edge_runtime.grounding import _citing_what_is_shown

    def section(url: str, label: str, text: str) -> Section:
        page = url.split("#")[0]
        return Section(
            ChunkRef(0, 0), 0, 0, url, page, label, label, text, None, "section", 1.0, "en", "page"
        )

    security = section(
        "/security/#api-tokens", "Security › API tokens", "Rotation keeps a grace period of 24 hours."
    )
    cli = section(
        "/cli/#token", "CLI › tallyfox token", "Set `--expires` to rotate the token after a number of days."
    )
    other = section("/faq/#tokens", "FAQ › Tokens", "Tokens are shown once.")
    case = SimpleNamespace(evidence=[security, cli, other])
    cited = [{"url": "/security/#api-tokens", "title": "Security › API tokens"}]
    shown = "The grace period is 24 hours.\n\nPass `--expires` to rotate it on a schedule."
    urls = [c["url"] for c in _citing_what_is_shown(cited, shown, case)]
    assert urls == ["/security/#api-tokens", "/cli/#token"]
    # Tokens the cited section already holds add nothing.
    assert _citing_what_is_shown(cited, "The grace period is 24 hours.", case) == cited


def test_links_must_point_at_real_pages():
    text, guard = run(
        chars("See [the guide](/guide/) and [the moon](/moon/) for more.\nAlso [API](/api/#x).")
    )
    assert "/moon/" not in text and "[API](/api/#x)" in text
    assert "/moon/" in guard.report.unsupported


def test_numbered_list_items_are_not_split_at_their_number():
    text, guard = run(chars("1. Run `askdocs build` [1].\n2. Keep 20 turns.\n3. Set 99 workers.\n"))
    assert "1. Run `askdocs build`" in text and "2. Keep 20 turns." in text and "99" not in text
    assert guard.report.dropped == 1


# -- through a real server: POST /api/chat with a scripted OpenAI-compatible model ---------------


@pytest.fixture(scope="module")
def fake_llm():
    server = FakeLLM()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def llm_app(example_site, fake_llm):
    settings = Settings.from_env(
        env={},
        index=str(example_site.shard_dir),
        rate_limit=None,
        reload_interval=0.0,
        answer_cache=0,
        llm=LLMSettings(base_url=fake_llm.url, api_key="sk-test", model="fake-1", agent=False, timeout=10.0),
    )
    app = create_app(settings, IndexHolder(str(example_site.shard_dir), None))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


def chat(url: str, message: str) -> tuple[str, dict]:
    response = httpx.post(url + "/api/chat", json={"message": message, "locale": "en"}, timeout=60)
    events = parse(response.text)
    assert [e for e, _ in events].count("done") == 1
    text = "".join(d["text"] for e, d in events if e == "token")
    return text, next(d for e, d in events if e == "done")


def test_invented_tokens_never_reach_the_reader(llm_app, fake_llm):
    fake_llm.script(
        Reply(
            text=[
                "Error TFX-1042 means the data ",
                "directory is not writable [1].</sou",
                "rce> Fix it with `tallyfox repair --force-all-",
                "now` [1]. Then restart.",
            ]
        )
    )
    text, done = chat(llm_app, "What does error TFX-1042 mean and how do I fix it?")
    assert done["mode"] == "llm" and done["answered"] is True
    assert "TFX-1042" in text and "writable" in text
    assert "repair" not in text and "source" not in text
    assert "could not be confirmed" in text  # the visible label
    grounding = done["grounding"]
    assert grounding["dropped"] == 1 and grounding["delimiters_removed"] == 1
    assert "tallyfox repair --force-all-now" in grounding["unsupported"]


def test_wholly_ungrounded_answer_falls_back_to_extractive_labelled(llm_app, fake_llm):
    fake_llm.script(Reply(text=["Run `tallyfox fix-1042 --yes` [1]. It takes 99 seconds [1]."]))
    text, done = chat(llm_app, "What does error TFX-1042 mean and how do I fix it?")
    assert done["mode"] == "extractive-fallback" and done["fallback_reason"] == "ungrounded"
    assert "fix-1042" not in text and "99" not in text
    assert "could not be confirmed" in text and done["citations"]
