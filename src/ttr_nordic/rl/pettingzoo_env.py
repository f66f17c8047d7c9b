"""PettingZoo AEC environment for 2 or 3 players (see ``docs/rl.md``).

Agents are ``player_0`` .. ``player_{n-1}`` (engine seats). Every decision, including the second
card of a draw, ticket choices and tunnel payments, is one step of the agent to decide.
Observations are ``{"observation": Box(float32), "action_mask": Box(int8)}`` built from the
player's view only; ``env.view(agent)`` is the raw ``PlayerView``. Actions are ids of
:mod:`ttr_nordic.rl.actions`. ``infos[agent]["legal_ids"]`` lists the ids the mask allows, in the
engine's order (empty for an agent not to decide): a policy can pick from it without scanning the
mask's 6,394 cells. Rewards come at the end only: ``reward="margin"`` gives each
player its score minus the best other score; ``reward="win"`` gives +1 to the winner(s), -1 to
the others. ``reset(seed=s)`` seeds the deal and the first player.

The game runs in the compiled core where it is built (:mod:`ttr_nordic.rl.core_game`: ids,
observations and masks written in C from the core's state), else on the Python engine, with the
same observations, masks and rewards; ``compiled=`` picks one. ``env.state`` is the engine's
state either way (on the core, replayed from the seed when asked: read it, do not change it).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv

from ttr_nordic.engine import CARD_LETTERS, Action, GameState, Phase, PlayerView
from ttr_nordic.engine.view import make_step_view

from .actions import action_space
from .core_game import CoreEnvGame, use_core
from .observation import SIZE, ObservationEncoder

REWARDS = ("margin", "win")
_GAME_OVER = Phase.GAME_OVER


def end_rewards(state: GameState, kind: str) -> list[float]:
    """Each seat's reward for the finished ``state``."""
    result = state.result()
    if kind == "win":
        return [1.0 if p in result.winners else -1.0 for p in range(state.num_players)]
    totals = [p.total for p in result.players]
    return [float(totals[p] - max(t for q, t in enumerate(totals) if q != p)) for p in range(len(totals))]


def render_text(s: GameState) -> str:
    """A text summary of a position: public information only (turn, display, scores, trains)."""
    lines = [f"turn {s.turn}, {s.phase.value}; to decide: player {s.decision.player}"]
    lines.append("display: " + " ".join(CARD_LETTERS[c] if c >= 0 else "-" for c in s.display))
    for p in range(s.num_players):
        routes = sum(1 for owner in s.route_owner if owner == p)
        lines.append(f"player {p}: score {s.scores[p]}, trains {s.trains[p]}, routes {routes}")
    return "\n".join(lines)


