"""The guided first game, the others' draws flying to their seat, the confirm-before-claim
setting, and your tickets' cities (open and completed) marked on the map."""

from __future__ import annotations

import random
import re
from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog
from .driver import actions, draw_two, draw_until, keep_all, step, wait_change, wait_my_turn, wait_state
from .test_online_play import create_online
from .test_pages import start_ai_game

FLOWN_JS = "() => Number(document.body.dataset.flown || 0)"


def guide_step(page: Any) -> str:
    value: str = page.locator("#guide").get_attribute("data-step") or ""
    return value


def test_guided_first_game_explains_each_step(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    page.fill("#ai-name", "Newcomer")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    wait_state(page)
    guide = page.locator("#guide")
    # Choosing tickets: the first tip says what tickets are and how many to keep.
    expect(guide).to_be_visible()
    expect(guide).to_have_attribute("data-step", "tickets")
    expect(guide).to_contain_text("Keep at least 2")
    keep_all(page)
    wait_my_turn(page)
    # The first turn: the three choices.
    expect(guide).to_have_attribute("data-step", "turn")
    expect(guide).to_contain_text("Draw 2 train cards")
    # "More in the rules" opens the rules at that part.
    page.click("#guide-rules")
    expect(page.locator("#rules-panel")).to_be_visible()
    expect(page.locator("#rules-h-turn")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#rules-panel")).to_be_hidden()
    # One card drawn: the tip moves on to the second card.
    before = actions(page)
    page.click("#deck")
    wait_change(page, before)
    expect(guide).to_have_attribute("data-step", "second-card")
    # "Got it": that tip is not shown again; another one may follow (it never repeats one read).
    page.click("#guide-next")
    read = {"tickets", "turn", "second-card"}
    if guide.is_visible():
        assert guide_step(page) not in read
        read.add(guide_step(page))
    before = actions(page)
    page.click("#deck")
    wait_change(page, before)
    wait_my_turn(page)
    if guide.is_visible():
        assert guide_step(page) not in read
    # Stop the guide (here in a new guided game): gone, and still gone after a reload.
    page.goto("/")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    wait_state(page)
    expect(guide).to_have_attribute("data-step", "tickets")
    page.click("#guide-stop")
    expect(guide).to_be_hidden()
    page.reload()
    wait_state(page)
    expect(page.locator("#keep-dialog")).to_be_visible()
    expect(guide).to_be_hidden()
    # A game started the ordinary way has no guide.
    start_ai_game(page)
    wait_state(page)
    expect(page.locator("#keep-dialog")).to_be_visible()
    expect(guide).to_be_hidden()
    assert requests_seen.errors == []


def test_the_others_draws_fly_to_their_seat(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    for _ in range(12):
        if page.evaluate(FLOWN_JS) >= 2:
            break
        draw_two(page)
    assert page.evaluate(FLOWN_JS) >= 2
    # Each flight goes from where the card came from to the other player's row (seat 2).
    assert re.fullmatch(r"(deck|slot-[1-5]|tickets)>1", page.evaluate("() => document.body.dataset.lastFly"))
    # The pictures are gone once they have arrived, and never take a click.
    assert page.evaluate("() => getComputedStyle(document.querySelector('.fly-layer')).pointerEvents") == "none"
    expect(page.locator(".flying-card")).to_have_count(0, timeout=5000)
    # Animations off: nothing flies any more.
    page.select_option("#anim-speed", "off")
    flown = page.evaluate(FLOWN_JS)
    for _ in range(4):
        draw_two(page)
    assert page.evaluate(FLOWN_JS) == flown
    assert page.locator(".flying-card").count() == 0
    assert requests_seen.errors == []


def single_payment_route(page: Any) -> Any:
    """A claimable route that is not a tunnel, with exactly one way to pay (read from its tooltip), or None.

    Tunnels are left out: their claim turns three cards first, so it need not end in a claim."""
    routes = page.locator(".route.claimable:not(.kind-tunnel)")
    for i in range(min(routes.count(), 40)):
        route = routes.nth(i)
        route.focus()
        expect(page.locator("#route-tip")).to_be_visible()
        if page.locator("#route-tip .tip-pays > div").count() == 1:
            return route
    return None


def test_confirm_before_claim_can_be_turned_off(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    setting = page.locator("#confirm-claims")
    expect(setting).to_be_checked()  # on by default: every claim asks first
    route = None
    for _ in range(12):
        draw_until(page, ".route.claimable")
        route = single_payment_route(page)
        if route is not None:
            break
        draw_two(page)
    assert route is not None, "no claimable route with a single payment"
    # On: a click opens the claim dialog; cancel changes nothing.
    route.click()
    expect(page.locator("#claim-dialog")).to_be_visible()
    page.click("#claim-cancel")
    expect(page.locator("#claim-dialog")).to_have_count(0)
    # Off (and remembered): the same click claims at once.
    setting.uncheck()
    assert page.evaluate("() => localStorage.getItem('ttr-confirm-claims')") == "0"
    code = route.get_attribute("data-code")
    before = actions(page)
    route.click()
    wait_change(page, before)
    assert page.locator("#claim-dialog").count() == 0
    expect(page.locator(f'.route[data-code="{code}"]')).to_have_class(re.compile("claimed"))
    assert page.locator(f'.route[data-code="{code}"]').get_attribute("data-owner") == "0"
    # A claimed route is more than a new fill: a heavy dark frame and the owner's number on each car.
    marks = page.evaluate(
        """code => { const g = document.querySelector(`.route[data-code="${code}"]`);
             const own = getComputedStyle(g.querySelector('.car'));
             const free = getComputedStyle(document.querySelector('.route:not(.claimed) .car'));
             const letters = [...document.querySelectorAll(`.car-letter[data-route="${g.dataset.route}"]`)];
             return {own: parseFloat(own.strokeWidth), free: parseFloat(free.strokeWidth),
                     letters: letters.map((t) => t.textContent)}; }""",
        code,
    )
    assert marks["own"] >= 2 and marks["own"] > marks["free"], marks
    assert marks["letters"] and set(marks["letters"]) == {"1"}, marks
    page.reload()
    wait_state(page)
    expect(page.locator("#confirm-claims")).not_to_be_checked()
    assert requests_seen.errors == []


def ticket_cities(page: Any, state: str) -> set[str]:
    names = set()
    for row in page.locator(f"#tickets li.{state}").all():
        text = row.inner_text()
        pair = re.search(r"([^\s○✓].*?) – (.+?)\s+\d+", text.replace("\n", " "))
        assert pair, text
        names.update({pair.group(1).strip(), pair.group(2).strip()})
    return names


def marked_cities(page: Any, cls: str) -> set[str]:
    labels = page.locator(f".city.{cls}").evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")
    return {label.split(" (")[0] for label in labels}


def test_ticket_cities_and_completed_tickets_on_the_map(
    page: Any, browser: Any, browser_context_args: dict[str, Any], requests_seen: RequestLog
) -> None:
    # Seat 2 is handed to a hard computer before it chooses; its owner then watches the seat
    # play: its tickets' cities are ringed, and a completed ticket's cities turn green.
    urls = create_online(page, ["Astrid", "Leif"])
    page.goto(urls[0])
    wait_state(page)
    page.locator('#presence-list li[data-seat="1"] select.handover-level').select_option("hard")
    page.click("#handover-1")
    page.click("#handover-1")
    expect(page.locator('#players tr[data-player="1"]')).to_contain_text("AI hard")
    keep_all(page)
    mine = ticket_cities(page, "open")
    assert len(mine) >= 3
    assert marked_cities(page, "ticket-city") == mine
    expect(page.locator("#tickets .ticket-key")).to_contain_text("ticket city on the map")
    friend = browser.new_context(**browser_context_args)
    try:
        watcher = friend.new_page()
        watcher.goto(urls[1])
        wait_state(watcher)
        watcher.wait_for_function("() => document.querySelectorAll('#tickets li').length >= 2")
        rng = random.Random(11)
        for _ in range(200):
            if watcher.locator("#tickets li.done").count():
                break
            if step(page, rng) == "over":
                break
        done = ticket_cities(watcher, "done")
        assert done, "the computer completed no ticket"
        expect(watcher.locator("#tickets li.done .tick").first).to_have_text("✓")
        open_ = ticket_cities(watcher, "open")
        watcher.wait_for_function(
            "n => document.querySelectorAll('.city.ticket-done').length === n", arg=len(done - open_)
        )
        assert marked_cities(watcher, "ticket-done") == done - open_
        assert marked_cities(watcher, "ticket-city") == open_
    finally:
        friend.close()
    assert requests_seen.errors == []


def test_a_quick_double_tap_on_the_deck_draws_two_cards(page: Any, requests_seen: RequestLog) -> None:
    # The second tap comes before the answer to the first: it waits for it, then draws (before,
    # it was sent with the old action count and refused as STALE).
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    before = actions(page)
    page.evaluate("() => { const deck = document.getElementById('deck'); deck.click(); deck.click(); }")
    page.wait_for_function("n => Number(document.body.dataset.actions) >= n + 2", arg=before)
    assert page.get_by_test_id("toast-error").count() == 0
    log = page.locator("#log li").all_inner_texts()
    assert sum("Tester drew" in line and "from the deck" in line for line in log) == 2
    assert requests_seen.errors == []


def test_the_hint_shows_what_the_expert_would_do_and_can_be_switched_off(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    button = page.locator("#hint-button")
    expect(button).to_be_visible()
    button.click()
    box = page.locator("#hint")
    expect(box).to_contain_text("The expert would:", timeout=20000)
    # The move is marked where it is made: a route on the map, or a card, the deck or the tickets.
    marked = page.locator(".route.hint, button.hinted")
    text = box.inner_text()
    assert marked.count() == 1 or "ticket" in text.lower(), text
    expect(button).to_be_disabled()  # one hint per decision
    # Acting moves on: the hint goes; the next decision may ask again, with the H key.
    draw_two(page)
    expect(box).to_be_hidden()
    expect(page.locator(".route.hint, button.hinted")).to_have_count(0)
    page.locator("body").press("h")
    expect(box).to_contain_text("The expert would:", timeout=20000)
    # Switched off (and remembered): no button, and H does nothing.
    page.locator("#hints-setting").uncheck()
    expect(box).to_be_hidden()
    expect(button).to_be_hidden()
    draw_two(page)
    page.locator("body").press("h")
    page.wait_for_timeout(300)
    expect(box).to_be_hidden()
    page.reload()
    wait_state(page)
    wait_my_turn(page)
    expect(page.locator("#hints-setting")).not_to_be_checked()
    expect(page.locator("#hint-button")).to_be_hidden()
    assert requests_seen.errors == []


def test_no_hints_with_friends(page: Any, requests_seen: RequestLog) -> None:
    urls = create_online(page, ["Astrid", "Leif"])
    page.goto(urls[0])
    wait_state(page)
    assert page.locator("#hints-setting").count() == 0
    expect(page.locator("#hint-button")).to_be_hidden()
    assert requests_seen.errors == []


def test_on_a_phone_the_guide_and_the_ticket_dialog_are_both_in_view(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    dialog = page.locator("#keep-dialog")
    dialog.wait_for()
    guide = page.locator("#guide")
    expect(guide).to_have_attribute("data-step", "tickets")
    tip, box = guide.bounding_box(), dialog.bounding_box()
    assert tip is not None and box is not None
    assert tip["y"] >= 0 and tip["y"] + tip["height"] <= box["y"], (tip, box)  # above the dialog, no overlap
    assert box["y"] + box["height"] <= 844
    assert requests_seen.errors == []
