"""Action A, drawing train cards (R5.1–R5.11)."""

from __future__ import annotations

from builders import (
    EMPTY,
    GREEN,
    LOCO,
    ORANGE,
    RED,
    WHITE,
    YELLOW,
    assert_rejected,
    build,
    claim,
    counts,
    deck_top_first,
)

from ttr_nordic.engine import DrawFaceUp, Phase, Reason
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS


def test_face_up_card_is_replaced_immediately_and_replacement_can_be_taken() -> None:
    """R5.2(a), R5.3."""
    state = build(hands=["", ""], display="ROYGW", deck="LKU")
    state.apply(DrawFaceUp(0))
    assert state.hands[0][RED] == 1
    assert state.display[0] == LOCO  # the top card of the draw pile, face up at once
    assert deck_top_first(state) == [5, 2]
    assert state.decision == (0, Phase.SECOND_CARD)
    state.apply(DrawFaceUp(0))  # the replacement, a locomotive, as the second card
    assert state.hands[0] == counts("RL")
    assert state.display[0] == 5  # black
    assert state.decision == (1, Phase.CHOOSE_ACTION)


def test_blind_draw_takes_the_top_card() -> None:
    """R5.2(b)."""
    state = build(display="ROYGW", deck="GLK")
    state.apply(DRAW_BLIND)
    assert state.hands[0] == counts("G")
    state.apply(DRAW_BLIND)
    assert state.hands[0] == counts("GL")
    assert deck_top_first(state) == [5]
    assert state.display == [RED, ORANGE, YELLOW, GREEN, WHITE]
    assert state.current == 1


def test_face_up_locomotive_counts_as_one_card() -> None:
    """R5.4: no restriction after a face-up locomotive, even a second face-up one."""
    state = build(display="LLOOO", deck="LRR")
    state.apply(DrawFaceUp(0))
    assert state.decision == (0, Phase.SECOND_CARD)
    assert DrawFaceUp(1) in state.legal_actions()
    assert DrawFaceUp(0) in state.legal_actions()  # the replacement locomotive too
    state.apply(DrawFaceUp(1))
    assert state.hands[0] == counts("LL")
    assert state.current == 1


def test_blind_locomotive_counts_as_one_card() -> None:
    state = build(display="OOOOO", deck="LL")
    state.apply(DRAW_BLIND)
    assert state.decision == (0, Phase.SECOND_CARD)
    state.apply(DRAW_BLIND)
    assert state.hands[0] == counts("LL")


def test_second_card_is_mandatory_when_available() -> None:
    """R5.7: nothing but a second card may follow the first."""
    state = build(
        hands=["OO", ""],
        display="ROYGW",
        deck="KKKK",
        ticket_deck=[1, 2, 3],
    )
    state.apply(DRAW_BLIND)
    assert state.decision == (0, Phase.SECOND_CARD)
    for action in (DRAW_TICKETS, claim("R20", "OO"), PASS):
        assert_rejected(state, action, Reason.ACTION_IN_PROGRESS)
    assert set(state.legal_action_list()) == {*(DrawFaceUp(i) for i in range(5)), DRAW_BLIND}
    # The other player cannot act in the middle of it.
    assert_rejected(state, DRAW_BLIND, Reason.NOT_YOUR_TURN, player=1)


def test_action_ends_after_one_card_when_nothing_is_left() -> None:
    """R5.7: no card available after the first, so the action ends."""
    state = build(display="R....", deck="")
    state.apply(DrawFaceUp(0))
    assert state.hands[0] == counts("R")
    assert state.display == [EMPTY] * 5
    assert state.decision == (1, Phase.CHOOSE_ACTION)
    state = build(display=".....", deck="G")
    state.apply(DRAW_BLIND)
    assert state.decision == (1, Phase.CHOOSE_ACTION)


def test_empty_slot_is_rejected() -> None:
    state = build(display="R.O..", deck="G")
    assert_rejected(state, DrawFaceUp(1), Reason.EMPTY_SLOT)
    assert_rejected(state, DrawFaceUp(4), Reason.EMPTY_SLOT)
    state.apply(DrawFaceUp(0))
    assert_rejected(state, DrawFaceUp(1), Reason.EMPTY_SLOT)


def test_no_train_cards_at_all() -> None:
    """R5.1."""
    state = build(hands=["", ""], display=".....", deck="", ticket_deck=[4])
    assert_rejected(state, DrawFaceUp(0), {Reason.NO_TRAIN_CARDS, Reason.EMPTY_SLOT})
    assert_rejected(state, DRAW_BLIND, {Reason.NO_TRAIN_CARDS, Reason.DRAW_PILE_EMPTY})
    assert state.legal_action_list() == [DRAW_TICKETS]


def test_reshuffle_when_a_blind_card_is_needed() -> None:
    """R5.5: the draw pile is empty, the discard pile becomes the new draw pile."""
    state = build(display="OOOOO", deck="", discard="RRR")
    state.apply(DRAW_BLIND)
    assert state.hands[0] == counts("R")
    assert sum(state.discard) == 0
    assert state.deck == [RED, RED]


