"""Gymnasium environment: one seat for the learner, the others played by opponents.

``gymnasium.make("TTRNordic-v0", opponents=["route_focus"], seat=0, reward="margin")``. The
number of players is ``1 + len(opponents)``. Actions are the ids of :mod:`ttr_nordic.rl.actions`.

- Observations: by default the PettingZoo form ``{"observation", "action_mask"}``; with
  ``flat=True`` the observation vector alone (a ``Box``), the mask then coming from
  :meth:`TTRNordicGym.action_masks` (what sb3-contrib's ``MaskablePPO`` calls). ``action_masks()``
  answers in both forms.
- ``info`` is small by default: ``{"seat": s}`` (Stable-Baselines3 deep-copies it every step).
  ``info_view=True`` adds ``info["view"]``, the learner's ``StepView``
  (:mod:`ttr_nordic.engine.view`); ``env.unwrapped.view()`` gives the full ``PlayerView`` (log
  included) at any time.
- Opponents: each is a registry name (:func:`ttr_nordic.ai.registry.make_agent`, seeded from the
  environment's seed), an agent object (anything with ``choose(view, legal)``), or a plain
  callable ``policy(view, legal) -> action``: ``view`` is that opponent's ``PlayerView``, ``legal``
  the list of its legal engine actions, and it returns one of them. To put a learned
  ``(obs, mask) -> action_id`` policy in a seat, wrap it with :class:`IdPolicy`.
  Opponents are served as :func:`ttr_nordic.ai.base.play_game` serves agents: views without the
  log to agents that set ``reads_log = False``, the engine's lazy legal sequence to agents that
  set ``accepts_legal_sequence = True``.
- ``seat=None`` picks the learner's seat at random each episode. The episode ends with the game;
  the reward (margin or win, as in the AEC environment) comes at the end.
- An id outside the action space raises ``ValueError``. A legal-looking id that the mask forbids
  ends the episode with reward -1 and ``info["illegal_action"]`` (the game is left as it was;
  PettingZoo's classic games do the same), or raises with ``on_illegal="raise"``.
- The game runs in the compiled core where it is built and every opponent is one the core plays
  (``"random"``, ``"route_focus"`` and their levels by name, a ``RandomAgent``, an
  :class:`IdPolicy`): ids, observations and masks come from the core's state
  (:mod:`ttr_nordic.rl.core_game`). Other opponents (agents and callables that read views) play
  on the Python engine; so does everything with ``compiled=False``. Both give the same
  observations, masks and rewards. ``env.state`` (and ``info["view"]``, ``view()``) is the
  engine's state either way: on the core a replay made on request, to be read only.

>>> import gymnasium, numpy as np, ttr_nordic.rl
>>> env = gymnasium.make("TTRNordic-v0", opponents=["random"], flat=True)
>>> obs, info = env.reset(seed=1)
>>> obs.shape, sorted(info)
((510,), ['seat'])
>>> obs, reward, done, truncated, info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import is_
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from numpy.typing import NDArray

from ttr_nordic import fast
from ttr_nordic.ai.base import Agent, RandomAgent, legal_listing
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.registry import make_agent
from ttr_nordic.engine import Action, GameState, Phase, PlayerView
from ttr_nordic.engine.view import make_step_view

from .actions import action_space
from .core_game import CoreEnvGame, use_core
from .observation import SIZE, ObservationEncoder
from .pettingzoo_env import REWARDS, end_rewards

_GAME_OVER = Phase.GAME_OVER


class EpisodeOver(ResetNeeded, RuntimeError):
    """``step`` before ``reset`` or after the episode's end: a ``RuntimeError``, and Gymnasium's
    ``ResetNeeded``, which its ``OrderEnforcing`` wrapper raised before the first ``reset`` (the
    environment is registered without that wrapper and makes the check itself).

    >>> import gymnasium, ttr_nordic.rl
    >>> env = gymnasium.make("TTRNordic-v0", opponents=["random"])
    >>> try:
    ...     env.step(0)
    ... except ResetNeeded as refused:
    ...     print(refused)
    call reset() first: the episode is over
    """


Policy = Callable[[PlayerView, Sequence[Action]], Action]
"""A plain opponent policy: its own view and its legal engine actions in, one of them out."""


class IdPolicy:
    """An opponent seat played by ``policy(obs, mask) -> action_id`` (a learned policy).

    ``obs`` is that seat's observation vector (float32, as the learner's), ``mask`` the int8 mask
    of its legal ids; the policy returns a legal id. An illegal id raises ``ValueError``.

    >>> import gymnasium, numpy as np, ttr_nordic.rl
    >>> first_legal = IdPolicy(lambda obs, mask: int(np.flatnonzero(mask)[0]))
    >>> env = gymnasium.make("TTRNordic-v0", opponents=[first_legal])
    >>> obs, info = env.reset(seed=2)
    """

    name = "id_policy"

    def __init__(self, policy: Callable[[NDArray[np.float32], NDArray[np.int8]], int]) -> None:
        self.policy = policy
        self.encoder = ObservationEncoder()


class _CallableAgent:
    """A plain callable policy served as an agent (views with the log, legal actions as a list)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = getattr(policy, "__name__", "policy")

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return self.policy(view, legal)


