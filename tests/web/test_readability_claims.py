"""The claim dialog on a ferry, in real Chromium: the payments that spend more than another offer
(a superset of its cards, or more locomotives for no fewer cards) are folded under "Other ways to
pay", each payment reads in plain words, and after the claim the keyboard focus is back on the
route, not on the page."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import RequestLog, shot
from .driver import actions, click_route, draw_until, keep_all, wait_change, wait_state
from .test_pages import start_ai_game


def dominated(payments: list[str]) -> set[str]:
    """The payments another offered payment beats: a strict part of its cards, or no more cards
    and fewer locomotives (the page's rule, written again here from its definition)."""
    out = set()
    for p in payments:
        for q in payments:
            if q == p:
                continue
            cp, cq = Counter(p), Counter(q)
            subset = len(q) < len(p) and all(cp[c] >= k for c, k in cq.items())
            if subset or (len(q) <= len(p) and cq["L"] < cp["L"]):
                out.add(p)
    return out


def ferry_choice_pending(base_url: str, page: Any) -> tuple[str, str, str, list[str]]:
    """A pass-and-play game driven over the socket (drawing cards) until the seat to play may claim
    a ferry in several ways, some of them dominated; returns the game, its token, the ferry's code
    and the offered payments."""
    board = page.request.get("/api/board").json()
    ferries = {r["code"] for r in board["routes"] if r["ferry_locomotives"]}
    for seed in range(20):
        created = page.request.post(
            "/api/games", data={"mode": "hotseat", "seats": [{"name": "Ola"}, {"name": "Kari"}]}
        )
        data = created.json()
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        rng = random.Random(seed)
        url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
        with connect(url) as ws:
            for _ in range(300):
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "game_over":
                    break
                if message["type"] != "state" or not message["legal"]:
                    continue
                legal = [a["action"] for a in message["legal"]]
                by_route: dict[str, list[str]] = {}
                for a in legal:
                    if a.startswith("C ") and a.split()[1] in ferries:
                        by_route.setdefault(a.split()[1], []).append(a.split()[2])
                for code, pays in by_route.items():
                    if len(pays) >= 3 and dominated(pays):
                        return game_id, token, code, pays
                draws = [a for a in legal if a == "B"]
                ws.send(json.dumps({"type": "act", "action": draws[0] if draws else rng.choice(legal)}))
    raise AssertionError("no ferry with a dominated payment came up in 20 games")


def test_a_ferry_folds_its_dominated_payments(page: Any, base_url: str, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    game_id, token, code, pays = ferry_choice_pending(base_url, page)
    folded = dominated(pays)
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.locator("#pass-ready").click()
    click_route(page, page.locator(f'.route[data-code="{code}"]'))
    dialog = page.locator("#claim-dialog")
    dialog.wait_for()
    main = dialog.locator(".options > .option input")
    other = dialog.locator("#other-payments .option input")
    expect(main).to_have_count(len(pays) - len(folded))
    expect(other).to_have_count(len(folded))
    assert {v.split()[2] for v in main.evaluate_all("(n) => n.map((i) => i.value)")} == set(pays) - folded
    assert {v.split()[2] for v in other.evaluate_all("(n) => n.map((i) => i.value)")} == folded
    expect(dialog.locator("#other-payments .option").first).to_be_hidden()  # folded until asked for
    words = dialog.locator(".option > .sr-only").evaluate_all("(n) => n.map((s) => s.textContent)")
    assert words and all(w.startswith("Pay ") and " with " not in w for w in words), words
    shot(page, "claim-ferry-1366x768")
    dialog.locator("#other-payments summary").click()
    expect(dialog.locator("#other-payments .option").first).to_be_visible()
    assert requests_seen.errors == []


def test_after_a_claim_through_the_dialog_focus_is_on_the_route(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    # Not a tunnel: a tunnel's claim turns three cards first, so it need not end claimed.
    draw_until(page, ".route.claimable:not(.kind-tunnel)", turns=25)
    route = page.locator(".route.claimable:not(.kind-tunnel)").first
    code = route.get_attribute("data-code")
    route.focus()
    page.keyboard.press("Enter")
    page.locator("#claim-dialog").wait_for()
    # The dialog moves the focus to its first control just after it opens: once that has
    # happened, the confirm button keeps the focus the test gives it.
    page.wait_for_function("() => document.querySelector('#claim-dialog').contains(document.activeElement)")
    before = actions(page)
    page.locator("#claim-confirm").focus()
    page.keyboard.press("Enter")
    wait_change(page, before)
    expect(page.locator(f'.route[data-code="{code}"]')).to_have_class(re.compile("claimed"))
    assert page.evaluate("() => document.activeElement.dataset.code") == code
    assert requests_seen.errors == []
