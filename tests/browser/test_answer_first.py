"""Answer-first reading: lead, quote, one citation per source, tables, code that scrolls,
suggested questions, search-as-you-type and a panel that leaves the page usable."""

from __future__ import annotations

import pytest
from fake_runtime import SUGGESTIONS, done, tokens
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The extractive answer shape: per source, the lead, the supporting quote, the source line.
EXTRACTIVE = (
    "The server needs at least 2 GB of memory; 8 GB is recommended.\n\n"
    "> | Resource | Minimum | Recommended |\n"
    "> |---|---|---|\n"
    "> | Server RAM | 2 GB | 8 GB |\n\n"
    "From: [Install › Requirements](/install/#requirements) — 2026-05-12\n\n"
    "Run `pip install askdocs` in a virtual environment.\n\n"
    "> Python 3.11 or newer is required.\n\n"
    "From: [Install › Install with pip](/install/#with-pip)"
)
EXTRACTIVE_CITATIONS = [
    {"url": "/install/#requirements", "title": "Install › Requirements"},
    {"url": "/install/#with-pip", "title": "Install › Install with pip"},
]
LONG_LINE = "askdocs serve site/ " + " ".join(f"--option-{i}=value-{i}" for i in range(30))
CODE_ANSWER = (
    f"Start the runtime with every option:\n\n```bash\n{LONG_LINE}\nshort line\n```\n\n"
    "From: [Configure › Rate limit](/configure/#rate-limit)"
)


def reply(runtime, text: str, **done_args) -> None:
    runtime.reply(*tokens([text[i : i + 11] for i in range(0, len(text), 11)]), done(**done_args))


def citation_texts(answer) -> list[str]:
    return [c.inner_text() for c in answer.locator('[data-askdocs="citation"]').all()]


def test_extractive_answer_leads_then_quotes_then_cites_each_source_once(widget, runtime):
    reply(runtime, EXTRACTIVE, citations=EXTRACTIVE_CITATIONS)
    widget.goto()
    widget.ask("How much memory does the server need?")
    widget.wait_answer()
    answer = widget.last_answer
    groups = answer.locator(".md > .grp")
    expect(groups).to_have_count(2)
    expect(groups.first.locator("p.lead")).to_have_text(
        "The server needs at least 2 GB of memory; 8 GB is recommended."
    )
    table = groups.first.locator("blockquote table")
    expect(table.locator("th")).to_have_text(["Resource", "Minimum", "Recommended"])
    expect(table.locator("tbody td")).to_have_text(["Server RAM", "2 GB", "8 GB"])
    expect(groups.nth(1).locator("blockquote")).to_have_text("Python 3.11 or newer is required.")
    # Each group ends with its own citation element; no separate sources list repeats them.
    assert citation_texts(answer) == [
        "From: Install › Requirements — 2026-05-12",
        "From: Install › Install with pip",
    ]
    for n, href in enumerate(["/install/#requirements", "/install/#with-pip"]):
        cite = groups.nth(n).locator('[data-askdocs="citation"]')
        expect(cite).to_have_attribute("href", runtime.url + href)
    expect(answer.locator(".src")).to_have_count(0)
    assert answer.inner_text().count("From:") == 2
    assert "](/install" not in answer.inner_text()
    widget.screenshot("answer-first-extractive")


def test_source_labels_keep_escaped_brackets(widget, runtime):
    text = "Use the attribute.\n\nFrom: [Attributes › #\\[doc\\]](/configure/#doc)"
    reply(runtime, text, citations=[{"url": "/configure/#doc", "title": "Attributes › #[doc]"}])
    widget.goto()
    widget.ask("doc attribute?")
    widget.wait_answer()
    cite = widget.last_answer.locator('[data-askdocs="citation"]')
    expect(cite).to_have_text("From: Attributes › #[doc]")
    expect(cite).to_have_attribute("href", runtime.url + "/configure/#doc")


