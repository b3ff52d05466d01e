"""Answer text is rendered safely: a Markdown subset, same-site links only, no HTML injection."""

from __future__ import annotations

import pytest
from fake_runtime import done, tokens
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def ask_with(widget, runtime, text: str) -> None:
    runtime.reply(*tokens([text[i : i + 7] for i in range(0, len(text), 7)]), done())
    widget.goto()
    widget.ask("Render this")
    widget.wait_answer()


def test_links_to_other_sites_are_plain_text(widget, runtime):
    ask_with(
        widget,
        runtime,
        "See [the install page](/install/#with-pip), [config](../configure/), "
        f"[absolute]({runtime.url}/configure/#rate-limit), [evil](https://evil.example/x), "
        "[sneaky](//evil.example/y), [js](javascript:alert(1)) and https://evil.example/raw "
        f"or {runtime.url}/install/.",
    )
    body = widget.last_answer.locator(".md")
    hrefs = [a.get_attribute("href") for a in body.locator("a").all()]
    assert hrefs == [
        runtime.url + "/install/#with-pip",
        runtime.url + "/configure/",
        runtime.url + "/configure/#rate-limit",
        runtime.url + "/install/",
    ]
    expect(body).to_contain_text("evil")
    expect(body).to_contain_text("sneaky")
    expect(body).to_contain_text("https://evil.example/raw")
    assert not any("evil" in (h or "") or "javascript" in (h or "") for h in hrefs)


def test_html_in_answer_text_is_not_injected(widget, runtime):
    payload = (
        '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
        '<a href="https://evil.example">click</a> **bold <b>tag</b>** `<i>code</i>`'
    )
    ask_with(widget, runtime, payload)
    body = widget.last_answer.locator(".md")
    assert body.locator("script, img, b, i, a").count() == 0
    expect(body).to_contain_text("<script>window.__pwned = 1</script>")
    expect(body).to_contain_text('<img src=x onerror="window.__pwned = 2">')
    expect(body.locator("strong")).to_have_text("bold <b>tag</b>")
    expect(body.locator("code")).to_have_text("<i>code</i>")
    assert widget.page.evaluate("window.__pwned") is None


def test_citation_and_escalation_urls_cannot_run_script(widget, runtime):
    runtime.reply(
        *tokens(["Nothing."]),
        done(
            answered=False,
            citations=[
                {"url": "javascript:alert(1)", "title": "Bad"},
                {"url": "https://evil.example/", "title": "Elsewhere"},
            ],
            escalation={"url": "javascript:alert(2)", "text": "Bad"},
        ),
    )
    widget.goto()
    widget.ask("Hmm?")
    widget.wait_answer()
    assert widget.last_answer.locator("a[href^='javascript'], a[href*='evil']").count() == 0
    expect(widget.last_answer.locator('[data-askdocs="escalation"]')).to_have_count(0)


def test_markdown_subset(widget, runtime):
    ask_with(
        widget,
        runtime,
        "## Steps\n\nFirst paragraph with **bold**, *emphasis* and `inline code`.\n\n"
        "- one\n- two with `code`\n  - nested\n\n"
        "1. first\n2. second\n\n"
        "> quoted line\n\n"
        "```python\nprint('hi')\nx = 1\n```\n\n"
        "Last line\nwith a break.",
    )
    body = widget.last_answer.locator(".md")
    expect(body.locator(".h")).to_have_text("Steps")
    expect(body.locator("strong").first).to_have_text("bold")
    expect(body.locator("em")).to_have_text("emphasis")
    expect(body.locator("ul > li")).to_have_count(3)
    expect(body.locator("ul ul > li")).to_have_text("nested")
    expect(body.locator("ol > li")).to_have_text(["first", "second"])
    expect(body.locator("blockquote")).to_have_text("quoted line")
    expect(body.locator("pre code")).to_have_text("print('hi')\nx = 1")
    expect(body.locator(".code .bar")).to_contain_text("python")
    expect(body.get_by_role("button", name="Copy code")).to_be_visible()
    assert body.locator("p br").count() == 1


def test_unclosed_code_fence_while_streaming_renders_as_code(widget, runtime):
    ask_with(widget, runtime, "Try:\n\n```\nunfinished code")
    expect(widget.last_answer.locator("pre code")).to_have_text("unfinished code")


def test_escaped_brackets_in_link_text_keep_the_title(widget, runtime):
    text = "Quoted.\n\nFrom: [Rules › #\\[doc\\] attributes](/attributes/) and [a\\\\b](/x/)"
    ask_with(widget, runtime, text)
    links = widget.last_answer.locator(".md a")
    expect(links.nth(0)).to_have_text("Rules › #[doc] attributes")
    assert links.nth(0).get_attribute("href") == runtime.url + "/attributes/"
    expect(links.nth(1)).to_have_text("a\\b")
