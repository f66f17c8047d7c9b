"""Values of the wrong type are refused like illegal moves: a clear reason, the state unchanged,
and the game's record and result still work afterwards (issue: malformed action values)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from builders import build, claim, counts, rid, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttr_nordic.engine import (
    Action,
    Claim,
    DrawFaceUp,
    GameRecord,
    GameState,
    IllegalActionError,
    KeepTickets,
    NotationError,
    PayTunnelExtra,
    Phase,
    Reason,
    load_board,
    parse_action,
)
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, NUM_SLOTS, PASS


def assert_refused(state: GameState, action: Any, player: Any = None) -> IllegalActionError:
    """Refused by apply(), rejection() and is_legal() alike, with nothing changed and the
    record and result still readable."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(action, player)
    assert snapshot(state) == before
    assert state.rejection(action, player) is info.value.reason
    assert not state.is_legal(action, player)
    # Built positions are not dealt from their seed, so their records serialise but do not replay.
    assert GameRecord.from_json(state.record().to_json()).actions == state.record().actions
    state.result()
    return info.value


def test_fractional_card_counts_never_reach_the_hand() -> None:
    # Finding 1: 1.5 orange + 1.5 locomotives claimed the Kristiansand–Stavanger ferry.
    state = build(hands=["OOLLKKK", ""])
    ferry = rid("R45")
    payment = [0.0] * 9
    payment[counts("O").index(1)] = 1.5
    payment[counts("L").index(1)] = 1.5
    error = assert_refused(state, Claim(ferry, tuple(payment)))  # type: ignore[arg-type]
    assert error.reason is Reason.MALFORMED_ACTION and "whole card counts" in error.detail
    # Whole-number floats are refused too: 2.0 is not a card count.
    assert_refused(state, Claim(ferry, tuple(float(c) for c in counts("OOL"))))  # type: ignore[arg-type]
    state.apply(claim("R45", "OOL"))  # the real payment is still fine
    assert state.hands[0] == counts("LKKK")


def test_fractional_tunnel_extra_is_refused() -> None:
    state = build(hands=["GGGLR", ""], deck="GGWW", display="PPPPP")
    state.apply(claim("R44", "GG"))
    assert state.phase is Phase.TUNNEL_EXTRA
    half = [0.0] * 9
    half[counts("G").index(1)] = 0.5
    half[counts("L").index(1)] = 0.5
    assert assert_refused(state, PayTunnelExtra(tuple(half))).reason is Reason.MALFORMED_ACTION  # type: ignore[arg-type]
    assert assert_refused(state, PayTunnelExtra([0] * 9)).reason is Reason.MALFORMED_ACTION  # type: ignore[arg-type]


def test_float_ticket_ids_are_refused() -> None:
    # Finding 2: KeepTickets((27.0,)) was kept, and result() then failed.
    first, second = 27, 30
    state = build(hands=["OO", ""], display="PPPPP", deck="WWW", ticket_deck=[first, second, 3])
    state.apply(DRAW_TICKETS)
    error = assert_refused(state, KeepTickets((float(first),)))  # type: ignore[arg-type]
    assert error.reason is Reason.MALFORMED_ACTION
    assert assert_refused(state, KeepTickets([first])).reason is Reason.MALFORMED_ACTION  # type: ignore[arg-type]
    assert assert_refused(state, KeepTickets((True,))).reason is Reason.MALFORMED_ACTION  # type: ignore[arg-type]
    state.apply(KeepTickets((first,)))


def test_ticket_ids_out_of_order_are_refused() -> None:
    # Kept as (30, 27), the tickets replayed from the record as (27, 30): another state.
    state = build(hands=["OO", ""], display="PPPPP", deck="WWW", ticket_deck=[27, 30, 3])
    state.apply(DRAW_TICKETS)
    error = assert_refused(state, KeepTickets((30, 27)))
    assert error.reason is Reason.MALFORMED_ACTION and "increasing order" in error.detail
    assert KeepTickets((30, 27)) not in state.legal_actions()
    # A ticket named twice keeps its reason from the rules.
    assert assert_refused(state, KeepTickets((27, 27))).reason is Reason.INVALID_TICKET_CHOICE
    state.apply(KeepTickets((27, 30)))
    assert state.tickets[0] == [27, 30]


