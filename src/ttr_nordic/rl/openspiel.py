"""OpenSpiel game ``ttr_nordic`` (parameters ``players`` 2 or 3, ``reward`` "win" or "margin").

Importing this module registers the game: ``pyspiel.load_game("ttr_nordic", {"players": 3})``.

- Sequential, imperfect information, explicit stochastic chance with *sampled* deals: the first
  node is a chance node choosing one of ``NUM_DEALS`` (4,096) engine seeds uniformly; that seed
  fixes the shuffle of the train cards and tickets, so every later draw (blind cards, face-up
  refills, ticket draws, tunnel reveals) follows from it without further chance nodes. Players
  never see the seed; they see only their engine view.
- Actions are the ids of :mod:`ttr_nordic.rl.actions` (``num_distinct_actions`` = its size).
- Observation tensor: :func:`ttr_nordic.rl.observation.encode_view` of the player's view.
  Information-state tensor: the same vector (the view holds the whole public state; what a
  player once saw of other hands is kept in ``known_cards``). Observation string: the view's
  summary; information-state string: the player's log as the engine describes it to that
  player (hidden draws and ticket choices of others stay hidden), then the observation string.
- Returns at the end: ``win``: +1 for each winner, -1 for the others; ``margin``: own score
  minus the best other score.
- Called from Python, ``legal_actions``, ``is_chance_node``, ``observation_tensor`` and
  ``information_state_tensor`` are answered by the state itself: the values (and errors) of
  OpenSpiel's C++ methods without their calls back into Python. C++ callers get OpenSpiel's own.
- :func:`resample` gives ISMCTS a state consistent with a player's view
  (``PlayerView.determinize``): use ``bot.set_resampler(resample)`` (see ``examples/``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ttr_nordic.engine import CARD_LETTERS, Action, GameState, PlayerView
from ttr_nordic.engine.view import make_step_view

from .actions import action_space
from .observation import SIZE, ObservationEncoder
from .pettingzoo_env import end_rewards

NUM_DEALS = 4096
MAX_GAME_LENGTH = 3000
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
    parameter_specification={"players": 2, "reward": "win"},
)


def _game_info(players: int, reward: str) -> pyspiel.GameInfo:
    bound = 1.0 if reward == "win" else 400.0
    return pyspiel.GameInfo(
        num_distinct_actions=_SPACE.size,
        max_chance_outcomes=NUM_DEALS,
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
        if players not in (2, 3):
            raise ValueError(f"Nordic Countries is for 2 or 3 players, not {players}")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward must be 'win' or 'margin', not {reward!r}")
        self.players = players
        self.reward = reward
        # The encoder of the states' own tensor methods (see TTRNordicState.observation_tensor).
        self.encoder = ObservationEncoder()
        super().__init__(_GAME_TYPE, _game_info(players, reward), {"players": players, "reward": reward})

    def new_initial_state(self) -> TTRNordicState:
        return TTRNordicState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> TTRNordicObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TTRNordicObserver(perfect_recall, params)


class _Position:
    """The engine state, its legal ids and the player to act. OpenSpiel clones a Python state by
    deep-copying its ``__dict__``; this object copies itself with the engine's fast ``clone()``."""

    __slots__ = ("actions", "engine", "game", "history_prefix", "ids", "player")

    def __init__(self, game: TTRNordicGame) -> None:
        self.game = game
        self.engine: GameState | None = None
        # Log lines a resampled state inherits from the view it was sampled from (per player).
        self.history_prefix: list[tuple[str, ...]] = [()] * game.players
        # The legal ids and their engine actions, in the engine's order (no dict: building one
        # per step costs more than finding the chosen id in the list once).
        self.ids: list[int] = []
        self.actions: list[Action] = []
        # OpenSpiel asks for the player to act several times a step (legal_actions alone asks
        # three times), each a call into Python: kept here, set whenever the engine state moves.
        self.player = _CHANCE

    def set_engine(self, engine: GameState) -> None:
        """Take ``engine`` as the position: its legal ids and the player to act (or terminal)."""
        self.engine = engine
        if engine.is_over:
            self.ids, self.actions, self.player = [], [], _TERMINAL
        else:
            self.ids, self.actions = _SPACE.legal_id_list(engine)
            self.player = engine.current

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        other = _Position(self.game)
        other.engine = None if self.engine is None else self.engine.clone()
        other.history_prefix = list(self.history_prefix)
        other.ids = list(self.ids)
        other.actions = list(self.actions)
        other.player = self.player
        return other


