"""Agents by name, and the playing levels offered to people.

>>> from ttr_nordic.ai.registry import make_agent, agent_names
>>> "random" in agent_names()
True
>>> make_agent("random", seed=1).name
'random'
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent, RandomAgent
from .baselines import DestinationHungryAgent, LongRouteAgent, OneStepThinkingAgent, RouteFocusAgent

AgentFactory = Callable[[int | None], Agent]

#: Every agent by name; a factory takes a seed (None = nondeterministic).
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "destination_hungry": DestinationHungryAgent,
    "route_focus": RouteFocusAgent,
    "one_step": OneStepThinkingAgent,
    "long_route": LongRouteAgent,
}

#: Playing levels for people, each an agent name (filled in as stronger agents arrive).
LEVELS: dict[str, str] = {}


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
