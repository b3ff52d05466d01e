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
    "material": {"name": "material", "font": False, "features": ["navigation.instant", "navigation.footer"]},
}
# Each theme's own search control and previous/next links, and what shows its search opened.
# On a phone the search sits behind a menu button in two of them.
THEME_CONTROLS = {
    "mkdocs": {
        "search": 'a[data-bs-target="#mkdocs_search_modal"]',
        "opened": "#mkdocs_search_modal",
        "page_links": ['a[rel="prev"][href]', 'a[rel="next"][href]'],
        "phone_menu": ".navbar-toggler",
    },
    "readthedocs": {
        "search": '#rtd-search-form input[name="q"]',
        "opened": '#rtd-search-form input[name="q"]:focus',
        "page_links": [".rst-footer-buttons a.float-left", ".rst-footer-buttons a.float-right"],
        "phone_menu": '[data-toggle="wy-nav-top"]',
    },
    "material": {
        "search": ".md-search__input",
        "phone_search": 'label.md-header__button[for="__search"]',
        "opened": ".md-search__input:focus",
        "page_links": ["a.md-footer__link--prev", "a.md-footer__link--next"],
    },
}
MEMORY_QUESTION = "How much memory does the machine hosting the server need at the very least?"
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


def assert_each_source_cited_once(widget) -> None:
    hrefs = citations(widget)
    assert hrefs and len(hrefs) == len(set(hrefs)), hrefs
    text = widget.last_answer.inner_text()
    source_word = "Fuente:" if "Fuente:" in text else "From:"
    assert text.count(source_word) == len(hrefs), text


UNCOVERED_JS = """el => {
  const r = el.getBoundingClientRect();
  const inside = r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {ok: inside && !!hit && (el === hit || el.contains(hit)), box: [r.left, r.top, r.right, r.bottom],
          viewport: [innerWidth, innerHeight], hit: hit ? hit.outerHTML.slice(0, 100) : null};
}"""


def assert_uncovered(page, locator) -> None:
    """Within 5 s the element is in the viewport and topmost at its centre (not under the panel)."""
    handle = locator.element_handle()
    try:
        page.wait_for_function(f"el => ({UNCOVERED_JS})(el).ok", arg=handle, timeout=5_000)
    except Exception:
        raise AssertionError(page.evaluate(UNCOVERED_JS, handle)) from None


def test_exact_token_and_paraphrase_answers_cite_the_right_pages(site_widget, themed):
    site_widget.goto("/install/")
    site_widget.ask("What does error TFX-1042 mean?")
    site_widget.wait_answer(30_000)
    expect(site_widget.last_answer).to_contain_text("writable")
    assert any("/errors/" in href for href in citations(site_widget)), citations(site_widget)

    site_widget.ask(MEMORY_QUESTION)
    site_widget.wait_answer(30_000)
    assert any("/install/" in href for href in citations(site_widget)), citations(site_widget)
    assert_each_source_cited_once(site_widget)
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
    assert_each_source_cited_once(site_widget)


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


def test_theme_search_and_page_links_stay_usable_beside_the_open_panel(site_widget, themed):
    controls = THEME_CONTROLS[themed.theme]
    page = site_widget.page
    site_widget.goto("/install/")
    site_widget.ask(MEMORY_QUESTION)
    site_widget.wait_answer(30_000)
    for selector in controls["page_links"]:
        link = page.locator(selector).first
        link.scroll_into_view_if_needed()
        assert_uncovered(page, link)
    search = page.locator(controls["search"]).first
    search.scroll_into_view_if_needed()
    assert_uncovered(page, search)
    site_widget.screenshot(f"site-example-{themed.theme}-docked")
    search.click()
    expect(page.locator(controls["opened"])).to_be_visible()
    expect(site_widget.panel).to_be_visible()


