"""Screenshots (light, dark, phone) saved to .artifacts/screenshots/, and an axe-core scan."""

from __future__ import annotations

import pytest
from fake_runtime import Sleep, done, status, tokens, tool
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ANSWER = (
    "Install askdocs with **pip** in a virtual environment, then add the plugin to "
    "`mkdocs.yml` next to `search`:\n\n"
    "```bash\npip install askdocs\n```\n\n"
    "1. Add `- askdocs` under `plugins:`.\n"
    "2. Run `mkdocs build`: the index is written to `site/_askdocs/`.\n\n"
    "See [Install with pip](/install/#with-pip) for the requirements."
)
CITATIONS = [
    {"url": "/install/#with-pip", "title": "Install"},
    {"url": "/configure/", "title": "Configure the MkDocs plugin"},
]


def converse(widget, runtime) -> None:
    runtime.reply(
        status("searching"),
        tool("cat", path="/install/"),
        *tokens([ANSWER[i : i + 9] for i in range(0, len(ANSWER), 9)]),
        done("a-1", mode="llm", citations=CITATIONS),
    )
    runtime.reply(
        *tokens(["I checked the Install and Configure pages but found nothing about pricing."]),
        done("a-2", answered=False, escalation={"url": "/support/", "text": "Contact support"}),
    )
    widget.goto()
    widget.ask("How do I install askdocs for MkDocs?")
    widget.wait_answer()
    widget.ask("How much does it cost?")
    widget.wait_answer()


def test_screenshot_launcher(widget, runtime):
    widget.goto()
    widget.screenshot("launcher-light")
    widget.page.emulate_media(color_scheme="dark")
    widget.screenshot("launcher-dark")


def test_screenshot_empty_panel(widget, runtime):
    widget.goto()
    widget.open()
    widget.screenshot("panel-empty-light")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshot_conversation(widget, runtime, scheme):
    widget.page.emulate_media(color_scheme=scheme)
    converse(widget, runtime)
    widget.last_answer.locator('[data-askdocs="feedback-up"]').hover()
    widget.screenshot(f"conversation-{scheme}")
    widget.page.evaluate(
        "document.getElementById('askdocs-widget').shadowRoot.querySelector('.log').scrollTop = 0"
    )
    widget.screenshot(f"conversation-top-{scheme}")


def test_screenshot_streaming_status(widget, runtime):
    runtime.reply(
        status("searching"), tool("cat", path="/install/"), *tokens(["Install it with "]), Sleep(30)
    )
    widget.goto(stall_ms="60000")
    widget.ask("How do I install?")
    expect(widget.status).to_have_text("Answering…")
    expect(widget.last_answer).to_contain_text("Install it with")
    widget.screenshot("streaming-light")
    widget.page.evaluate("window.askdocs.newConversation()")


def test_phone_layout(browser, runtime):
    from conftest import Widget

    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        widget = Widget(context.new_page(), runtime)
        widget.goto()
        widget.screenshot("phone-launcher")
        converse(widget, runtime)
        box = widget.panel.bounding_box()
        assert box == {"x": 0, "y": 0, "width": 360, "height": 740}
        scroll_width = widget.page.evaluate(
            "document.getElementById('askdocs-widget').shadowRoot.querySelector('.log').scrollWidth"
        )
        assert scroll_width <= 360
        widget.screenshot("phone-light")
        widget.page.emulate_media(color_scheme="dark")
        widget.screenshot("phone-dark")
        assert not widget.unexpected_console_errors()
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violations(widget, runtime, axe_path, scheme):
    widget.page.emulate_media(color_scheme=scheme)
    converse(widget, runtime)
    widget.page.add_script_tag(path=str(axe_path))
    result = widget.page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return r.violations.map((v) => ({
            id: v.id, impact: v.impact,
            nodes: v.nodes.map((n) => n.target.join(" ") + " :: " + n.failureSummary),
          }));
        }"""
    )
    serious = [v for v in result if v["impact"] in ("serious", "critical")]
    assert not serious, serious


def test_screenshot_failure_states(widget, runtime):
    from fake_runtime import Event, Status

    widget.allow_console(r"status of 503")
    runtime.reply(
        *tokens(["Partial answer that was "]),
        Event("error", {"code": "llm_failed", "message": "The model timed out."}),
    )
    runtime.reply(Status(503))
    runtime.reply(status("searching"), Sleep(30))
    widget.goto(stall_ms="300", support_url="/support/")
    widget.ask("What breaks?")
    widget.wait_answer()
    widget.ask("install with pip")
    widget.wait_answer()
    widget.ask("Stalled?")
    expect(widget.last_answer.get_by_text("stalled")).to_be_visible()
    widget.screenshot("failure-states-light")
    widget.page.emulate_media(color_scheme="dark")
    widget.screenshot("failure-states-dark")
    widget.hook("stop").click()
    widget.wait_answer()
