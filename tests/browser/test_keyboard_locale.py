"""Keyboard flow, focus handling and locale."""

from __future__ import annotations

import pytest
from fake_runtime import Sleep, answer, status
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_keyboard_flow(widget, runtime):
    runtime.reply(*answer("Keyboard answer."))
    widget.goto()
    page = widget.page
    page.locator("#outside").focus()

    page.keyboard.press("Control+k")
    expect(widget.panel).to_be_visible()
    assert widget.shadow_focus() == "input"

    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    assert widget.input.input_value() == "first line\nsecond line"
    page.keyboard.press("Enter")
    widget.wait_answer()
    assert runtime.chats[-1].body["message"] == "first line\nsecond line"
    assert widget.input.input_value() == ""

    page.keyboard.press("Escape")
    expect(widget.panel).to_be_hidden()
    assert page.evaluate("document.activeElement.id") == "outside"


def test_meta_k_opens_too(widget, runtime):
    widget.goto()
    widget.page.keyboard.press("Meta+k")
    expect(widget.panel).to_be_visible()
    assert widget.shadow_focus() == "input"


def test_focus_is_trapped_in_the_open_modal_panel(widget, runtime):
    runtime.reply(*answer("Trap.", citations=[{"url": "/install/", "title": "Install"}]))
    widget.page.set_viewport_size({"width": 900, "height": 700})  # below the docking width
    widget.goto()
    widget.ask("Trap?")
    widget.wait_answer()
    page = widget.page
    seen = set()
    for _ in range(25):
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "askdocs-widget"
        seen.add(widget.shadow_focus())
    assert {"input", "citation", "feedback-up", "feedback-down", "Close"} <= seen
    for _ in range(25):
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.id") == "askdocs-widget"


def test_launcher_click_then_escape_returns_focus_to_launcher(widget, runtime):
    widget.goto()
    widget.launcher.focus()
    widget.page.keyboard.press("Enter")
    expect(widget.panel).to_be_visible()
    widget.page.keyboard.press("Escape")
    expect(widget.panel).to_be_hidden()
    assert widget.shadow_focus() == "launcher"


def test_dialog_semantics(widget, runtime):
    widget.goto()
    widget.open()
    panel = widget.panel
    assert panel.get_attribute("role") == "dialog"
    # Docked beside the page it is a non-modal dialog; over the page, a modal one.
    assert panel.get_attribute("aria-modal") == "false"
    widget.page.set_viewport_size({"width": 900, "height": 700})
    expect(panel).to_have_attribute("aria-modal", "true")
    expect(widget.page.get_by_role("dialog", name="Ask the docs")).to_be_visible()
    expect(widget.launcher).to_have_attribute("aria-expanded", "true")
    assert widget.page.locator("[aria-live=polite]").count() == 1


def test_completed_answer_is_announced(widget, runtime):
    runtime.reply(*answer("Announced answer text."))
    widget.goto()
    widget.ask("Say it?")
    widget.wait_answer()
    expect(widget.page.locator("[aria-live=polite]")).to_have_text("Answer: Announced answer text.")


def test_spanish_page_gets_spanish_ui_and_locale(widget, runtime):
    runtime.reply(
        status("searching"),
        Sleep(0.5),
        *answer(
            "Ejecuta pip install askdocs.",
            citations=[{"url": "/es/instalar/", "title": "Instalación"}],
        ),
    )
    widget.goto("/es/instalar/")
    expect(widget.launcher).to_have_attribute("aria-label", "Pregunta a la documentación")
    widget.open()
    expect(widget.input).to_have_attribute("placeholder", "Haz una pregunta…")
    expect(widget.hook("send")).to_have_attribute("aria-label", "Enviar")
    widget.ask("¿Cómo instalo askdocs?")
    expect(widget.status).to_have_text("Buscando…")
    widget.wait_answer()
    assert runtime.chats[-1].body["locale"] == "es"
    expect(widget.last_answer.locator('[data-askdocs="citation"]')).to_have_text("Fuente: Instalación")
    expect(widget.last_answer.get_by_role("button", name="Copiar respuesta")).to_be_visible()


def test_data_locale_overrides_html_lang(widget, runtime):
    widget.goto("/", locale="es")
    widget.ask("Hola")
    widget.wait_answer()
    assert runtime.chats[-1].body["locale"] == "es"


def test_unknown_locale_falls_back_to_english_strings(widget, runtime):
    widget.goto("/", locale="zz-YY")
    expect(widget.launcher).to_have_attribute("aria-label", "Ask the docs")
    widget.ask("Hi")
    widget.wait_answer()
    assert runtime.chats[-1].body["locale"] == "zz"