def test_phone_panel_closes_back_to_the_theme_search(site_widget, themed):
    controls = THEME_CONTROLS[themed.theme]
    page = site_widget.page
    page.set_viewport_size({"width": 360, "height": 740})
    site_widget.goto("/install/")
    site_widget.ask(MEMORY_QUESTION)
    site_widget.wait_answer(30_000)
    assert_each_source_cited_once(site_widget)
    site_widget.screenshot(f"site-example-{themed.theme}-phone-answer")
    site_widget.panel.get_by_role("button", name="Close").click()
    expect(site_widget.panel).to_be_hidden()
    if "phone_menu" in controls:
        page.locator(controls["phone_menu"]).first.click()
    search = page.locator(controls.get("phone_search", controls["search"])).first
    search.scroll_into_view_if_needed()
    assert_uncovered(page, search)
    search.click()
    expect(page.locator(controls["opened"])).to_be_visible()


def test_suggested_questions_come_from_the_site_faq_in_the_reader_language(site_widget):
    site_widget.goto("/")
    site_widget.open()
    chips = site_widget.hook("suggestion")
    expect(chips.first).to_be_visible()
    assert "Does the agent need to run as root?" in chips.all_inner_texts()
    chips.filter(has_text="Does the agent need to run as root?").click()
    site_widget.wait_answer(30_000)
    expect(site_widget.last_answer).to_contain_text("tallyfox")
    assert any("/faq/" in href for href in citations(site_widget)), citations(site_widget)
    assert_each_source_cited_once(site_widget)

    site_widget.page.evaluate("window.askdocs.newConversation()")
    site_widget.goto("/es/")
    site_widget.open()
    expect(site_widget.hook("suggestion").first).to_be_visible()
    assert "¿El agente tiene que ejecutarse como root?" in site_widget.hook("suggestion").all_inner_texts()


def test_search_as_you_type_jumps_to_a_section(site_widget, themed):
    page = site_widget.page
    site_widget.goto("/")
    site_widget.open()
    page.keyboard.type("webhook signature")
    first = site_widget.hook("hit").first
    expect(first).to_be_visible()
    expect(site_widget.hook("hits")).to_have_attribute("data-source", "api")
    target = first.get_attribute("href")
    assert "/guides/webhooks/" in target, target
    site_widget.screenshot(f"site-example-{themed.theme}-search-as-you-type")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(target)


@pytest.mark.parametrize("size", [(1280, 800), (360, 740)], ids=["desktop", "phone"])
def test_long_code_lines_scroll_inside_the_answer(site_widget, themed, size):
    line = (
        "tallyfox webhook add --name pager --url https://hooks.example.com/tallyfox "
        "--events alert.fired,alert.resolved --secret-file /etc/tallyfox/webhook.secret"
    )
    text = f"Add it:\n\n```bash\n{line}\n```\n\nFrom: [Webhooks › Add a webhook](/guides/webhooks/)"
    done = {
        "answer_id": "x",
        "answered": True,
        "mode": "extractive",
        "citations": [{"url": "/guides/webhooks/", "title": "Webhooks"}],
        "escalation": None,
    }
    body = f"event: token\ndata: {json.dumps({'text': text})}\n\nevent: done\ndata: {json.dumps(done)}\n\n"
    page = site_widget.page
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.route(
        "**/api/chat", lambda route: route.fulfill(status=200, content_type="text/event-stream", body=body)
    )
    site_widget.goto("/guides/webhooks/")
    site_widget.ask("How do I add a webhook?")
    site_widget.wait_answer(30_000)
    geometry = site_widget.last_answer.locator("pre").evaluate(
        """pre => {
          const panel = pre.getRootNode().querySelector('[data-askdocs="panel"]').getBoundingClientRect();
          const block = pre.closest(".code").getBoundingClientRect();
          return {scroll: pre.scrollWidth, client: pre.clientWidth, height: pre.clientHeight,
                  line: parseFloat(getComputedStyle(pre).lineHeight),
                  inside: block.left >= panel.left && block.right <= panel.right};
        }"""
    )
    assert geometry["scroll"] > geometry["client"] and geometry["inside"], geometry
    assert geometry["height"] < 3 * geometry["line"], geometry  # one line, not wrapped
    assert_each_source_cited_once(site_widget)
    site_widget.screenshot(f"site-example-{themed.theme}-code-{size[0]}")
