"""play_game gives each agent what it asks for: views without the log to agents that do not
read it, the engine's LegalSequence at main actions to agents that accept one, and otherwise
full views and lists; the games are the same either way. A listed action is applied as it
is, anything else only through the engine's checks."""

from __future__ import annotations

import copy
from array import array
from collections.abc import Sequence

import pytest

from ttr_nordic.ai import RandomAgent, RouteFocusAgent, play_game
from ttr_nordic.ai.blocking import BlockingRouteFocusAgent
from ttr_nordic.engine import Action, Claim, IllegalActionError, Phase, PlayerView
from ttr_nordic.sim.play import TimedAgent


class Recording:
    """Random choices; records the log lengths and the kinds of legal sequences it got."""

    name = "recording"

    def __init__(self, seed: int) -> None:
        self.inner = RandomAgent(seed=seed)
        self.log_lengths: list[int] = []
        self.kinds: set[tuple[str, str]] = set()

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.log_lengths.append(len(view.log))
        self.kinds.add((view.phase.name, type(legal).__name__))
        return self.inner.choose(view, legal)


class Lean(Recording):
    reads_log = False
    accepts_legal_sequence = True


def test_each_agent_gets_what_it_asks_for() -> None:
    full, lean = Recording(seed=1), Lean(seed=2)
    game = play_game([full, lean], seed=4)
    assert game.is_over
    assert max(full.log_lengths) > 50 and set(lean.log_lengths) == {0}
    assert {kind for _, kind in full.kinds} == {"list"}
    assert ("CHOOSE_ACTION", "LegalSequence") in lean.kinds
    assert {kind for phase, kind in lean.kinds if phase != Phase.CHOOSE_ACTION.name} == {"list"}


def test_the_games_do_not_depend_on_what_is_built() -> None:
    """Random agents index into ``legal``: a LegalSequence gives them the same actions."""
    for seed in range(3):
        plain = play_game([Recording(seed=seed), Recording(seed=seed + 10)], seed=seed)
        lean = play_game([Lean(seed=seed), Lean(seed=seed + 10)], seed=seed)
        assert lean.history == plain.history


def test_route_focus_asks_for_less_and_the_blocking_one_keeps_the_log() -> None:
    assert RouteFocusAgent.reads_log is False and RouteFocusAgent.accepts_legal_sequence is True
    assert BlockingRouteFocusAgent.reads_log is True


def test_the_timed_wrapper_passes_the_attributes_on() -> None:
    timed = TimedAgent(RouteFocusAgent(seed=1), array("d"))
    assert timed.reads_log is False and timed.accepts_legal_sequence is True
    plain = TimedAgent(Recording(seed=1), array("d"))
    assert plain.reads_log is True and plain.accepts_legal_sequence is False
    lean = Lean(seed=3)
    play_game([TimedAgent(lean, array("d")), RandomAgent(seed=4)], seed=5)
    assert set(lean.log_lengths) == {0} and ("CHOOSE_ACTION", "LegalSequence") in lean.kinds


class _Cheating:
    """Random choices, except that it claims a route its hand cannot pay for once it can."""

    name = "cheating"
    accepts_legal_sequence = True

    def __init__(self, seed: int) -> None:
        self.inner = RandomAgent(seed=seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if view.phase is Phase.CHOOSE_ACTION:
            for rid, owner in enumerate(view.route_owner):
                route = view.board.routes[rid]
                if owner == -1 and route.color >= 0 and view.hand[route.color] < route.length:
                    payment = [0] * 9
                    payment[route.color] = route.length
                    return Claim(rid, tuple(payment))  # type: ignore[arg-type]
        return self.inner.choose(view, legal)


class _Copying:
    """Random choices, returned as equal copies of the listed actions (not the same objects)."""

    name = "copying"

    def __init__(self, seed: int) -> None:
        self.inner = RandomAgent(seed=seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return copy.deepcopy(self.inner.choose(view, legal))


def test_an_unlisted_action_goes_through_the_engine_checks() -> None:
    with pytest.raises(IllegalActionError):
        play_game([_Cheating(seed=1), RandomAgent(seed=2)], seed=3)


def test_equal_copies_of_listed_actions_play_the_same_game() -> None:
    original = play_game([RandomAgent(seed=4), RandomAgent(seed=5)], seed=6)
    copied = play_game([_Copying(seed=4), _Copying(seed=5)], seed=6)
    assert copied.record() == original.record()
