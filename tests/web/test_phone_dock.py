"""The phone's docked bar (js/dock.js) in Chromium: on a phone your hand and your tickets'
done/total stay on the screen and uncovered through a turn (its start, after one card, with the
claim dialog open) and with the page scrolled; none of the turn's controls is under the bar; the
ticket list opens from it with the keyboard, each ticket saying how many cars it still needs
(checked against the board here); axe-core finds nothing. On a laptop the bar is not shown."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import actions, click_route, draw_two, keep_all, wait_change, wait_my_turn
from .test_page_axe import serious_violations
from .test_pages import start_ai_game
from .test_readability_tickets import cheapest

# Where the hand, its cards and the tickets button are, whether the screen shows them (the topmost
# element at their middle is theirs), and where the controls of a turn are.
DOCK_JS = """() => {
  const box = (n) => { const b = n.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  const shown = (n) => { const b = n.getBoundingClientRect();
    const top = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
    return Boolean(top && (top === n || n.contains(top))); };
  const hand = document.querySelector('#hand');
  const toggle = document.querySelector('#tickets-toggle');
  const controls = {};
  // With the claim dialog open, its buttons (it covers part of the page); else the turn's controls.
  const wanted = document.querySelector('#claim-dialog') ? '#claim-dialog button'
    : '#status, #deck, #draw-tickets, button.faceup, .zoom-btn, #hint-button';
  for (const node of document.querySelectorAll(wanted)) {
    if (node.getClientRects().length) {
      controls[node.id || node.className + (node.dataset.slot || '')] = {...box(node), shown: shown(node)};
    }
  }
  return {
    hand: box(hand), handShown: shown(hand), toggle: box(toggle), toggleShown: shown(toggle),
    toggleText: toggle.textContent,
    cards: [...hand.querySelectorAll('.card')].map((c) => ({box: box(c), shown: shown(c)})),
    done: document.querySelectorAll('#tickets li.done').length,
    total: document.querySelectorAll('#tickets li[data-ticket]').length,
    controls, scrollY: window.scrollY,
  };
}"""


def check_dock(page: Any, width: int, height: int, where: str, controls_clear: bool = True) -> dict[str, Any]:
    """The hand, each of its cards and the tickets button are on the screen and shown; the button
    says done/total; the controls of the turn are above the bar (when ``controls_clear``)."""
    dock = page.evaluate(DOCK_JS)
    for name in ("hand", "toggle"):
        box = dock[name]
        assert box["y"] >= 0 and box["y"] + box["h"] <= height + 0.5, (where, name, box)
        assert box["x"] >= 0 and box["x"] + box["w"] <= width + 0.5, (where, name, box)
    assert dock["handShown"] and dock["toggleShown"], (where, dock)
    assert dock["toggle"]["h"] >= 44 and dock["toggle"]["w"] >= 44, (where, dock["toggle"])
    assert dock["cards"], where
    for card in dock["cards"]:
        box = card["box"]
        assert card["shown"] and box["x"] >= 0 and box["x"] + box["w"] <= width + 0.5, (where, card)
        assert box["y"] >= dock["hand"]["y"] and box["y"] + box["h"] <= height + 0.5, (where, card)
    counted = re.search(r"(\d+)/(\d+)", dock["toggleText"])
    assert counted and (int(counted[1]), int(counted[2])) == (dock["done"], dock["total"]), (where, dock)
    assert dock["toggleText"].endswith(" done"), (where, dock["toggleText"])  # the rest is for screen readers
    if controls_clear:
        top = min(dock["hand"]["y"], dock["toggle"]["y"])
        for name, box in dock["controls"].items():
            assert box["shown"] and box["y"] + box["h"] <= top + 0.5, (where, name, box, top)
    return dict(dock)


def check_cars_to_go(page: Any) -> None:
    """Each ticket not yet done says the cars its cheapest connection still needs: the board's own
    shortest distance over this player's routes and the free ones."""
    board = page.request.get("/api/board").json()
    city = {c["name"]: c["id"] for c in board["cities"]}
    owners = {
        int(k): int(v)
        for k, v in page.evaluate(
            "() => Object.fromEntries([...document.querySelectorAll('.route.claimed')]"
            ".map((g) => [g.dataset.route, g.dataset.owner]))"
        ).items()
    }
    rows = page.locator("#tickets li[data-ticket]")
    assert rows.count() >= 2
    for index in range(rows.count()):
        text = rows.nth(index).inner_text()
        ends = sorted((text.find(f"{name} –"), name) for name in city if f"{name} –" in text or f"– {name}" in text)
        assert len(ends) == 2, text
        if "done" in (rows.nth(index).get_attribute("class") or ""):
            continue
        to_go = re.search(r"(\d+) cars? to go", text)
        assert to_go, text
        assert int(to_go[1]) == cheapest(board, owners, 0, city[ends[0][1]], city[ends[1][1]]), text


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 740)])
def test_hand_and_tickets_stay_in_view_through_a_turn(
    page: Any, requests_seen: RequestLog, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    dock = check_dock(page, width, height, "start of the turn")
    assert dock["total"] >= 2
    shot(page, f"dock-start-{width}x{height}")
    # One card drawn: the second is still to take, the hand has grown.
    cards_before = page.locator("#players tr.me td").nth(3).inner_text()
    before = actions(page)
    page.locator("#deck").click()
    wait_change(page, before)
    assert page.evaluate("() => document.body.dataset.myTurn") == "1"
    assert page.locator("#players tr.me td").nth(3).inner_text() != cards_before
    check_dock(page, width, height, "after one card")
    before = actions(page)
    page.locator("#deck").click()
    wait_change(page, before)
    # Draw until a route can be claimed, then open its claim dialog: the bar stays in view and
    # uncovered, and the dialog's buttons are above it.
    for _ in range(20):
        wait_my_turn(page)
        if page.locator(".route.claimable:not(.kind-tunnel)").count():
            break
        draw_two(page)
    # Not a tunnel: its claim turns three cards first, and may end unclaimed.
    route = page.locator(".route.claimable:not(.kind-tunnel)").first
    code = route.get_attribute("data-code")
    click_route(page, route)
    page.locator("#claim-dialog").wait_for()
    check_dock(page, width, height, "claim dialog open")
    shot(page, f"dock-claim-{width}x{height}")
    before = actions(page)
    page.locator("#claim-confirm").click()
    wait_change(page, before)
    expect(page.locator(f'.route[data-code="{code}"]')).to_have_attribute("data-owner", "0")
    # Scrolled to the middle and to the end: still there; the page's last panel ends above the bar.
    for where in ("middle", "end"):
        page.evaluate("(end) => window.scrollTo(0, end ? document.body.scrollHeight : 400)", where == "end")
        dock = check_dock(page, width, height, f"scrolled to the {where}", controls_clear=False)
        assert dock["scrollY"] > 0, where
    # Scrolled and measured in one go: a move arriving in between may lengthen the log.
    last, hand_top = page.evaluate(
        "() => { window.scrollTo(0, document.body.scrollHeight);"
        " return [Math.max(...[...document.querySelectorAll('.side > *')].filter((n) => n.getClientRects().length"
        " && getComputedStyle(n).position !== 'fixed').map((n) => n.getBoundingClientRect().bottom)),"
        " document.getElementById('hand').getBoundingClientRect().top]; }"
    )
    assert last <= hand_top + 0.5, (last, hand_top, dock["hand"])
    shot(page, f"dock-scrolled-{width}x{height}")
    # After the claim the cars to go follow the board (a route of one's own costs nothing).
    page.locator("#tickets-toggle").click()
    check_cars_to_go(page)
    assert requests_seen.errors == []


@pytest.fixture
def audited_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    # The pages' CSP allows no injected script: only this audit's context bypasses it.
    args = {**browser_context_args, "viewport": {"width": 390, "height": 844}}
    context = browser.new_context(**args, bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_ticket_list_opens_from_the_bar(audited_page: Any) -> None:
    page = audited_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    toggle = page.locator("#tickets-toggle")
    expect(page.locator("#tickets")).to_be_hidden()
    # The keyboard: the button opens the list, Tab goes into it, Escape closes it again.
    toggle.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#tickets")).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    rows = page.locator("#tickets li[data-ticket]")
    bar_top = toggle.bounding_box()["y"]
    first = rows.first.bounding_box()
    assert first is not None and first["height"] >= 44 and first["y"] + first["height"] <= bar_top, first
    check_cars_to_go(page)
    found = serious_violations(page, "ticket list open on a phone")
    shot(page, "dock-tickets-390x844")
    page.keyboard.press("Tab")
    assert page.evaluate("() => Boolean(document.activeElement.closest('#tickets'))")
    assert page.locator(".route.ticket-missing").count() > 0  # the focused ticket's routes on the map
    page.keyboard.press("Escape")
    expect(page.locator("#tickets")).to_be_hidden()
    expect(toggle).to_be_focused()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    # A tap elsewhere puts the list away.
    toggle.click()
    expect(page.locator("#tickets")).to_be_visible()
    page.locator("#status").click()
    expect(page.locator("#tickets")).to_be_hidden()
    # The colour letters follow the switch; the counts stay.
    letter = page.locator("#hand .card-letter").first
    expect(letter).to_be_visible()
    page.locator("#cb-toggle").uncheck()
    expect(letter).to_be_hidden()
    expect(page.locator("#hand .card-count").first).to_be_visible()
    page.locator("#cb-toggle").check()
    expect(letter).to_be_visible()
    found += serious_violations(page, "bar on a phone")
    # A laptop: the side panel docks the hand and the tickets; the bar's button is not shown.
    page.set_viewport_size({"width": 1440, "height": 900})
    expect(toggle).to_be_hidden()
    expect(page.locator("#tickets")).to_be_visible()
    hand = page.locator("#hand").bounding_box()
    assert hand is not None and hand["x"] > 900 and hand["y"] + hand["height"] <= 900, hand
    assert found == []
    assert errors == []
