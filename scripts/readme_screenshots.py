"""The README's pictures, taken anew: a game against the computer in Chromium at 1440×900, the same
moment on a 390×844 phone and at 1366×768 in German, and the finished game's replay with the win
chances. Starts its own server on a free port with a throwaway SQLite database.

    .venv/bin/python scripts/readme_screenshots.py [--out docs] [--seed 3]

Needs the `dev` extra (Playwright) and Debian's Chromium (/usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.web.driver import actions, my_turn, step, wait_state  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "ttr_nordic.cli",
        "serve",
        "--port",
        str(port),
        "--database-url",
        f"sqlite:///{db}",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/board", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def quiet_moment(page: Any) -> None:
    """Wait until it is the player's turn with no dialog or animation in the way."""
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=60000)
    page.wait_for_timeout(1500)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="folder for the pictures (default docs)")
    parser.add_argument("--seed", type=int, default=3, help="seed of the page driver's choices (default 3)")
    parser.add_argument("--moves", type=int, default=80, help="actions before the game pictures (default 80)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        parser.error("Chromium is not installed (apt-get install -y chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "games.sqlite3")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=ARGS)
                laptop = browser.new_context(base_url=url, viewport={"width": 1440, "height": 900}, locale="en-GB")
                page = laptop.new_page()
                page.goto("/")
                page.fill("#ai-name", "Astrid")
                page.select_option("#ai-level-1", "medium")
                page.click("#start-ai")
                page.wait_for_url("**/play/**")
                wait_state(page)
                rng = random.Random(args.seed)
                while actions(page) < args.moves or not my_turn(page):
                    if step(page, rng) == "over":
                        raise SystemExit("the game ended before the pictures")
                quiet_moment(page)
                game_url = page.url
                page.screenshot(path=str(args.out / "screenshot.png"))
                for name, viewport, locale in (
                    ("screenshot-phone.png", (390, 844), "en-GB"),
                    ("screenshot-de.png", (1366, 768), "de-DE"),
                ):
                    other = browser.new_context(
                        base_url=url,
                        viewport={"width": viewport[0], "height": viewport[1]},
                        locale=locale,
                        is_mobile=viewport[0] < 500,
                        has_touch=viewport[0] < 500,
                        device_scale_factor=2 if viewport[0] < 500 else 1,
                    )
                    view = other.new_page()
                    view.goto(game_url)
                    wait_state(view)
                    quiet_moment(view)
                    view.screenshot(path=str(args.out / name))
                    other.close()
                while step(page, rng) != "over":
                    pass
                game_id = game_url.split("/play/")[1].split("?")[0]
                page.goto(f"/replay/{game_id}")
                page.locator("#replay-step").wait_for()
                page.click("#replay-end")
                page.locator("#replay-final").get_by_test_id("winner").wait_for()
                page.wait_for_timeout(1500)
                page.screenshot(path=str(args.out / "screenshot-replay.png"))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    for name in ("screenshot.png", "screenshot-phone.png", "screenshot-de.png", "screenshot-replay.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
