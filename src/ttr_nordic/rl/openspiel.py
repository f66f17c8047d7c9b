"""OpenSpiel game ``ttr_nordic`` (parameters ``players`` 2 or 3, ``reward`` "win" or "margin").

Importing this module registers the game: ``pyspiel.load_game("ttr_nordic", {"players": 3})``.

- Sequential, imperfect information, explicit stochastic chance, modelled as OpenSpiel's card
  games do: a chance node for the first player, then one for every card and ticket dealt, and
  one for every later draw: blind cards, face-up refills, ticket draws, tunnel reveals (after a
  player's action, before it takes effect). ``chance_outcomes()`` lists what the pile can give
  with its real probability: card kinds (ids 0-8, ``P W U Y O K R G L``) weighted by their
  number in the draw pile (the discard pile once it is reshuffled), tickets (ids 0-45)
  uniformly. The engine applies the chosen items through its draw hook
  (:data:`ttr_nordic.engine.transitions.DrawHook`): the rules stay the engine's.
- Where the compiled core is built (parameter ``engine``: ``auto``, ``core`` or ``python``)
  the states are :class:`ttr_nordic.rl.openspiel_core.CoreState`: the same game node for node,
  stepped by the core, this module's Python position following only when read.
- Actions are the ids of :mod:`ttr_nordic.rl.actions` (``num_distinct_actions`` = its size).
- Observations honour ``IIGObservationType`` (:mod:`ttr_nordic.rl.openspiel_observer`): the
  default observation tensor is :func:`ttr_nordic.rl.observation.encode_view` of the player's
  view; the information-state tensor adds the history pieces; public-only observers show no
  hand and no ticket of anyone. Information-state string: the player's log as the engine
  describes it to that player (others' hidden draws and ticket choices stay hidden), then the
  observation string.
- Returns at the end: ``win``: +1 for each winner, -1 for the others; ``margin``: own score
  minus the best other score.
- Games and states survive ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state``
  and ``pickle``.
- Called from Python, ``legal_actions``, ``is_chance_node``, ``observation_tensor`` and
  ``information_state_tensor`` are answered by the state itself: the values (and errors) of
  OpenSpiel's C++ methods without their calls back into Python. C++ callers get OpenSpiel's own.
- :func:`resample` gives ISMCTS a state consistent with a player's view
  (``PlayerView.determinize``): use ``bot.set_resampler(resample)`` (see ``examples/``).

>>> import random, pyspiel, ttr_nordic.rl.openspiel as ttr
>>> state = pyspiel.load_game("ttr_nordic").new_initial_state()
>>> state.chance_outcomes()
[(0, 0.5), (1, 0.5)]
>>> ttr.play_chance(state, random.Random(1))  # the first player and the deal
>>> state.is_chance_node(), len(state.legal_actions()) > 0
(False, True)
"""

from __future__ import annotations

import random
from bisect import bisect
from collections import Counter
from collections.abc import Callable
from itertools import accumulate
from typing import Any

import pyspiel

from ttr_nordic.engine import CARD_LETTERS, Action, GameState, PlayerView
from ttr_nordic.engine.actions import Claim, DrawFaceUp, KeepTickets, PayTunnelExtra
from ttr_nordic.engine.core import GameConfig, LogEntry
from ttr_nordic.engine.transitions import CARD_PILE, DrawHook
from ttr_nordic.engine.view import make_step_view

from .actions import action_space
from .core_game import use_core
from .observation import NUM_KINDS, NUM_TICKETS, SIZE, ObservationEncoder
from .openspiel_observer import INFO_STATE_SIZE, History, TTRNordicObserver
from .pettingzoo_env import end_rewards

ENGINES = ("auto", "core", "python")
"""The ``engine`` parameter: the compiled core where it is built (``auto``), the core, or the Python engine."""
MAX_GAME_LENGTH = 6000
"""Player decisions and chance nodes together (random play takes about 800 in a 3-player game)."""
FIRST_PLAYER = "first"
"""The kind of the first chance node (outcomes: the seats)."""
_SPACE = action_space()
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

