"""N games stepped in one call, observations and action masks in NumPy arrays.

:class:`BatchedEnv` runs ``num_envs`` games of one seat (the learner, ``seat``) against random
opponents. Each game is ``GameState.new(players, seed=s)`` for the next seed ``s`` (``seed``,
``seed + 1``, … in the order the episodes start), its opponents choosing with
``random.Random(s).choice`` over the engine's legal list. The arrays are the same encoding as the
other environments': ``observations[i]`` is :func:`~ttr_nordic.rl.observation.encode_view` of the
learner's view, ``action_masks[i]`` marks the learner's legal ids of
:func:`~ttr_nordic.rl.actions.action_space`. A finished game sets ``dones[i]`` and its reward
(``"margin"``: the learner's total minus the best other total; ``"win"``: +1 for a winner, -1
otherwise, as :func:`~ttr_nordic.rl.pettingzoo_env.end_rewards`), and the next episode starts at
once: the row then holds the new game's first observation and mask.

The games run in the compiled core (:mod:`ttr_nordic.fast`) where it is built, else on the Python
engine with the same results (``tests/fast/test_batched.py`` compares the two). The arrays belong
to the environment and are rewritten by every call: copy them to keep them.

>>> import numpy as np
>>> env = BatchedEnv(num_envs=4, seed=1)
>>> obs, masks = env.reset()
>>> obs.shape == (4, SIZE), bool(masks.any(axis=1).all())
(True, True)
>>> actions = np.array([np.flatnonzero(row)[0] for row in masks], dtype=np.int64)
>>> obs, rewards, dones, masks = env.step(actions)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ttr_nordic import fast
from ttr_nordic.engine import Action, GameState

from .actions import action_space
from .core_game import claim_table, layout
from .observation import SIZE, encode_view
from .pettingzoo_env import REWARDS, end_rewards

if TYPE_CHECKING:
    from ttr_nordic.fast._core import CoreBatch

OPPONENTS = ("random", "route_focus")


class BatchedEnv:
    """``num_envs`` games of ``seat`` against ``opponent`` players, stepped together (see the module)."""

    def __init__(
        self,
        num_envs: int,
        players: int = 2,
        seat: int = 0,
        seed: int = 0,
        opponent: str = "random",
        reward: str = "margin",
        record: bool = False,
        compiled: bool | None = None,
    ) -> None:
        """``record`` keeps each episode's actions (:meth:`episode`); ``compiled`` picks the core
        (True), the Python engine (False) or the core where built (None)."""
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number, got {num_envs!r:.40}")
        if players not in (2, 3) or type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"players must be 2 or 3 and seat one of them, got {players!r:.20}, {seat!r:.20}")
        if type(seed) is not int or not 0 <= seed < 2**62:
            raise ValueError(f"seed must be a whole number from 0 to 2**62 - 1, got {seed!r:.40}")
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {OPPONENTS}, not {opponent!r:.40}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r:.40}")
        if compiled and not fast.AVAILABLE:
            raise RuntimeError("the compiled core is not available (build it: python hatch_build.py)")
        self.num_envs = num_envs
        self.players = players
        self.seat = seat
        self.seed = seed
        self.reward_kind = reward
        self.opponent = opponent
        self.record = record
        self.compiled = fast.AVAILABLE if compiled is None else compiled
        self.space = action_space()
        self.observations: NDArray[np.float32] = np.zeros((num_envs, SIZE), dtype=np.float32)
        self.action_masks: NDArray[np.int8] = np.zeros((num_envs, self.space.size), dtype=np.int8)
        self.rewards: NDArray[np.float32] = np.zeros(num_envs, dtype=np.float32)
        self.dones: NDArray[np.int8] = np.zeros(num_envs, dtype=np.int8)
        self._core: CoreBatch | None = None
        self._python: _PythonBatch | None = None
        if self.compiled:
            space = self.space
            ids = (space.size, space.face_up, space.blind, space.tickets, space.keep, space.decline, space.pass_)
            self._core = fast.core_module().CoreBatch(
                fast.core_board(),
                num_envs,
                players,
                seat,
                seed,
                reward == "win",
                record,
                opponent == "route_focus",
                (*ids, space.extra, space.claim),
                claim_table(),
                sorted(space.slotted_routes),
                layout(),
                self.observations,
                self.action_masks,
                self.rewards,
                self.dones,
            )
        else:
            self._python = _PythonBatch(self)

    def reset(self) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """Start an episode in every game: (observations, action masks)."""
        if self._core is not None:
            self._core.reset()
        else:
            assert self._python is not None
            self._python.reset()
        return self.observations, self.action_masks

    def step(
        self, actions: NDArray[np.int64]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.int8], NDArray[np.int8]]:
        """Apply one legal action id per game: (observations, rewards, dones, action masks).

        An id that is not legal in its game raises ValueError (naming the game) and changes nothing.
        """
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"actions must hold one id per game: shape ({self.num_envs},), got {chosen.shape}")
        if self._core is not None:
            self._core.step(chosen)
        else:
            assert self._python is not None
            self._python.step(chosen)
        return self.observations, self.rewards, self.dones, self.action_masks

    def sample(self, seed: int) -> NDArray[np.int64]:
        """A uniformly random legal id per game (a fresh array), drawn with ``random.Random(seed)``
        in game order: a random player, and the benchmark's actions."""
        out = np.empty(self.num_envs, dtype=np.int64)
        if self._core is not None:
            self._core.sample(out, seed)
        else:
            assert self._python is not None
            if not self._python.games:
                raise RuntimeError("call reset() first")
            choose = random.Random(seed).choice
            out[:] = [choose(list(legal)) for legal in self._python.legal]
        return out

    def episode(self, index: int) -> tuple[int, list[Action]]:
        """With ``record``: game ``index``'s seed and its actions so far (everyone's, in order)."""
        if not self.record:
            raise ValueError("episodes are kept only with record=True")
        if not 0 <= index < self.num_envs:
            raise IndexError(f"games are 0 to {self.num_envs - 1}, got {index}")
        if self._core is not None:
            seed, codes = self._core.episode(index)
            return seed, [fast.decode_action(code) for code in codes]
        assert self._python is not None
        return self._python.seeds[index], list(self._python.games[index].history)


