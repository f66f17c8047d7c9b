"""Helpers for the rule tests: build exact game states and check rejections.

Card strings use the engine's letters (P purple, W white, U blue, Y yellow,
O orange, K black, R red, G green, L locomotive).

The engine keeps the draw pile and the ticket deck with the top at the END of
the list; the builder takes them TOP FIRST, which reads naturally in a test
(``deck="GLR"``: the next card drawn is green, then a locomotive, then red).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ttr_nordic.engine import (
    Action,
    Claim,
    GameConfig,
    GameState,
    IllegalActionError,
    Phase,
    Reason,
    load_board,
    parse_action,
    parse_cards,
)
from ttr_nordic.engine.cards import CARD_LETTERS, FULL_DECK_COUNTS

BOARD = load_board()
EMPTY = -1

# Card kinds, named for readability in tests.
PURPLE, WHITE, BLUE, YELLOW, ORANGE, BLACK, RED, GREEN, LOCO = range(9)


def card(letter: str) -> int:
    """The card kind of one letter, e.g. ``card("L") == 8``."""
    return CARD_LETTERS.index(letter.upper())


def cards(text: str) -> list[int]:
    """A list of individual cards from letters, in the given order."""
    return [card(ch) for ch in text if ch not in " -"]


def counts(text: str) -> list[int]:
    """Nine counts from letters (``"OOL"`` -> two orange, one locomotive)."""
    return list(parse_cards(text))


def rid(code: str) -> int:
    """A route id from its code (``"R45"`` -> 44)."""
    return BOARD.route_by_code(code).id


def route_between(a: str, b: str, color: str | None = None) -> int:
    """The id of the route between two cities (``color`` picks a lane of a double route)."""
    lanes = BOARD.routes_between(a, b)
    if color is not None:
        lanes = [r for r in lanes if r.color_name == color]
    assert len(lanes) == 1, f"{a}–{b} {color}: {[r.describe() for r in lanes]}"
    return lanes[0].id


def ticket(a: str, b: str) -> int:
    """A ticket id by its two cities."""
    return BOARD.ticket_between(a, b).id


def claim(code: str, payment: str) -> Claim:
    """A claim action from notation pieces: ``claim("R45", "OOL")``."""
    return Claim(rid(code), parse_cards(payment))


def build(
    players: int = 2,
    *,
    hands: Sequence[str] | None = None,
    deck: str = "",
    display: str = "",
    discard: str = "",
    owners: Mapping[str, int] | None = None,
    trains: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    tickets: Sequence[Sequence[int]] | None = None,
    ticket_deck: Sequence[int] = (),
    current: int = 0,
    first_player: int = 0,
    phase: Phase = Phase.CHOOSE_ACTION,
    seed: int = 0,
) -> GameState:
    """An exact state in the middle of a game.

    - ``hands``: one letter string per player;
    - ``deck``: the draw pile, TOP FIRST;
    - ``display``: up to 5 letters, ``.`` for an empty slot (missing slots are empty);
    - ``discard``: letters of the discard pile;
    - ``owners``: route code -> owning player (trains and scores are NOT adjusted);
    - ``ticket_deck``: ticket ids, TOP FIRST.

    The builder does not enforce the 110-card total: rule tests use only the
    cards they need (and sometimes more than 12 of a color).
    """
    state = GameState._blank(BOARD, GameConfig(players, seed, first_player))
    hands = list(hands) if hands is not None else [""] * players
    assert len(hands) == players
    state.hands = [counts(h) for h in hands]
    state.known = [[0] * 9 for _ in range(players)]
    state.deck = list(reversed(cards(deck)))
    slots = [EMPTY if ch == "." else card(ch) for ch in display]
    assert len(slots) <= 5
    state.display = slots + [EMPTY] * (5 - len(slots))
    state.discard = counts(discard)
    state.route_owner = [EMPTY] * len(BOARD.routes)
    for code, player in (owners or {}).items():
        state.route_owner[rid(code)] = player
    if trains is not None:
        state.trains = list(trains)
    if scores is not None:
        state.scores = list(scores)
    if tickets is not None:
        state.tickets = [list(t) for t in tickets]
    state.ticket_deck = list(reversed(list(ticket_deck)))
    state.first_player = first_player
    state.current = current
    state.phase = phase
    return state


def full_game(players: int = 2, seed: int = 0, first_player: int = 0) -> GameState:
    """A real game after setup with every player keeping all 5 dealt tickets."""
    state = GameState.new(players=players, seed=seed, first_player=first_player)
    for _ in range(players):
        state.apply(parse_action("K " + " ".join(str(t) for t in state.offers[state.current])))
    assert state.phase is Phase.CHOOSE_ACTION
    return state


def deck_top_first(state: GameState) -> list[int]:
    """The draw pile as a list with the top card first."""
    return list(reversed(state.deck))


def _frozen(value: Any) -> Any:
    """Lists become tuples, recursively; everything else in a state is immutable already."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


def snapshot(state: GameState) -> dict[str, Any]:
    """Every field of the state (as immutable copies), the random generator's state included."""
    shared = {"board", "config", "_routes", "_simple_ids", "rng"}
    snap = {name: _frozen(value) for name, value in vars(state).items() if name not in shared}
    snap["rng"] = state.rng.getstate()
    snap["board"] = id(state.board)
    snap["config"] = state.config
    return snap


def assert_rejected(
    state: GameState,
    action: Action,
    reason: Reason | set[Reason],
    player: int | None = None,
) -> IllegalActionError:
    """``action`` is refused with ``reason``, the state is unchanged in every field,
    and the legal-action view agrees that the action is illegal."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(action, player)
    allowed = reason if isinstance(reason, set) else {reason}
    assert info.value.reason in allowed, f"{action}: got {info.value.reason}, expected {allowed}"
    assert snapshot(state) == before, "a rejected action changed the state"
    assert state.rejection(action, player) in allowed
    assert not state.is_legal(action, player)
    if player is None or player == state.current:
        assert action not in state.legal_actions()
        assert action not in state.legal_action_list()
    assert snapshot(state) == before, "checking legality changed the state"
    return info.value


def apply_all(state: GameState, *texts: str) -> None:
    """Apply actions given in notation, one after the other."""
    for text in texts:
        state.apply(parse_action(text))


def assert_listing_sound(state: GameState) -> list[Action]:
    """The listed legal actions are distinct and each one is accepted by ``apply``."""
    listed = state.legal_action_list()
    assert len(listed) == len(set(listed)), "an action is listed twice"
    claims = [(a.route, a.payment) for a in listed if isinstance(a, Claim)]
    assert len(claims) == len(set(claims)), "a payment is listed twice for one route"
    view = state.legal_actions()
    for action in listed:
        assert action in view
        trial = state.clone()
        trial.apply(action)
    return listed


def total_cards(state: GameState) -> list[int]:
    """All cards in every zone (deck, discard, display, hands, a tunnel in progress)."""
    return list(state.card_total())


FULL_DECK = list(FULL_DECK_COUNTS)