@pytest.mark.parametrize("player", ["A", 0.0, None.__class__, True, [0], 1.5])
def test_a_player_that_is_not_a_seat_number(player: Any) -> None:
    # Finding 3: player 'A' made building the NOT_YOUR_TURN message raise TypeError.
    state = GameState.new(players=2, seed=3)
    action = state.legal_action_list()[0]
    error = assert_refused(state, action, player)
    assert error.reason is Reason.MALFORMED_ACTION and "seat number" in error.detail


def test_out_of_range_seat_numbers_are_not_your_turn() -> None:
    state = GameState.new(players=2, seed=3)
    action = state.legal_action_list()[0]
    for player in (5, -1, 10**30):
        assert assert_refused(state, action, player).reason is Reason.NOT_YOUR_TURN


@pytest.mark.parametrize(
    "action",
    [
        DrawFaceUp("2"),
        DrawFaceUp(None),
        DrawFaceUp(1.0),
        Claim("R45", tuple(counts("OOL"))),
        Claim(None, tuple(counts("OOL"))),
        Claim(44, None),
        Claim(44, "OOL"),
        Claim(44, (None,) * 9),
        PayTunnelExtra(None),
        KeepTickets(None),
        KeepTickets(("4",)),
        "B",
        None,
        42,
    ],
    ids=repr,
)
def test_wrong_types_are_refused_not_type_errors(action: Any) -> None:
    # Finding 4: strings or None raised a bare TypeError.
    state = build(hands=["OOLLKKK", ""])
    assert assert_refused(state, action).reason is Reason.MALFORMED_ACTION


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": None}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "7"}, "seed"),
        ({"seed": True}, "seed"),
        ({"players": 2.0}, "2 or 3 players"),
        ({"players": 4}, "2 or 3 players"),
        ({"first_player": 1.0}, "first_player"),
        ({"first_player": 2}, "first_player"),
    ],
)
def test_new_game_arguments_are_checked(kwargs: dict[str, Any], message: str) -> None:
    # Finding 5: GameState.new(seed=None) was accepted and its record could not be loaded.
    with pytest.raises(ValueError, match=message):
        GameState.new(**kwargs)
    game = GameState.new(players=2, seed=2**62, first_player=1)
    assert GameRecord.from_json(game.record().to_json()).replay().config == game.config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("C R00 OO", "R01 to R"),
        ("C R99 OO", "R01 to R"),
        ("C R-1 OO", "route codes look like"),
        ("C R٣ OO", "route codes look like"),  # an Arabic-Indic digit: isdigit() but not ASCII
        ("K 99", "ticket ids run from 0 to"),
        ("K -1", "whole numbers"),
        ("K 1.0", "whole numbers"),
        ("K ³", "whole numbers"),
        ("F0", "F1 to F5"),
        ("F²", "expected"),
    ],
)
def test_the_parser_says_what_is_wrong(text: str, message: str) -> None:
    # Finding 6: "C R00 OO" and "K 99" were parsed, and only apply() refused them.
    with pytest.raises(NotationError, match=message):
        parse_action(text)


@pytest.mark.parametrize("value", [None, 3, b"B", ["B"]], ids=repr)
def test_the_parser_refuses_values_that_are_not_text(value: Any) -> None:
    # A client's JSON message may carry a number or null where the notation should be.
    with pytest.raises(NotationError, match="string of notation"):
        parse_action(value)


# ---- every field of every action kind, with arbitrary values --------------------------------

ODD_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-2, max_value=50),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=4),
    st.none(),
    st.just(()),
)
COUNTS = st.one_of(
    st.tuples(*[st.integers(min_value=-1, max_value=3)] * 9),
    st.lists(ODD_VALUES, max_size=10).map(tuple),
    ODD_VALUES,
)
ACTIONS = st.one_of(
    st.builds(DrawFaceUp, ODD_VALUES),
    st.builds(Claim, ODD_VALUES, COUNTS),
    st.builds(KeepTickets, st.one_of(st.lists(ODD_VALUES, max_size=4).map(tuple), ODD_VALUES)),
    st.builds(PayTunnelExtra, COUNTS),
    st.sampled_from([DRAW_BLIND, DRAW_TICKETS, DECLINE_TUNNEL, PASS]),
    ODD_VALUES,
)
PLAYERS = st.one_of(st.none(), st.integers(min_value=-1, max_value=3), ODD_VALUES)


