"""Learning the game and playing from the keyboard, in real Chromium: the rules panel (with the
Nordic rules a Board Game Arena regular would not expect), "?" help in dialogs that opens the right
section, shortcuts for every action, a skip link past the map, and focus that stays on the next
control after an action."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .driver import actions, draw_until, keep_all, wait_change, wait_my_turn
from .test_pages import start_ai_game


def test_the_rules_panel_explains_the_nordic_rules(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    page.click("#rules-open")
    panel = page.locator("#rules-panel")
    expect(panel).to_be_visible()
    for words in [
        "keeps at least 2",  # setup
        "Draw 2 train cards",
        "No flush in Nordic Countries",
        "Any 3 cards can stand in",  # ferries: the 3-for-1
        "Tunnel",
        "Murmansk–Lieksa",
        "2-player game only one of the two can be claimed",
        "2 trains or fewer",  # final round
        "Globetrotter",
        "longest continuous path",  # tie-break
    ]:
        expect(panel).to_contain_text(words)
    # Small pictures drawn like the board: a ferry with its locomotive space, a tunnel, Murmansk–Lieksa.
    expect(panel.locator("svg.rules-picture")).to_have_count(3)
    expect(panel.get_by_role("img", name="A ferry of 3 orange spaces, one of them a locomotive space")).to_be_visible()
    shot(page, "rules-panel")
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(page.locator("#rules-open")).to_be_focused()  # focus goes back where it was
    assert requests_seen.errors == []


def test_dialog_help_opens_the_right_section_and_shortcuts_play(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    dialog = page.locator("#keep-dialog")
    dialog.wait_for()
    dialog.locator(".help-button").click()
    expect(page.locator("#rules-h-setup")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#rules-panel")).to_be_hidden()
    keep_all(page)
    wait_my_turn(page)
    # "?" lists the shortcuts.
    page.locator("body").press("?")
    expect(page.locator("#shortcut-list")).to_contain_text("draw a card from the deck")
    page.keyboard.press("Escape")
    expect(page.locator("#shortcuts-dialog")).to_have_count(0)
    # Enter on the deck draws, and focus stays on the (re-rendered) deck button, never the page;
    # D draws the second card.
    page.locator("#deck").focus()
    before = actions(page)
    page.keyboard.press("Enter")
    wait_change(page, before)
    assert page.evaluate("() => document.activeElement && document.activeElement.id") == "deck"
    before = actions(page)
    page.keyboard.press("d")
    wait_change(page, before)
    wait_my_turn(page)
    # 1 takes the first face-up card when it may.
    if page.locator('button.faceup[data-slot="1"]').is_enabled():
        before = actions(page)
        page.keyboard.press("1")
        wait_change(page, before)
        assert page.evaluate("() => document.activeElement !== document.body")
        before = actions(page)
        page.keyboard.press("d")
        wait_change(page, before)
        wait_my_turn(page)
    # R opens the rules, and again closes them.
    page.keyboard.press("r")
    expect(page.locator("#rules-panel")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator("#rules-panel")).to_be_hidden()
    # T draws tickets: the ticket dialog opens, with its own help.
    before = actions(page)
    page.keyboard.press("t")
    wait_change(page, before)
    page.locator("#keep-dialog").wait_for()
    page.locator("#keep-dialog .help-button").click()
    expect(page.locator("#rules-h-turn")).to_be_focused()
    assert requests_seen.errors == []


def test_claim_by_typing_a_city_name(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    draw_until(page, "#route-list .route-btn")
    name = page.locator("#route-list .route-btn").first.inner_text()
    city = name.split("–")[0].strip()
    page.locator("body").press("c")
    field = page.locator("#route-search-input")
    expect(field).to_be_focused()
    expect(page.locator("#route-search .help-button")).to_have_attribute("data-rules", "turn")
    field.type(city)
    expect(page.locator("#route-search-results")).to_contain_text(city)
    page.keyboard.press("Enter")
    expect(page.locator("#claim-dialog")).to_be_visible()
    before = actions(page)
    page.locator("#claim-confirm").click()
    wait_change(page, before)
    assert requests_seen.errors == []


def test_the_skip_link_jumps_past_the_map(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    # The skip link is the first thing a Tab reaches, before the map's routes.
    first = page.evaluate(
        """() => [...document.querySelectorAll('a[href], button, input, select, [tabindex]')]
             .find(e => e.tabIndex >= 0 && !e.disabled).id"""
    )
    assert first == "skip-link"
    skip = page.locator("#skip-link")
    skip.focus()
    expect(skip).to_be_visible()  # shown while it has focus
    page.keyboard.press("Enter")
    expect(page.locator("#market")).to_be_focused()  # past the map: the next Tab is in the draw panel
    assert requests_seen.errors == []
