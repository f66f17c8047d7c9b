"""Double routes (R6.4 a–e)."""

from __future__ import annotations

from builders import assert_listing_sound, assert_rejected, build, claim, rid

from ttr_nordic.engine import Claim, Reason
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND

YELLOW_LANE, GREEN_LANE = "R61", "R62"  # Oslo–Örebro yellow 2 / green 2


def _claims(state: object) -> set[int]:
    return {a.route for a in assert_listing_sound(state) if isinstance(a, Claim)}  # type: ignore[arg-type]


def test_two_players_the_other_lane_closes() -> None:
    """(b): in a 2-player game nobody may take the other lane once one is claimed."""
    state = build(hands=["YY", "GGYY"], display="PPPPP", deck="WWWW")
    state.apply(claim(YELLOW_LANE, "YY"))
    assert state.current == 1
    assert_rejected(state, claim(GREEN_LANE, "GG"), Reason.DOUBLE_ROUTE_CLOSED)
    assert rid(GREEN_LANE) not in _claims(state)
    assert_rejected(state, claim(YELLOW_LANE, "YY"), Reason.ROUTE_CLAIMED)


def test_never_both_lanes_for_one_player() -> None:
    """(a), in both player counts."""
    for players in (2, 3):
        state = build(players, hands=["GG"] + [""] * (players - 1), owners={YELLOW_LANE: 0})
        assert_rejected(state, claim(GREEN_LANE, "GG"), Reason.DOUBLE_ROUTE_OWN)
        assert rid(GREEN_LANE) not in _claims(state)


def test_three_players_another_player_may_take_the_other_lane() -> None:
    """(c)."""
    state = build(3, hands=["YY", "GG", "GG"], display="PPPPP", deck="WWWWWW")
    state.apply(claim(YELLOW_LANE, "YY"))
    assert rid(GREEN_LANE) in _claims(state)
    state.apply(claim(GREEN_LANE, "GG"))
    assert state.route_owner[rid(YELLOW_LANE)] == 0
    assert state.route_owner[rid(GREEN_LANE)] == 1
    # The third player finds both lanes taken.
    assert_rejected(state, claim(GREEN_LANE, "GG"), Reason.ROUTE_CLAIMED)


def test_gray_twin_lanes() -> None:
    """Stockholm–Sundsvall: two gray lanes of 4."""
    state = build(hands=["KKKKKKKK", ""], owners={"R72": 0})
    assert_rejected(state, claim("R73", "KKKK"), Reason.DOUBLE_ROUTE_OWN)
    state = build(hands=["", "KKKK"], owners={"R72": 0}, current=1)
    assert_rejected(state, claim("R73", "KKKK"), Reason.DOUBLE_ROUTE_CLOSED)
    state = build(3, hands=["", "KKKK", ""], owners={"R72": 0}, current=1)
    state.apply(claim("R73", "KKKK"))


def test_lanes_of_different_types() -> None:
    """(d): Kristiansand–Stavanger, an orange ferry beside a green tunnel."""
    state = build(hands=["GGOOL", "GGOOL"], owners={"R45": 0}, deck="WWW", current=1)
    assert_rejected(state, claim("R44", "GG"), Reason.DOUBLE_ROUTE_CLOSED)
    state = build(3, hands=["GGOOL", "", ""], owners={"R45": 0}, deck="GGG")
    # The owner of the ferry may not even attempt the tunnel: nothing is revealed.
    assert_rejected(state, claim("R44", "GG"), Reason.DOUBLE_ROUTE_OWN)
    state = build(3, hands=["", "GG", ""], owners={"R45": 0}, deck="WWW", current=1)
    state.apply(claim("R44", "GG"))
    assert state.route_owner[rid("R44")] == 1
    # Mo i Rana–Trondheim: a green tunnel of 5 beside a red ferry of 6.
    state = build(hands=["RRRRLL", ""], owners={"R55": 1})
    assert_rejected(state, claim("R56", "RRRRLL"), Reason.DOUBLE_ROUTE_CLOSED)


def test_declined_tunnel_blocks_nothing() -> None:
    """(e): a declined tunnel claims nothing; the ferry beside it stays open to everyone."""
    state = build(hands=["GG", "OOL"], deck="GGGWWW", display="PPPPP")
    state.apply(claim("R44", "GG"))
    state.apply(DECLINE_TUNNEL)
    assert state.route_owner[rid("R44")] == -1
    assert state.current == 1
    state.apply(claim("R45", "OOL"))
    assert state.route_owner[rid("R45")] == 1


def test_failed_tunnel_then_same_player_takes_the_other_lane() -> None:
    state = build(hands=["GGOOL", ""], deck="LLLWWW", display="PPPPP")
    state.apply(claim("R44", "GG"))
    assert state.legal_action_list() == [DECLINE_TUNNEL]  # 3 needed, cannot pay
    state.apply(DECLINE_TUNNEL)
    state.apply(DRAW_BLIND)  # player 1 draws two cards
    state.apply(DRAW_BLIND)
    assert state.current == 0
    state.apply(claim("R45", "OOL"))
    assert state.route_owner[rid("R45")] == 0
