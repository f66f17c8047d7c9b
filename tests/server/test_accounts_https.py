"""The session cookie behind a real HTTPS reverse proxy (Caddy with its own CA): Secure when the
browser talks HTTPS to the proxy (uvicorn takes the scheme from the proxy's X-Forwarded-Proto),
not Secure on plain HTTP; a session made through the proxy works there."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: The proxy's certificate comes from Caddy's own CA, which this machine does not trust.
UNVERIFIED = ssl._create_unverified_context()


def call(url: str, body: Any = None, cookie: str = "") -> tuple[int, list[str], Any]:
    """(status, Set-Cookie headers, JSON body) of a GET, or a POST of ``body`` as JSON."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})}
    request = urllib.request.Request(url, data=data, headers=headers, method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=10, context=UNVERIFIED) as response:
            return response.status, response.headers.get_all("set-cookie") or [], json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, [], json.loads(exc.read())


def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if call(url)[0] == 200:
                return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``ttr-nordic serve`` behind Caddy: yields (the server's http URL, the proxy's https URL)."""
    caddy = shutil.which("caddy")
    if caddy is None:
        message = "Caddy is not installed (apt-get install -y caddy): the HTTPS test cannot run"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    app_port, proxy_port = free_port(), free_port()
    server_log, proxy_log = tmp_path / "server.log", tmp_path / "caddy.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(app_port), "--database-url",
         f"sqlite:///{tmp_path / 'games.sqlite'}"],
        stdout=server_log.open("wb"), stderr=subprocess.STDOUT, cwd=ROOT,
    )  # fmt: skip
    caddyfile = tmp_path / "Caddyfile"
    caddyfile.write_text(
        "{\n  admin off\n  skip_install_trust\n  auto_https disable_redirects\n"
        f"  storage file_system {tmp_path / 'caddy-data'}\n}}\n"
        f"https://localhost:{proxy_port} {{\n  tls internal\n  reverse_proxy 127.0.0.1:{app_port}\n}}\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    proxy = subprocess.Popen(
        [caddy, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
        stdout=proxy_log.open("wb"), stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    try:
        wait_until_up(f"http://127.0.0.1:{app_port}/api/board", server, server_log)
        wait_until_up(f"https://localhost:{proxy_port}/api/board", proxy, proxy_log)
        yield f"http://127.0.0.1:{app_port}", f"https://localhost:{proxy_port}"
    finally:
        for process in (proxy, server):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


def test_the_session_cookie_is_secure_behind_an_https_proxy(proxied: tuple[str, str]) -> None:
    plain, secure = proxied
    body = {"name": "Caddy1", "password": "behind the proxy"}
    status, cookies, answer = call(f"{secure}/api/account/sign-up", body)
    assert status == 201, answer
    (cookie,) = cookies
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    session = cookie.split(";")[0]
    assert call(f"{secure}/api/account", cookie=session)[2]["user"]["name"] == "Caddy1"
    status, cookies, answer = call(f"{plain}/api/account/sign-in", body)
    assert status == 200, answer
    assert "Secure" not in cookies[0]
