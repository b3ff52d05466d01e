"""Runtime unreachable: the widget says so and searches the static Lunr shards in the browser."""

from __future__ import annotations

import pytest
from fake_runtime import Status, closed_port
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_network_failure_falls_back_to_lunr_search(widget, runtime):
    widget.allow_console(r"net::ERR_CONNECTION_REFUSED|Failed to load resource")
    widget.goto(endpoint=f"http://127.0.0.1:{closed_port()}/")
    widget.ask("How do I install with pip?")
    widget.wait_answer()
    answer_el = widget.last_answer
    expect(answer_el).to_contain_text("The assistant can't be reached right now.")
    links = answer_el.locator('[data-askdocs="citation"]')
    expect(links.first).to_be_visible()
    hrefs = [a.get_attribute("href") for a in links.all()]
    assert hrefs[0] == runtime.url + "/install/#with-pip"
    expect(links.first).to_have_text("Install › Install with pip")
    assert widget.page.evaluate("typeof window.lunr.Index.load") == "function"
    expect(answer_el.get_by_role("button", name="Retry")).to_be_visible()


@pytest.mark.parametrize("code", [404, 502, 503])
def test_http_failure_before_any_event_falls_back(widget, runtime, code):
    widget.allow_console(rf"status of {code}")
    runtime.reply(Status(code, "<html>down</html>"))
    widget.goto()
    widget.ask("rate limit")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("can't be reached")
    expect(widget.last_answer.locator('[data-askdocs="citation"]').first).to_have_attribute(
        "href", runtime.url + "/configure/#rate-limit"
    )


def test_lunr_query_syntax_in_question_is_harmless(widget, runtime):
    widget.allow_console(r"status of 503")
    runtime.reply(Status(503))
    widget.goto()
    widget.ask('-install: "pip"^2 ~requirements* +python:3.11')
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("can't be reached")
    expect(widget.last_answer.locator('[data-askdocs="citation"]').first).to_be_visible()


def test_no_offline_match_says_so(widget, runtime):
    widget.allow_console(r"status of 503")
    runtime.reply(Status(503))
    widget.goto(support_url="/support/")
    widget.ask("zzzqqq")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("found no matching pages")
    expect(widget.last_answer.locator('[data-askdocs="escalation"]')).to_have_attribute(
        "href", runtime.url + "/support/"
    )


def test_spanish_offline_search_loads_lunr_languages(widget, runtime):
    if not runtime.has_spanish:
        pytest.skip("the Spanish Lunr index is built with lunr.js: run `npm install` in tests/node")
    widget.allow_console(r"status of 503")
    runtime.reply(Status(503))
    widget.goto("/es/instalar/")
    widget.ask("¿Instalar con pip?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("El asistente no está disponible")
    first = widget.last_answer.locator('[data-askdocs="citation"]').first
    expect(first).to_have_attribute("href", runtime.url + "/es/instalar/#con-pip")
    assert widget.page.evaluate("typeof window.lunr.es") == "function"
