"""Train cards: the eight colors and the locomotive, as small integers.

A card is an ``int`` from 0 to 8. A hand, a payment or any other multiset of
cards is a sequence of nine counts indexed by card (``counts[RED]`` is the
number of red cards). Integers keep the hot paths fast; names and one-letter
codes are for the edges (notation, terminal, web).

>>> from ttr_nordic.engine.cards import RED, LOCOMOTIVE, card_name, parse_cards
>>> card_name(RED), card_name(LOCOMOTIVE)
('red', 'locomotive')
>>> parse_cards("RRL")
(0, 0, 0, 0, 0, 0, 2, 0, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

Card = int
Counts = tuple[int, int, int, int, int, int, int, int, int]

PURPLE: Final = 0
WHITE: Final = 1
BLUE: Final = 2
YELLOW: Final = 3
ORANGE: Final = 4
BLACK: Final = 5
RED: Final = 6
GREEN: Final = 7
LOCOMOTIVE: Final = 8

#: The eight colors, in the board file's order.
COLORS: Final = (PURPLE, WHITE, BLUE, YELLOW, ORANGE, BLACK, RED, GREEN)
#: Every card kind: the eight colors then the locomotive.
CARD_KINDS: Final = (*COLORS, LOCOMOTIVE)
NUM_KINDS: Final = 9

CARDS_PER_COLOR: Final = 12
NUM_LOCOMOTIVES: Final = 14
TOTAL_CARDS: Final = 8 * CARDS_PER_COLOR + NUM_LOCOMOTIVES  # 110

CARD_NAMES: Final = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive")
#: One letter per card kind; U is blue and K is black, as in common card notation.
CARD_LETTERS: Final = "PWUYOKRGL"

EMPTY_COUNTS: Final[Counts] = (0, 0, 0, 0, 0, 0, 0, 0, 0)
FULL_DECK_COUNTS: Final[Counts] = (12, 12, 12, 12, 12, 12, 12, 12, 14)

_NAME_TO_CARD: Final = {name: card for card, name in enumerate(CARD_NAMES)}
_NAME_TO_CARD.update({"loco": LOCOMOTIVE, "pink": PURPLE})
_LETTER_TO_CARD: Final = {letter: card for card, letter in enumerate(CARD_LETTERS)}


def card_name(card: Card) -> str:
    """The English name of a card kind, e.g. ``card_name(BLUE) == 'blue'``."""
    return CARD_NAMES[card]


def card_letter(card: Card) -> str:
    """The one-letter code of a card kind, e.g. ``card_letter(BLACK) == 'K'``."""
    return CARD_LETTERS[card]


def parse_card(text: str) -> Card:
    """A card kind from its name or letter (case-insensitive).

    >>> parse_card("Green"), parse_card("L")
    (7, 8)
    """
    key = text.strip().lower()
    if key in _NAME_TO_CARD:
        return _NAME_TO_CARD[key]
    if len(key) == 1 and key.upper() in _LETTER_TO_CARD:
        return _LETTER_TO_CARD[key.upper()]
    raise ValueError(f"unknown card {text!r}: use a color name, 'locomotive', or one of {CARD_LETTERS}")


def parse_cards(text: str) -> Counts:
    """Counts from a string of card letters such as ``"OOL"`` (spaces ignored; ``-`` is none).

    >>> parse_cards("OOL")[4]
    2
    """
    counts = [0] * NUM_KINDS
    for ch in text.strip():
        if ch in " -":
            continue
        card = _LETTER_TO_CARD.get(ch.upper())
        if card is None:
            raise ValueError(f"unknown card letter {ch!r} in {text!r}: use letters from {CARD_LETTERS}")
        counts[card] += 1
    return to_counts(counts)


def cards_to_letters(counts: Sequence[int]) -> str:
    """The letter string of a multiset, in card order: ``(2 orange, 1 loco) -> 'OOL'``."""
    return "".join(CARD_LETTERS[card] * counts[card] for card in range(NUM_KINDS))


def describe_cards(counts: Sequence[int]) -> str:
    """A readable multiset such as ``'2 orange + 1 locomotive'`` (``'nothing'`` when empty)."""
    parts = [f"{counts[card]} {CARD_NAMES[card]}" for card in range(NUM_KINDS) if counts[card]]
    return " + ".join(parts) if parts else "nothing"


def to_counts(values: Sequence[int]) -> Counts:
    """A nine-count tuple from any sequence of nine non-negative ints."""
    if len(values) != NUM_KINDS:
        raise ValueError(f"a card multiset has {NUM_KINDS} counts, got {len(values)}")
    if any(v < 0 for v in values):
        raise ValueError("card counts cannot be negative")
    return (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])


def counts_of(cards: Sequence[Card]) -> Counts:
    """Counts of a list of individual cards."""
    counts = [0] * NUM_KINDS
    for card in cards:
        counts[card] += 1
    return to_counts(counts)