class TTRNordicAEC(AECEnv):  # type: ignore[misc]
    """Ticket to Ride: Nordic Countries as a PettingZoo AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "ttr_nordic_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self, players: int = 2, reward: str = "margin", render_mode: str | None = None, compiled: bool | None = None
    ) -> None:
        """``compiled``: the core (True), the Python engine (False), or the core where built (None)."""
        super().__init__()
        if players not in (2, 3):
            raise ValueError(f"Nordic Countries is for 2 or 3 players, not {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.players = players
        self.reward_kind = reward
        self.render_mode = render_mode
        self.space = action_space()
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._agent_names = tuple(self.possible_agents)
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0e3, (SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.space.size) for a in self.possible_agents}
        self._seeds = random.Random()
        self.compiled = use_core(compiled)
        self._state: GameState | None = None
        self._core: CoreEnvGame | None = None
        # The legal ids of the decision and their engine actions, in the engine's order.
        self._legal_ids: list[int] = []
        self._legal_actions: list[Action] = []
        self._encoder = ObservationEncoder()
        # The encoder's vector of each agent observed since the last step (observe() builds a
        # view only for the agents observed, once per step; step() forgets them all).
        self._observed: dict[str, NDArray[np.float32]] = {}

    @property
    def state(self) -> GameState | None:
        """The game as an engine state (None before ``reset``); on the core, a replay: read only."""
        core = self._core
        return self._state if core is None else core.engine_state()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.getrandbits(63)
        if self.compiled:
            self._core = CoreEnvGame(self.players, game_seed, game_seed % self.players)
        else:
            self._state = GameState.new(players=self.players, seed=game_seed, first_player=game_seed % self.players)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"legal_ids": []} for a in self.agents}
        self._observed.clear()
        self._select()

    def _select(self) -> None:
        """The agent to decide now, and its info's legal ids."""
        core = self._core
        if core is not None:
            agent = self.agent_selection = self.possible_agents[core.game.current]
            self.infos[agent] = {"legal_ids": core.legal_ids()}
            return
        assert self._state is not None
        self._legal_ids, self._legal_actions = self.space.legal_id_list(self._state)
        agent = self.agent_selection = self.possible_agents[self._state.current]
        self.infos[agent] = {"legal_ids": list(self._legal_ids)}

    def view(self, agent: str) -> PlayerView:
        """The raw view of ``agent`` (what that player may see)."""
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before view()")
        return state.view(self._seat[agent], log=False)

    def action_mask(self, agent: str) -> NDArray[np.int8]:
        """1 for each legal id of ``agent`` now (all zero when it is not to decide)."""
        # No legal ids before the deal or once the game is over.
        core = self._core
        if core is not None:
            if agent == self.agent_selection and not core.game.is_over:
                return core.mask()
            return np.zeros(self.space.size, dtype=np.int8)
        return self.space.mask(self._legal_ids if agent == self.agent_selection else [])

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        """``{"observation", "action_mask"}`` of ``agent``: fresh arrays, built only when asked."""
        core = self._core
        if core is not None:
            # Both arrays made and written in one call into the core.
            return core.game.observation(core.space, self._seat[agent])
        vector = self._observed.get(agent)
        if vector is None:
            if self._state is None:
                raise RuntimeError("call reset() before observe()")
            # The engine's step view: the view's fields the vector needs, cheaper to build.
            vector = self._observed[agent] = self._encoder.update(make_step_view(self._state, self._seat[agent]))
        return {"observation": vector.copy(), "action_mask": self.action_mask(agent)}

    def step(self, action: int | None) -> None:
        # The order checks of PettingZoo's OrderEnforcingWrapper, done here: the wrapper's
        # attribute forwarding cost about 6 µs a step (7%).
        core = self._core
        if core is not None:
            if not self.agents:
                raise RuntimeError("every agent has left the finished game: call reset()")
            game = core.game
            if game.is_over:
                self._was_dead_step(action)
                return
            assert action is not None
            # One call: apply, record the code, a new info dict for the agent that acted and for
            # the one to decide (a caller may keep the old ones), which it names.
            try:
                agent = game.aec_step(core.space, action, core.codes, self.infos, self._agent_names)
            except ValueError:
                raise ValueError(f"action {action} ({self.space.describe(int(action))}) is not legal now") from None
            if agent is None:  # the game is over
                self._finish(core.end_rewards(self.reward_kind))
            else:
                self.agent_selection = agent
            if self.render_mode == "human":
                self.render()
            return
        state = self._state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("every agent has left the finished game: call reset()")
        # Every agent is terminated at the end at once (and never truncated): until then none is.
        if state.phase is _GAME_OVER:
            self._was_dead_step(action)
            return
        assert action is not None
        try:
            chosen = self._legal_actions[self._legal_ids.index(int(action))]
        except ValueError:
            raise ValueError(f"action {action} ({self.space.describe(int(action))}) is not legal now") from None
        # Rewards (and so the acting agent's cumulative reward) stay zero until the end.
        self._observed.clear()
        # From this decision's legal list (the mask), so the engine's checks would only repeat themselves.
        state.apply_unchecked(chosen)
        self.infos[self.agent_selection] = {"legal_ids": []}
        if state.phase is _GAME_OVER:
            self._finish(end_rewards(state, self.reward_kind))
            self._legal_ids, self._legal_actions = [], []
        else:
            self._select()
        if self.render_mode == "human":
            self.render()

    def _finish(self, rewards: list[float]) -> None:
        """Every agent terminated with its end reward."""
        for agent_name, value in zip(self.agents, rewards, strict=True):
            self.rewards[agent_name] = value
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The agent to act's observation, cumulative reward, termination, truncation and info
        (PettingZoo's ``last``, without its extra checks: ``observe`` makes them)."""
        agent = self.agent_selection
        core = self._core
        observation: dict[str, Any] | None
        if core is not None and observe:  # observe() inline: a call costs a tenth of the step
            observation = core.game.observation(core.space, self._seat[agent])
        else:
            observation = self.observe(agent) if observe else None
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | None:
        """A text summary of the position (printed in ``human`` mode, returned in ``ansi``)."""
        if self.render_mode is None or self.state is None:
            return None
        text = render_text(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def aec_env(
    players: int = 2, reward: str = "margin", render_mode: str | None = None, compiled: bool | None = None
) -> TTRNordicAEC:
    """The PettingZoo AEC environment.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: the environment makes the same checks
    itself (``step``, ``observe`` and ``view`` before ``reset`` raise ``RuntimeError``; the
    per-agent dicts do not exist before ``reset``), faster.
    """
    return TTRNordicAEC(players=players, reward=reward, render_mode=render_mode, compiled=compiled)
