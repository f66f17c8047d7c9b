"""The game's own pictures in Chromium: train cards drawn as SVG (a train on each colour card,
a locomotive card of its own), one shared <symbol> per kind, the colour letters kept for the
colour-blind option, the deck's card back, tickets as small tickets."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .driver import keep_all, wait_state

CARDS_JS = """() => [...document.querySelectorAll('#hand .card, #market .faceup .card')].map(c => ({
  color: [...c.classList].find(k => k.startsWith('card-') && k !== 'card-letter').slice(5),
  use: c.querySelector('svg.card-art use')?.getAttribute('href') || null,
  letter: c.querySelector('.card-letter')?.textContent || null,
  letterShown: getComputedStyle(c.querySelector('.card-letter')).visibility === 'visible',
  artWidth: c.querySelector('svg.card-art')?.getBoundingClientRect().width || 0,
}))"""


def open_game(page: Any) -> None:
    seats = [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "easy"}]
    data = page.request.post("/api/games", data={"mode": "ai", "seats": seats}).json()
    page.goto(data["invites"][0]["path"])
    wait_state(page)


def test_cards_are_drawn_art_and_keep_their_letters(page: Any) -> None:
    open_game(page)
    keep_all(page)
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length > 0")
    cards = page.evaluate(CARDS_JS)
    assert len(cards) >= 9  # the hand's colours and the five face-up cards
    for card in cards:
        assert card["use"] == ("#art-loco" if card["color"] == "locomotive" else "#art-train"), card
        assert card["artWidth"] > 15, card  # drawn, not collapsed
        assert card["letter"] and card["letterShown"], card  # the colour-blind option is on by default
    # One symbol per kind, shared by every card.
    assert page.evaluate("() => document.querySelectorAll('#art-sprite symbol').length") == 3
    assert page.locator("#deck .card-back-art use").get_attribute("href") == "#art-back"
    # Tickets look like tickets: the points on a stub of their own.
    ticket = page.locator("#tickets .ticket-list li[data-ticket]").first
    expect(ticket).to_be_visible()
    assert ticket.locator(".pts").evaluate("n => getComputedStyle(n).borderLeftStyle") == "dashed"
    shot(page, "art-cards-1440")
    page.locator("#cb-toggle").uncheck()
    cards = page.evaluate(CARDS_JS)
    assert cards and not any(c["letterShown"] for c in cards)
    assert all(c["use"] for c in cards)  # the pictures stay
    page.locator("#cb-toggle").check()
    assert all(c["letterShown"] for c in page.evaluate(CARDS_JS))


def test_cards_fit_on_a_phone(page: Any) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_game(page)
    keep_all(page)
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length > 0")
    # Every card's count badge stays inside its card (readable, not clipped).
    inside = page.evaluate(
        """() => [...document.querySelectorAll('#hand .card')].every(c => {
          const b = c.querySelector('.card-count')?.getBoundingClientRect();
          const r = c.getBoundingClientRect();
          return b && b.left >= r.left - 0.5 && b.right <= r.right + 0.5 && b.top >= r.top - 0.5;
        })"""
    )
    assert inside
    shot(page, "art-cards-390")
