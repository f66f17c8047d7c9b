"""The playtest report opens in Chromium from a file: no console error, no request leaves the page,
every figure decodes, and the page fits a phone's width."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ttr_nordic.cli import main
from web.conftest import CHROMIUM_ARGS, chromium_path


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("playtest-report")
    argv = ["playtest", "--agents", "random,route_focus", "--games", "3", "--players", "2,3", "--out", str(out), "-q"]
    assert main(argv) == 0
    return out / "report.html"


def check_page(browser: Any, report: Path, width: int, height: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report.as_uri())
    assert errors == []
    assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
    assert page.locator("img").count() >= 8
    widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete && i.naturalWidth)")
    assert all(w and w > 100 for w in widths), widths
    assert page.locator("h2").all_inner_texts()[:2] == ["Win rates and the first player", "Where the points come from"]
    # Wide tables scroll inside their box: the page itself does not scroll sideways.
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{width}px: the page is {overflow}px too wide"
    page.close()


def test_report_opens_without_errors(report: Path) -> None:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            for width, height in ((1440, 900), (390, 844)):
                check_page(browser, report, width, height)
        finally:
            browser.close()
