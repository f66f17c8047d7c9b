"""Agents that play Nordic Countries from a player's view."""

from .base import Agent, RandomAgent, play_game

__all__ = ["Agent", "RandomAgent", "play_game"]
