"""Real-browser fixtures: Debian's Chromium driven by Playwright, one fake runtime per session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_runtime import REPO, FakeRuntime

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = REPO / ".artifacts" / "screenshots"
AXE_JS = REPO / "tests" / "node" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian Chromium is missing at /usr/bin/chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def fake_runtime() -> Iterator[FakeRuntime]:
    runtime = FakeRuntime()
    runtime.start()
    yield runtime
    runtime.stop()


@pytest.fixture
def runtime(fake_runtime: FakeRuntime) -> FakeRuntime:
    fake_runtime.reset()
    return fake_runtime


class Widget:
    """Drives the widget through its public `data-askdocs` hooks."""

    def __init__(self, page, runtime: FakeRuntime) -> None:
        self.page = page
        self.runtime = runtime
        self.console_errors: list[str] = []
        self.allowed_console: list[re.Pattern[str]] = []
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.console_errors.append(f"pageerror: {exc}"))

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def allow_console(self, pattern: str) -> None:
        """Browser-logged errors a test provokes on purpose (a refused connection…)."""
        self.allowed_console.append(re.compile(pattern))

    def unexpected_console_errors(self) -> list[str]:
        return [text for text in self.console_errors if not any(p.search(text) for p in self.allowed_console)]

    def hook(self, name: str):
        return self.page.locator(f'[data-askdocs="{name}"]')

    @property
    def launcher(self):
        return self.hook("launcher")

    @property
    def panel(self):
        return self.hook("panel")

    @property
    def input(self):
        return self.hook("input")

    @property
    def status(self):
        return self.hook("status")

    @property
    def answers(self):
        return self.hook("answer")

    @property
    def last_answer(self):
        return self.answers.last

    def goto(self, path: str = "/", **script_attrs: str) -> None:
        self.runtime.script_attrs = {k.replace("_", "-"): v for k, v in script_attrs.items()}
        self.page.goto(self.runtime.url + path)
        self.launcher.wait_for(state="visible")

    def open(self) -> None:
        self.launcher.click()
        self.panel.wait_for(state="visible")

    def ask(self, text: str) -> None:
        if not self.panel.is_visible():
            self.open()
        self.input.fill(text)
        self.input.press("Enter")

    def wait_answer(self, timeout: float = 10_000) -> None:
        from playwright.sync_api import expect

        expect(self.last_answer).to_have_attribute("aria-busy", "false", timeout=timeout)

    def shadow_focus(self) -> str | None:
        """The data-askdocs hook of the focused element inside the widget, if any."""
        return self.page.evaluate(
            """() => {
              const host = document.getElementById("askdocs-widget");
              if (document.activeElement !== host) return null;
              const el = host.shadowRoot.activeElement;
              if (!el) return null;
              return el.dataset.askdocs || el.getAttribute("aria-label") || el.tagName;
            }"""
        )

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), animations="disabled")
        return path


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light")
    yield context
    context.close()


@pytest.fixture
def widget(context, runtime: FakeRuntime) -> Iterator[Widget]:
    driver = Widget(context.new_page(), runtime)
    yield driver
    errors = driver.unexpected_console_errors()
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def axe_path() -> Path:
    if not AXE_JS.exists():
        pytest.skip("axe-core is missing: run `npm install` in tests/node")
    return AXE_JS