_GAME_TYPE = pyspiel.GameType(
    short_name="ttr_nordic",
    long_name="Ticket to Ride: Nordic Countries",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=3,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "reward": "win", "engine": "auto"},
)


def _game_info(players: int, reward: str) -> pyspiel.GameInfo:
    bound = 1.0 if reward == "win" else 400.0
    return pyspiel.GameInfo(
        num_distinct_actions=_SPACE.size,
        max_chance_outcomes=max(NUM_TICKETS, NUM_KINDS),
        num_players=players,
        min_utility=-bound,
        max_utility=bound,
        utility_sum=None,
        max_game_length=MAX_GAME_LENGTH,
    )


class TTRNordicGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game object."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 2))
        reward = str(params.get("reward", "win"))
        engine = str(params.get("engine", "auto"))
        if players not in (2, 3):
            raise ValueError(f"Nordic Countries is for 2 or 3 players, not {players}")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward must be 'win' or 'margin', not {reward!r}")
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        self.players = players
        self.reward = reward
        self.engine_choice = engine
        # The states' class: on the compiled core where it is used (the other environments' rule).
        self.state_class: type[TTRNordicState] = TTRNordicState
        if use_core(None if engine == "auto" else engine == "core"):
            from .openspiel_core import CoreState

            self.state_class = CoreState
        named = {"players": players, "reward": reward} | ({} if engine == "auto" else {"engine": engine})
        super().__init__(_GAME_TYPE, _game_info(players, reward), named)

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        """Pickled as its game string: ``pyspiel.load_game`` builds it again (with its attributes)."""
        return (pyspiel.load_game, (str(self),))

    def new_initial_state(self) -> TTRNordicState:
        return self.state_class(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> TTRNordicObserver:
        return TTRNordicObserver(iig_obs_type, params)


class _Stop(Exception):
    """Raised by a draw hook at the first draw whose item is not chosen yet."""


_SCRATCH = random.Random(0)

# The states' own tensor methods share one encoder (it follows any view with any other).
_ENCODER = ObservationEncoder()


class _Position:
    """The engine state, the chance node in progress, the legal ids and the player to act.

    OpenSpiel clones a Python state by deep-copying its ``__dict__`` and serializes it by
    pickling it: this object copies itself with the engine's fast ``clone()`` and pickles only
    plain data (the engine state, the pending action, the chosen items)."""

    __slots__ = (
        "actions",
        "chance",
        "chosen",
        "engine",
        "first",
        "history",
        "history_prefix",
        "ids",
        "pending",
        "player",
        "players",
        "public_prefix",
        "reward",
    )

    def __init__(self, players: int, reward: str) -> None:
        self.players = players
        self.reward = reward
        self.engine: GameState | None = None
        self.first = -1  # the first player, once chance has chosen it
        # The player action whose draws chance is choosing (None: the deal, or no chance node).
        self.pending: Action | None = None
        self.chosen: list[int] = []  # the items chosen so far for the deal or the pending action
        # The next draw's pile and outcomes while chance decides, else None.
        self.chance: tuple[str, list[tuple[int, float]]] | None = (
            FIRST_PLAYER,
            [(seat, 1.0 / players) for seat in range(players)],
        )
        self.history = History(players)
        # Log lines a resampled state inherits from the view it was sampled from.
        self.history_prefix: list[tuple[str, ...]] = [()] * players
        self.public_prefix: tuple[str, ...] = ()
        # The legal ids and their engine actions, in the engine's order.
        self.ids: list[int] = []
        self.actions: list[Action] = []
        # OpenSpiel asks for the player to act several times a step: kept here.
        self.player = _CHANCE

    def set_engine(self, engine: GameState) -> None:
        """Take ``engine`` as the position (no chance node pending): legal ids and player to act."""
        old = self.engine
        start = 0 if old is None else len(old.log)
        self.history.record(engine.log[start:], engine.turn)
        self.engine = engine
        self.pending, self.chosen, self.chance = None, [], None
        if engine.is_over:
            self.ids, self.actions, self.player = [], [], _TERMINAL
        else:
            self.ids, self.actions = _SPACE.legal_id_list(engine)
            self.player = engine.current

    def settle(self) -> None:
        """Run the deal or the pending action with the items chosen so far: either it needs one
        more draw (a chance node, with that draw's outcomes) or it is done (the new position)."""
        chosen = self.chosen
        used = 0

        def hook(pile: str, items: list[int]) -> int:
            nonlocal used
            if used < len(chosen):
                used += 1
                return items.index(chosen[used - 1])
            self.chance = (pile, _outcomes(pile, items))
            raise _Stop

        try:
            engine = self._run(hook)
        except _Stop:
            self.player = _CHANCE
            return
        engine.draw_hook = None
        self.set_engine(engine)

    def apply(self, action: int) -> None:
        """Apply an OpenSpiel action: a chance outcome or a player's legal id (ValueError, and no
        change, for any other)."""
        chance = self.chance
        if chance is not None:
            kind, outcomes = chance
            if all(action != outcome for outcome, _ in outcomes):
                raise ValueError(f"{action} is not a possible outcome of this {kind} chance node")
            if kind == FIRST_PLAYER:
                self.first = action
            else:
                self.chosen.append(action)
            self.chance = None
            self.settle()
            return
        try:
            chosen = self.actions[self.ids.index(action)]
        except ValueError:
            raise ValueError(f"action {action} ({_SPACE.describe(action)}) is not legal now") from None
        self.pending = chosen
        self.settle()

    def _run(self, hook: DrawHook) -> GameState:
        """The deal, or the pending action on a copy of the engine, with ``hook`` choosing the draws."""
        engine = self.engine
        if engine is None:
            return GameState.from_config(GameConfig(self.players, 0, self.first), draw_hook=hook)
        assert self.pending is not None
        # The copy shares a scratch generator: with the hook choosing every draw, no outcome
        # depends on it (the engine shuffles only to reshuffle the discard pile).
        engine = engine.clone(rng=_SCRATCH)
        engine.draw_hook = hook
        engine.apply_unchecked(self.pending)
        return engine

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        other = _Position.__new__(_Position)
        other.players = self.players
        other.reward = self.reward
        other.engine = None if self.engine is None else self.engine.clone()
        other.first = self.first
        other.pending = self.pending
        other.chosen = list(self.chosen)
        other.chance = self.chance
        other.history = self.history.copy()
        other.history_prefix = list(self.history_prefix)
        other.public_prefix = self.public_prefix
        other.ids = list(self.ids)
        other.actions = list(self.actions)
        other.player = self.player
        return other

    def __getstate__(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "reward": self.reward,
            "engine": self.engine,
            "first": self.first,
            "pending": self.pending,
            "chosen": self.chosen,
            "chance": self.chance,
            "history": (self.history.public, self.history.blind, self.history.turns),
            "history_prefix": self.history_prefix,
            "public_prefix": self.public_prefix,
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.players, self.reward = data["players"], data["reward"]
        self.engine, self.first = data["engine"], data["first"]
        self.pending, self.chosen, self.chance = data["pending"], data["chosen"], data["chance"]
        self.history = History(self.players)
        self.history.public, self.history.blind, self.history.turns = data["history"]
        self.history_prefix, self.public_prefix = data["history_prefix"], data["public_prefix"]
        engine = self.engine
        if self.chance is not None or engine is None:
            self.ids, self.actions, self.player = [], [], _CHANCE
        elif engine.is_over:
            self.ids, self.actions, self.player = [], [], _TERMINAL
        else:
            self.ids, self.actions = _SPACE.legal_id_list(engine)
            self.player = engine.current


def position_from_data(data: dict[str, Any]) -> _Position:
    """A position from its pickled data (``_Position.__getstate__``)."""
    position = _Position.__new__(_Position)
    position.__setstate__(data)
    return position


def _outcomes(pile: str, items: list[int]) -> list[tuple[int, float]]:
    """The chance outcomes of a draw from ``items``: card kinds by count, tickets uniformly."""
    total = len(items)
    if pile == CARD_PILE:
        return [(kind, count / total) for kind, count in sorted(Counter(items).items())]
    return [(ticket, 1.0 / total) for ticket in sorted(items)]


class TTRNordicState(pyspiel.State):  # type: ignore[misc]
    """A position: a chance node (the deal or a draw), a decision, or a finished game."""

    def __init__(self, game: TTRNordicGame) -> None:
        super().__init__(game)
        self.position = _Position(game.players, game.reward)

    @property
    def engine(self) -> GameState | None:
        """The engine state (None before the deal; at a draw's chance node, the state before the action)."""
        return self.position.engine

    def current_player(self) -> int:
        return self.position.player

    # OpenSpiel's C++ methods reach a Python game through callbacks: `observation_tensor(p)`
    # makes a new initial state to learn the tensor's size and copies the tensor twice, and
    # `legal_actions()` asks Python for the player to act three times. For callers in Python
    # these methods give the same values directly; C++ callers, and every case these do not
    # handle, get OpenSpiel's own.

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the player to act), ascending."""
        position = self.position
        if position.player >= 0 and (player is None or player == position.player):
            return sorted(position.ids)
        if player is None:
            return pyspiel.State.legal_actions(self)  # type: ignore[no-any-return]  # chance and terminal
        return pyspiel.State.legal_actions(self, player)  # type: ignore[no-any-return]

    def is_chance_node(self) -> bool:
        return self.position.player == _CHANCE

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation vector (default: the player to act) as a list."""
        return self._tensor(player, pyspiel.State.observation_tensor, False)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The observation vector followed by the public and private history pieces."""
        return self._tensor(player, pyspiel.State.information_state_tensor, True)

    def _tensor(self, player: int | None, openspiels: Any, recall: bool) -> list[float]:
        """The vector of ``player``; OpenSpiel's method ``openspiels`` raises its error for any other."""
        position = self.position
        target = position.player if player is None else player
        if not 0 <= target < position.players:
            # A chance or terminal state has no player to default to, a bad player none at all.
            return openspiels(self) if player is None else openspiels(self, player)  # type: ignore[no-any-return]
        engine = position.engine
        if engine is None:
            return [0.0] * (INFO_STATE_SIZE if recall else SIZE)
        # The encoder's list of the vector, copied: tolist() of the array would make 510 floats.
        values = _ENCODER.values(make_step_view(engine, target))
        if recall:
            values += position.history.public_values(target)
            values += position.history.private_values(target, tuple(engine.returned_tickets[target]))
        return values

    def _legal_actions(self, player: int) -> list[int]:
        assert player == self.position.player
        return sorted(self.position.ids)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        chance = self.position.chance
        assert chance is not None, "not a chance node"
        return list(chance[1])

    def chance_kind(self) -> str:
        """What the chance node decides: ``"first"`` (the first player), ``"card"`` or ``"ticket"``."""
        chance = self.position.chance
        assert chance is not None, "not a chance node"
        return chance[0]

    def _apply_action(self, action: int) -> None:
        self.position.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        position = self.position
        if player == pyspiel.PlayerId.CHANCE:
            kind = position.chance[0] if position.chance is not None else "chance"
            if kind == FIRST_PLAYER:
                return f"First:p{action}"
            if kind == CARD_PILE and 0 <= action < len(CARD_LETTERS):
                return f"Card:{CARD_LETTERS[action]}"
            return f"{kind.capitalize()}:{action}"
        if position.engine is not None and action in position.ids:
            return str(position.actions[position.ids.index(action)].notation())
        return _SPACE.describe(action)

    def is_terminal(self) -> bool:
        return self.position.player == _TERMINAL

    def returns(self) -> list[float]:
        position = self.position
        if position.player != _TERMINAL or position.engine is None:
            return [0.0] * position.players
        return end_rewards(position.engine, position.reward)

    def view(self, player: int) -> PlayerView:
        """The engine view of ``player`` (the only thing that player may see)."""
        assert self.engine is not None
        return self.engine.view(player)

    def history_lines(self, player: int) -> tuple[str, ...]:
        """The game log as ``player`` has seen it."""
        if self.engine is None:
            return ()
        return self.position.history_prefix[player] + tuple(entry.text for entry in self.engine.view(player).log)

    def public_history_lines(self) -> tuple[str, ...]:
        """The game log as everyone has seen it: who did what, without hidden cards and tickets."""
        if self.engine is None:
            return ()
        return self.position.public_prefix + tuple(_public_line(entry) for entry in self.engine.log)

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str]]:
        """Pickled as OpenSpiel serializes a game and state (which keeps the action history)."""
        return (_unpickle_state, (pyspiel.serialize_game_and_state(self.get_game(), self),))

    def __str__(self) -> str:
        position = self.position
        if position.engine is None:
            return "(the deal)"
        s = position.engine
        display = " ".join(CARD_LETTERS[c] if c >= 0 else "-" for c in s.display)
        scores = " ".join(f"p{p}:{s.scores[p]}/{s.trains[p]}t" for p in range(s.num_players))
        drawing = "" if position.chance is None else f" drawing:{position.chance[0]}"
        return f"turn {s.turn} {s.phase.name} to:{s.decision.player} display {display} {scores}{drawing}"


