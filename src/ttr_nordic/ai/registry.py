"""Agents by name, and the playing levels offered to people.

>>> from ttr_nordic.ai.registry import make_agent, agent_names
>>> "random" in agent_names()
True
>>> make_agent("random", seed=1).name
'random'
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, cast

from .base import Agent, RandomAgent
from .baselines import DestinationHungryAgent, LongRouteAgent, OneStepThinkingAgent, RouteFocusAgent
from .blocking import BlockingRouteFocusAgent
from .expert import RolloutSearchAgent
from .mcts import HeuristicAgent, MCTSAgent, PairedSearchAgent

AgentFactory = Callable[[int | None], Agent]


class ExpertSettings(TypedDict):
    """Keyword arguments of :class:`~.expert.RolloutSearchAgent`."""

    ticket_rollouts: int
    action_rollouts: int
    keep_candidates: int
    light_rollouts: bool
    time_limit: float
    objective: str


class TurnSearchSettings(ExpertSettings):
    """Keyword arguments of :class:`~.expert.RolloutSearchAgent` that make it search every turn."""

    search_turns: bool
    turn_rollouts: int
    turn_time: float
    horizon: int
    block: bool
    ticket_inference: bool
    three_player_ticket_horizon: int | None
    core_rollout_scale: float
    core_full_rollout_scale: float
    turn_candidates: int
    core_turn_candidates: int
    three_player_core_rollout_scale: float
    three_player_turn_candidates: int


#: The settings of the registered ``rollout_search`` agent (the *expert* level); benchmarks
#: build variants of it from these.
EXPERT_SETTINGS: ExpertSettings = {
    "ticket_rollouts": 400,
    "action_rollouts": 48,
    "keep_candidates": 6,
    "light_rollouts": True,
    "time_limit": 4.0,
    "objective": "auto",
}

#: The settings of the registered ``turn_search`` agent (the *expert* level): the
#: ``rollout_search`` settings plus a search of every turn and second card (card draws
#: included, 0.8 s a turn), rollouts cut after 24 actions and scored by the value model,
#: blocking claims in two-player games and the opponents' tickets inferred from their claims;
#: the ticket searches of three-player games play their rollouts to the end (at the first
#: ticket choice the value model says too little, docs/ai-strength.md 2026-11-28 (14)). In
#: two-player games, where the compiled core plays the rollouts, the searches take ten times the
#: Python caps and a turn searches twelve actions instead of six: stronger on the ladder than the
#: same with the Python caps and six (docs/ai-strength.md 2026-11-29 (17)); ten times the
#: rollouts alone were not (15). Three-player games, and searches without the core, keep the caps
#: and the six, as measured there.
TURN_SEARCH_SETTINGS: TurnSearchSettings = {
    **EXPERT_SETTINGS,
    "search_turns": True,
    "turn_rollouts": 120,
    "turn_time": 0.8,
    "horizon": 24,
    "block": True,
    "ticket_inference": True,
    "three_player_ticket_horizon": 0,
    "core_rollout_scale": 10.0,
    "core_full_rollout_scale": 1.0,
    "turn_candidates": 6,
    "core_turn_candidates": 12,
    "three_player_core_rollout_scale": 1.0,
    "three_player_turn_candidates": 6,
}

#: Every agent by name; a factory takes a seed (None = nondeterministic).
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "destination_hungry": DestinationHungryAgent,
    "route_focus": RouteFocusAgent,
    "route_focus_blocking": BlockingRouteFocusAgent,
    "one_step": OneStepThinkingAgent,
    "long_route": LongRouteAgent,
    "heuristic": lambda seed: HeuristicAgent(seed=seed),
    "ismcts": lambda seed: MCTSAgent(iterations=300, time_limit=4.5, seed=seed, name="ismcts"),
    "paired": lambda seed: PairedSearchAgent(rollouts=300, time_limit=4.5, seed=seed, name="paired"),
    "rollout_search": lambda seed: RolloutSearchAgent(seed=seed, **EXPERT_SETTINGS),
    "turn_search": lambda seed: RolloutSearchAgent(seed=seed, name="turn_search", **TURN_SEARCH_SETTINGS),
}

#: Playing levels for people, each an agent name, weakest first. They follow the measured
#: strength of the agents on the rating ladder (docs/ai-strength.md): Long Route is the weakest
#: baseline, Route Focus the strongest, and the turn search wins about 70% of two-player games
#: against Route Focus (about 0.8 s a turn, a few seconds on ticket decisions, at most 4 s each).
LEVELS: dict[str, str] = {
    "easy": "long_route",
    "medium": "one_step",
    "hard": "route_focus",
    "expert": "turn_search",
}


def agent_names() -> list[str]:
    """All agent names, then all level names."""
    return [*AGENTS, *LEVELS]


def load_factory(spec: str) -> AgentFactory:
    """The agent factory named by an import spec: ``package.module:callable`` or
    ``path/to/file.py:callable``. The callable takes a seed (or None) and returns an agent; this is
    how a saved agent version (a module kept beside the registry's agents) joins a tournament or the
    ladder. ``ValueError`` says what is wrong.

    >>> load_factory("ttr_nordic.ai.base:RandomAgent")(1).name
    'random'
    """
    module_name, sep, attribute = spec.strip().rpartition(":")
    if not sep or not module_name or not attribute.isidentifier():
        raise ValueError(f"an agent spec is 'module:callable' or 'file.py:callable', got {spec!r}")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name).resolve()
            if not path.is_file():
                raise ValueError(f"agent spec {spec!r}: no file {path}")
            unique = "ttr_nordic_agent_" + hashlib.blake2b(str(path).encode(), digest_size=6).hexdigest()
            module = sys.modules.get(unique)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(unique, path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ValueError(f"agent spec {spec!r}: cannot load {path}")
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[unique] = module
                loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ValueError:
        raise
    except Exception as exc:  # a missing module, or one that fails on import
        raise ValueError(f"agent spec {spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"agent spec {spec!r}: {module_name} has no callable {attribute!r}")
    return cast(AgentFactory, factory)


def make_agent(name: str, seed: int | None = None) -> Agent:
    """An agent from its name, a level name, or an import spec (see :func:`load_factory`);
    ``ValueError`` lists the choices."""
    if ":" in name:
        agent = load_factory(name)(seed)
        if not callable(getattr(agent, "choose", None)) or not isinstance(getattr(agent, "name", None), str):
            raise ValueError(f"agent spec {name!r} did not make an agent (one with a name and choose())")
        return agent
    key = name.strip().lower()
    key = LEVELS.get(key, key)
    factory = AGENTS.get(key)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(agent_names())} or module:callable")
    return factory(seed)
