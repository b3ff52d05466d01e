"""The widget on site_example under three MkDocs themes, against a real `askdocs serve`.

site_example is built with real MkDocs (both locales, the askdocs plugin injects
the widget) under the default theme, readthedocs and Material with instant
loading; each build is served by the real runtime and driven in Chromium.
"""

from __future__ import annotations

import json
import types

import pytest
from playwright.sync_api import expect
from real_site import require_askdocs, serve

from tests.conftest import build_example

pytestmark = pytest.mark.browser

# Offline: no highlight.js or web fonts from a CDN (a failed CDN load is a console error).
THEMES = {
    "mkdocs": {"name": "mkdocs", "highlightjs": False},
    "readthedocs": {"name": "readthedocs", "highlightjs": False},
    "material": {"name": "material", "font": False, "features": ["navigation.instant"]},
}
# readthedocs' own theme.js throws on heading ids that start with a digit
# ("#1-install-…"), on pages of site_example that have them; not the widget's doing.
THEME_ERRORS = {"readthedocs": [r"is not a valid selector", r"reading '\d+'"]}


@pytest.fixture(scope="module", params=list(THEMES))
def themed(request, tmp_path_factory):
    require_askdocs()
    if request.param == "material":
        pytest.importorskip("material", reason="mkdocs-material is not installed")
    built = build_example(tmp_path_factory.mktemp(f"site-{request.param}"), theme=THEMES[request.param])
    with serve(built.site_dir) as url:
        yield types.SimpleNamespace(theme=request.param, url=url)


@pytest.fixture
def site_widget(widget, themed):
    """The shared `Widget` driver, pointed at the real server."""
    widget.runtime = types.SimpleNamespace(url=themed.url, script_attrs={})
    for pattern in THEME_ERRORS.get(themed.theme, []):
        widget.allow_console(pattern)
    failed: list[str] = []
    widget.page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    if themed.theme == "material":
        # Material's language switcher looks for sitemap.xml next to each alternate page,
        # which mkdocs-static-i18n links page by page; only those 404s are tolerated.
        widget.allow_console(r"status of 404")
    yield widget
    assert [url for url in failed if not url.endswith("/sitemap.xml")] == []


def citations(widget) -> list[str]:
    links = widget.last_answer.locator('[data-askdocs="citation"]')
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def test_exact_token_and_paraphrase_answers_cite_the_right_pages(site_widget, themed):
    site_widget.goto("/install/")
    site_widget.ask("What does error TFX-1042 mean?")
    site_widget.wait_answer(30_000)
    expect(site_widget.last_answer).to_contain_text("writable")
    assert any("/errors/" in href for href in citations(site_widget)), citations(site_widget)

    site_widget.ask("How much memory does the machine hosting the server need at the very least?")
    site_widget.wait_answer(30_000)
    assert any("/install/" in href for href in citations(site_widget)), citations(site_widget)
    site_widget.screenshot(f"site-example-{themed.theme}-answer")


def test_unanswerable_question_offers_support(site_widget):
    site_widget.goto("/")
    site_widget.ask("Does Tallyfox have a native Slack integration?")
    site_widget.wait_answer(30_000)
    escalation = site_widget.last_answer.locator('[data-askdocs="escalation"]')
    expect(escalation).to_be_visible()
    assert escalation.get_attribute("href").endswith("/support/")
    expect(site_widget.last_answer).to_contain_text("I checked")


def test_spanish_page_gets_spanish_ui_and_answer(site_widget):
    requests = []
    site_widget.page.on("request", lambda r: requests.append(r) if r.url.endswith("/api/chat") else None)
    site_widget.goto("/es/install/")
    site_widget.open()
    expect(site_widget.input).to_have_attribute("placeholder", "Haz una pregunta…")
    site_widget.ask("¿Cómo instalo Tallyfox en Windows?")
    site_widget.wait_answer(30_000)
    expect(site_widget.last_answer).to_contain_text("Fuente")
    assert json.loads(requests[-1].post_data)["locale"] == "es"
    assert all("/es/" in href for href in citations(site_widget))


def test_follow_up_sends_history(site_widget):
    requests = []
    site_widget.page.on("request", lambda r: requests.append(r) if r.url.endswith("/api/chat") else None)
    site_widget.goto("/configuration/")
    site_widget.ask("Where is the config file on Linux?")
    site_widget.wait_answer(30_000)
    site_widget.ask("And on Windows?")
    site_widget.wait_answer(30_000)
    body = json.loads(requests[-1].post_data)
    assert body["history"][0] == {"role": "user", "content": "Where is the config file on Linux?"}
    assert body["history"][1]["role"] == "assistant"
    expect(site_widget.last_answer).to_contain_text("ProgramData")


def test_keyboard_flow(site_widget):
    site_widget.goto("/security/")
    page = site_widget.page
    page.keyboard.press("Control+k")
    expect(site_widget.panel).to_be_visible()
    assert site_widget.shadow_focus() == "input"
    page.keyboard.type("How do I rotate an API token?")
    page.keyboard.press("Enter")
    site_widget.wait_answer(30_000)
    expect(site_widget.last_answer).to_contain_text("tallyfox token rotate")
    page.keyboard.press("Escape")
    expect(site_widget.panel).to_be_hidden()


def test_offline_fallback_searches_the_shards_in_the_browser(site_widget):
    site_widget.allow_console(r"Failed to load resource|ERR_FAILED|net::")
    site_widget.page.route("**/api/chat", lambda route: route.abort())
    site_widget.goto("/")
    site_widget.ask("webhook signature header")
    site_widget.wait_answer(30_000)
    assert any("/guides/webhooks/" in href for href in citations(site_widget)), citations(site_widget)


def test_phone_screenshot_dark_mode_and_accessibility(site_widget, themed, axe_path):
    page = site_widget.page
    page.set_viewport_size({"width": 360, "height": 740})
    page.emulate_media(color_scheme="dark")
    site_widget.goto("/guides/webhooks/")
    site_widget.ask("How do I verify a webhook signature?")
    site_widget.wait_answer(30_000)
    site_widget.screenshot(f"site-example-{themed.theme}-phone-dark")
    box = site_widget.panel.bounding_box()
    assert box["width"] <= 360
    page.add_script_tag(path=str(axe_path))
    violations = page.evaluate(
        """async () => {
          const r = await axe.run(document.getElementById("askdocs-widget"),
                                  { resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact }));
        }"""
    )
    assert not [v for v in violations if v["impact"] in ("serious", "critical")], violations
