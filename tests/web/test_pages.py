"""The start page, the game page against the AI played to the end, reconnecting, the replay viewer."""

from __future__ import annotations

import os
import random
import re
import shutil
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import ROOT, RequestLog, shot
from .driver import actions, keep_all, step, wait_state


def test_start_page(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    page.get_by_role("heading", name="Play against the computer").wait_for()
    page.get_by_role("heading", name="Your games").wait_for()
    shot(page, "start")
    page.select_option("#on-count", "3")
    page.click("#start-online")
    links = page.locator(".invite-link")
    links.nth(2).wait_for()
    assert links.count() == 3
    values = [links.nth(i).input_value() for i in range(3)]
    assert all("/play/" in v and "?seat=" in v for v in values)
    assert len(set(values)) == 3
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def start_ai_game(page: Any, level: str = "easy", opponents: int = 1) -> str:
    page.goto("/")
    page.fill("#ai-name", "Tester")
    page.select_option("#ai-count", str(opponents))
    page.select_option("#ai-level-1", level)
    if opponents == 2:
        page.select_option("#ai-level-2", level)
    page.click("#start-ai")
    page.wait_for_url("**/play/**")
    wait_state(page)
    return str(page.url)


@pytest.fixture(scope="session")
def ai_game(browser: Any, browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A whole game against an easy AI, every move made through the page's controls."""
    context = browser.new_context(**browser_context_args)
    seen = RequestLog()
    seen.attach(context)
    page = context.new_page()
    try:
        url = start_ai_game(page)
        page.locator("#keep-dialog").wait_for()
        shot(page, "tickets-dialog")
        rng = random.Random(7)
        done = {"claim_shot": False, "game_shot": False}

        def claim_shot() -> None:
            if not done["claim_shot"] and actions(page) > 30:
                shot(page, "claim-dialog")
                done["claim_shot"] = True

        def tunnel_shot() -> None:
            if not done.get("tunnel_shot"):
                shot(page, "tunnel-dialog")
                done["tunnel_shot"] = True

        for _ in range(3000):
            did = step(page, rng, claim_shot, tunnel_shot)
            if did == "over":
                break
            if not done["game_shot"] and actions(page) > 90 and did != "wait":
                path = shot(page, "game")
                if os.environ.get("UPDATE_DOCS_SCREENSHOT"):  # the README's picture: refreshed on request only
                    shutil.copyfile(path, ROOT / "docs" / "screenshot.png")
                done["game_shot"] = True
        else:
            raise AssertionError("the game did not end")
        final = page.locator("#final-dialog")
        final.get_by_test_id("winner").wait_for()
        shot(page, "scoring")
        return {
            "id": url.split("/play/")[1].split("?")[0],
            "url": url,
            "cards": final.locator(".score-card").count(),
            "text": final.inner_text(),
            "replay_href": final.locator("#replay-link").get_attribute("href"),
            "foreign": seen.foreign(),
            "errors": seen.errors,
        }
    finally:
        context.close()


def test_game_against_ai_to_the_end(ai_game: dict[str, Any]) -> None:
    assert ai_game["cards"] == 2
    assert "Globetrotter" in ai_game["text"] and "Total" in ai_game["text"]
    assert ai_game["replay_href"] == f"/replay/{ai_game['id']}"
    assert ai_game["foreign"] == []
    assert ai_game["errors"] == []


def test_replay_steps_forward_and_back(page: Any, ai_game: dict[str, Any], requests_seen: RequestLog) -> None:
    # A finished game is listed under "Your games" in a browser that played it (holds its token).
    page.goto(ai_game["url"])
    wait_state(page)
    page.goto("/")
    page.locator(f'a.replay-link[href="/replay/{ai_game["id"]}"]').click()
    page.wait_for_url(f"**/replay/{ai_game['id']}")
    step_text = page.locator("#replay-step")
    expect(step_text).to_have_text(re.compile(r"Step 0 / \d+"))
    total = int(step_text.inner_text().split("/")[1])
    assert total > 50
    for _ in range(3):
        page.click("#replay-forward")
    expect(step_text).to_have_text(f"Step 3 / {total}")
    page.click("#replay-back")
    expect(step_text).to_have_text(f"Step 2 / {total}")
    page.keyboard.press("ArrowRight")
    expect(step_text).to_have_text(f"Step 3 / {total}")
    page.click("#replay-end")
    expect(step_text).to_have_text(f"Step {total} / {total}")
    assert page.locator(".route.claimed").count() > 5
    page.locator("#replay-final").get_by_test_id("winner").wait_for()
    shot(page, "replay")
    page.click("#replay-start")
    expect(step_text).to_have_text(f"Step 0 / {total}")
    assert page.locator(".route.claimed").count() == 0
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def test_replay_only_for_finished_games(page: Any) -> None:
    url = start_ai_game(page)
    game_id, token = url.split("/play/")[1].split("?seat=")
    response = page.request.get(f"/api/games/{game_id}/replay/0", headers={"X-Game-Token": token})
    assert response.status == 409
    assert response.json()["error"]["code"] == "GAME_NOT_FINISHED"


def test_reload_mid_game_shows_the_same_state(page: Any) -> None:
    start_ai_game(page)
    rng = random.Random(3)
    while actions(page) < 12:
        step(page, rng)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'")
    before = (actions(page), page.locator("#hand").inner_text(), page.locator("#tickets").inner_text())
    claimed = page.locator(".route.claimed").count()
    page.reload()
    page.wait_for_function("n => Number(document.body.dataset.actions) === n", arg=before[0])
    expect(page.locator("#conn")).to_have_text("live")
    assert (actions(page), page.locator("#hand").inner_text(), page.locator("#tickets").inner_text()) == before
    assert page.locator(".route.claimed").count() == claimed


def test_phone_layout_and_keyboard(browser: Any, browser_context_args: dict[str, Any]) -> None:
    """A phone-sized screen: the map fits the width; tickets kept and a card drawn with the keyboard."""
    context = browser.new_context(**{**browser_context_args, "viewport": {"width": 390, "height": 844}})
    seen = RequestLog()
    seen.attach(context)
    page = context.new_page()
    try:
        start_ai_game(page)
        page.locator("#keep-dialog").wait_for()
        shot(page, "phone-tickets")
        box = page.locator("svg.board").bounding_box()
        assert box is not None and box["width"] <= 390
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # the keep dialog's first checkbox has focus (none is ticked): tick it and the next with
        # Space, then confirm with Enter
        before = actions(page)
        expect(page.locator("#keep-confirm")).to_be_disabled()
        page.keyboard.press("Space")
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        page.locator("#keep-confirm").focus()
        page.keyboard.press("Enter")
        page.wait_for_function("n => Number(document.body.dataset.actions) > n", arg=before)
        page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=20000)
        expect(page.locator("#tickets li")).to_have_count(2)
        # a route on the map, focused and opened with Enter: a dialog or a clear message
        route = page.locator(".route").first
        route.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#claim-dialog, .toast").first).to_be_visible()
        page.keyboard.press("Escape")
        before = actions(page)
        page.locator("#deck").focus()
        page.keyboard.press("Enter")
        page.wait_for_function("n => Number(document.body.dataset.actions) > n", arg=before)
        shot(page, "phone-game", full_page=True)
        assert seen.foreign() == []
        assert seen.errors == []
    finally:
        context.close()


def test_socket_reconnects_and_server_errors_show(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    # both players have kept their tickets (2 actions) and the main game waits on this player;
    # until the server answers the keep, the page still shows the keep decision as this player's turn
    page.wait_for_function(
        "() => Number(document.body.dataset.actions) >= 2 && document.body.dataset.myTurn === '1'",
        timeout=20000,
    )
    # hovering a ticket highlights its two cities
    page.locator("#tickets li").first.hover()
    expect(page.locator(".city.hl")).to_have_count(2)
    page.mouse.move(5, 5)
    expect(page.locator(".city.hl")).to_have_count(0)
    # the socket drops: the page reconnects by itself and shows the same game
    before = actions(page)
    page.evaluate("() => window.ttrDebug.socket().close()")
    expect(page.locator("#conn")).to_have_text("reconnecting…")
    expect(page.locator("#conn")).to_have_text("live")
    assert actions(page) == before
    # an action the server refuses: its message is shown, nothing changes
    page.evaluate("() => window.ttrDebug.send('C R01 LLLLLL')")
    error = page.get_by_test_id("toast-error")
    expect(error).to_be_visible()
    assert "(" in error.inner_text()
    assert actions(page) == before
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []
