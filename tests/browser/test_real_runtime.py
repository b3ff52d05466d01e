"""The widget against the real thing: `askdocs build` a small site, `askdocs serve` it.

The scripted fake runtime covers failure modes; these tests check that the
widget and the real runtime and shards agree (SSE stream, citations,
escalation, feedback, and the offline fallback over real Lunr shards).
"""

from __future__ import annotations

import subprocess

import pytest
from fake_runtime import closed_port
from playwright.sync_api import expect
from real_site import ASKDOCS, require_askdocs, serve

pytestmark = pytest.mark.browser

PAGES = {
    "index.html": (
        "en",
        "Foxdocs",
        "<h1 id='foxdocs'>Foxdocs</h1><p>Foxdocs collects metrics from your servers with a small agent.</p>",
    ),
    "install/index.html": (
        "en",
        "Install",
        "<h1 id='install'>Install</h1>"
        "<p>Install the Foxdocs agent on Linux.</p>"
        "<h2 id='with-pip'>Install with pip</h2>"
        "<p>Run <code>pip install foxdocs-agent</code> in a virtual environment. "
        "The agent listens on port 7431.</p>",
    ),
    "support/index.html": (
        "en",
        "Contact support",
        "<h1 id='contact-support'>Contact support</h1><p>Email support@foxdocs.dev for help.</p>",
    ),
    "es/instalar/index.html": (
        "es",
        "Instalar",
        "<h1 id='instalar'>Instalar</h1>"
        "<h2 id='con-pip'>Instalar con pip</h2>"
        "<p>Ejecuta <code>pip install foxdocs-agent</code> en un entorno "
        "virtual. El agente escucha en el puerto 7431.</p>",
    ),
}


def page_html(lang: str, title: str, body: str, script_attrs: str = "") -> str:
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f'<link rel="icon" href="data:,"><title>{title} - Foxdocs</title></head>'
        f"<body><main>{body}</main>"
        f'<script src="/_askdocs/widget.js"{script_attrs} defer></script></body></html>'
    )


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    require_askdocs()
    site = tmp_path_factory.mktemp("realsite") / "site"
    for rel, (lang, title, body) in PAGES.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page_html(lang, title, body), encoding="utf-8")
    subprocess.run([ASKDOCS, "build", str(site)], check=True, capture_output=True)
    # Written after the build, so not indexed: pages whose widget talks to a
    # runtime that is down, over the real shards next to them.
    dead = f' data-endpoint="http://127.0.0.1:{closed_port()}/"'
    for rel, lang in (("offline/index.html", "en"), ("es/offline/index.html", "es")):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(page_html(lang, "Offline", "<h1>Offline</h1>", dead), encoding="utf-8")
    with serve(site) as url:
        yield url


@pytest.fixture
def real(widget, served_site):
    widget.base = served_site
    return widget


def goto(widget, path: str) -> None:
    widget.page.goto(widget.base + path)
    widget.launcher.wait_for(state="visible")


def test_real_answer_with_citation(real):
    goto(real, "/")
    real.ask("How do I install the agent with pip?")
    real.wait_answer(timeout=30_000)
    expect(real.last_answer.locator(".md")).to_contain_text("pip install foxdocs-agent")
    citation = real.last_answer.locator('[data-askdocs="citation"]').first
    expect(citation).to_have_attribute("href", real.base + "/install/#with-pip")
    expect(citation).to_contain_text("From: Install")
    expect(real.last_answer.locator('[data-askdocs="feedback-up"]')).to_be_visible()
    real.screenshot("real-runtime-answer")


def test_real_answer_to_a_mistyped_question_says_how_it_was_read(real):
    goto(real, "/")
    real.ask("How do I instlal the agent with pip?")
    real.wait_answer(timeout=30_000)
    expect(real.last_answer.locator(".md")).to_contain_text("pip install foxdocs-agent")
    expect(real.last_answer).to_contain_text("Read as: “instlal” → “install”")
    real.ask("Which port does the agent listen on?")
    real.wait_answer(timeout=30_000)
    expect(real.last_answer).not_to_contain_text("Read as:")


def test_real_unanswerable_escalates(real):
    goto(real, "/install/")
    real.ask("What does the enterprise plan cost per seat?")
    real.wait_answer(timeout=30_000)
    escalation = real.last_answer.locator('[data-askdocs="escalation"]')
    expect(escalation).to_be_visible()
    expect(escalation).to_have_attribute("href", real.base + "/support/")


def test_real_feedback_is_accepted(real):
    goto(real, "/")
    real.ask("Which port does the agent listen on?")
    real.wait_answer(timeout=30_000)
    real.last_answer.locator('[data-askdocs="feedback-down"]').click()
    expect(real.last_answer.locator('[data-askdocs="feedback-down"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(real.last_answer).to_contain_text("Thanks, your feedback was recorded.")


def test_real_follow_up_and_spanish(real):
    goto(real, "/es/instalar/")
    real.ask("¿Cómo instalo el agente con pip?")
    real.wait_answer(timeout=30_000)
    expect(real.last_answer.locator('[data-askdocs="citation"]').first).to_have_attribute(
        "href", real.base + "/es/instalar/#con-pip"
    )
    real.ask("¿En qué puerto escucha?")
    real.wait_answer(timeout=30_000)
    expect(real.answers).to_have_count(2)
    expect(real.last_answer.locator(".md")).to_contain_text("7431")


@pytest.mark.parametrize(
    ("path", "question", "target"),
    [
        ("/offline/", "install with pip", "/install/"),
        ("/es/offline/", "instalar con pip", "/es/instalar/"),
    ],
)
def test_offline_fallback_over_real_shards(real, path, question, target):
    real.allow_console(r"net::ERR_CONNECTION_REFUSED|Failed to load resource")
    goto(real, path)
    real.ask(question)
    real.wait_answer(timeout=30_000)
    first = real.last_answer.locator('[data-askdocs="citation"]').first
    expect(first).to_be_visible()
    assert first.get_attribute("href").startswith(real.base + target)
