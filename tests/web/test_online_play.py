"""Playing with friends in the browser: invite links that are never lost, links with the
browser's own address, "Your games" and resume, privacy between browsers, presence, the
your-turn title, and a seat handed to the computer. Two browser contexts are two people."""

from __future__ import annotations

import json
import random
import re
from typing import Any
from urllib.parse import urlparse

from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import RequestLog, shot
from .driver import actions, keep_all, step, wait_state


def create_online(page: Any, names: list[str]) -> list[str]:
    """Create an online game on the start page; returns the invite links shown."""
    page.goto("/")
    page.select_option("#on-count", str(len(names)))
    for i, name in enumerate(names, start=1):
        page.fill(f"#on-name-{i}", name)
    page.click("#start-online")
    links = page.locator("#invites .invite-link")
    expect(links).to_have_count(len(names))
    expect(page.locator("#invites")).to_contain_text("Send each player their own link")
    return [links.nth(i).input_value() for i in range(len(names))]


def game_id_of(url: str) -> str:
    return urlparse(url).path.split("/play/")[1]


def test_invite_links_survive_open_and_back(page: Any, requests_seen: RequestLog) -> None:
    """Finding 1: Create game, "Open" your own seat in the same tab, Back: the links are there,
    and the game page shows every seat's link at any time."""
    urls = create_online(page, ["Astrid", "Leif"])
    page.locator("#invites a.open-link").first.click()
    page.wait_for_url("**/play/**")
    wait_state(page)
    page.go_back()
    page.wait_for_url(re.compile(r"/$"))
    links = page.locator("#invites .invite-link")
    expect(links).to_have_count(2)
    assert [links.nth(i).input_value() for i in range(2)] == urls
    # ... and in "Your games", with the game to resume
    mine = page.locator(f'#my-active li[data-game="{game_id_of(urls[0])}"]')
    expect(mine).to_contain_text("Astrid")
    assert mine.locator("a.resume-link").get_attribute("href") == urlparse(urls[0]).path + "?" + urlparse(urls[0]).query
    # The game page, reloaded: its "Invite links" hold every seat's link, and Copy copies.
    page.goto(urls[0])
    wait_state(page)
    page.reload()
    wait_state(page)
    panel = page.locator("#invite-panel")
    expect(panel).to_have_attribute("open", "")  # Leif has not come yet: the links are open
    game_links = panel.locator(".invite-link")
    expect(game_links).to_have_count(2)
    assert [game_links.nth(i).input_value() for i in range(2)] == urls
    panel.locator("button.copy-link").nth(1).click()
    expect(page.get_by_test_id("toast-info").last).to_contain_text("Link for Leif copied")
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def test_invite_links_use_the_address_the_browser_used(
    browser: Any, browser_context_args: dict[str, Any], base_url: str
) -> None:
    """Opened as localhost (say, a home network's address), the links say localhost, not 127.0.0.1."""
    port = urlparse(base_url).port
    other = f"http://localhost:{port}"
    context = browser.new_context(**{**browser_context_args, "base_url": other})
    try:
        page = context.new_page()
        urls = create_online(page, ["Astrid", "Leif"])
        assert all(u.startswith(f"{other}/play/") for u in urls), urls
    finally:
        context.close()


