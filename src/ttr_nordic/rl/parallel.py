"""PettingZoo parallel environment: the turn-based game with every agent stepping together.

PettingZoo's way for a turn-based game in the parallel API: every live agent sends an action
every step, and only the agent to decide (``infos[agent]["active_agent"]``, the one whose
``action_mask`` is not all zero) acts; the others' actions are ignored. ``infos[agent]["legal_ids"]``
lists the ids its mask allows (empty for the agents not to decide), so that a policy need not scan
the mask. One step is one engine
decision. ``max_cycles`` (None: no limit) truncates every agent after that many steps.

An id the mask forbids from the agent to decide is a no-op by default (``illegal="skip"``):
nothing happens, the same agent decides again and ``infos[agent]["illegal_action"]`` is True;
``illegal="raise"`` raises ``ValueError`` instead and changes nothing. Observations, action ids,
rewards and seeding are those of the AEC environment (:mod:`ttr_nordic.rl.pettingzoo_env`).

``env(...)`` is the same game as an AEC environment through PettingZoo's ``parallel_to_aec``:
every agent steps once per cycle (unlike :func:`ttr_nordic.rl.aec_env`, where only the agent to
decide steps). This module is what ``pettingzoo.test.max_cycles_test`` expects.

Like the AEC environment, the game runs in the compiled core where it is built
(:mod:`ttr_nordic.rl.core_game`), else on the Python engine, with the same results; ``compiled=``
picks one, and ``env.state`` is the engine's state either way (read only on the core). On the
core, ``env.step`` is the core's ``ParallelStep``, set on the instance at ``reset`` (except in
human render mode): one C call a step, no Python frame.

>>> env = parallel_env(players=2)
>>> observations, infos = env.reset(seed=1)
>>> mover = env.agent_to_move
>>> _, rewards, terminations, truncations, infos = env.step({mover: infos[mover]["legal_ids"][0]})
>>> env.steps, rewards
(1, {'player_0': 0.0, 'player_1': 0.0})
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, NoReturn

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import ParallelEnv

from ttr_nordic import fast
from ttr_nordic.engine import GameState
from ttr_nordic.engine.view import make_step_view

from .actions import action_space
from .core_game import CoreEnvGame, use_core
from .observation import SIZE, ObservationEncoder
from .pettingzoo_env import REWARDS, end_rewards, render_text

ILLEGAL = ("skip", "raise")


class TTRNordicParallel(ParallelEnv):  # type: ignore[misc]
    """Nordic Countries as a PettingZoo parallel environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "name": "ttr_nordic_parallel_v0"}

    def __init__(
        self,
        players: int = 2,
        reward: str = "margin",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal: str = "skip",
        compiled: bool | None = None,
    ) -> None:
        """``compiled``: the core (True), the Python engine (False), or the core where built (None)."""
        if players not in (2, 3):
            raise ValueError(f"Nordic Countries is for 2 or 3 players, not {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be positive or None, not {max_cycles}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {ILLEGAL}, not {illegal!r}")
        self.players = players
        self.reward_kind = reward
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.illegal = illegal
        self._win, self._skip = reward == "win", illegal == "skip"
        self.space = action_space()
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._agent_names = tuple(self.possible_agents)
        self.agents: list[str] = []
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0e3, (SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(self.space.size) for a in self.possible_agents}
        self._seeds = random.Random()
        self.compiled = use_core(compiled)
        self._state: GameState | None = None
        self._core: CoreEnvGame | None = None
        self._legal: dict[int, Any] = {}
        self._encoder = ObservationEncoder()
        self._steps = 0
        self.agent_to_move: str | None = None
        """The agent whose action counts this step (None before ``reset`` and once the game is
        over or truncated)."""
        self._stepper: Any = None  # the core's ParallelStep, made at the first reset on the core

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    @property
    def steps(self) -> int:
        """Steps since ``reset`` (on the core, as the core's stepper counts them)."""
        stepper = self._stepper
        return self._steps if self._core is None or stepper is None else int(stepper.steps)

    @property
    def state(self) -> GameState | None:
        """The game as an engine state (None before ``reset``); on the core, a replay: read only."""
        core = self._core
        return self._state if core is None else core.engine_state()

    def _observe(self, seat: int) -> dict[str, NDArray[Any]]:
        core = self._core
        if core is not None:
            return core.game.observation(core.space, seat)
        assert self._state is not None
        # No legal ids once the game is over.
        mask = self.space.mask(self._legal if seat == self._state.current else [])
        return {"observation": self._encoder.encode(make_step_view(self._state, seat)), "action_mask": mask}

    def _infos(self, illegal_by: str | None = None, active: str | None = None) -> dict[str, dict[str, Any]]:
        """Each agent's info; ``active`` is the agent to move (None once the game is over)."""
        core = self._core
        legal: list[int]
        if active is None:
            legal = []
        elif core is not None:
            legal = core.game.legal_ids(core.space)
        else:
            legal = list(self._legal)
        return {
            a: {"active_agent": active, "illegal_action": a == illegal_by, "legal_ids": legal if a == active else []}
            for a in self.agents
        }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, NDArray[Any]]], dict[str, dict[str, Any]]]:
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.getrandbits(63)
        if self.compiled:
            self._core = core = CoreEnvGame(self.players, game_seed, game_seed % self.players)
            self._bind(core)
            current = core.game.current
        else:
            self._state = GameState.new(players=self.players, seed=game_seed, first_player=game_seed % self.players)
            self._legal = self.space.legal_ids(self._state)
            current = self._state.current
        self.agents = list(self.possible_agents)
        self._steps = 0
        self.agent_to_move = self.possible_agents[current]
        observations = {a: self._observe(p) for p, a in enumerate(self.possible_agents)}
        return observations, self._infos(active=self.agent_to_move)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, dict[str, NDArray[Any]]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply the action of the agent to decide; the other agents' actions are ignored."""
        if self._core is not None:
            # Only in human render mode: otherwise the instance's own `step` is the stepper (_bind).
            result = self._stepper(actions)
            self.render()
            return result  # type: ignore[no-any-return]
        if self._state is None or not self.agents:
            raise RuntimeError("call reset() first: the game is over or not started")
        mover = self.agent_to_move
        assert mover is not None
        if mover not in actions:
            raise ValueError(f"no action for {mover}, the agent to decide")
        action = actions[mover]
        legal = action is not None and self._apply(int(action))
        illegal_by = None
        if not legal:
            if self.illegal == "raise":
                shown = "None" if action is None else f"{action} ({self.space.describe(int(action))})"
                raise ValueError(f"action {shown} is not legal now")
            illegal_by = mover
        self._steps += 1
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        terminated = self._state is not None and self._state.is_over
        if terminated:
            for agent, value in zip(self.possible_agents, self._end_rewards(), strict=True):
                rewards[agent] = value
        truncated = not terminated and self.max_cycles is not None and self._steps >= self.max_cycles
        observations = {a: self._observe(self.possible_agents.index(a)) for a in agents}
        # The infos name the agent to decide even on a truncating step; agent_to_move is None then.
        active = None if terminated or self._state is None else self.possible_agents[self._state.current]
        infos = self._infos(illegal_by, active)
        terminations = dict.fromkeys(agents, terminated)
        truncations = dict.fromkeys(agents, truncated)
        self.agent_to_move = None if truncated else active
        if terminated or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _bind(self, core: CoreEnvGame) -> None:
        """Step this game on the core: the core's ``ParallelStep`` runs each step in one call and
        counts the steps and keeps ``agents`` and ``agent_to_move``. Outside human render mode it is the
        instance's own ``step`` (it shadows the method), so that a step runs no Python at all."""
        if self._stepper is None:
            self._stepper = fast.core_module().ParallelStep(core.space, self._agent_names, self, self._refuse)
            if self.render_mode != "human":
                object.__setattr__(self, "step", self._stepper)  # not vars(self): see ParallelStep
        self._stepper.bind(core.game, core.codes, self.max_cycles or 0, self._win, self._skip)

    def _refuse(self, actions: dict[str, Any], missing: bool) -> NoReturn:
        """Why the core refused a step: no action for the agent to decide, or an illegal one."""
        core = self._core
        assert core is not None
        mover = self.possible_agents[core.game.current]
        if missing:
            raise ValueError(f"no action for {mover}, the agent to decide") from None
        action = actions[mover]
        shown = "None" if action is None else f"{action} ({self.space.describe(int(action))})"
        raise ValueError(f"action {shown} is not legal now") from None

    def _apply(self, action_id: int) -> bool:
        """Apply the legal action with this id on the engine; False (and no change) if none has it."""
        chosen = self._legal.get(action_id)
        if chosen is None:
            return False
        assert self._state is not None
        self._state.apply(chosen)
        self._legal = self.space.legal_ids(self._state)
        return True

    def _end_rewards(self) -> list[float]:
        assert self._state is not None
        return end_rewards(self._state, self.reward_kind)

    def render(self) -> str | None:
        """A text summary of the position (printed in ``human`` mode, returned in ``ansi``)."""
        state = self.state
        if self.render_mode is None or state is None:
            return None
        text = render_text(state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def parallel_env(
    players: int = 2,
    reward: str = "margin",
    render_mode: str | None = None,
    max_cycles: int | None = None,
    illegal: str = "skip",
    compiled: bool | None = None,
) -> TTRNordicParallel:
    """The parallel environment (see the module docstring)."""
    return TTRNordicParallel(players, reward, render_mode, max_cycles, illegal, compiled)


def env(
    players: int = 2,
    reward: str = "margin",
    render_mode: str | None = None,
    max_cycles: int | None = None,
    illegal: str = "skip",
    compiled: bool | None = None,
) -> Any:
    """The parallel environment as an AEC environment in which every agent steps each cycle."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(parallel_env(players, reward, render_mode, max_cycles, illegal, compiled))
