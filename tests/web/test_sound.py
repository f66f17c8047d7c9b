"""Sound effects in Chromium: a volume setting (0 = off) kept in localStorage, effects counted
per event (drawing a card plays "draw", your turn "turn"), and no audio node made at volume 0."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .driver import actions, keep_all, wait_change, wait_my_turn, wait_state

SOUND_JS = "() => ({events: {...window.ttrSound.events}, nodes: window.ttrSound.nodes})"


def open_game(page: Any) -> None:
    seats = [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "easy"}]
    data = page.request.post("/api/games", data={"mode": "ai", "seats": seats}).json()
    page.goto(data["invites"][0]["path"])
    wait_state(page)


def draw_one(page: Any) -> None:
    wait_my_turn(page)
    before = actions(page)
    page.keyboard.press("d")
    wait_change(page, before)


def test_volume_setting_persists_and_zero_makes_no_sound(page: Any) -> None:
    open_game(page)
    volume = page.locator("#sound-volume")
    expect(volume).to_have_value("40")  # moderate by default
    volume.fill("0")
    volume.dispatch_event("change")
    assert page.evaluate("() => localStorage.getItem('ttr-volume')") == "0"
    page.reload()
    wait_state(page)
    expect(page.locator("#sound-volume")).to_have_value("0")
    keep_all(page)
    before = page.evaluate(SOUND_JS)
    draw_one(page)
    after = page.evaluate(SOUND_JS)
    # (the computer's own draws may arrive meanwhile: at least this one)
    assert after["events"]["draw"] >= before["events"]["draw"] + 1
    assert after["nodes"] == 0  # volume 0: no audio node at all


def test_effects_per_event_at_a_volume(page: Any) -> None:
    open_game(page)
    keep_all(page)
    wait_my_turn(page)
    before = page.evaluate(SOUND_JS)
    draw_one(page)  # a key press: the user gesture that lets audio start
    mid = page.evaluate(SOUND_JS)
    assert mid["events"]["draw"] >= before["events"]["draw"] + 1
    assert mid["nodes"] > before["nodes"]
    # The second card ends the turn; the computer plays, then it is this player's turn again.
    if page.evaluate("() => document.body.dataset.myTurn === '1'"):
        draw_one(page)
    page.wait_for_function("() => window.ttrSound.events.turn > 0", timeout=30000)
    after = page.evaluate(SOUND_JS)
    assert after["events"]["draw"] >= mid["events"]["draw"] + 1  # the computer's draws too, or ours