Opponent = str | Agent | IdPolicy | Policy
"""A registry name, an agent, an :class:`IdPolicy`, or a plain :data:`Policy`."""


class TTRNordicGym(gymnasium.Env[Any, Any]):
    """One seat of a Nordic Countries game against opponents (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        opponents: Sequence[Opponent] = ("route_focus",),
        seat: int | None = 0,
        reward: str = "margin",
        render_mode: str | None = None,
        on_illegal: str = "end",
        flat: bool = False,
        info_view: bool = False,
        compiled: bool | None = None,
    ) -> None:
        """``compiled``: the core (True), the Python engine (False), or the core where built (None);
        the core plays an episode only where it plays every opponent (see the module)."""
        if on_illegal not in ("end", "raise"):
            raise ValueError(f"on_illegal must be 'end' or 'raise', not {on_illegal!r}")
        self.on_illegal = on_illegal
        if len(opponents) not in (1, 2):
            raise ValueError(f"give 1 or 2 opponents, not {len(opponents)}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        players = 1 + len(opponents)
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be between 0 and {players - 1}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        for opponent in opponents:
            if isinstance(opponent, str):
                make_agent(opponent)  # fails early with the list of names
            elif not (isinstance(opponent, IdPolicy) or hasattr(opponent, "choose") or callable(opponent)):
                raise TypeError(f"an opponent is a registry name, an agent or a callable, not {opponent!r}")
        self.opponent_specs = list(opponents)
        self.flat = flat
        self.info_view = info_view
        self.players = players
        self.fixed_seat = seat
        self.reward_kind = reward
        self.render_mode = render_mode
        self.space = action_space()
        vector = spaces.Box(0.0, 1.0e3, (SIZE,), np.float32)
        self.observation_space: spaces.Space[Any] = (
            vector
            if flat
            else spaces.Dict({"observation": vector, "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8)})
        )
        self.action_space: spaces.Discrete = spaces.Discrete(self.space.size)
        self.compiled = use_core(compiled)
        self._win = reward == "win"
        self._ids = self.space.size
        self._state: GameState | None = None
        self._core: CoreEnvGame | None = None
        # The opponents of a core episode: a RandomAgent's generator, Route Focus in the core, an IdPolicy.
        self._core_opponents: dict[int, Any] = {}
        self._core_seats: tuple[object, ...] = ()
        self.seat = 0
        self._opponents: dict[int, Agent | IdPolicy] = {}
        # Per opponent seat: whether its views carry the log, and how it gets the legal actions.
        self._opponent_logs: dict[int, bool] = {}
        self._opponent_listings: dict[int, Callable[[], Sequence[Action]]] = {}
        # The legal ids of the learner's decision and their engine actions, in the engine's order.
        self._legal_ids: list[int] = []
        self._legal_actions: list[Action] = []
        self._encoder = ObservationEncoder()
        self._seeds = random.Random()

    @property
    def state(self) -> GameState | None:
        """The game as an engine state (None before ``reset`` and after an illegal action); on the
        core, a replay: read only."""
        core = self._core
        return self._state if core is None else core.engine_state()

    @property
    def actions_played(self) -> int:
        """The actions of this episode so far, the learner's and the opponents'."""
        core = self._core
        if core is not None:
            return len(core.codes)
        return 0 if self._state is None else len(self._state.history)

    def _info(self) -> dict[str, Any]:
        """A step's info on the core."""
        core, seat = self._core, self.seat
        if self.info_view and core is not None:
            return {"view": make_step_view(core.engine_state(), seat), "seat": seat}
        return {"seat": seat}

    def _obs(self) -> tuple[Any, dict[str, Any]]:
        """The learner's observation and the step's info."""
        core = self._core
        if core is not None:
            return core.game.observation(core.space, self.seat, self.flat), self._info()
        state = self._state
        assert state is not None
        # The legal ids and their actions in the engine's order (empty once the game is over).
        self._legal_ids, self._legal_actions = self.space.legal_id_list(state)
        view = make_step_view(state, self.seat)
        info = {"view": view, "seat": self.seat} if self.info_view else {"seat": self.seat}
        vector = self._encoder.encode(view)
        if self.flat:
            return vector, info
        return {"observation": vector, "action_mask": self.space.mask(self._legal_ids)}, info

    def action_masks(self) -> NDArray[np.int8]:
        """The int8 mask of the learner's legal ids now (sb3-contrib's ``MaskablePPO`` convention)."""
        core = self._core
        if core is not None:
            return core.mask()
        if self._state is None:
            return np.zeros(self.space.size, dtype=np.int8)
        return self.space.mask(self._legal_ids)

    def _play_id_policy(self, agent: IdPolicy, player: int) -> None:
        state = self._state
        assert state is not None
        ids, actions = self.space.legal_id_list(state)
        choice = int(agent.policy(agent.encoder.encode(make_step_view(state, player)), self.space.mask(ids)))
        try:
            chosen = actions[ids.index(choice)]
        except ValueError:
            raise ValueError(f"the policy of seat {player} chose {choice}, which is not legal now") from None
        state.apply_unchecked(chosen)

    def _play_core_opponents(self, core: CoreEnvGame) -> None:
        """The opponents' decisions in the core, each as :meth:`_play_opponents` makes it."""
        game, space, seat, codes = core.game, core.space, self.seat, core.codes
        while not game.is_over and game.current != seat:
            player = game.current
            opponent = self._core_opponents[player]
            if isinstance(opponent, random.Random):  # a RandomAgent's: legal[randrange(len(legal))]
                ids = game.legal_ids(space)
                codes.append(game.apply_id(space, ids[opponent.randrange(len(ids))]))
            elif isinstance(opponent, IdPolicy):
                seen = game.observation(space, player)
                choice = int(opponent.policy(seen["observation"], seen["action_mask"]))
                try:
                    codes.append(game.apply_id(space, choice))
                except ValueError:
                    raise ValueError(f"the policy of seat {player} chose {choice}, which is not legal now") from None
            else:  # Route Focus in the core
                code = opponent.choose(game)
                game.apply(code)
                codes.append(code)

    def _play_opponents(self) -> None:
        state = self._state
        assert state is not None
        seat, opponents, logs, listings = self.seat, self._opponents, self._opponent_logs, self._opponent_listings
        while state.phase is not _GAME_OVER and state.current != seat:
            player = state.current
            opponent = opponents[player]
            if isinstance(opponent, IdPolicy):
                self._play_id_policy(opponent, player)
                continue
            legal = listings[player]()
            action = opponent.choose(state.view(player, logs[player]), legal)
            # A lazy sequence would work out every ferry claim to be searched: the engine checks those.
            if type(legal) is list and any(map(is_, legal, repeat(action))):
                # One of the listed actions itself: the engine's checks would only repeat themselves.
                state.apply_unchecked(action)
            else:
                state.apply(action, player)

    def view(self) -> PlayerView:
        """The learner's full view now (with the log); ``info_view=True`` puts the step view in ``info``."""
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before view()")
        return state.view(self.seat)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.getrandbits(63)
        self.seat = self.fixed_seat if self.fixed_seat is not None else self._seeds.randrange(self.players)
        others = [p for p in range(self.players) if p != self.seat]
        made = {p: self._opponent(spec) for p, spec in zip(others, self.opponent_specs, strict=True)}
        self._opponents = {p: agent for p, (agent, _seed) in made.items()}
        first = game_seed % self.players
        core_opponents = {p: _core_opponent(agent, seed) for p, (agent, seed) in made.items()} if self.compiled else {}
        self._state = self._core = None
        if self.compiled and None not in core_opponents.values():
            self._core_opponents = core_opponents
            # What the core plays itself, seat by seat (None: this class plays it, see _play_core_opponents).
            self._core_seats = tuple(_played_in_core(core_opponents.get(p)) for p in range(self.players))
            core = self._core = CoreEnvGame(self.players, game_seed, first)
            result = core.game.gym_step(core.space, None, core.codes, self.seat, self._core_seats, self.flat, False)
            return self._after_opponents(core) if result is None else result[0], self._info()
        self._state = GameState.new(players=self.players, seed=game_seed, first_player=first)
        opponents = self._opponents.items()
        self._opponent_logs = {p: getattr(agent, "reads_log", True) is not False for p, agent in opponents}
        self._opponent_listings = {p: legal_listing(self._state, agent) for p, agent in opponents}
        self._play_opponents()
        return self._obs()

    def _opponent(self, spec: Opponent) -> tuple[Agent | IdPolicy, int | None]:
        """The agent of one seat and its seed: a fresh seeded one for a registry name, else the one given."""
        if isinstance(spec, str):
            seed = self._seeds.getrandbits(32)
            return make_agent(spec, seed=seed), seed
        if isinstance(spec, IdPolicy) or hasattr(spec, "choose"):
            return cast(Agent | IdPolicy, spec), None
        return _CallableAgent(spec), None

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        core = self._core
        if core is not None and type(action) is int and 0 <= action < self._ids:
            # On the core with a plain int id: the step in one call (its checks made there).
            try:
                result = core.game.gym_step(
                    core.space, action, core.codes, self.seat, self._core_seats, self.flat, self._win
                )
            except ValueError:
                return self._illegal(action)
            if result is None or self.info_view:
                return self._step_core_slowly(core, result)
            return result
        state = self._state
        if core.game.is_over if core is not None else state is None or state.is_over:
            raise EpisodeOver("call reset() first: the episode is over")
        # A plain int is checked here; anything else (numpy integers) as the space checks it.
        if type(action) is int:
            if not 0 <= action < self.space.size:
                raise ValueError(f"action ids are 0 to {self.space.size - 1}, got {action!r}")
        elif self.action_space.contains(action):
            action = int(action)
        else:
            raise ValueError(f"action ids are 0 to {self.space.size - 1}, got {action!r}")
        if core is not None:
            return self.step(action)
        assert state is not None
        try:
            chosen = self._legal_actions[self._legal_ids.index(action)]
        except ValueError:
            return self._illegal(action)
        # From this decision's legal list, so the engine's checks would only repeat themselves.
        state.apply_unchecked(chosen)
        self._play_opponents()
        obs, info = self._obs()
        done = state.is_over
        reward = end_rewards(state, self.reward_kind)[self.seat] if done else 0.0
        return obs, reward, done, False, info

    def _illegal(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner's ``action`` is an id no legal action has: raise, or end the episode as
        PettingZoo's classic games do (a penalty, the game untouched)."""
        reason = f"action {action} ({self.space.describe(action)}) is not legal now"
        if self.on_illegal == "raise":
            raise ValueError(reason) from None
        obs, info = self._obs()
        self._state = self._core = None
        return obs, -1.0, True, False, {**info, "illegal_action": reason}

    def _step_core_slowly(
        self, core: CoreEnvGame, result: tuple[Any, float, bool, bool, dict[str, Any]] | None
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """A core step that ``gym_step`` left to finish here: an opponent the core does not play
        (an :class:`IdPolicy`) to decide, or the view to put in the info."""
        if result is None:
            obs = self._after_opponents(core)
            over = core.game.is_over
            reward = core.end_rewards(self.reward_kind)[self.seat] if over else 0.0
            return obs, reward, over, False, self._info()
        obs, reward, over, truncated, _info = result
        return obs, reward, over, truncated, self._info()

    def _after_opponents(self, core: CoreEnvGame) -> Any:
        """The learner's observation once the opponents to decide have played (those the core does
        not play, an :class:`IdPolicy`, here)."""
        self._play_core_opponents(core)
        return core.game.observation(core.space, self.seat, self.flat)

    def render(self) -> str | None:
        s = self.state
        if self.render_mode != "ansi" or s is None:
            return None
        rows = [f"turn {s.turn}, {s.phase.value}; you are player {self.seat}"]
        rows += [f"player {p}: score {s.scores[p]}, trains {s.trains[p]}" for p in range(s.num_players)]
        return "\n".join(rows)


def _played_in_core(opponent: object) -> object:
    """What ``CoreGame.gym_step`` plays for a seat: a ``CoreAgent``, or a ``random.Random``
    (exactly that type: its ``randrange`` is what the core reproduces); None for the rest."""
    if opponent is None or isinstance(opponent, IdPolicy):
        return None
    if isinstance(opponent, random.Random):
        return opponent if type(opponent) is random.Random else None
    return opponent  # Route Focus in the core


def _core_opponent(agent: Agent | IdPolicy, seed: int | None) -> object | None:
    """What plays ``agent``'s seat in the core, or None where the core cannot: a ``RandomAgent``'s
    generator, Route Focus of the registry's seed in the core, an :class:`IdPolicy` itself."""
    if isinstance(agent, IdPolicy):
        return agent
    if type(agent) is RandomAgent:
        return agent.rng
    if type(agent) is RouteFocusAgent and seed is not None:
        return fast.core_agent(seed)
    return None