def test_llm_answer_lists_its_sources_once_below(widget, runtime):
    reply(
        runtime,
        "Install it with pip [1] and set the rate limit in the environment [2].",
        mode="llm",
        citations=[
            {"url": "/install/#with-pip", "title": "Install"},
            {"url": "/configure/", "title": "Configure"},
        ],
    )
    widget.goto()
    widget.ask("Install and configure?")
    widget.wait_answer()
    answer = widget.last_answer
    expect(answer.locator(".src [data-askdocs='citation']")).to_have_text(
        ["From: Install", "From: Configure"]
    )
    expect(answer.locator("[data-askdocs='citation']")).to_have_count(2)


def test_citations_missing_from_the_text_are_listed_once(widget, runtime):
    extra = {"url": "/configure/#rate-limit", "title": "Configure › Rate limit"}
    reply(runtime, EXTRACTIVE, citations=[*EXTRACTIVE_CITATIONS, extra])
    widget.goto()
    widget.ask("Memory?")
    widget.wait_answer()
    answer = widget.last_answer
    expect(answer.locator(".src [data-askdocs='citation']")).to_have_text(["From: Configure › Rate limit"])
    expect(answer.locator("[data-askdocs='citation']")).to_have_count(3)


def code_geometry(widget) -> dict:
    return widget.page.evaluate(
        """() => {
          const root = document.getElementById("askdocs-widget").shadowRoot;
          const answers = root.querySelectorAll('[data-askdocs="answer"]');
          const pre = answers[answers.length - 1].querySelector("pre");
          const block = pre.closest(".code").getBoundingClientRect();
          const panel = root.querySelector('[data-askdocs="panel"]').getBoundingClientRect();
          const before = pre.scrollLeft;
          pre.scrollLeft = 400;
          const geometry = {
            scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth, scrolled: pre.scrollLeft - before,
            lineHeight: parseFloat(getComputedStyle(pre).lineHeight), height: pre.clientHeight,
            blockLeft: block.left, blockRight: block.right, panelLeft: panel.left, panelRight: panel.right,
          };
          pre.scrollLeft = 0;
          return geometry;
        }"""
    )


@pytest.mark.parametrize("size", [(1280, 800), (360, 740)], ids=["desktop", "phone"])
def test_long_code_lines_scroll_inside_the_code_block(browser, runtime, size):
    from conftest import Widget

    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500)
    try:
        widget = Widget(context.new_page(), runtime)
        reply(runtime, CODE_ANSWER, citations=[{"url": "/configure/#rate-limit", "title": "Configure"}])
        widget.goto()
        widget.ask("All the options?")
        widget.wait_answer()
        g = code_geometry(widget)
        assert g["scrollWidth"] > g["clientWidth"] + 100, g
        assert g["scrolled"] > 0, g
        # Two lines, no wrapping: not one token broken over lines.
        assert g["height"] < 4 * g["lineHeight"], g
        # The block sits inside the panel, not cut at its edge.
        assert g["panelLeft"] <= g["blockLeft"] and g["blockRight"] <= g["panelRight"], g
        widget.screenshot(f"answer-first-code-{width}")
        assert not widget.unexpected_console_errors()
    finally:
        context.close()


def test_suggested_questions_in_the_empty_state_ask_when_clicked(widget, runtime):
    widget.goto()
    widget.open()
    chips = widget.hook("suggestion")
    expect(chips).to_have_text(SUGGESTIONS["en"])
    widget.screenshot("answer-first-suggestions")
    chips.nth(1).click()
    widget.wait_answer()
    assert runtime.chats[-1].body["message"] == SUGGESTIONS["en"][1]
    expect(chips.first).to_be_hidden()


def test_suggested_questions_follow_the_reader_language(widget, runtime):
    widget.goto("/es/instalar/")
    widget.open()
    expect(widget.hook("suggestion")).to_have_text(SUGGESTIONS["es"])


def test_search_as_you_type_jumps_to_a_section_with_the_keyboard(widget, runtime):
    widget.goto()
    widget.open()
    page = widget.page
    page.keyboard.type("rate limit")
    options = widget.hook("hit")
    expect(options.first).to_contain_text("Configure › Rate limit")
    expect(widget.hook("hits")).to_have_attribute("data-source", "api")
    assert runtime.searches[-1]["q"] == "rate limit"
    assert runtime.searches[-1]["locale"] == "en"
    widget.screenshot("answer-first-search-as-you-type")
    page.keyboard.press("ArrowDown")
    expect(options.first).to_have_attribute("aria-selected", "true")
    option_id = options.first.get_attribute("id")
    expect(widget.input).to_have_attribute("aria-activedescendant", option_id)
    page.keyboard.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "false")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page).to_have_url(runtime.url + "/configure/#rate-limit")
    assert runtime.chats == []


