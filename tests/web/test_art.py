"""The game's own pictures in Chromium: train cards drawn as SVG (a train on each colour card,
a locomotive card of its own), one shared image per kind, the colour letters kept for the
colour-blind option, the deck's card back, tickets as small tickets."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import shot
from .driver import keep_all, wait_state

CARDS_JS = """() => [...document.querySelectorAll('#hand .card, #market .faceup .card')].map(c => {
  const art = getComputedStyle(c, '::after');
  return {
    color: [...c.classList].find(k => k.startsWith('card-') && k !== 'card-letter').slice(5),
    mask: art.maskImage || art.webkitMaskImage,
    image: art.backgroundImage,
    artWidth: parseFloat(art.width),
    letter: c.querySelector('.card-letter')?.textContent || null,
    letterShown: getComputedStyle(c.querySelector('.card-letter')).visibility === 'visible',
  };
})"""
ART_JS = """() => Object.fromEntries(['train', 'loco', 'back'].map(k =>
  [k, getComputedStyle(document.documentElement).getPropertyValue(`--art-${k}`)]))"""


def drawn(card: dict[str, object]) -> bool:
    """The card shows its picture: the train as a mask, the locomotive as a colour image."""
    if card["color"] == "locomotive":
        return "data:image/svg+xml" in str(card["image"])
    return "data:image/svg+xml" in str(card["mask"])


def open_game(page: Any) -> None:
    seats = [{"kind": "human", "name": "Ola"}, {"kind": "ai", "level": "easy"}]
    data = page.request.post("/api/games", data={"mode": "ai", "seats": seats}).json()
    page.goto(data["invites"][0]["path"])
    wait_state(page)


def test_cards_are_drawn_art_and_keep_their_letters(page: Any) -> None:
    open_game(page)
    keep_all(page)
    # The page stands still on this player's turn: while the computer plays, each state rebuilds
    # the deck and the tickets, and a node read then is already detached (its style reads '').
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    page.wait_for_function("() => document.querySelectorAll('#hand .card').length > 0")
    cards = page.evaluate(CARDS_JS)
    assert len(cards) >= 6  # the hand's colours and the five face-up cards
    art = page.evaluate(ART_JS)
    assert all("data:image/svg+xml" in value and "%3Cpath" in value for value in art.values()), art
    for card in cards:
        assert drawn(card), card
        assert card["artWidth"] > 15, card  # drawn, not collapsed
        assert card["letter"] and card["letterShown"], card  # the colour-blind option is on by default
    # One image per kind, shared by every card: a render adds no SVG element per card.
    assert page.locator("#hand svg, #market .faceup svg").count() == 0
    back = page.locator("#deck .card-back-art").evaluate("n => getComputedStyle(n).backgroundImage")
    assert "data:image/svg+xml" in back
    # Tickets look like tickets: the points on a stub of their own.
    ticket = page.locator("#tickets .ticket-list li[data-ticket]").first
    expect(ticket).to_be_visible()
    assert ticket.locator(".pts").evaluate("n => getComputedStyle(n).borderLeftStyle") == "dashed"
    shot(page, "art-cards-1440")
    page.locator("#cb-toggle").uncheck()
    cards = page.evaluate(CARDS_JS)
    assert cards and not any(c["letterShown"] for c in cards)
    assert all(drawn(c) for c in cards)  # the pictures stay
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
