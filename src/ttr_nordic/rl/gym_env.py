"""Gymnasium environment: one seat for the learner, the others played by registered agents.

``gymnasium.make("TTRNordic-v0", opponents=["route_focus"], seat=0, reward="margin")``. The
number of players is ``1 + len(opponents)``. Observations and actions are those of the
PettingZoo environment (``{"observation", "action_mask"}`` and ids of
:mod:`ttr_nordic.rl.actions`). ``info["view"]`` is the learner's ``StepView``
(:mod:`ttr_nordic.engine.view`): the fields of its ``PlayerView`` that the observation is built
from (hand, tickets, ``ticket_status()``, the public board and counts), cheaper to build every
step; ``env.unwrapped.view()`` gives the full ``PlayerView`` (log included) when asked. The
opponents choose from their own views. ``seat=None`` picks the learner's seat at random
each episode. The episode ends with the game; the reward (margin or win, as in the AEC
environment) comes at the end. Opponents are served as :func:`ttr_nordic.ai.base.play_game`
serves agents: views without the log to agents that set ``reads_log = False``, the engine's lazy
legal sequence to agents that set ``accepts_legal_sequence = True``.
An id outside the action space raises ``ValueError``. A legal-looking id that the mask forbids
ends the episode with reward -1 and ``info["illegal_action"]`` (the game is left as it was;
PettingZoo's classic games do the same), or raises with ``on_illegal="raise"``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import is_
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ttr_nordic.ai.base import Agent, legal_listing
from ttr_nordic.ai.registry import make_agent
from ttr_nordic.engine import Action, GameState, Phase, PlayerView
from ttr_nordic.engine.view import StepView, make_step_view

from .actions import action_space
from .observation import SIZE, ObservationEncoder
from .pettingzoo_env import REWARDS, end_rewards

_GAME_OVER = Phase.GAME_OVER


class TTRNordicGym(gymnasium.Env[dict[str, NDArray[Any]], Any]):
    """One seat of a Nordic Countries game against registered agents."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium declares it so)

    def __init__(
        self,
        opponents: Sequence[str] = ("route_focus",),
        seat: int | None = 0,
        reward: str = "margin",
        render_mode: str | None = None,
        on_illegal: str = "end",
    ) -> None:
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
        for name in opponents:
            make_agent(name)  # fails early with the list of names
        self.opponent_names = list(opponents)
        self.players = players
        self.fixed_seat = seat
        self.reward_kind = reward
        self.render_mode = render_mode
        self.space = action_space()
        self.observation_space = spaces.Dict(  # type: ignore[assignment]
            {
                "observation": spaces.Box(0.0, 1.0e3, (SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
            }
        )
        self.action_space: spaces.Discrete = spaces.Discrete(self.space.size)
        self.state: GameState | None = None
        self.seat = 0
        self._opponents: dict[int, Agent] = {}
        # Per opponent seat: whether its views carry the log, and how it gets the legal actions.
        self._opponent_logs: dict[int, bool] = {}
        self._opponent_listings: dict[int, Callable[[], Sequence[Action]]] = {}
        # The legal ids of the learner's decision and their engine actions, in the engine's order.
        self._legal_ids: list[int] = []
        self._legal_actions: list[Action] = []
        self._encoder = ObservationEncoder()
        self._seeds = random.Random()

    def _obs(self) -> tuple[dict[str, NDArray[Any]], StepView]:
        """The learner's observation and the step view it was built from."""
        state = self.state
        assert state is not None
        # The legal ids and their actions in the engine's order (empty once the game is over).
        self._legal_ids, self._legal_actions = ids, _actions = self.space.legal_id_list(state)
        mask = self.space.mask(ids)
        view = make_step_view(state, self.seat)
        return {"observation": self._encoder.encode(view), "action_mask": mask}, view

    def _play_opponents(self) -> None:
        state = self.state
        assert state is not None
        seat, opponents, logs, listings = self.seat, self._opponents, self._opponent_logs, self._opponent_listings
        while state.phase is not _GAME_OVER and state.current != seat:
            player = state.current
            legal = listings[player]()
            action = opponents[player].choose(state.view(player, logs[player]), legal)
            # A lazy sequence would work out every ferry claim to be searched: the engine checks those.
            if type(legal) is list and any(map(is_, legal, repeat(action))):
                # One of the listed actions itself: the engine's checks would only repeat themselves.
                state.apply_unchecked(action)
            else:
                state.apply(action, player)

    def view(self) -> PlayerView:
        """The learner's full view now (with the log): ``info["view"]`` holds only the step view."""
        if self.state is None:
            raise RuntimeError("call reset() before view()")
        return self.state.view(self.seat)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.getrandbits(63)
        self.seat = self.fixed_seat if self.fixed_seat is not None else self._seeds.randrange(self.players)
        others = [p for p in range(self.players) if p != self.seat]
        self._opponents = {
            p: make_agent(name, seed=self._seeds.getrandbits(32))
            for p, name in zip(others, self.opponent_names, strict=True)
        }
        self.state = GameState.new(players=self.players, seed=game_seed, first_player=game_seed % self.players)
        opponents = self._opponents.items()
        self._opponent_logs = {p: getattr(agent, "reads_log", True) is not False for p, agent in opponents}
        self._opponent_listings = {p: legal_listing(self.state, agent) for p, agent in opponents}
        self._play_opponents()
        obs, view = self._obs()
        return obs, {"view": view, "seat": self.seat}

    def step(self, action: int) -> tuple[dict[str, NDArray[Any]], float, bool, bool, dict[str, Any]]:
        state = self.state
        if state is None or state.is_over:
            raise RuntimeError("call reset() first: the episode is over")
        # A plain int is checked here; anything else (numpy integers) as the space checks it.
        if type(action) is int:
            if not 0 <= action < self.space.size:
                raise ValueError(f"action ids are 0 to {self.space.size - 1}, got {action!r}")
        elif self.action_space.contains(action):
            action = int(action)
        else:
            raise ValueError(f"action ids are 0 to {self.space.size - 1}, got {action!r}")
        try:
            chosen = self._legal_actions[self._legal_ids.index(action)]
        except ValueError:
            reason = f"action {action} ({self.space.describe(action)}) is not legal now"
            if self.on_illegal == "raise":
                raise ValueError(reason) from None
            # As PettingZoo's classic games do: the episode ends with a penalty, the game is untouched.
            obs, _view = self._obs()
            self.state = None
            return obs, -1.0, True, False, {"illegal_action": reason, "seat": self.seat}
        # From this decision's legal list, so the engine's checks would only repeat themselves.
        state.apply_unchecked(chosen)
        self._play_opponents()
        obs, view = self._obs()
        done = state.is_over
        reward = end_rewards(state, self.reward_kind)[self.seat] if done else 0.0
        return obs, reward, done, False, {"view": view, "seat": self.seat}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        s = self.state
        rows = [f"turn {s.turn}, {s.phase.value}; you are player {self.seat}"]
        rows += [f"player {p}: score {s.scores[p]}, trains {s.trains[p]}" for p in range(s.num_players)]
        return "\n".join(rows)
