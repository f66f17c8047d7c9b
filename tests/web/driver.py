"""Driving the game page through its own controls (buttons, the map, dialogs)."""

from __future__ import annotations

import random
from typing import Any

ACTIONS_JS = "() => Number(document.body.dataset.actions || -1)"


def actions(page: Any) -> int:
    value: int = page.evaluate(ACTIONS_JS)
    return value


def wait_state(page: Any, timeout: float = 15000) -> None:
    """Wait until the page shows a game state."""
    page.wait_for_function("() => document.body.dataset.actions !== undefined", timeout=timeout)


def wait_change(page: Any, before: int, timeout: float = 15000) -> None:
    page.wait_for_function(
        "n => Number(document.body.dataset.actions) !== n || document.querySelector('#final-dialog')",
        arg=before,
        timeout=timeout,
    )


def my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => document.body.dataset.myTurn === '1'"))


def wait_my_turn(page: Any) -> None:
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)


def draw_two(page: Any) -> None:
    """Two cards from the deck (the D shortcut), each waited for so that no later check sees a
    stale page, then wait until it is this player's turn again."""
    for _ in range(2):
        before = actions(page)
        page.keyboard.press("d")
        wait_change(page, before)
        if not my_turn(page):
            break
    wait_my_turn(page)


def draw_until(page: Any, selector: str, turns: int = 15) -> None:
    """Draw from the deck, turn after turn, until ``selector`` matches something (e.g. a route
    this player can claim)."""
    for _ in range(turns):
        wait_my_turn(page)
        if page.locator(selector).count():
            return
        draw_two(page)
    wait_my_turn(page)
    assert page.locator(selector).count(), f"nothing matches {selector} after {turns} turns of drawing"


def click_route(page: Any, route: Any) -> None:
    """Click a route on the map; where something covers it, select it with the keyboard."""
    try:
        route.click(timeout=1500)
    except Exception:
        route.focus()
        page.keyboard.press("Enter")


def keep_all(page: Any) -> None:
    """Tick every offered ticket (the dialog starts with none ticked) and confirm. Waits until the
    choice is this player's (the other players may still be choosing theirs), and ticks again if
    the dialog was opened anew meanwhile."""
    page.wait_for_function(
        "() => document.body.dataset.myTurn === '1' && document.querySelector('#keep-dialog')", timeout=30000
    )
    for _ in range(5):
        for box in page.locator("#keep-dialog input[type=checkbox]").all():
            box.check()
        confirm = page.locator("#keep-confirm")
        if confirm.is_enabled():
            before = actions(page)
            confirm.click()
            # Until the server has the choice the page still shows the dialog and "your turn":
            # a caller that looked at the page now would see the old state.
            wait_change(page, before)
            return
    before = actions(page)
    page.locator("#keep-confirm").click()
    wait_change(page, before)


def step(page: Any, rng: random.Random, claim_dialog_shot: Any = None, tunnel_shot: Any = None) -> str:
    """Do one thing the page offers; returns what was done ('over' when the scores show)."""
    if page.locator("#final-dialog").is_visible():
        return "over"
    if page.locator("#pass-ready").is_visible():
        page.locator("#pass-ready").click()
        return "reveal"
    before = actions(page)
    if page.locator("#keep-dialog").is_visible():
        keep_all(page)
        wait_change(page, before)
        return "keep"
    if page.locator("#tunnel-dialog").is_visible():
        if tunnel_shot is not None:
            tunnel_shot()
        pay = page.locator("#tunnel-pay")
        (pay if pay.is_enabled() else page.locator("#tunnel-decline")).click()
        wait_change(page, before)
        return "tunnel"
    if not my_turn(page):
        page.wait_for_function(
            "n => document.body.dataset.myTurn === '1' || Number(document.body.dataset.actions) !== n"
            " || document.querySelector('#final-dialog')",
            arg=before,
            timeout=20000,
        )
        return "wait"
    claimable = page.locator(".route.claimable")
    # One read of the DOM: the page may re-render between two separate queries.
    lengths = claimable.evaluate_all("gs => gs.map(g => g.querySelectorAll('.car').length)")
    if lengths:
        best = max(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
        click_route(page, claimable.nth(best))
        try:
            page.locator("#claim-dialog").wait_for(timeout=5000)
        except Exception:  # the route stopped being claimable (a new state arrived): look again
            return "retry"
        if claim_dialog_shot is not None:
            claim_dialog_shot()
        try:
            page.locator("#claim-confirm").click(timeout=10000)
        except Exception:  # a new state closed the dialog meanwhile (a busy machine): look again
            return "retry"
        wait_change(page, before)
        return "claim"
    faceups = page.locator("button.faceup:enabled")
    if page.locator("#deck").is_enabled() and (faceups.count() == 0 or rng.random() < 0.7):
        page.locator("#deck").click()
    elif faceups.count():
        faceups.nth(rng.randrange(faceups.count())).click()
    elif page.locator("#draw-tickets").is_enabled():
        page.locator("#draw-tickets").click()
    elif page.locator("#pass").is_visible():
        page.locator("#pass").click()
    else:  # nothing to press yet: the page is between two states (a busy machine); look again
        page.wait_for_timeout(200)
        return "retry"
    wait_change(page, before)
    return "draw"
