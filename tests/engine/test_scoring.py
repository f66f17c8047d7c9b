"""Final scoring and the winner (R9.1–R9.7, §12 items 6 and 7)."""

from __future__ import annotations

from builders import build, claim, ticket

from ttr_nordic.engine.scoring import longest_path

TAMPERE_TALLINN = ticket("Tampere", "Tallinn")  # 3
HELSINKI_LIEKSA = ticket("Helsinki", "Lieksa")  # 5
OSLO_STOCKHOLM = ticket("Oslo", "Stockholm")  # 4
OSLO_HELSINKI = ticket("Oslo", "Helsinki")  # 8

# Helsinki–Tampere 1 (R26), Helsinki–Tallinn 2 (R25), Helsinki–Lahti 1 (R22),
# Kuopio–Lahti 3 (R46), Kuopio–Lieksa 1 (R47), Oslo–Örebro 2 (R61), Stockholm–Örebro 2 (R63).


def test_route_points_are_added_during_play() -> None:
    """R9.1: the running score is what the result uses."""
    state = build(hands=["OO", "KKK"], display="PPPPP", deck="WWWW")
    state.apply(claim("R20", "OO"))
    state.apply(claim("R70", "KKK"))
    result = state.result()
    assert [p.route_points for p in result.players] == [2, 4]
    assert result.totals == (2, 4)


def test_ticket_completed_only_by_own_routes() -> None:
    """R9.2: another player's route never completes my ticket."""
    state = build(owners={"R26": 0, "R25": 1}, tickets=[[TAMPERE_TALLINN], []])
    result = state.result()
    assert not result.players[0].tickets[0].completed
    assert result.players[0].tickets[0].value == -3
    state = build(owners={"R26": 0, "R25": 0}, tickets=[[TAMPERE_TALLINN], []])
    assert state.result().players[0].tickets[0].completed


def test_a_route_can_help_several_tickets_and_any_path_counts() -> None:
    owners = {"R26": 0, "R25": 0, "R22": 0, "R46": 0, "R47": 0}
    state = build(owners=owners, scores=[1 + 2 + 1 + 4 + 1, 0], tickets=[[TAMPERE_TALLINN, HELSINKI_LIEKSA], []])
    player = state.result().players[0]
    assert [t.completed for t in player.tickets] == [True, True]
    assert player.ticket_points == 8
    # A longer detour also completes a ticket: Helsinki–Imatra–Kuopio–Lieksa.
    state = build(owners={"R21": 0, "R30": 0, "R47": 0}, tickets=[[HELSINKI_LIEKSA], []])
    assert state.result().players[0].tickets[0].completed


def test_totals_and_negative_scores() -> None:
    """R9.4, R9.5."""
    state = build(
        owners={"R26": 0, "R25": 0},
        scores=[3, 1],
        tickets=[[TAMPERE_TALLINN, OSLO_HELSINKI], [OSLO_STOCKHOLM]],
    )
    result = state.result()
    p0, p1 = result.players
    assert p0.route_points == 3
    assert p0.ticket_points == 3 - 8
    assert p0.globetrotter == 10
    assert p0.total == 3 + 3 - 8 + 10
    assert p1.total == 1 - 4
    assert p1.total < 0
    assert result.winners == (0,)
    assert result.decided_by == "score"


def test_globetrotter_for_the_most_completed() -> None:
    """R9.3."""
    state = build(
        3,
        hands=["", "", ""],
        owners={"R26": 0, "R25": 0, "R22": 0, "R46": 0, "R47": 0, "R61": 1, "R63": 1},
        tickets=[[TAMPERE_TALLINN, HELSINKI_LIEKSA], [OSLO_STOCKHOLM], []],
    )
    assert [p.globetrotter for p in state.result().players] == [10, 0, 0]


def test_globetrotter_shared_on_a_tie() -> None:
    state = build(
        3,
        hands=["", "", ""],
        owners={"R26": 0, "R25": 0, "R61": 1, "R63": 1},
        tickets=[[TAMPERE_TALLINN, HELSINKI_LIEKSA], [OSLO_STOCKHOLM], [OSLO_HELSINKI]],
    )
    assert [p.globetrotter for p in state.result().players] == [10, 10, 0]