def _unpickle_state(text: str) -> TTRNordicState:
    state: TTRNordicState = pyspiel.deserialize_game_and_state(text)[1]
    return state


def _public_line(entry: LogEntry) -> str:
    """A log entry as every player saw it."""
    action = entry.action
    line = f"p{entry.player} {type(action).__name__}"
    if isinstance(action, DrawFaceUp) and entry.card >= 0:
        line += f" {CARD_LETTERS[entry.card]}"
    elif isinstance(action, Claim | PayTunnelExtra):
        line += f" {action.notation()}"
    elif isinstance(action, KeepTickets):
        line += f" {len(action.tickets)}"
    if entry.revealed:
        line += " revealed " + "".join(CARD_LETTERS[c] for c in entry.revealed)
    return line


def play_chance(state: TTRNordicState, rng: random.Random) -> None:
    """Apply chance outcomes, sampled with their probabilities, until a player is to act (or the end)."""
    uniform = rng.random
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        # rng.choices(ids, weights)[0] without its lists and checks: the same draw from rng.
        cumulative = list(accumulate([p for _, p in outcomes]))
        state.apply_action(outcomes[bisect(cumulative, uniform() * (cumulative[-1] + 0.0), 0, len(outcomes) - 1)][0])


def resample(state: TTRNordicState, player: int, seed: int | None = None) -> TTRNordicState:
    """A state consistent with what ``player`` knows: everything hidden from them re-dealt.

    Used at ``player``'s decisions (ISMCTS); the other players' private history is left out."""
    engine = state.engine
    assert engine is not None and not state.is_chance_node()
    position = state.position
    rng = random.Random(seed)
    other: TTRNordicState = state.get_game().new_initial_state()
    sample = engine.view(player, log=False).determinize(rng)
    target = _Position(position.players, position.reward)
    target.first = sample.first_player
    target.history = position.history.copy(keep_private_of=player)
    target.history_prefix = [state.history_lines(player)] * position.players
    target.public_prefix = state.public_history_lines()
    target.engine = sample  # before set_engine: its (empty) log adds nothing to the history
    target.set_engine(sample)
    other.position = target  # a state on the core takes the sample into the core
    return other


pyspiel.register_game(_GAME_TYPE, TTRNordicGame)

__all__ = ["MAX_GAME_LENGTH", "TTRNordicGame", "TTRNordicObserver", "TTRNordicState", "play_chance", "resample"]
