"""One instance per tab across instant navigation; size budget; theme hooks."""

from __future__ import annotations

import gzip

import pytest
from fake_runtime import WIDGET_JS, answer
from playwright.sync_api import expect

MAX_GZIP_BYTES = 20 * 1024


def test_widget_fits_the_size_budget():
    size = len(gzip.compress(WIDGET_JS.read_bytes()))
    assert size <= MAX_GZIP_BYTES, f"widget.js is {size} bytes gzipped"


@pytest.mark.browser
def test_single_instance_survives_body_swaps_and_script_reruns(widget, runtime):
    runtime.reply(*answer("Kept across navigation."))
    widget.goto()
    widget.ask("Keep me?")
    widget.wait_answer()
    page = widget.page
    # An instant-navigation router: swap the body content, then re-run the script.
    page.evaluate(
        """() => {
          document.body.innerHTML = '<main><h1>Other page</h1></main>';
          const s = document.createElement('script');
          s.src = '/_askdocs/widget.js';
          document.body.append(s);
        }"""
    )
    page.wait_for_function("document.getElementById('askdocs-widget')?.isConnected")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.querySelectorAll('#askdocs-widget').length") == 1
    widget.page.evaluate("window.askdocs.open()")
    expect(widget.answers).to_have_count(1)
    expect(widget.last_answer).to_contain_text("Kept across navigation.")

    # A whole new <body> element.
    page.evaluate("document.documentElement.replaceChild(document.createElement('body'), document.body)")
    page.wait_for_function("document.getElementById('askdocs-widget')?.isConnected")
    assert page.evaluate("document.querySelectorAll('#askdocs-widget').length") == 1
    expect(widget.last_answer).to_contain_text("Kept across navigation.")


@pytest.mark.browser
def test_material_document_observable_reattaches(widget, runtime):
    runtime.extra_head = """<script>
      window.__subscribers = [];
      window.document$ = {
        subscribe(fn) { window.__subscribers.push(fn); return { unsubscribe() {} }; },
      };
    </script>"""
    widget.goto()
    page = widget.page
    assert page.evaluate("window.__subscribers.length") == 1
    reattached = page.evaluate(
        """() => {
          const host = document.getElementById('askdocs-widget');
          host.remove();
          window.__subscribers.forEach((fn) => fn(document));
          return host.isConnected;  // synchronously, before any MutationObserver runs
        }"""
    )
    assert reattached
    expect(widget.launcher).to_be_visible()


@pytest.mark.browser
def test_material_theme_variables_and_slate_scheme(widget, runtime):
    runtime.extra_head = """<style>
      body { --md-primary-fg-color: #009485; --md-primary-bg-color: #ffffff; }
    </style>"""
    widget.goto()
    bg = widget.launcher.evaluate("el => getComputedStyle(el).backgroundColor")
    assert bg == "rgb(0, 148, 133)"
    widget.open()
    panel_bg = lambda: widget.panel.evaluate("el => getComputedStyle(el).backgroundColor")  # noqa: E731
    assert panel_bg() == "rgb(255, 255, 255)"
    widget.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    expect(widget.page.locator("#askdocs-widget")).to_have_attribute("data-theme", "dark")
    assert panel_bg() != "rgb(255, 255, 255)"
    widget.page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
    expect(widget.page.locator("#askdocs-widget")).to_have_attribute("data-theme", "light")
    assert panel_bg() == "rgb(255, 255, 255)"


@pytest.mark.browser
def test_reduced_motion_disables_animation(widget, runtime):
    widget.page.emulate_media(reduced_motion="reduce")
    widget.goto()
    widget.open()
    assert widget.panel.evaluate("el => getComputedStyle(el).animationName") == "none"
    widget.page.emulate_media(reduced_motion="no-preference")
    widget.page.evaluate("window.askdocs.close(); window.askdocs.open()")
    assert widget.panel.evaluate("el => getComputedStyle(el).animationName") != "none"


@pytest.mark.browser
def test_strict_content_security_policy(widget, runtime):
    from fake_runtime import Status

    runtime.csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"
    widget.goto()
    assert widget.launcher.evaluate("el => getComputedStyle(el).position") == "fixed"
    runtime.reply(*answer("Styled under CSP."))
    widget.ask("CSP?")
    widget.wait_answer()
    expect(widget.last_answer).to_contain_text("Styled under CSP.")
    # The offline fallback loads lunr.js from the site itself, which script-src 'self' allows.
    widget.allow_console(r"status of 503")
    runtime.reply(Status(503))
    widget.ask("install with pip")
    widget.wait_answer()
    expect(widget.last_answer.locator('[data-askdocs="citation"]').first).to_be_visible()


@pytest.mark.browser
def test_blocking_script_in_head_and_a_second_tag(widget, runtime):
    runtime.extra_head = '<script src="/_askdocs/widget.js"></script>'
    runtime.reply(*answer("One widget."))
    widget.goto()
    page = widget.page
    assert page.evaluate("document.querySelectorAll('script[src$=\"widget.js\"]').length") == 2
    assert page.evaluate("document.querySelectorAll('#askdocs-widget').length") == 1
    widget.ask("How many?")
    widget.wait_answer()
    expect(widget.answers).to_have_count(1)
    assert len(runtime.chats) == 1
