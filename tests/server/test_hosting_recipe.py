"""The hosting recipe of ``deploy/`` run on this machine: a throwaway PostgreSQL, the migration
unit's command, two server processes started by the template unit's command, and Caddy running the
shipped ``deploy/Caddyfile`` (its placeholders set: a local port, ``tls internal``, no admin
endpoint, certificates in a temporary folder). Chromium then plays against the computer through
``https://localhost:PORT``, its WebSocket going through Caddy, and the server the browser did not
use shows the same game.

Needs Debian's ``caddy``, PostgreSQL (``TTR_TEST_POSTGRES_URL``) and Chromium: without one the test
is skipped locally and fails under ``CI`` (``scripts/system-deps.sh`` installs them).
"""

from __future__ import annotations

import os
import shlex
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright
from prometheus_client.parser import text_string_to_metric_families
from test_hosting_processes import free_port, get, wait_ready

from web.conftest import CHROMIUM_ARGS, chromium_path
from web.driver import actions, draw_two, keep_all, my_turn, wait_state

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SHOTS = ROOT / "test-artifacts" / "screenshots"
INSTALLED_COMMAND = "/opt/ttr-nordic/venv/bin/ttr-nordic"


def caddy_path() -> str:
    path = shutil.which("caddy")
    if path:
        return path
    message = "Caddy is not installed (apt-get install -y caddy): the hosting recipe cannot be tested"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def unit_command(unit: str, instance: str = "") -> list[str]:
    """The ``ExecStart`` of a shipped systemd unit, run with this checkout's Python."""
    lines = (DEPLOY / unit).read_text().splitlines()
    (command,) = (line.split("=", 1)[1] for line in lines if line.startswith("ExecStart="))
    words = shlex.split(command.replace("%i", instance))
    assert words[0] == INSTALLED_COMMAND, words
    return [sys.executable, "-m", "ttr_nordic.cli", *words[1:]]


