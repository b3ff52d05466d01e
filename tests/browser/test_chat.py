"""Asking, streaming, citations, escalation, feedback and history against scripted streams."""

from __future__ import annotations

import time

import pytest
from fake_runtime import Comment, Event, Raw, Sleep, answer, done, status, tokens, tool
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

INSTALL = [{"url": "/install/#with-pip", "title": "Install"}]


def test_answer_streams_token_by_token_with_citation(widget, runtime):
    words = [f"word{i} " for i in range(12)]
    runtime.reply(
        status("searching"),
        tool("cat", path="/install/"),
        status("answering"),
        *tokens(words, delay=0.15),
        done("a-42", citations=INSTALL),
    )
    widget.goto()
    widget.ask("How do I install askdocs?")

    seen: list[str] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = widget.last_answer.locator(".md").inner_text().strip()
        if text and (not seen or seen[-1] != text):
            seen.append(text)
        if widget.last_answer.get_attribute("aria-busy") == "false":
            break
        time.sleep(0.05)
    widget.wait_answer()

    assert len(seen) >= 4, seen
    for shorter, longer in zip(seen, seen[1:], strict=False):
        assert longer.startswith(shorter), (shorter, longer)
    assert widget.last_answer.locator(".md").inner_text().split() == [w.strip() for w in words]

    citation = widget.last_answer.locator('[data-askdocs="citation"]')
    expect(citation).to_have_count(1)
    expect(citation).to_have_text("From: Install")
    assert citation.get_attribute("href") == runtime.url + "/install/#with-pip"
    expect(widget.status).to_be_hidden()

    chat = runtime.chats[-1]
    assert chat.body["message"] == "How do I install askdocs?"
    assert chat.body["locale"] == "en"
    assert chat.body["history"] == []
    assert chat.body["page_url"] == "/"
    assert chat.headers["content-type"] == "application/json"


def test_status_line_shows_the_work(widget, runtime):
    runtime.reply(
        status("searching"),
        Sleep(0.6),
        status("reading", "/configure/"),
        Sleep(0.6),
        tool("cat", path="/install/"),
        Sleep(0.6),
        status("answering"),
        Sleep(0.6),
        *tokens(["Done."]),
        done(),
    )
    widget.goto()
    widget.ask("What can I configure?")
    expect(widget.status).to_have_text("Searching…")
    expect(widget.status).to_have_text("Reading /configure/…")
    expect(widget.status).to_have_text("Reading /install/…")
    expect(widget.status).to_have_text("Answering…")
    widget.wait_answer()
    expect(widget.status).to_be_hidden()


def test_unanswered_question_shows_text_and_escalation(widget, runtime):
    runtime.reply(
        status("searching"),
        *tokens(["I checked Install and Configure but found nothing about billing."]),
        done(
            "a-7",
            answered=False,
            escalation={"url": "/support/", "text": "Ask the support team"},
        ),
    )
    widget.goto()
    widget.ask("How much does the enterprise plan cost?")
    widget.wait_answer()
    answer_el = widget.last_answer
    expect(answer_el).to_contain_text("found nothing about billing")
    escalation = answer_el.locator('[data-askdocs="escalation"]')
    expect(escalation).to_be_visible()
    expect(escalation).to_have_text("Ask the support team")
    assert escalation.get_attribute("href") == runtime.url + "/support/"


def test_escalation_to_another_site_opens_safely(widget, runtime):
    runtime.reply(
        *tokens(["Nothing found."]),
        done(
            answered=False,
            escalation={"url": "https://help.example.com/new", "text": "Open a ticket"},
        ),
    )
    widget.goto()
    widget.ask("Who is the CEO?")
    widget.wait_answer()
    escalation = widget.last_answer.locator('[data-askdocs="escalation"]')
    assert escalation.get_attribute("href") == "https://help.example.com/new"
    assert escalation.get_attribute("rel") == "noopener noreferrer"


def test_feedback_is_posted_and_acknowledged(widget, runtime):
    runtime.reply(*answer("Use pip.", answer_id="ans-99", citations=INSTALL))
    widget.goto()
    widget.ask("Install?")
    widget.wait_answer()
    up = widget.last_answer.locator('[data-askdocs="feedback-up"]')
    down = widget.last_answer.locator('[data-askdocs="feedback-down"]')
    expect(up).to_have_attribute("aria-pressed", "false")
    up.click()
    expect(up).to_have_attribute("aria-pressed", "true")
    expect(widget.last_answer).to_contain_text("Thanks, your feedback was recorded.")
    assert runtime.feedback == [{"answer_id": "ans-99", "vote": "up"}]
    down.click()
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(up).to_have_attribute("aria-pressed", "false")
    assert runtime.feedback[-1] == {"answer_id": "ans-99", "vote": "down"}


def test_follow_up_sends_history(widget, runtime):
    runtime.reply(*answer("Run pip install askdocs.", citations=INSTALL))
    runtime.reply(*answer("Python 3.11 or newer."))
    widget.goto()
    widget.ask("How do I install it?")
    widget.wait_answer()
    widget.ask("Which Python?")
    widget.wait_answer()
    expect(widget.answers).to_have_count(2)
    assert runtime.chats[1].body["history"] == [
        {"role": "user", "content": "How do I install it?"},
        {"role": "assistant", "content": "Run pip install askdocs."},
    ]


def test_history_survives_page_navigation(widget, runtime):
    runtime.reply(*answer("Run pip install askdocs.", answer_id="a-1", citations=INSTALL))
    runtime.reply(*answer("Yes."))
    widget.goto()
    widget.ask("How do I install it?")
    widget.wait_answer()
    widget.last_answer.locator('[data-askdocs="feedback-up"]').click()
    expect(widget.last_answer.locator('[data-askdocs="feedback-up"]')).to_have_attribute(
        "aria-pressed", "true"
    )

    widget.goto("/configure/")
    expect(widget.panel).to_be_hidden()
    widget.open()
    expect(widget.answers).to_have_count(1)
    expect(widget.last_answer).to_contain_text("Run pip install askdocs.")
    expect(widget.last_answer.locator('[data-askdocs="citation"]')).to_have_text("From: Install")
    expect(widget.last_answer.locator('[data-askdocs="feedback-up"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(widget.page.locator(".user")).to_contain_text("How do I install it?")

    widget.ask("Does it work offline?")
    widget.wait_answer()
    assert runtime.chats[1].body["page_url"] == "/configure/"
    assert [m["role"] for m in runtime.chats[1].body["history"]] == ["user", "assistant"]


def test_new_conversation_clears_history(widget, runtime):
    runtime.reply(*answer("First."))
    runtime.reply(*answer("Second."))
    widget.goto()
    widget.ask("One?")
    widget.wait_answer()
    widget.page.get_by_role("button", name="New conversation").click()
    expect(widget.answers).to_have_count(0)
    widget.ask("Two?")
    widget.wait_answer()
    assert runtime.chats[1].body["history"] == []
    widget.goto("/install/")
    widget.open()
    expect(widget.answers).to_have_count(1)


def test_stop_button_aborts_the_stream(widget, runtime):
    runtime.reply(status("answering"), *tokens([f"t{i} " for i in range(60)], delay=0.1), done())
    widget.goto()
    widget.ask("Tell me everything.")
    stop = widget.hook("stop")
    expect(stop).to_be_visible()
    expect(widget.last_answer.locator(".md")).to_contain_text("t3")
    stop.click()
    widget.wait_answer()
    expect(stop).to_be_hidden()
    expect(widget.hook("send")).to_be_visible()
    expect(widget.last_answer).to_contain_text("Stopped.")
    partial = widget.last_answer.locator(".md").inner_text()
    time.sleep(0.4)
    assert widget.last_answer.locator(".md").inner_text() == partial
    assert "t59" not in partial
    deadline = time.monotonic() + 5
    while "cancelled" not in runtime.streams_closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "cancelled" in runtime.streams_closed


def test_error_event_is_shown_with_retry(widget, runtime):
    runtime.reply(
        status("searching"),
        Event("error", {"code": "index_unavailable", "message": "The index is reloading."}),
    )
    runtime.reply(*answer("Here it is.", citations=INSTALL))
    widget.goto()
    widget.ask("Install?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("The index is reloading.")
    widget.last_answer.get_by_role("button", name="Retry").click()
    widget.wait_answer()
    expect(widget.answers).to_have_count(1)
    expect(widget.last_answer).to_contain_text("Here it is.")
    assert len(runtime.chats) == 2
    assert runtime.chats[1].body["message"] == "Install?"
    assert runtime.chats[1].body["history"] == []


def test_mid_stream_drop_is_reported_with_retry(widget, runtime):
    from fake_runtime import Drop

    widget.allow_console(r"net::ERR_|Failed to load resource")
    runtime.reply(status("answering"), *tokens(["Half an ans"]), Sleep(0.3), Drop())
    runtime.reply(*answer("Whole answer."))
    widget.goto()
    widget.ask("Something?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("The connection dropped before the answer was complete.")
    expect(widget.last_answer).to_contain_text("Half an ans")
    widget.last_answer.get_by_role("button", name="Retry").click()
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Whole answer.")


def test_stream_ending_without_done_is_reported(widget, runtime):
    runtime.reply(status("answering"), *tokens(["Cut short"]))
    widget.goto()
    widget.ask("Something?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("The connection dropped")


def test_stall_notice_appears_and_clears(widget, runtime):
    runtime.reply(
        status("searching"),
        Sleep(1.6),
        status("answering"),
        *tokens(["Back again."]),
        Sleep(0.3),
        done(),
    )
    widget.goto(stall_ms="700")
    widget.ask("Slow one?")
    notice = widget.last_answer.get_by_text("the answer seems to have stalled")
    expect(notice).to_be_visible()
    expect(notice).to_be_hidden()
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Back again.")


def test_keep_alive_comments_count_as_life(widget, runtime):
    runtime.reply(
        status("searching"),
        *[step for _ in range(6) for step in (Sleep(0.25), Comment())],
        *tokens(["Alive."]),
        done(),
    )
    widget.goto(stall_ms="700")
    widget.ask("Still there?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Alive.")
    expect(widget.last_answer.get_by_text("stalled")).to_have_count(0)


def test_sse_framing_crlf_multiline_and_split_chunks(widget, runtime):
    runtime.reply(
        Raw(b': hello\r\n\r\nevent: status\r\ndata: {"stage": "searching"}\r\n\r\n'),
        Raw(b'event: token\r\ndata: {"text":\r\ndata: "Multi "}\r'),
        Sleep(0.1),
        Raw(b"\n\r\nevent: tok"),
        Sleep(0.1),
        Raw(b'en\ndata: {"text": "line \\u00e9t\xc3'),
        Sleep(0.1),
        Raw(b'\xa9 "}\n\nevent: token\rdata: {"text": "ok"}\r\r'),
        # The last event has no blank line after it before the stream ends.
        Raw(
            b'event: done\ndata: {"answer_id": "x", "answered": true, "mode": "llm", '
            b'"citations": [], "escalation": null}'
        ),
    )
    widget.goto()
    widget.ask("Framing?")
    widget.wait_answer()
    expect(widget.last_answer.locator(".md")).to_have_text("Multi line été ok")
    expect(widget.last_answer.locator('[data-askdocs="feedback-up"]')).to_be_visible()


def test_http_errors_from_the_runtime_are_explained(widget, runtime):
    from fake_runtime import Status

    widget.allow_console(r"status of 429")
    runtime.reply(Status(429, {"error": {"code": "rate_limited", "message": "slow down"}}))
    widget.goto()
    widget.ask("Too fast?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Too many questions in a short time.")
    expect(widget.last_answer.get_by_role("button", name="Retry")).to_be_visible()


def test_extractive_fallback_mode_is_said(widget, runtime):
    runtime.reply(*tokens(["Quoted text."]), done(mode="extractive-fallback"))
    widget.goto()
    widget.ask("Anything?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("The AI model was unavailable")


def test_copy_answer_and_code(widget, runtime, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=runtime.url)
    runtime.reply(*tokens(["Run:\n\n```bash\npip install askdocs\n```\n"]), done(citations=INSTALL))
    widget.goto()
    widget.ask("Command?")
    widget.wait_answer()
    widget.last_answer.get_by_role("button", name="Copy code").click()
    assert widget.page.evaluate("navigator.clipboard.readText()") == "pip install askdocs"
    widget.last_answer.get_by_role("button", name="Copy answer").click()
    copied = widget.page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Run:\n\n```bash\npip install askdocs\n```")
    assert f"- Install: {runtime.url}/install/#with-pip" in copied


def test_token_endpoint_and_set_token(widget, runtime, context):
    runtime.token = "jwt-from-endpoint"
    context.add_cookies([{"name": "session", "value": "reader", "url": runtime.url}])
    widget.goto(token_endpoint="/auth/token")
    widget.ask("Private?")
    widget.wait_answer()
    assert runtime.chats[-1].headers["authorization"] == "Bearer jwt-from-endpoint"

    widget.page.evaluate("window.askdocs.setToken('jwt-set-by-page')")
    widget.ask("Again?")
    widget.wait_answer()
    assert runtime.chats[-1].headers["authorization"] == "Bearer jwt-set-by-page"


def test_no_token_means_no_authorization_header(widget, runtime):
    widget.goto()
    widget.ask("Public?")
    widget.wait_answer()
    assert "authorization" not in runtime.chats[-1].headers


def test_javascript_api(widget, runtime):
    runtime.reply(*answer("Via the API."))
    widget.goto()
    widget.page.evaluate("window.askdocs.ask('From code?')")
    expect(widget.panel).to_be_visible()
    widget.wait_answer()
    assert runtime.chats[-1].body["message"] == "From code?"
    widget.page.evaluate("window.askdocs.close()")
    expect(widget.panel).to_be_hidden()
    widget.page.evaluate("window.askdocs.open()")
    expect(widget.panel).to_be_visible()
    widget.page.evaluate("window.askdocs.newConversation()")
    expect(widget.answers).to_have_count(0)


def test_expired_token_is_refreshed_once(widget, runtime, context):
    from fake_runtime import Status

    widget.allow_console(r"status of 401")
    runtime.token = "fresh-jwt"
    context.add_cookies([{"name": "session", "value": "reader", "url": runtime.url}])
    runtime.reply(Status(401, {"error": {"code": "token_expired", "message": "expired"}}))
    runtime.reply(*answer("Private answer."))
    widget.goto(token_endpoint="/auth/token")
    widget.ask("Private?")
    widget.wait_answer()
    expect(widget.answers).to_have_count(1)
    expect(widget.last_answer).to_contain_text("Private answer.")
    assert runtime.token_requests == 2
    assert [c.headers["authorization"] for c in runtime.chats] == ["Bearer fresh-jwt"] * 2


def test_unauthorized_without_token_endpoint_is_explained(widget, runtime):
    from fake_runtime import Status

    widget.allow_console(r"status of 401")
    runtime.reply(Status(401, {"error": {"code": "bad_token", "message": "bad token"}}))
    widget.goto()
    widget.page.evaluate("window.askdocs.setToken('garbage')")
    widget.ask("Private?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Your sign-in is missing or has expired.")


def test_retry_from_a_stalled_stream(widget, runtime):
    runtime.reply(status("searching"), Sleep(30), done())
    runtime.reply(*answer("Fresh answer."))
    widget.goto(stall_ms="500")
    widget.ask("Stuck?")
    notice = widget.last_answer.get_by_text("the answer seems to have stalled")
    expect(notice).to_be_visible()
    widget.last_answer.get_by_role("button", name="Retry").click()
    widget.wait_answer()
    expect(widget.answers).to_have_count(1)
    expect(widget.last_answer).to_contain_text("Fresh answer.")
    assert len(runtime.chats) == 2


def test_unanswered_without_escalation_uses_support_url(widget, runtime):
    runtime.reply(*tokens(["Nothing about that."]), done(answered=False))
    widget.goto(support_url="https://support.example.com/")
    widget.ask("Unknown?")
    widget.wait_answer()
    escalation = widget.last_answer.locator('[data-askdocs="escalation"]')
    expect(escalation).to_have_attribute("href", "https://support.example.com/")
    expect(escalation).to_have_text("Contact support")


def test_site_published_under_a_sub_path(widget, runtime):
    from fake_runtime import Status

    runtime.reply(*answer("Under docs.", citations=[{"url": "/install/#with-pip", "title": "Install"}]))
    widget.goto("/docs/guide/")
    widget.ask("Where?")
    widget.wait_answer()
    chat = runtime.chats[-1]
    assert chat.body["page_url"] == "/guide/"
    expect(widget.last_answer.locator('[data-askdocs="citation"]')).to_have_attribute(
        "href", runtime.url + "/docs/install/#with-pip"
    )
    # The offline fallback reads the shards next to the script, under /docs/.
    widget.allow_console(r"status of 503")
    runtime.reply(Status(503))
    widget.ask("rate limit")
    widget.wait_answer()
    expect(widget.last_answer.locator('[data-askdocs="citation"]').first).to_have_attribute(
        "href", runtime.url + "/docs/configure/#rate-limit"
    )


def test_stop_while_stalled_leaves_one_notice(widget, runtime):
    runtime.reply(status("searching"), Sleep(30), done())
    widget.goto(stall_ms="400")
    widget.ask("Stuck?")
    expect(widget.last_answer.get_by_text("the answer seems to have stalled")).to_be_visible()
    widget.hook("stop").click()
    widget.wait_answer()
    expect(widget.last_answer.locator(".note")).to_have_count(1)
    expect(widget.last_answer.locator(".note")).to_contain_text("Stopped.")