def position(seed: int, steps: int) -> GameState:
    """A position reached by random legal play: every phase occurs among these."""
    state = GameState.new(players=2 + seed % 2, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply(rng.choice(state.legal_action_list()))
    return state


def variants(action: Action) -> list[Any]:
    """Values a client could send in place of a legal ``action``: each field nudged, reordered,
    widened to another type, or turned into a negative index (which Python would accept)."""
    routes = len(load_board().routes)
    out: list[Any] = []
    if isinstance(action, DrawFaceUp):
        slot = action.slot
        out += [DrawFaceUp(s) for s in (slot - 1, slot + 1, slot - NUM_SLOTS, float(slot), bool(slot))]
    elif isinstance(action, KeepTickets):
        ids = action.tickets
        out += [KeepTickets(ids[::-1]), KeepTickets(ids[1:]), KeepTickets(ids + ids[-1:]), KeepTickets(ids[:1] * 2)]
        out += [KeepTickets(tuple(float(t) for t in ids)), KeepTickets(tuple(-1 - t for t in ids))]
    elif isinstance(action, (Claim, PayTunnelExtra)):
        cards = action.payment if isinstance(action, Claim) else action.cards
        nudged: list[tuple[Any, ...]] = [tuple(float(c) for c in cards), cards[:-1], (*cards, 0)]
        for kind, count in enumerate(cards):
            for change in (-1, 1, -0.5):
                nudged.append((*cards[:kind], count + change, *cards[kind + 1 :]))
        if isinstance(action, Claim):
            out += [Claim(action.route, c) for c in nudged]  # type: ignore[arg-type]
            out += [Claim(r, cards) for r in (action.route - routes, action.route + 1, float(action.route))]  # type: ignore[arg-type]
        else:
            out += [PayTunnelExtra(c) for c in nudged]  # type: ignore[arg-type]
    return out


def assert_whole(state: GameState) -> None:
    """The game's record loads and replays to this very state, and the game can be scored."""
    replayed = GameRecord.from_json(state.record().to_json()).replay()
    mine, theirs = snapshot(state), snapshot(replayed)
    mine.pop("described_log"), theirs.pop("described_log")  # a cache of rendered log lines
    assert mine == theirs
    state.result()


def assert_legal_or_refused(state: GameState, action: Any, player: Any) -> None:
    before = snapshot(state)
    reason = state.rejection(action, player)
    assert snapshot(state) == before
    if reason is None:
        if (player is None or player == state.current) and not isinstance(action, Claim):
            # The checked path and the listing agree on what is legal (claims excepted: the
            # listing fills a ferry's groups of 3 one way, and any other filling is legal too).
            assert action in state.legal_action_list()
        state.apply(action, player)
    else:
        with pytest.raises(IllegalActionError) as info:
            state.apply(action, player)
        assert info.value.reason is reason and str(info.value)
        assert snapshot(state) == before
    assert_whole(state)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 40), steps=st.integers(0, 160), action=ACTIONS, player=PLAYERS)
def test_arbitrary_values_are_either_legal_or_refused_with_a_reason(
    seed: int, steps: int, action: Any, player: Any
) -> None:
    assert_legal_or_refused(position(seed, steps), action, player)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 40), steps=st.integers(0, 160), data=st.data())
def test_values_near_a_legal_action_are_either_legal_or_refused(seed: int, steps: int, data: st.DataObject) -> None:
    # Arbitrary values are rarely close enough to a legal move to reach the rules; these are.
    state = position(seed, steps)
    if state.is_over:
        return
    legal = data.draw(st.sampled_from(state.legal_action_list()))
    options = variants(legal)
    if options:
        assert_legal_or_refused(state, data.draw(st.sampled_from(options)), None)