def env_file(database_url: str) -> dict[str, str]:
    """The settings of the shipped ``ttr-nordic.env``, with the test's database (and no JSON logs
    to read here: text is easier on a failure)."""
    settings = {}
    for line in (DEPLOY / "ttr-nordic.env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            settings[name.strip()] = value.strip()
    assert settings["TTR_NORDIC_DATABASE_URL"].startswith("postgresql+psycopg://")
    return {**settings, "TTR_NORDIC_DATABASE_URL": database_url}


@contextmanager
def running(command: list[str], log: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as output:
        process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)


def https_get(url: str) -> tuple[int, bytes]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # Caddy's own CA (tls internal), as the browser is told to accept
    try:
        with urllib.request.urlopen(url, timeout=10, context=context) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def metric(port: int, name: str, labels: dict[str, str] | None = None) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and (labels is None or sample.labels == labels):
                return float(sample.value)
    raise AssertionError(f"no {name} {labels or ''} in the metrics of port {port}")


def same_game(port: int, game_id: str, page: Any) -> int:
    """Wait until the process at ``port`` shows ``game_id`` at the number of actions the page shows
    (answers it). Both may move on a moment after a check: the page sends a click made while its
    previous one was unanswered once the answer comes, and a process holding the game in memory
    hears of another's moves by NOTIFY. Once it is the player's turn and nobody clicks, they agree."""
    deadline = time.monotonic() + 30
    while True:
        status, summary = get(f"http://127.0.0.1:{port}/api/games/{game_id}")
        shown = actions(page)
        if status == 200 and summary["actions"] == shown and my_turn(page):
            return shown
        assert time.monotonic() < deadline, f"port {port} shows {summary} while the page shows {shown} actions"
        page.wait_for_timeout(200)


def play_through_caddy(
    chromium: str,
    public: str,
    site: int,
    upstreams: list[int],
    servers: list[tuple[int, subprocess.Popen[bytes], Path]],
) -> None:
    """Chromium plays against the computer at ``public`` (Caddy); checks both processes, then kills
    the browser's and plays on. Runs in a thread of its own: Playwright's synchronous API keeps an
    event loop running in its thread, which later tests of the session calling asyncio.run would
    find there."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                ignore_https_errors=True, base_url=public, viewport={"width": 1440, "height": 900}
            )
            page = context.new_page()
            sockets: list[str] = []
            page.on("websocket", lambda ws: sockets.append(ws.url))
            page.goto("/")
            page.fill("#ai-name", "Tester")
            page.select_option("#ai-count", "1")
            page.select_option("#ai-level-1", "easy")
            page.click("#start-ai")
            page.wait_for_url("**/play/**")
            wait_state(page)
            game_id = page.url.split("/play/")[1].split("?")[0]
            # Cards from the deck only (the D key): the plainest moves, the same on any machine.
            keep_all(page)  # the first choice of tickets
            for _ in range(3):
                draw_two(page)  # returns at the player's next turn: the computer has answered
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "hosting-through-caddy.png"))

            assert sockets and all(url.startswith(f"wss://localhost:{site}/ws/games/{game_id}") for url in sockets)
            # The browser's socket is on one process (Caddy's cookie keeps it there)…
            open_sockets = [metric(port, "ttr_open_sockets") for port in upstreams]
            assert sorted(open_sockets) == [0.0, 1.0], open_sockets
            other = upstreams[open_sockets.index(0.0)]
            # …and the other process, asked directly, sees the same game at the same point.
            seen = same_game(other, game_id, page)
            assert seen >= 8
            assert same_game(upstreams[open_sockets.index(1.0)], game_id, page) == seen
            ai_moves = sum(metric(port, "ttr_moves_total", {"by": "ai"}) for port in upstreams)
            human_moves = sum(metric(port, "ttr_moves_total", {"by": "human"}) for port in upstreams)
            assert ai_moves >= 2 and ai_moves + human_moves == seen
            assert sum(metric(port, "ttr_ai_search_seconds_count") for port in upstreams) >= ai_moves

            # The browser's process dies: the page reconnects through Caddy to the other one and plays on.
            used = upstreams[open_sockets.index(1.0)]
            victim = next(process for port, process, _ in servers if port == used)
            ai_moves_before = metric(other, "ttr_moves_total", {"by": "ai"})
            victim.kill()
            victim.wait(10)
            deadline = time.monotonic() + 60
            while metric(other, "ttr_open_sockets") < 1:
                assert time.monotonic() < deadline, "the page did not reconnect to the other process"
                time.sleep(0.3)
            page.wait_for_function("() => document.querySelector('#conn').textContent === 'live'")
            draw_two(page)  # a turn of the player's, then the computer's
            assert metric(other, "ttr_moves_total", {"by": "ai"}) > ai_moves_before  # the computer answered there
            same_game(other, game_id, page)
        finally:
            browser.close()


def test_the_recipe_serves_a_game_through_caddy(postgres_database: str, tmp_path: Path) -> None:
    caddy = caddy_path()
    chromium = chromium_path()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("TTR_NORDIC_")}
    env = {**base_env, **env_file(postgres_database)}
    upstreams = [free_port(), free_port()]
    site = free_port()
    public = f"https://localhost:{site}"
    env["TTR_NORDIC_PUBLIC_URL"] = public
    env["TTR_NORDIC_LOG_FORMAT"] = "text"

    migrate = subprocess.run(
        unit_command("ttr-nordic-migrate.service"), env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert migrate.returncode == 0, migrate.stderr

    caddy_home = tmp_path / "caddy"
    caddy_env = {
        **base_env,
        "HOME": str(caddy_home),
        "XDG_CONFIG_HOME": str(caddy_home / "config"),
        "XDG_DATA_HOME": str(caddy_home / "data"),
        "TTR_SITE_ADDRESS": f"localhost:{site}",
        "TTR_UPSTREAMS": " ".join(f"127.0.0.1:{port}" for port in upstreams),
        # Offline and unprivileged: no admin endpoint, no HTTP port 80 (no redirects), its own CA
        # (not installed into this machine's trust store), certificates in a temporary folder.
        "TTR_CADDY_OPTIONS": "\n".join(
            [
                "admin off",
                "skip_install_trust",
                f"http_port {free_port()}",
                "auto_https disable_redirects",
                f"storage file_system {caddy_home / 'storage'}",
            ]
        ),
        "TTR_CADDY_SITE_OPTIONS": "tls internal\nbind 127.0.0.1",
    }
    with ExitStack() as stack:
        servers = []
        for port in upstreams:
            log = tmp_path / f"serve-{port}.log"
            process = stack.enter_context(running(unit_command("ttr-nordic@.service", str(port)), log, env))
            servers.append((port, process, log))
        caddy_log = tmp_path / "caddy.log"
        command = [caddy, "run", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"]
        proxy = stack.enter_context(running(command, caddy_log, caddy_env))
        for port, process, log in servers:
            wait_ready(port, process, log)
        deadline = time.monotonic() + 60
        while True:  # Caddy answers once it has made its certificate and sees a ready upstream
            try:
                status, _ = https_get(f"{public}/readyz")
                if status == 200:
                    break
            except OSError:
                pass
            assert proxy.poll() is None, caddy_log.read_text()
            assert time.monotonic() < deadline, f"Caddy did not answer: {caddy_log.read_text()}"
            time.sleep(0.3)
        assert https_get(f"{public}/metrics")[0] == 404  # each process's metrics stay private

        with ThreadPoolExecutor(1) as thread:
            thread.submit(play_through_caddy, chromium, public, site, upstreams, servers).result()
    for _, _, log in servers:
        assert "Traceback" not in log.read_text()


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd): the unit files cannot be checked")
    installed = Path(sys.executable).with_name("ttr-nordic")  # this checkout's command, for "is executable"
    for unit in ("ttr-nordic@.service", "ttr-nordic-migrate.service"):
        text = (DEPLOY / unit).read_text().replace(INSTALLED_COMMAND, str(installed))
        (tmp_path / unit.replace("@.", "@8001.")).write_text(text)
    result = subprocess.run(
        [analyze, "verify", "--man=no", "./ttr-nordic@8001.service", "./ttr-nordic-migrate.service"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    # Unknown keys and bad values are warnings (status 0): any output at all is a fault here.
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr
