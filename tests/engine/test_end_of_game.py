"""Turn order, passing and the end of the game (R4.3–R4.6, R8.1–R8.5)."""

from __future__ import annotations

from builders import PURPLE, assert_rejected, build, claim, counts, rid, ticket

from ttr_nordic.engine import DrawFaceUp, KeepTickets, Phase, Reason
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS, PayTunnelExtra


def _draw_two(state: object) -> None:
    state.apply(DRAW_BLIND)  # type: ignore[attr-defined]
    state.apply(DRAW_BLIND)  # type: ignore[attr-defined]


# ------------------------------------------------------------ the final round


def test_trigger_at_two_trains_two_players() -> None:
    """R8.1, R8.2: A drops to 2 trains; then B, then A, then the end."""
    state = build(hands=["OO", ""], trains=[4, 30], display="PPPPP", deck="W" * 20)
    state.apply(claim("R20", "OO"))
    assert state.trains[0] == 2
    assert state.final_round_trigger == 0
    assert state.decision == (1, Phase.CHOOSE_ACTION)
    _draw_two(state)  # B's final turn
    assert state.decision == (0, Phase.CHOOSE_ACTION)
    _draw_two(state)  # A's final turn
    assert state.is_over
    assert state.decision == (-1, Phase.GAME_OVER)


def test_three_trains_left_does_not_trigger() -> None:
    state = build(hands=["OO", ""], trains=[5, 30], display="PPPPP", deck="W" * 20)
    state.apply(claim("R20", "OO"))
    assert state.trains[0] == 3
    assert state.final_turns_left == -1
    assert state.final_round_trigger == -1


def test_drawing_with_few_trains_does_not_end_the_game_early() -> None:
    """Only a claim lowers the trains; the final round starts at the end of that claim's turn."""
    state = build(hands=["K", ""], trains=[3, 30], display="PPPPP", deck="W" * 20)
    state.apply(claim("R22", "K"))  # Helsinki–Lahti black 1: 2 trains left
    assert state.final_round_trigger == 0
    for _ in range(2):
        assert not state.is_over
        _draw_two(state)
    assert state.is_over


def test_final_round_three_players() -> None:
    """R8.2: A triggers; B, C, A; then the end."""
    state = build(3, hands=["", "OO", ""], trains=[30, 3, 30], display="PPPPP", deck="W" * 20, current=1)
    state.apply(claim("R20", "OO"))  # B triggers with 1 train left
    order = []
    while not state.is_over:
        order.append(state.current)
        _draw_two(state)
    assert order == [2, 0, 1]


def test_only_one_final_round() -> None:
    """R8.3: a second player dropping to 2 trains adds no turn."""
    state = build(hands=["OO", "KKK"], trains=[4, 5], display="PPPPP", deck="W" * 20)
    state.apply(claim("R20", "OO"))
    state.apply(claim("R70", "KKK"))  # B's final turn, B drops to 2 trains
    assert state.trains == [2, 2]
    assert state.final_round_trigger == 0
    assert state.current == 0
    _draw_two(state)
    assert state.is_over


def test_tunnel_success_triggers_and_declined_tunnel_does_not() -> None:
    state = build(hands=["GGGG", ""], trains=[4, 30], display="PPPPP", deck="GWW" + "W" * 10)
    state.apply(claim("R44", "GG"))
    state.apply(PayTunnelExtra(tuple(counts("G"))))  # type: ignore[arg-type]
    assert state.trains[0] == 2
    assert state.final_round_trigger == 0
    state = build(hands=["GGGG", ""], trains=[4, 30], display="PPPPP", deck="GWW" + "W" * 10)
    state.apply(claim("R44", "GG"))
    state.apply(DECLINE_TUNNEL)
    assert state.trains[0] == 4
    assert state.final_round_trigger == -1


def test_any_action_on_a_final_turn() -> None:
    """R8.4: ticket draws allowed (and scored); too few trains for a long route."""
    state = build(
        hands=["OO", "UUUUUOO"],
        trains=[4, 4],
        display="PPPPP",
        deck="W" * 20,
        ticket_deck=[ticket("Oslo", "Honningsvåg"), 5, 6],
        tickets=[[], []],
    )
    state.apply(claim("R20", "OO"))
    assert_rejected(state, claim("R40", "UUUUU"), Reason.NOT_ENOUGH_TRAINS)
    state.apply(DRAW_TICKETS)
    state.apply(KeepTickets((ticket("Oslo", "Honningsvåg"),)))
    state.apply(DrawFaceUp(0))
    state.apply(DrawFaceUp(0))
    assert state.is_over
    result = state.result()
    assert [t.value for t in result.players[1].tickets] == [-21]
    assert result.players[1].total == -21


def test_display_refill_happens_on_the_last_turn() -> None:
    """R4.5: the display refills (step 2) even when the turn then ends the game (step 4)."""
    state = build(hands=["KO", ""], trains=[3, 30], display=".....", deck="", discard="")
    state.apply(claim("R22", "K"))  # Helsinki–Lahti: 2 trains left, the final round begins
    assert state.display == [5, -1, -1, -1, -1]
    state.apply(DrawFaceUp(0))  # B's final turn: the only card; the action ends after it
    assert state.display == [-1] * 5
    state.apply(claim("R26", "O"))  # A's final turn: Helsinki–Tampere
    assert state.is_over
    assert state.display == [4, -1, -1, -1, -1]
    assert sum(state.discard) == 0


def test_no_action_after_the_end() -> None:
    """R4.3: GAME_OVER for every action, from anyone."""
    state = build(hands=["OO", ""], trains=[4, 30], display="PPPPP", deck="W" * 20)
    state.apply(claim("R20", "OO"))
    _draw_two(state)
    _draw_two(state)
    assert state.is_over
    assert state.legal_action_list() == []
    for action in (DRAW_BLIND, DrawFaceUp(0), DRAW_TICKETS, claim("R70", "KKK"), PASS, DECLINE_TUNNEL):
        assert_rejected(state, action, Reason.GAME_OVER)
        assert_rejected(state, action, Reason.GAME_OVER, player=1)


def test_not_your_turn() -> None:
    state = build(3, hands=["OO", "OO", "OO"], display="PPPPP", deck="WW", current=1)
    for player in (0, 2):
        assert_rejected(state, claim("R20", "OO"), Reason.NOT_YOUR_TURN, player=player)
        assert_rejected(state, DRAW_BLIND, Reason.NOT_YOUR_TURN, player=player)
    state.apply(claim("R20", "OO"), player=1)


# -------------------------------------------------------------------- passing


def test_cannot_pass_while_something_is_legal() -> None:
    """R4.4: a card to draw, a ticket to draw, or a route to claim each forbid a pass."""
    state = build(display="P....", deck="", discard="")
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    state = build(display=".....", deck="", discard="W")
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    state = build(display=".....", deck="W", discard="")
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    state = build(display=".....", ticket_deck=[3])
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    state = build(hands=["OO", ""], display=".....")
    assert_rejected(state, PASS, Reason.CANNOT_PASS)


def test_a_payable_tunnel_forbids_a_pass() -> None:
    # One purple card: Ålborg–Århus (purple 1) is taken; Kiruna–Narvik purple tunnel is open.
    state = build(hands=["P", ""], owners={"R01": 1}, display=".....")
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    assert state.legal_action_list() == [claim("R41", "P")]
    # Once that tunnel is taken too, nothing is possible: the pass is the only action.
    state = build(hands=["P", ""], owners={"R01": 1, "R41": 1}, display=".....")
    assert state.legal_action_list() == [PASS]
    state.apply(PASS)
    assert state.current == 1
    assert state.hands[0][PURPLE] == 1


def test_pass_when_no_trains_left_for_any_route() -> None:
    state = build(hands=["OOKKK", ""], trains=[0, 30], display=".....")
    assert state.legal_action_list() == [PASS]


def test_full_round_of_passes_ends_the_game() -> None:
    """R4.6."""
    state = build(display=".....")
    state.apply(PASS)
    assert not state.is_over
    state.apply(PASS)
    assert state.is_over
    state = build(3, display=".....")
    state.apply(PASS)
    state.apply(PASS)
    assert not state.is_over
    state.apply(PASS)
    assert state.is_over


def test_a_non_pass_resets_the_round_of_passes() -> None:
    state = build(3, hands=["", "K", ""], display=".....")
    state.apply(PASS)
    assert state.consecutive_passes == 1
    state.apply(claim("R22", "K"))  # the black card goes to the discard pile, then face up
    assert state.consecutive_passes == 0
    assert state.display[0] == 5
    state.apply(DrawFaceUp(0))  # C takes it; nothing left after it, so the action ends
    assert state.route_owner[rid("R22")] == 1
    state.apply(PASS)
    state.apply(PASS)
    assert state.consecutive_passes == 2
    assert not state.is_over
    # C holds the black card and may claim Kuopio–Lieksa (black 1), so C may not pass.
    assert state.current == 2
    assert_rejected(state, PASS, Reason.CANNOT_PASS)
    assert state.legal_action_list() == [claim("R47", "K")]


def test_a_pass_is_a_final_turn() -> None:
    """A player who can only pass during the final round has had their final turn."""
    state = build(hands=["OO", ""], trains=[4, 30], display=".....", deck="", discard="")
    state.apply(claim("R20", "OO"))  # A triggers; the two orange cards refill the display
    state.apply(DrawFaceUp(0))  # B takes both cards
    state.apply(DrawFaceUp(1))
    assert state.current == 0
    assert state.legal_action_list() == [PASS]  # A has nothing left to do
    state.apply(PASS)
    assert state.is_over
