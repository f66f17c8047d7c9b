"""Agents by name, and the playing levels offered to people.

>>> from ttr_nordic.ai.registry import make_agent, agent_names
>>> "random" in agent_names()
True
>>> make_agent("random", seed=1).name
'random'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from .base import Agent, RandomAgent
from .baselines import DestinationHungryAgent, LongRouteAgent, OneStepThinkingAgent, RouteFocusAgent
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

#: Every agent by name; a factory takes a seed (None = nondeterministic).
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "destination_hungry": DestinationHungryAgent,
    "route_focus": RouteFocusAgent,
    "one_step": OneStepThinkingAgent,
    "long_route": LongRouteAgent,
    "heuristic": lambda seed: HeuristicAgent(seed=seed),
    "ismcts": lambda seed: MCTSAgent(iterations=300, time_limit=4.5, seed=seed, name="ismcts"),
    "paired": lambda seed: PairedSearchAgent(rollouts=300, time_limit=4.5, seed=seed, name="paired"),
    "rollout_search": lambda seed: RolloutSearchAgent(seed=seed, **EXPERT_SETTINGS),
}

#: Playing levels for people, each an agent name, weakest first. They follow the measured
#: strength of the agents (benchmarks/baselines_round_robin.py and docs/ai-strength.md): Long
#: Route is the weakest baseline, Route Focus the strongest, and the rollout search wins about 59% of
#: two-player games against Route Focus (a few seconds on ticket decisions, at most 4 s each).
LEVELS: dict[str, str] = {
    "easy": "long_route",
    "medium": "one_step",
    "hard": "route_focus",
    "expert": "rollout_search",
}


def agent_names() -> list[str]:
    """All agent names, then all level names."""
    return [*AGENTS, *LEVELS]


def make_agent(name: str, seed: int | None = None) -> Agent:
    """An agent from its name or a level name; ``ValueError`` lists the choices."""
    key = name.strip().lower()
    key = LEVELS.get(key, key)
    factory = AGENTS.get(key)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(agent_names())}")
    return factory(seed)