def test_your_games_resume_and_privacy(
    page: Any, browser: Any, browser_context_args: dict[str, Any], requests_seen: RequestLog
) -> None:
    """An unfinished game against the computer is listed on the start page and resumed after
    leaving it; another browser sees neither the game nor its record."""
    page.goto("/")
    page.fill("#ai-name", "Sigrid")
    page.click("#start-ai")
    page.wait_for_url("**/play/**")
    url = page.url
    game_id = game_id_of(url)
    page.locator("#keep-dialog").wait_for()
    before = actions(page)
    keep_all(page)
    page.wait_for_function("n => Number(document.body.dataset.actions) > n", arg=before)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=20000)
    hand = page.locator("#hand").inner_text()
    page.goto("/")
    entry = page.locator(f'#my-active li[data-game="{game_id}"]')
    expect(entry).to_contain_text("Sigrid")
    expect(entry).to_contain_text("vs computer")
    expect(entry.locator(".your-turn")).to_have_text("your turn")
    entry.locator("a.resume-link").click()
    page.wait_for_url(f"**/play/{game_id}?seat=*")
    wait_state(page)
    assert page.locator("#hand").inner_text() == hand
    assert page.url == url

    stranger = browser.new_context(**browser_context_args)
    try:
        other = stranger.new_page()
        other.goto("/")
        expect(other.locator("#my-games-note")).to_contain_text("No games yet")
        expect(other.locator(f'[data-game="{game_id}"]')).to_have_count(0)
        assert other.locator("#finished-list").count() == 0  # no public list on this server
        assert other.request.get("/api/games").status == 403
        record = other.request.get(f"/api/games/{game_id}/record")
        assert record.status == 403 and record.json()["error"]["code"] == "TOKEN_REQUIRED"
        assert other.request.get(f"/api/games/{game_id}/replay/0").status == 403
        other.goto(f"/replay/{game_id}")
        expect(other.get_by_role("heading", name="No replay")).to_be_visible()
        asked = {"games": [{"id": game_id, "token": "guessed-token"}]}
        assert other.request.post("/api/games/mine", data=asked).json() == {"games": [], "unknown": [game_id]}
    finally:
        stranger.close()
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def play_hotseat_to_the_end(base_url: str, page: Any) -> tuple[str, str]:
    """A pass-and-play game created and played to its end over the socket (random legal
    moves, as a client would send them); returns its id and token."""
    created = page.request.post("/api/games", data={"mode": "hotseat", "seats": [{"name": "Ola"}, {"name": "Kari"}]})
    data = created.json()
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    rng = random.Random(8)
    ws_url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
    with connect(ws_url) as ws:
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "game_over":
                return game_id, token
            if message["type"] == "state" and message["legal"]:
                ws.send(json.dumps({"type": "act", "action": rng.choice(message["legal"])["action"]}))


def test_your_finished_games_replay_and_remove(page: Any, base_url: str, requests_seen: RequestLog) -> None:
    game_id, token = play_hotseat_to_the_end(base_url, page)
    page.goto(f"/play/{game_id}?seat={token}")  # the browser that played it keeps it
    page.locator("#final-dialog").wait_for()
    page.goto("/")
    entry = page.locator(f'#my-finished li[data-game="{game_id}"]')
    expect(entry).to_contain_text("Ola · Kari — won by")
    expect(page.locator("#my-active")).to_contain_text("None.")
    entry.locator("a.replay-link").click()
    page.wait_for_url(f"**/replay/{game_id}")
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"Step 0 / \d+"))
    page.go_back()
    page.locator(f'#my-finished li[data-game="{game_id}"] button.forget').click()
    expect(page.locator(f'#my-finished li[data-game="{game_id}"]')).to_have_count(0)
    page.reload()
    expect(page.locator("#my-games-note")).to_contain_text("No games yet")
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => document.body.dataset.myTurn === '1'"))


