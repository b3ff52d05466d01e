"""The widget inside a real Material for MkDocs site: theme colours, slate, instant navigation."""

from __future__ import annotations

import subprocess
import sys

import pytest
from playwright.sync_api import expect
from real_site import free_port, require_askdocs, serve

pytestmark = pytest.mark.browser

MKDOCS_YML = """\
site_name: Foxdocs
site_url: http://127.0.0.1:{port}/
theme:
  name: material
  font: false  # no Google Fonts: the tests run offline
  features:
    - navigation.instant
  palette:
    - scheme: default
      primary: teal
      toggle:
        icon: material/brightness-7
        name: Switch to dark mode
    - scheme: slate
      primary: teal
      toggle:
        icon: material/brightness-4
        name: Switch to light mode
plugins:
  - search
  - askdocs
"""
DOCS = {
    "index.md": "# Foxdocs\n\nFoxdocs collects metrics from your servers with a small agent.\n",
    "install.md": "# Install\n\nInstall the Foxdocs agent on Linux.\n\n## Install with pip\n\n"
    "Run `pip install foxdocs-agent` in a virtual environment. The agent listens on port 7431.\n",
    "support.md": "# Contact support\n\nEmail support@foxdocs.dev for help.\n",
}
TEAL = "rgb(0, 148, 133)"  # Material's "teal" primary, #009485


@pytest.fixture(scope="module")
def material_site(tmp_path_factory):
    pytest.importorskip("material", reason="mkdocs-material is not installed")
    require_askdocs()
    root = tmp_path_factory.mktemp("material")
    port = free_port()
    (root / "mkdocs.yml").write_text(MKDOCS_YML.format(port=port))
    (root / "docs").mkdir()
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text)
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / "mkdocs.yml")],
        check=True,
        capture_output=True,
    )
    with serve(root / "site", port) as url:
        yield url


def test_material_theme_instant_navigation_and_slate(widget, material_site):
    page = widget.page
    page.goto(material_site + "/")
    widget.launcher.wait_for(state="visible")
    assert widget.launcher.evaluate("el => getComputedStyle(el).backgroundColor") == TEAL

    widget.ask("How do I install the agent with pip?")
    widget.wait_answer(timeout=30_000)
    citation = widget.last_answer.locator('[data-askdocs="citation"]').first
    expect(citation).to_have_attribute("href", material_site + "/install/#install-with-pip")
    widget.screenshot("material-light")

    # Instant navigation: Material swaps the page without reloading it.
    page.evaluate("window.__sameDocument = true")
    widget.page.evaluate("window.askdocs.close()")
    page.locator(".md-nav__link", has_text="Contact support").first.click()
    expect(page).to_have_url(material_site + "/support/")
    expect(page.locator("h1")).to_have_text("Contact support")
    assert page.evaluate("window.__sameDocument") is True
    assert page.evaluate("document.querySelectorAll('#askdocs-widget').length") == 1
    widget.open()
    expect(widget.answers).to_have_count(1)

    widget.ask("Which port does the agent listen on?")
    widget.wait_answer(timeout=30_000)
    expect(widget.answers).to_have_count(2)
    widget.page.evaluate("window.askdocs.close()")

    # The palette toggle switches Material to its dark "slate" scheme.
    page.locator("label.md-header__button[for^='__palette']").first.click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator("#askdocs-widget")).to_have_attribute("data-theme", "dark")
    widget.open()
    widget.screenshot("material-dark")
