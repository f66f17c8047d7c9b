"""The agent interface and the game loop that drives agents.

An agent receives its player's :class:`~ttr_nordic.engine.PlayerView` (never
the full state) and the legal actions of its decision, and returns one of
them. The legal actions depend only on what the view shows (own hand, public
board), so passing them leaks nothing.

>>> from ttr_nordic.ai import RandomAgent, play_game
>>> game = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], seed=9)
>>> game.is_over
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import is_
from typing import Protocol, runtime_checkable

from ..engine import Action, Claim, GameState, PlayerView
from ..engine.legal import LegalSequence
from ..engine.variant import Variant


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and a ``choose(view, legal)`` method returning one of ``legal``.

    Two optional class attributes let :func:`play_game` do less for an agent: ``reads_log =
    False`` (it never reads ``view.log``: its views come with an empty log, which cost less to
    build) and ``accepts_legal_sequence = True`` (it reads ``legal`` only as a ``Sequence``:
    at a main action it gets the engine's
    :class:`~ttr_nordic.engine.legal.LegalSequence`, whose ferry claims are worked out only
    when read). Without them an agent gets the full log and a list.
    """

    name: str

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action: ...


class RandomAgent:
    """Uniform over the legal actions; deterministic given its seed.

    >>> import random
    >>> from ttr_nordic.engine import GameState
    >>> game = GameState.new(seed=1)
    >>> action = RandomAgent(seed=0).choose(game.view(game.decision.player), game.legal_action_list())
    >>> game.is_legal(action)
    True
    """

    name = "random"
    reads_log = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


def is_listed(action: object, legal: Sequence[Action]) -> bool:
    """Whether ``action`` is one of the very action objects of ``legal`` (found by identity,
    without the actions' equality, which is slow; in a LegalSequence among its route's claims
    or its other actions only). An equal copy is not listed, though it is as legal."""
    if type(legal) is LegalSequence:
        if type(action) is Claim:
            route = action.route
            return type(route) is int and any(map(is_, legal.claims_of(route), repeat(action)))
        return any(map(is_, legal.others, repeat(action)))
    return any(map(is_, legal, repeat(action)))


def legal_listing(state: GameState, agent: object) -> Callable[[], Sequence[Action]]:
    """How ``agent`` (an agent or an agent class) gets ``state``'s legal actions: the lazy
    :meth:`~GameState.legal_sequence` if it sets ``accepts_legal_sequence = True``, else the list.

    >>> state = GameState.new(players=2, seed=1)
    >>> list(legal_listing(state, RandomAgent)()) == state.legal_action_list()
    True
    """
    if getattr(agent, "accepts_legal_sequence", False) is True:
        return state.legal_sequence
    return state.legal_action_list


def play_game(
    agents: Sequence[Agent],
    seed: int = 0,
    first_player: int | None = None,
    on_action: Callable[[GameState, int, Action], None] | None = None,
    max_actions: int = 10_000,
    variant: Variant | None = None,
) -> GameState:
    """Play one game between ``agents`` (one per seat) and return the finished state.

    Each agent's choice is checked by the engine: one of the legal actions the engine listed
    for the decision (that very object, see :func:`is_listed`) is applied as it is, anything
    else only through the engine's checks
    (:meth:`~GameState.apply`, which refuses an illegal action). ``on_action(state, player,
    action)`` is called before each action is applied. Agents with ``reads_log = False`` get
    views without the log (see :class:`Agent`). ``variant`` sets the rules (default official).
    """
    state = GameState.new(players=len(agents), seed=seed, first_player=first_player, variant=variant)
    logs = [getattr(agent, "reads_log", True) is not False for agent in agents]
    listings = [legal_listing(state, agent) for agent in agents]
    view = state.view
    apply, apply_listed = state.apply, state.apply_unchecked
    for _ in range(max_actions):
        if state.is_over:
            return state
        player = state.current  # the decision's player (the game is not over)
        legal = listings[player]()
        action = agents[player].choose(view(player, logs[player]), legal)
        if on_action is not None:
            on_action(state, player, action)
        # A listed action is legal (the listing is of this state, this player's decision):
        # checking it again would repeat the listing's work.
        if is_listed(action, legal):
            apply_listed(action)
        else:
            apply(action, player)
    raise RuntimeError(f"game did not end within {max_actions} actions")
