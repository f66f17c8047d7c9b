"""How long the game page takes to render a state update, measured in Chromium with the
Performance API.

Starts ``ttr-nordic serve`` on a free loopback port with a temporary SQLite database, opens a game
against the computer in Debian's Chromium (Playwright, never ``playwright install``), plays a few
turns through the page (keep the tickets, draw from the deck) and records every ``state`` message
the server sent. Then, in the page, it hands those recorded messages back to the page's own
WebSocket handler one after another, ``--repeat`` times, and times each with ``performance.now()``
from the message's arrival to the end of style and layout (``offsetHeight`` forces them), so the
figure covers parsing, building the DOM and SVG changes, and laying them out. Animations run at the
page's default speed; they are CSS and do not block the handler. Prints the median, 90th
percentile and slowest of the timed updates, and the count of requests to hosts other than the
server (must be 0).

On a shared machine the wall clock counts the time other processes hold the CPU. The script
therefore also replays the states in chunks of ``--chunk`` and reads the page's main-thread CPU
time around each chunk (the DevTools protocol's ``ThreadTime`` metric): the median of the chunks'
CPU milliseconds per update is the figure to compare between two versions on a busy machine.

    .venv/bin/python benchmarks/render_speed.py --repeat 200 --width 1440 --height 900
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]

# Record every message the page's sockets receive, before the page's own code runs.
RECORD_JS = """
(() => {
  window.__stateMessages = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener("message", (event) => {
      if (JSON.parse(event.data).type === "state") window.__stateMessages.push(event.data);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { OPEN: Native.OPEN, CLOSED: Native.CLOSED, CONNECTING: Native.CONNECTING });
})();
"""

# Replay the recorded states through the page's handler; each timed to the end of layout.
TIME_JS = """
(repeat) => {
  const ws = window.ttrDebug.socket();
  const messages = window.__stateMessages;
  const times = [];
  for (let i = 0; i < repeat; i++) {
    const data = messages[i % messages.length];
    const start = performance.now();
    ws.onmessage({ data });
    void document.body.offsetHeight;
    times.push(performance.now() - start);
  }
  // Leave the page on the newest state.
  ws.onmessage({ data: messages[messages.length - 1] });
  return times;
}
"""


# The same replay in chunks, for the CPU-time measure: each call goes on where the last one stopped.
CHUNK_JS = """
(count) => {
  const ws = window.ttrDebug.socket();
  const messages = window.__stateMessages;
  for (let k = 0; k < count; k++) {
    window.__nextState = ((window.__nextState || 0) + 1) % messages.length;
    ws.onmessage({ data: messages[window.__nextState] });
    void document.body.offsetHeight;
  }
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "ttr_nordic.cli", "serve", "--port", str(port)]
    command += ["--database-url", f"sqlite:///{db}"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/board", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200, help="state updates to time")
    parser.add_argument("--turns", type=int, default=6, help="turns to play before timing")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--chunk", type=int, default=10, help="updates per chunk of the CPU-time measure")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("Chromium is not installed (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "games.sqlite3")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
                context = browser.new_context(base_url=url, viewport={"width": args.width, "height": args.height})
                urls: list[str] = []
                context.on("request", lambda request: urls.append(request.url))
                context.add_init_script(RECORD_JS)
                page = context.new_page()
                page.goto("/")
                page.fill("#ai-name", "Bench")
                page.click("#start-ai")
                page.wait_for_url("**/play/**")
                page.locator("#keep-dialog").wait_for()
                for box in page.locator("#keep-dialog input[type=checkbox]").all():
                    box.check()
                page.locator("#keep-confirm").click()
                for _ in range(args.turns):
                    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
                    for _ in range(2):
                        before = page.evaluate("() => Number(document.body.dataset.actions)")
                        page.click("#deck")
                        page.wait_for_function("n => Number(document.body.dataset.actions) !== n", arg=before)
                        if page.evaluate("() => document.body.dataset.myTurn") != "1":
                            break
                page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
                recorded = page.evaluate("() => window.__stateMessages.length")
                times: list[float] = page.evaluate(TIME_JS, args.repeat)
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                cpu: list[float] = []

                def thread_time() -> float:
                    metrics = cdp.send("Performance.getMetrics")["metrics"]
                    return float(next(m["value"] for m in metrics if m["name"] == "ThreadTime"))

                for _ in range(max(1, args.repeat // args.chunk)):
                    before_cpu = thread_time()
                    page.evaluate(CHUNK_JS, args.chunk)
                    cpu.append((thread_time() - before_cpu) * 1000 / args.chunk)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    foreign = [u for u in urls if urlparse(u).hostname != "127.0.0.1" and not u.startswith("data:")]
    times.sort()
    print(f"viewport {args.width}x{args.height}, {recorded} recorded states, {len(times)} timed updates")
    print(
        f"render ms: median {statistics.median(times):.2f}, "
        f"p90 {times[int(len(times) * 0.9) - 1]:.2f}, slowest {times[-1]:.2f}"
    )
    cpu.sort()
    print(
        f"main-thread CPU ms per update: median {statistics.median(cpu):.2f}, "
        f"p90 {cpu[int(len(cpu) * 0.9) - 1]:.2f} ({len(cpu)} chunks of {args.chunk})"
    )
    print(f"requests outside the server: {len(foreign)}")


if __name__ == "__main__":
    main()
