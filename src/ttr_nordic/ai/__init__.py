"""Agents that play Nordic Countries from a player's view."""

from .base import Agent, RandomAgent, play_game
from .baselines import (
    BaselineAgent,
    DestinationHungryAgent,
    LongRouteAgent,
    OneStepThinkingAgent,
    RouteFocusAgent,
)

__all__ = [
    "Agent",
    "BaselineAgent",
    "DestinationHungryAgent",
    "LongRouteAgent",
    "OneStepThinkingAgent",
    "RandomAgent",
    "RouteFocusAgent",
    "play_game",
]