def test_enter_without_a_selection_still_asks_and_escape_only_hides_results(widget, runtime):
    widget.goto()
    widget.open()
    page = widget.page
    page.keyboard.type("install with pip")
    expect(widget.hook("hit").first).to_be_visible()
    page.keyboard.press("Escape")
    expect(widget.hook("hit")).to_have_count(0)
    expect(widget.panel).to_be_visible()
    page.keyboard.type("?")
    expect(widget.hook("hit").first).to_be_visible()
    page.keyboard.press("Enter")
    widget.wait_answer()
    assert runtime.chats[-1].body["message"] == "install with pip?"
    expect(widget.hook("hit")).to_have_count(0)


def test_search_as_you_type_uses_lunr_when_the_runtime_is_absent(widget, runtime):
    widget.allow_console(r"status of 404")
    runtime.search_status = 404
    widget.goto()
    widget.open()
    widget.page.keyboard.type("virtual environment")
    expect(widget.hook("hit").first).to_have_attribute("href", runtime.url + "/install/#with-pip")
    expect(widget.hook("hits")).to_have_attribute("data-source", "lunr")
    widget.input.fill("")
    widget.page.keyboard.type("rate")
    expect(widget.hook("hit").first).to_have_attribute("href", runtime.url + "/configure/#rate-limit")
    assert len(runtime.searches) == 1  # the absent runtime is asked once, not per keystroke


def test_wide_screen_docks_the_panel_beside_the_page(widget, runtime):
    widget.goto()
    widget.open()
    page = widget.page
    widget.panel.evaluate("el => Promise.all(el.getAnimations().map((a) => a.finished))")
    panel = widget.panel.bounding_box()
    assert panel["x"] + panel["width"] == 1280 and panel["height"] == 800
    assert widget.panel.get_attribute("aria-modal") == "false"
    # The page is narrowed beside the panel: its own controls stay clickable.
    button = page.locator("#outside").bounding_box()
    assert button["x"] + button["width"] <= panel["x"]
    page.locator("#outside").click()
    assert page.evaluate("document.activeElement.id") == "outside"
    expect(widget.panel).to_be_visible()
    page.keyboard.press("Control+k")
    page.keyboard.press("Escape")
    expect(widget.panel).to_be_hidden()
    assert page.evaluate("document.documentElement.style.paddingRight") == ""


def test_narrow_screen_panel_is_a_modal_with_a_backdrop(browser, runtime):
    from conftest import Widget

    context = browser.new_context(viewport={"width": 900, "height": 700})
    try:
        widget = Widget(context.new_page(), runtime)
        widget.goto()
        widget.open()
        assert widget.panel.get_attribute("aria-modal") == "true"
        # A click beside the panel lands on the backdrop, which closes it; the page is usable again.
        widget.page.mouse.click(40, 350)
        expect(widget.panel).to_be_hidden()
        widget.page.locator("#outside").click()
        assert widget.page.evaluate("document.activeElement.id") == "outside"
        assert not widget.unexpected_console_errors()
    finally:
        context.close()


def test_new_parts_pass_axe(widget, runtime, axe_path):
    reply(runtime, EXTRACTIVE, citations=EXTRACTIVE_CITATIONS)
    widget.goto()
    widget.open()
    expect(widget.hook("suggestion").first).to_be_visible()
    widget.page.add_script_tag(path=str(axe_path))
    scan = """async () => {
      const r = await axe.run(document.getElementById("askdocs-widget"), { resultTypes: ["violations"] });
      return r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(" ")) }));
    }"""
    assert widget.page.evaluate(scan) == []
    widget.page.keyboard.type("rate limit")
    expect(widget.hook("hit").first).to_be_visible()
    widget.page.keyboard.press("ArrowDown")
    assert widget.page.evaluate(scan) == []
    widget.input.fill("")
    widget.ask("Memory?")
    widget.wait_answer()
    assert widget.page.evaluate(scan) == []