def _opponents(env: BatchedEnv, seed: int, game: GameState) -> Callable[[GameState], Action]:
    """The opponents' choice in a game of the batch (see the module)."""
    if env.opponent == "random":
        pick = random.Random(seed).choice
        return lambda state: pick(state.legal_action_list())
    from ttr_nordic.ai.base import legal_listing
    from ttr_nordic.ai.baselines import RouteFocusAgent

    agents = [RouteFocusAgent(seed=seed * env.players + q) for q in range(env.players)]
    listing = legal_listing(game, RouteFocusAgent)
    return lambda state: agents[state.current].choose(state.view(state.current, log=False), listing())


class _PythonBatch:
    """The same batch on the Python engine (where the core is not built)."""

    def __init__(self, env: BatchedEnv) -> None:
        self.env = env
        self.next_seed = env.seed
        self.games: list[GameState] = []
        self.seeds: list[int] = []
        self.choosers: list[Callable[[GameState], Action]] = []
        self.legal: list[dict[int, Action]] = []

    def _start(self, index: int) -> None:
        env = self.env
        seed = self.next_seed
        self.next_seed += 1
        game = GameState.new(players=env.players, seed=seed)
        choose = _opponents(env, seed, game)
        while not game.is_over and game.current != env.seat:
            game.apply_unchecked(choose(game))
        if index == len(self.games):
            self.games.append(game)
            self.seeds.append(seed)
            self.choosers.append(choose)
            self.legal.append({})
        else:
            self.games[index], self.seeds[index], self.choosers[index] = game, seed, choose

    def _publish(self, index: int) -> None:
        env = self.env
        game = self.games[index]
        ids, actions = env.space.legal_id_list(game)
        self.legal[index] = dict(zip(ids, actions, strict=True))
        env.action_masks[index] = 0
        env.action_masks[index, ids] = 1
        env.observations[index] = encode_view(game.view(env.seat, log=False))

    def reset(self) -> None:
        self.next_seed = self.env.seed
        self.games.clear()
        self.seeds.clear()
        self.choosers.clear()
        self.legal.clear()
        self.env.rewards[:] = 0
        self.env.dones[:] = 0
        for index in range(self.env.num_envs):
            self._start(index)
            self._publish(index)

    def step(self, actions: NDArray[np.int64]) -> None:
        env = self.env
        if not self.games:
            raise RuntimeError("call reset() first")
        chosen = []
        for index, action_id in enumerate(actions.tolist()):
            action = self.legal[index].get(action_id)
            if action is None:
                raise ValueError(f"environment {index}: action {action_id} is not legal now")
            chosen.append(action)
        for index, action in enumerate(chosen):
            game = self.games[index]
            game.apply_unchecked(action)
            choose = self.choosers[index]
            while not game.is_over and game.current != env.seat:
                game.apply_unchecked(choose(game))
            env.rewards[index] = 0.0
            env.dones[index] = 0
            if game.is_over:
                env.rewards[index] = end_rewards(game, env.reward_kind)[env.seat]
                env.dones[index] = 1
                self._start(index)
            self._publish(index)


__all__ = ["OPPONENTS", "BatchedEnv"]