def test_reshuffle_only_when_needed() -> None:
    """R5.5 timing: an empty draw pile alone does not move the discard pile."""
    state = build(display="OOOOO", deck="G", discard="RRR")
    state.apply(DrawFaceUp(2))  # replaced by the last card of the draw pile
    assert state.display[2] == GREEN
    assert state.deck == []
    assert state.discard == counts("RRR")
    state.apply(DrawFaceUp(2))  # the replacement now comes from the reshuffled discard pile
    assert state.display[2] == RED
    assert state.discard == counts("")
    assert state.deck == [RED, RED]


def test_face_up_replacement_reshuffles_the_discard_pile() -> None:
    state = build(display="OYOYO", deck="", discard="WW")
    state.apply(DrawFaceUp(1))
    assert state.display[1] == WHITE
    assert state.deck == [WHITE]
    assert sum(state.discard) == 0


def test_blind_draw_with_both_piles_empty() -> None:
    """R5.6: blind draw impossible; a face-up card may still be taken, not replaced."""
    state = build(display="RG...", deck="", discard="")
    assert_rejected(state, DRAW_BLIND, Reason.DRAW_PILE_EMPTY)
    state.apply(DrawFaceUp(0))
    assert state.display == [EMPTY, GREEN, EMPTY, EMPTY, EMPTY]
    # The second card is still mandatory (one card is available), blind still impossible.
    assert state.decision == (0, Phase.SECOND_CARD)
    assert_rejected(state, DRAW_BLIND, Reason.DRAW_PILE_EMPTY)
    assert_rejected(state, DrawFaceUp(0), Reason.EMPTY_SLOT)
    assert state.legal_action_list() == [DrawFaceUp(1)]
    state.apply(DrawFaceUp(1))
    assert state.hands[0] == counts("RG")
    assert state.display == [EMPTY] * 5
    assert state.current == 1


def test_empty_slot_is_refilled_at_the_end_of_a_later_action() -> None:
    """R5.8: slots emptied while both piles were empty fill once a claim discards cards."""
    state = build(hands=["", "OO"], display="RG.Y.", deck="", discard="")
    state.apply(DrawFaceUp(0))
    state.apply(DrawFaceUp(1))
    assert state.display == [EMPTY, EMPTY, EMPTY, YELLOW, EMPTY]
    # Player 1 claims Göteborg–Oslo (orange 2): the 2 orange cards go to the discard pile,
    # and at the end of the action the empty slots refill in slot order.
    state.apply(claim("R20", "OO"))
    assert state.display == [ORANGE, ORANGE, EMPTY, YELLOW, EMPTY]
    assert sum(state.discard) == 0
    assert state.deck == []


def test_refill_in_slot_order_until_five_cards() -> None:
    state = build(hands=["", "KKK"], display=".Y.Y.", deck="", discard="")
    state.current = 1
    state.apply(claim("R70", "KKK"))  # Oulu–Vaasa, black 3
    assert state.display == [5, YELLOW, 5, YELLOW, 5]


def test_declined_tunnel_refills_the_display() -> None:
    """R5.8 after a tunnel attempt: the revealed cards reach the discard pile, then refill."""
    state = build(hands=["GG", ""], display="....Y", deck="GRR", discard="")
    state.apply(claim("R44", "GG"))  # Kristiansand–Stavanger green tunnel
    assert state.decision == (0, Phase.TUNNEL_EXTRA)
    assert state.display == [EMPTY, EMPTY, EMPTY, EMPTY, YELLOW]
    state.apply(DECLINE_TUNNEL)
    assert sorted(c for c in state.display if c != EMPTY) == sorted([GREEN, RED, RED, YELLOW])
    assert state.display[3] == EMPTY  # three cards filled slots 1-3 in order
    assert state.display[:3].count(EMPTY) == 0
    assert state.hands[0] == counts("GG")


def test_no_display_flush_with_three_or_more_locomotives() -> None:
    """R5.9: a display of 3, 4 or 5 locomotives stays."""
    state = build(display="LLLOO", deck="LLRR", discard="")
    state.apply(DrawFaceUp(3))
    assert state.display == [LOCO, LOCO, LOCO, LOCO, ORANGE]
    state.apply(DrawFaceUp(4))
    assert state.display == [LOCO] * 5
    assert sum(state.discard) == 0
    assert deck_top_first(state) == [RED, RED]
    assert state.hands[0] == counts("OO")


def test_no_hand_limit() -> None:
    """R5.10."""
    state = build(hands=["R" * 12 + "G" * 12 + "L" * 14 + "OOOOOOOOOO", ""], display="YYYYY", deck="KK")
    state.apply(DRAW_BLIND)
    state.apply(DRAW_BLIND)
    assert sum(state.hands[0]) == 50


def test_blind_draw_identity_is_private() -> None:
    """R5.11 / R10: the others see that a card was drawn, not which."""
    state = build(display="YYYYY", deck="LK")
    state.apply(DRAW_BLIND)
    state.apply(DrawFaceUp(0))
    mine, theirs = state.view(0).log, state.view(1).log
    assert mine[0].card == LOCO and mine[0].notation == "B"
    assert theirs[0].card == -1 and theirs[0].notation is None
    assert theirs[1].card == YELLOW  # a face-up card is public
    assert state.view(1).hand_sizes == (2, 0)
