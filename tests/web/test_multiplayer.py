"""Two browsers playing one online game; pass-and-play hiding the hand between players."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import actions, keep_all, step, wait_state


def test_online_game_moves_appear_live_in_the_other_browser(
    browser: Any, browser_context_args: dict[str, Any], page: Any, requests_seen: RequestLog
) -> None:
    page.goto("/")
    page.fill("#on-name-1", "Astrid")
    page.fill("#on-name-2", "Leif")
    page.click("#start-online")
    links = page.locator(".invite-link")
    links.nth(1).wait_for()
    urls = [links.nth(i).input_value() for i in range(2)]
    shot(page, "online-invites")
    other = browser.new_context(**browser_context_args)
    seen = RequestLog()
    seen.attach(other)
    try:
        page.goto(urls[0])
        second = other.new_page()
        second.goto(urls[1])
        wait_state(page)
        wait_state(second)
        expect(page.locator("#players")).to_contain_text("Leif")
        rng = random.Random(5)
        for _ in range(12):
            mover = page if page.evaluate("() => document.body.dataset.myTurn === '1'") else second
            watcher = second if mover is page else page
            if not mover.evaluate("() => document.body.dataset.myTurn === '1'"):
                mover.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=5000)
            before = actions(mover)
            step(mover, rng)
            after = actions(mover)
            assert after > before
            # the other browser sees the move without reloading
            watcher.wait_for_function("n => Number(document.body.dataset.actions) === n", arg=after, timeout=5000)
            # the same move in the log (the mover's own line may say more: which card, which tickets)
            assert watcher.locator("#log li").count() == mover.locator("#log li").count()
            mine = mover.locator("#log li").last.inner_text().split()[:2]
            assert watcher.locator("#log li").last.inner_text().split()[:2] == mine
        assert seen.foreign() == []
        assert seen.errors == []
    finally:
        other.close()
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def test_pass_and_play_hides_the_hand_between_players(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    page.fill("#hs-name-1", "Ingrid")
    page.fill("#hs-name-2", "Olav")
    page.click("#start-hotseat")
    page.wait_for_url("**/play/**")
    wait_state(page)
    pass_screen = page.locator("#pass-screen")
    expect(pass_screen).to_be_visible()
    expect(pass_screen).to_contain_text("Pass to")
    first = "Ingrid" if "Ingrid" in pass_screen.inner_text() else "Olav"
    second = "Olav" if first == "Ingrid" else "Ingrid"
    expect(pass_screen).to_contain_text(f"Pass to {first}")
    expect(page.locator("#hand")).to_contain_text("Hidden")
    assert page.locator("#keep-dialog").count() == 0
    shot(page, "pass-screen")
    page.click("#pass-ready")
    expect(pass_screen).to_be_hidden()
    expect(page.locator("#hand")).to_contain_text(f"{first}'s hand")
    page.locator("#keep-dialog").wait_for()
    before = actions(page)
    keep_all(page)
    page.wait_for_function("n => Number(document.body.dataset.actions) > n", arg=before)
    # now the other player chooses tickets: the first one's cards must not show
    expect(pass_screen).to_be_visible()
    expect(pass_screen).to_contain_text(f"Pass to {second}")
    expect(page.locator("#hand")).not_to_contain_text(f"{first}'s hand")
    expect(page.locator("#tickets")).to_contain_text("Hidden")
    assert page.locator("#keep-dialog").count() == 0
    page.click("#pass-ready")
    expect(page.locator("#hand")).to_contain_text(f"{second}'s hand")
    rng = random.Random(1)
    # play on through the page until the turn passes back to Ingrid
    for _ in range(10):
        step(page, rng)
        if pass_screen.is_visible():
            break
    expect(pass_screen).to_contain_text("Pass to")
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []
