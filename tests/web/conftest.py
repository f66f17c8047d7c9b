"""Browser tests: a real ``ttr-nordic serve`` on a free port with a temporary SQLite database,
driven by Playwright (sync API) in Debian's Chromium (``apt-get install -y chromium``; never
``playwright install``). Without Chromium the tests are skipped locally and fail under ``CI``.

Screenshots of the main screens go to ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    message = "Chromium is not installed (apt-get install -y chromium): the browser tests cannot run"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``ttr-nordic serve`` process; yields its base URL."""
    port = free_port()
    db = tmp_path_factory.mktemp("web-db") / "games.sqlite3"
    command = [
        sys.executable,
        "-m",
        "ttr_nordic.cli",
        "serve",
        "--port",
        str(port),
        "--database-url",
        f"sqlite:///{db}",
        # Every browser test creates games from 127.0.0.1: no limit on creation here.
        "--games-per-minute",
        "100000",
    ]
    log = open(tmp_path_factory.mktemp("web-log") / "server.log", "w+b")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/board", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"the server did not start: {log.read().decode(errors='replace')}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": chromium_path(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(server: str) -> str:
    return server


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], base_url: str) -> dict[str, Any]:
    # English unless a test asks for another language (the page follows the browser's language).
    return {**browser_context_args, "base_url": base_url, "viewport": {"width": 1440, "height": 960}, "locale": "en-US"}


@pytest.fixture
def german_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A page in a browser whose language is German (the page then speaks German)."""
    context = browser.new_context(**{**browser_context_args, "locale": "de-DE"})
    try:
        yield context.new_page()
    finally:
        context.close()


class RequestLog:
    """Every URL the pages of a context asked for."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.errors: list[str] = []

    def attach(self, context: Any) -> None:
        context.on("request", lambda request: self.urls.append(request.url))
        context.on("weberror", lambda error: self.errors.append(str(error.error)))

    def foreign(self) -> list[str]:
        return [u for u in self.urls if urlparse(u).hostname not in ("127.0.0.1",) and not u.startswith("data:")]


@pytest.fixture
def requests_seen(context: Any) -> RequestLog:
    log = RequestLog()
    log.attach(context)
    return log


def shot(page: Any, name: str, full_page: bool = False) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