def test_nobody_gets_the_globetrotter_at_zero() -> None:
    """§12 item 6."""
    state = build(tickets=[[TAMPERE_TALLINN], [OSLO_STOCKHOLM]])
    assert [p.globetrotter for p in state.result().players] == [0, 0]
    state = build(tickets=[[], []])
    assert [p.globetrotter for p in state.result().players] == [0, 0]


def test_tie_broken_by_completed_tickets() -> None:
    """R9.6 step 2."""
    state = build(owners={"R26": 0, "R25": 0}, scores=[10, 23], tickets=[[TAMPERE_TALLINN], []])
    result = state.result()
    assert result.totals == (23, 23)
    assert result.winners == (0,)
    assert result.decided_by == "tickets"


def test_tie_broken_by_longest_path() -> None:
    """R9.6 step 3."""
    state = build(
        owners={"R26": 0, "R25": 0, "R61": 1, "R63": 1},
        scores=[5, 4],
        tickets=[[TAMPERE_TALLINN], [OSLO_STOCKHOLM]],
    )
    result = state.result()
    assert result.totals == (18, 18)
    assert [p.tickets_completed for p in result.players] == [1, 1]
    assert [p.longest_path for p in result.players] == [3, 4]
    assert result.winners == (1,)
    assert result.decided_by == "longest path"


def test_shared_victory() -> None:
    """R9.6 step 4: same total, same tickets, same longest path."""
    state = build(owners={"R25": 0, "R61": 1}, scores=[7, 7])
    result = state.result()
    assert [p.longest_path for p in result.players] == [2, 2]
    assert result.winners == (0, 1)
    assert result.decided_by == "shared"
    # Three players, two tied on everything: they share; the third is not a winner.
    state = build(
        3,
        hands=["", "", ""],
        owners={"R26": 0, "R25": 0, "R21": 1, "R61": 2},
        scores=[9, 9, 2],
    )
    result = state.result()
    assert [p.longest_path for p in result.players] == [3, 3, 2]
    assert result.winners == (0, 1)
    assert result.decided_by == "shared"


# ----------------------------------------------------------------- longest path


def _path(*codes: str) -> int:
    state = build(owners=dict.fromkeys(codes, 0))
    return state.result().players[0].longest_path


def test_longest_path_may_revisit_a_city_through_a_loop() -> None:
    """R9.7: Stockholm–Örebro–Oslo–Göteborg–Örebro uses all 4 routes (8 trains)."""
    assert _path("R63", "R61", "R20", "R19") == 8


def test_longest_path_never_reuses_a_route() -> None:
    """A star around Helsinki: the two longest arms, 3 + 2."""
    assert _path("R21", "R25", "R22", "R26") == 5
    assert longest_path([(0, 1, 3), (0, 2, 2), (0, 3, 1)]) == 5
    assert longest_path([(0, 1, 5)]) == 5


def test_longest_path_counts_trains_not_routes() -> None:
    assert _path("R40", "R50", "R79", "R27") == 5  # Kirkenes–Rovaniemi 5 beats a chain of three 1s


def test_separate_networks_are_not_added() -> None:
    assert _path("R20", "R40") == 5


def test_longest_path_uses_every_route_of_an_euler_trail() -> None:
    # Helsinki–Tampere, Tampere–Lahti, Lahti–Helsinki, Helsinki–Turku, Turku–Tampere.
    assert _path("R26", "R50", "R22", "R27", "R79") == 5


def test_no_routes_no_path() -> None:
    assert _path() == 0
    assert longest_path([]) == 0


def test_tie_break_looks_only_at_the_tied_players() -> None:
    """The tie-break compares the tied players; a trailing player with more tickets is irrelevant."""
    state = build(
        3,
        hands=["", "", ""],
        owners={"R26": 0, "R25": 0, "R61": 2, "R63": 2, "R22": 2, "R46": 2, "R47": 2},
        scores=[10, 23, -40],
        tickets=[[TAMPERE_TALLINN], [], [OSLO_STOCKHOLM, HELSINKI_LIEKSA]],
    )
    result = state.result()
    assert [p.tickets_completed for p in result.players] == [1, 0, 2]
    assert [p.globetrotter for p in result.players] == [0, 0, 10]
    assert result.totals == (13, 23, -21)
    state.scores = [20, 23, -40]
    result = state.result()
    assert result.totals == (23, 23, -21)
    assert result.winners == (0,)
    assert result.decided_by == "tickets"
