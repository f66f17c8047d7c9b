"""The final-scoring ceremony in Chromium: a game that ends while its page is open turns each
player's tickets over one by one (completed paths lit on the map), can be skipped with Escape,
ends in the final dialog, and is shown once per game; a game against the computer offers a
Rematch with the same seats beside New game."""

from __future__ import annotations

import json
import random
from typing import Any

from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import shot
from .driver import wait_state

END_JS = """() => {
  const c = document.querySelector('#ceremony');
  if (!c || c.dataset.step !== 'end') return null;
  const lit = (document.body.dataset.ceremonyLit || '').split(' ').filter(Boolean);
  return {
    tickets: Object.fromEntries([...c.querySelectorAll('.ceremony-ticket')].map(n =>
      [`${n.dataset.player}:${n.dataset.index}`, [n.dataset.state, n.querySelector('.ct-points').textContent]])),
    scores: Object.fromEntries([...c.querySelectorAll('.ceremony-score')].map(n => [n.dataset.player, n.textContent])),
    owners: lit.map(id => document.querySelector(`.route[data-route='${id}']`)?.dataset.owner),
  };
}"""


def create(page: Any, mode: str, seats: list[dict[str, str]]) -> tuple[str, str]:
    created = page.request.post("/api/games", data={"mode": mode, "seats": seats})
    data = created.json()
    return data["game"]["id"], data["invites"][0]["token"]


def play_to_the_end(base_url: str, game_id: str, token: str, seed: int, page: Any) -> dict[str, Any]:
    """Play the seat(s) of ``token`` with random legal moves over the socket (as a second client
    of the same seat would); when a player is down to 8 trains, open the game's page, so that the
    page sees the end happen live. Returns the server's final result, with ``final_seen``: whether
    the page was open before the final round began."""
    rng = random.Random(seed)
    ws_url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
    opened = False
    final_seen = False
    with connect(ws_url) as ws:
        while True:
            message = json.loads(ws.recv(timeout=30))
            if message["type"] == "game_over":
                result: dict[str, Any] = {**message["result"], "final_seen": final_seen}
                return result
            if message["type"] != "state" or not message["legal"]:
                continue
            if not opened and min(message["view"]["trains"]) <= 8:
                page.goto(f"/play/{game_id}?seat={token}")
                wait_state(page)
                opened = True
                final_seen = message["view"]["final_turns_left"] is None
            action = rng.choice(message["legal"])["action"]
            ws.send(json.dumps({"type": "act", "action": action, "seat": message["seat"]}))


def test_ceremony_reveals_each_ticket_then_the_final_dialog_once(page: Any, base_url: str) -> None:
    game_id, token = create(page, "hotseat", [{"name": "Ola"}, {"name": "Kari"}])
    result = play_to_the_end(base_url, game_id, token, 3, page)
    ceremony = page.locator("#ceremony")
    expect(ceremony).to_be_visible(timeout=20000)
    # The sounds of what the page saw happen (counted per event, whatever the volume).
    sounds = page.evaluate("() => ({...window.ttrSound.events})")
    assert sounds["draw"] > 0 and sounds["claim"] > 0
    assert sounds["turn"] > 0  # pass-and-play: each player's turn on the shared screen
    if result["final_seen"]:
        assert sounds["final"] == 1
    tickets = sum(len(p["tickets"]) for p in result["players"])
    expect(ceremony.locator(".ceremony-ticket")).to_have_count(tickets)
    # Midway: some tickets turned over, others still face down.
    page.wait_for_function(
        "() => document.querySelector('#ceremony .ceremony-ticket[data-state=done],"
        " #ceremony .ceremony-ticket[data-state=fail]')"
    )
    shot(page, "ceremony-midway")
    # At its end (read at once: the panel goes a moment later) every ticket is turned over.
    shown = page.wait_for_function(END_JS, timeout=30000).json_value()
    for p in result["players"]:
        for index, t in enumerate(p["tickets"]):
            points = f"+{t['value']}" if t["value"] > 0 else str(t["value"])
            assert shown["tickets"][f"{p['player']}:{index}"] == ["done" if t["completed"] else "fail", points]
        assert shown["scores"][str(p["player"])] == str(p["total"])
    # The last completed ticket's path was lit over its owner's routes only.
    completed = [p for p in result["players"] if any(t["completed"] for t in p["tickets"])]
    if completed:
        assert shown["owners"], shown
        assert set(shown["owners"]) == {str(completed[-1]["player"])}, shown["owners"]
    final = page.locator("#final-dialog")
    expect(final).to_be_visible(timeout=15000)
    expect(ceremony).to_have_count(0)
    expect(page.locator(".route.ceremony-path")).to_have_count(0)
    expect(final.get_by_text("New game")).to_be_visible()
    expect(final.locator("#rematch")).to_have_count(0)  # pass-and-play: no computer to play again
    # Once per game: opening it again goes straight to the scores.
    page.reload()
    expect(page.locator("#final-dialog")).to_be_visible()
    expect(page.locator("#ceremony")).to_have_count(0)


def test_escape_skips_the_ceremony_and_rematch_keeps_the_seats(page: Any, base_url: str) -> None:
    seats = [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "medium"}]
    game_id, token = create(page, "ai", seats)
    play_to_the_end(base_url, game_id, token, 5, page)
    expect(page.locator("#ceremony")).to_be_visible(timeout=20000)
    page.wait_for_function("() => Number(document.querySelector('#ceremony')?.dataset.step) >= 1")
    page.keyboard.press("Escape")
    expect(page.locator("#ceremony")).to_have_count(0)
    final = page.locator("#final-dialog")
    expect(final).to_be_visible()
    expect(final.get_by_text("New game")).to_be_visible()
    rematch = final.locator("#rematch")
    expect(rematch).to_be_visible()
    shot(page, "final-dialog-rematch")
    rematch.click()
    page.wait_for_url(lambda url: "/play/" in url and game_id not in url)
    wait_state(page)
    new_id = page.url.split("/play/")[1].split("?")[0]
    summary = page.request.get(f"/api/games/{new_id}").json()
    old = page.request.get(f"/api/games/{game_id}").json()
    assert summary["mode"] == "ai"
    assert [(s["kind"], s["name"], s["level"]) for s in summary["seats"]] == [
        (s["kind"], s["name"], s["level"]) for s in old["seats"]
    ]
    assert summary["status"] != "finished"


def test_skip_button_and_animations_off(page: Any, base_url: str) -> None:
    game_id, token = create(page, "hotseat", [{"name": "Ola"}, {"name": "Kari"}])
    play_to_the_end(base_url, game_id, token, 11, page)
    page.locator("#ceremony-skip").click(timeout=20000)
    expect(page.locator("#final-dialog")).to_be_visible()
    page.evaluate("() => document.getElementById('show-scores').click()")  # already open: still one dialog
    expect(page.locator("#final-dialog")).to_have_count(1)
    # Animations off: the scores at once, no ceremony.
    page.evaluate("() => localStorage.setItem('ttr-anim', 'off')")
    game_id, token = create(page, "hotseat", [{"name": "Ola"}, {"name": "Kari"}])
    play_to_the_end(base_url, game_id, token, 12, page)
    expect(page.locator("#final-dialog")).to_be_visible(timeout=20000)
    expect(page.locator("#ceremony")).to_have_count(0)
    assert page.evaluate("() => document.body.dataset.ceremony") is None
