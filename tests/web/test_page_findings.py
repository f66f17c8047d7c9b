"""Findings of the browser trial, each pinned in real Chromium: the first ticket dialog starts
with nothing ticked, the tunnel dialog names the colour the extra cards must be, after "View
the board" the players panel shows final totals and nobody to play, and the wording counts
right ("1 point", "1 ticket")."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import RequestLog
from .driver import actions, wait_state
from .test_online_play import play_hotseat_to_the_end
from .test_pages import start_ai_game

PLURAL_MISTAKES = re.compile(r"\b1 (points|tickets|cards|trains)\b|\(s\)")


def test_the_first_ticket_dialog_starts_with_nothing_ticked(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    dialog = page.locator("#keep-dialog")
    dialog.wait_for()
    boxes = dialog.locator("input[type=checkbox]")
    expect(boxes).to_have_count(5)
    for index in range(5):
        expect(boxes.nth(index)).not_to_be_checked()
    confirm = page.locator("#keep-confirm")
    expect(confirm).to_be_disabled()  # one click on Keep cannot take all five
    expect(page.locator("#keep-hint")).to_contain_text("at least 2")
    boxes.nth(0).check()
    expect(confirm).to_be_disabled()
    boxes.nth(3).check()
    expect(confirm).to_be_enabled()
    expect(page.locator("#keep-hint")).to_have_text("Keeping 2 tickets.")
    before = actions(page)
    confirm.click()
    page.wait_for_function("n => Number(document.body.dataset.actions) > n", arg=before)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=20000)
    expect(page.locator("#tickets li")).to_have_count(2)
    assert requests_seen.errors == []


def tunnel_pending(base_url: str, page: Any) -> tuple[str, str, dict[str, Any]]:
    """A pass-and-play game driven over the socket until a seat must pay a tunnel's extra cards
    (claiming a tunnel whenever one is offered); returns the game, its token and that state."""
    board = page.request.get("/api/board").json()
    tunnels = {r["code"] for r in board["routes"] if r["kind"] == "tunnel"}
    for seed in range(40):
        created = page.request.post(
            "/api/games", data={"mode": "hotseat", "seats": [{"name": "Ola"}, {"name": "Kari"}]}
        )
        data = created.json()
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        rng = random.Random(seed)
        url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
        with connect(url) as ws:
            for _ in range(400):
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "game_over":
                    break
                if message["type"] != "state" or not message["legal"]:
                    continue
                legal = [a["action"] for a in message["legal"]]
                if any(a.startswith("X ") for a in legal):
                    return game_id, token, message
                tunnel_claims = [a for a in legal if a.startswith("C ") and a.split()[1] in tunnels]
                draws = [a for a in legal if a == "B" or a.startswith("F")]
                choice = rng.choice(tunnel_claims or draws or legal)
                ws.send(json.dumps({"type": "act", "action": choice}))
    raise AssertionError("no tunnel with extra cards came up in 40 games")


def test_the_tunnel_dialog_says_which_colour_the_extra_cards_must_be(
    page: Any, base_url: str, requests_seen: RequestLog
) -> None:
    game_id, token, state = tunnel_pending(base_url, page)
    tunnel = state["view"]["tunnel"]
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.locator("#pass-ready").click()
    page.locator("#tunnel-dialog").wait_for()
    needed = page.locator("#tunnel-needed")
    if tunnel["locomotive_only"]:
        expect(needed).to_contain_text("locomotives only")
    else:
        expect(needed).to_contain_text(f"{tunnel['color']} cards or locomotives")
    count = tunnel["needed"]
    expect(needed).to_contain_text(f"{count} more card{'' if count == 1 else 's'}")
    assert requests_seen.errors == []


def test_after_view_the_board_the_players_panel_shows_final_totals(
    page: Any, base_url: str, requests_seen: RequestLog
) -> None:
    game_id, token = play_hotseat_to_the_end(base_url, page)
    page.goto(f"/play/{game_id}?seat={token}")
    dialog = page.locator("#final-dialog")
    dialog.wait_for()
    winner = page.get_by_test_id("winner").inner_text()
    assert re.fullmatch(r"Winners?: .+ — (on points|a shared victory|on .+, after a tie .+)", winner), winner
    scoring_text = dialog.inner_text()
    assert not PLURAL_MISTAKES.search(scoring_text), scoring_text
    totals = {}
    for card in dialog.locator(".score-card").all():
        name = card.locator("h3").inner_text().replace("★ winner", "").strip()[2:].strip()
        totals[name] = card.locator("tr.total td").inner_text()
    page.locator("#close-scores").click()
    expect(dialog).to_be_hidden()
    rows = page.locator("#players tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#players thead")).to_contain_text("Total")
    for index in range(2):
        row = rows.nth(index)
        name = row.locator("td").first.inner_text().strip()[1:].strip()
        expect(row.locator("td.score")).to_have_text(totals[name])
    expect(page.locator("#players tr.current")).to_have_count(0)
    expect(page.locator("#players .turn-mark")).to_have_count(0)
    assert not PLURAL_MISTAKES.search(page.locator("#log").inner_text())
    assert requests_seen.errors == []