def test_presence_turn_title_and_seat_to_the_computer(
    page: Any, browser: Any, browser_context_args: dict[str, Any], requests_seen: RequestLog
) -> None:
    urls = create_online(page, ["Astrid", "Leif"])
    friend = browser.new_context(**browser_context_args)
    seen = RequestLog()
    seen.attach(friend)
    try:
        page.goto(urls[0])
        wait_state(page)
        leif_row = page.locator('#presence-list li[data-seat="1"]')
        expect(leif_row).to_have_class("away")
        second = friend.new_page()
        second.goto(urls[1])
        wait_state(second)
        expect(leif_row).to_have_class("here")
        expect(page.get_by_test_id("toast-info").filter(has_text="Leif joined the game")).to_be_visible()
        expect(second.locator('#presence-list li[data-seat="0"]')).to_have_class("here")
        expect(page.locator('#players tr[data-player="1"] .presence-mark')).to_have_class(re.compile("here"))
        # the tab title says whose turn it is, in both browsers
        page.wait_for_function("() => document.body.dataset.turnSignal !== undefined")
        second.wait_for_function("() => document.body.dataset.turnSignal !== undefined")
        mover, waiter = (page, second) if my_turn(page) else (second, page)
        assert mover.title().startswith("● Your turn — ")
        assert waiter.title().startswith("Waiting for ")
        # the chime is off until the player turns it on (and the choice is kept)
        sound = page.locator("#sound-toggle")
        expect(sound).not_to_be_checked()
        sound.check()
        assert page.evaluate("() => localStorage.getItem('ttr-sound')") == "1"
        # Leif closes his tab: Astrid is told; he comes back: told again
        second.close()
        expect(page.get_by_test_id("toast-info").filter(has_text="Leif left the game")).to_be_visible()
        expect(leif_row).to_have_class("away")
        expect(page.locator('#players tr[data-player="1"]')).to_have_class(re.compile("away"))
        second = friend.new_page()
        second.goto(urls[1])
        wait_state(second)
        expect(page.get_by_test_id("toast-info").filter(has_text="Leif is back")).to_be_visible()
        expect(leif_row).to_have_class("here")
        assert page.locator("#handover-1").count() == 0  # only an absent seat can be handed over
        second.close()
        expect(leif_row).to_have_class("away")
        # Astrid hands Leif's seat to the computer: two clicks (ask, then do)
        leif_row.locator("select.handover-level").select_option("easy")
        page.click("#handover-1")
        expect(page.locator("#handover-1")).to_have_text("Sure? Hand over (easy)")
        page.click("#handover-1")
        expect(page.get_by_test_id("toast-info").filter(has_text="played by the computer (easy)")).to_be_visible()
        expect(leif_row).to_contain_text("computer (easy)")
        expect(page.locator('#players tr[data-player="1"]')).to_contain_text("AI easy")
        # The game goes on: Astrid alone makes at most half the moves, the computer the rest.
        start = actions(page)
        rng = random.Random(4)
        for _ in range(60):
            if actions(page) >= start + 8:
                break
            step(page, rng)
        assert actions(page) >= start + 8
        log = page.locator("#log li .swatch[data-p='1']")
        assert log.count() > 0
        # Leif comes back: he watches his seat, and Astrid gives it back to him
        second = friend.new_page()
        second.goto(urls[1])
        wait_state(second)
        own_row = second.locator('#presence-list li[data-seat="1"]')
        expect(own_row).to_contain_text("the computer (easy) plays your seat")
        expect(leif_row).to_contain_text("watching")
        page.click("#handback-1")
        expect(second.get_by_test_id("toast-info").filter(has_text="Your seat is yours again")).to_be_visible()
        expect(page.locator('#players tr[data-player="1"]')).not_to_contain_text("AI easy")
        expect(leif_row).to_contain_text("here")
    finally:
        friend.close()
    assert seen.foreign() == [] and seen.errors == []
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def test_screenshots_start_page_and_invites(browser: Any, browser_context_args: dict[str, Any]) -> None:
    """The start page (with Your games and an online game's links) and the game page's table
    panel at 1440x900, 1366x768 and a 390x844 phone: no page wider than its screen."""
    for width, height in ((1440, 900), (1366, 768), (390, 844)):
        context = browser.new_context(**{**browser_context_args, "viewport": {"width": width, "height": height}})
        try:
            page = context.new_page()
            urls = create_online(page, ["Astrid", "Leif", "Cecilia"])
            page.goto(urls[0])
            wait_state(page)
            page.locator("#invite-panel .invite-link").first.wait_for()
            page.locator("#online-panel").scroll_into_view_if_needed()
            shot(page, f"online-game-{width}x{height}")
            page.goto("/")
            expect(page.locator("#my-active li")).to_have_count(1)
            shot(page, f"online-start-{width}x{height}", full_page=True)
            page.locator("#invites").scroll_into_view_if_needed()
            shot(page, f"online-invites-{width}x{height}")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        finally:
            context.close()


def test_a_hidden_tab_gets_a_notification_on_its_turn(browser: Any, browser_context_args: dict[str, Any]) -> None:
    """With notifications allowed and the tab hidden, the player's turn raises one."""
    context = browser.new_context(**browser_context_args)
    try:
        context.grant_permissions(["notifications"])
        # Before the page's scripts: the tab reads as hidden, and notifications are recorded.
        context.add_init_script(
            """
            Object.defineProperty(document, "hidden", { get: () => true });
            window.shownNotes = [];
            const Real = window.Notification;
            window.Notification = class extends Real {
              constructor(title, options) { super(title, options); window.shownNotes.push(title); }
            };
            Object.defineProperty(window.Notification, "permission", { get: () => Real.permission });
            """
        )
        page = context.new_page()
        page.goto("/")
        page.click("#start-ai")
        page.wait_for_url("**/play/**")
        page.locator("#keep-dialog").wait_for()
        page.wait_for_function("() => window.shownNotes.length === 1")
        assert page.evaluate("() => window.shownNotes") == ["Your turn — Ticket to Ride"]
        expect(page.locator("#notify-toggle")).to_have_text("Notifications on")
    finally:
        context.close()