class TTRNordicState(pyspiel.State):  # type: ignore[misc]
    """A position: before the deal (chance), a game in progress, or a finished game."""

    def __init__(self, game: TTRNordicGame) -> None:
        super().__init__(game)
        self.position = _Position(game)

    @property
    def engine(self) -> GameState | None:
        """The engine state (None before the deal)."""
        return self.position.engine

    @property
    def _game(self) -> TTRNordicGame:
        return self.position.game

    def current_player(self) -> int:
        return self.position.player

    # OpenSpiel's C++ methods reach a Python game through callbacks: `observation_tensor(p)`
    # makes a new initial state to learn the tensor's size and copies the tensor twice, and
    # `legal_actions()` asks Python for the player to act three times. For callers in Python
    # these methods give the same values directly (docs/rl.md has the figures); C++ callers,
    # and every case these do not handle, get OpenSpiel's own.

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
        return self._tensor(player, pyspiel.State.observation_tensor)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The information-state vector: the observation vector (the view holds what the player knows)."""
        return self._tensor(player, pyspiel.State.information_state_tensor)

    def _tensor(self, player: int | None, openspiels: Any) -> list[float]:
        """The vector of ``player``; OpenSpiel's method ``openspiels`` raises its error for any other."""
        position = self.position
        target = position.player if player is None else player
        if not 0 <= target < position.game.players:
            # A chance or terminal state has no player to default to, a bad player none at all.
            return openspiels(self) if player is None else openspiels(self, player)  # type: ignore[no-any-return]
        engine = position.engine
        if engine is None:
            return _BLANK.tolist()
        # The encoder's list of the vector, copied: tolist() of the array would make 510 floats.
        return position.game.encoder.values(make_step_view(engine, target))

    def _legal_actions(self, player: int) -> list[int]:
        assert player == self.position.player
        return sorted(self.position.ids)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.engine is None
        p = 1.0 / NUM_DEALS
        return [(seed, p) for seed in range(NUM_DEALS)]

    def _apply_action(self, action: int) -> None:
        position = self.position
        engine = position.engine
        if engine is None:
            if not 0 <= action < NUM_DEALS:
                raise ValueError(f"deals are 0 to {NUM_DEALS - 1}, got {action}")
            players = position.game.players
            engine = GameState.new(players=players, seed=action, first_player=action % players)
        else:
            try:
                chosen = position.actions[position.ids.index(action)]
            except ValueError:
                raise ValueError(f"action {action} ({_SPACE.describe(action)}) is not legal now") from None
            # From this decision's legal list, so the engine's checks would only repeat themselves.
            engine.apply_unchecked(chosen)
        position.set_engine(engine)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal:{action}"
        position = self.position
        if position.engine is not None and action in position.ids:
            return str(position.actions[position.ids.index(action)].notation())
        return _SPACE.describe(action)

    def is_terminal(self) -> bool:
        return self.position.player == _TERMINAL

    def returns(self) -> list[float]:
        if self.engine is None or not self.engine.is_over:
            return [0.0] * self._game.players
        return end_rewards(self.engine, self._game.reward)

    def view(self, player: int) -> PlayerView:
        """The engine view of ``player`` (the only thing that player may see)."""
        assert self.engine is not None
        return self.engine.view(player)

    def history_lines(self, player: int) -> tuple[str, ...]:
        """The game log as ``player`` has seen it."""
        if self.engine is None:
            return ()
        return self.position.history_prefix[player] + tuple(entry.text for entry in self.engine.view(player).log)

    def __str__(self) -> str:
        if self.engine is None:
            return "(before the deal)"
        s = self.engine
        display = " ".join(CARD_LETTERS[c] if c >= 0 else "-" for c in s.display)
        scores = " ".join(f"p{p}:{s.scores[p]}/{s.trains[p]}t" for p in range(s.num_players))
        return f"turn {s.turn} {s.phase.name} to:{s.decision.player} display {display} {scores}"


_BLANK = np.zeros(SIZE, np.float32)
_BLANK.flags.writeable = False


def _vector(encoder: ObservationEncoder, engine: GameState | None, player: int) -> NDArray[np.float32]:
    """The observation vector of ``player`` (zeros before the deal); the encoder's own array."""
    if engine is None:
        return _BLANK
    return encoder.update(make_step_view(engine, player))


def resample(state: TTRNordicState, player: int, seed: int | None = None) -> TTRNordicState:
    """A state consistent with what ``player`` knows: everything hidden from them re-dealt."""
    assert state.engine is not None
    rng = random.Random(seed)
    other = TTRNordicState(state._game)
    engine = state.engine.view(player, log=False).determinize(rng)
    lines = state.history_lines(player)
    other.position.set_engine(engine)
    other.position.history_prefix = [lines] * state._game.players
    return other


class TTRNordicObserver:
    """OpenSpiel's Python observer: the view vector, and strings (with the log for info states)."""

    def __init__(self, perfect_recall: bool, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}
        # Views are compared field by field, so states of any trajectory may follow one another.
        self._encoder = ObservationEncoder()

    def set_from(self, state: TTRNordicState, player: int) -> None:
        self.tensor[:] = _vector(self._encoder, state.position.engine, player)

    def string_from(self, state: TTRNordicState, player: int) -> str:
        if state.engine is None:
            return f"p{player} before the deal"
        view = state.engine.view(player, log=False)
        hand = "".join(CARD_LETTERS[k] * n for k, n in enumerate(view.hand))
        tickets = ",".join(f"{t}{'+' if done else ''}" for t, done in view.ticket_status())
        known = ";".join("".join(CARD_LETTERS[k] * n for k, n in enumerate(c)) for c in view.known_cards)
        owners = "".join("." if o < 0 else str(o) for o in view.route_owner)
        display = "".join(CARD_LETTERS[c] if c >= 0 else "-" for c in view.display)
        tunnel = "" if view.tunnel is None else f" tunnel:{view.tunnel.route}/{view.tunnel.revealed}"
        summary = (
            f"p{player} {view.phase.name} to:{view.current} turn:{view.turn} hand:{hand} tickets:{tickets}"
            f" offer:{view.offered_tickets} known:{known} display:{display} deck:{view.deck_count}"
            f" tdeck:{view.ticket_deck_count} trains:{view.trains} scores:{view.scores}"
            f" hands:{view.hand_sizes} nt:{view.ticket_counts} final:{view.final_turns_left}"
            f"{tunnel} routes:{owners}"
        )
        if not self.perfect_recall:
            return summary
        return "\n".join((*state.history_lines(player), summary))


pyspiel.register_game(_GAME_TYPE, TTRNordicGame)
