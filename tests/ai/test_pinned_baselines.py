"""Seeded baseline games are pinned: Route Focus (and the baselines sharing its planning) decide
exactly as before any speed work.

The expected digests were produced by the code at ``main`` commit ebcadea, before the Route Focus
speed work, by running :func:`games_digest` there for each group below, and are committed here.
Each digest hashes the game records (config and every action in notation) of the group's games,
so any change in what an agent decides, at any decision, changes it. The engine's own games are
pinned in ``tests/engine/test_pinned_games.py``; a rule change there would change these too.
"""

from __future__ import annotations

import hashlib

import pytest

from ttr_nordic.ai import (
    BaselineAgent,
    DestinationHungryAgent,
    LongRouteAgent,
    OneStepThinkingAgent,
    RouteFocusAgent,
    play_game,
)
from ttr_nordic.ai.expert import LightRouteFocus

_AGENTS: dict[str, type[BaselineAgent]] = {
    "route_focus": RouteFocusAgent,
    "route_focus_light": LightRouteFocus,
    "destination_hungry": DestinationHungryAgent,
    "one_step": OneStepThinkingAgent,
    "long_route": LongRouteAgent,
}

#: group -> (agent names, one per seat; seeds; sha256 of the records), digests from main at ebcadea.
PINNED: dict[str, tuple[tuple[str, ...], range, str]] = {
    "route_focus_2p": (
        ("route_focus", "route_focus"),
        range(40),
        "e4ab51d8af7c847ee26696b5e9b46ae8ddd7e566d31c40da582a3e576a540e07",
    ),
    "route_focus_3p": (
        ("route_focus", "route_focus", "route_focus"),
        range(20),
        "262e8981e93fb0c36059a49927eb94b518b6efb48c0d8493e41d921f4f3e4832",
    ),
    "route_focus_light_2p": (
        ("route_focus_light", "route_focus_light"),
        range(10),
        "077170730a43bc1f898cb8fa95265d3ffcbd32ff9122f50f99139067ffb62e70",
    ),
    "mixed_2p": (
        ("destination_hungry", "long_route"),
        range(8),
        "b05a9a27f135e176d4b9daa1a7e252b194b9b2a8f7f3c27f32e0a06d2ecf1d4c",
    ),
    "mixed_3p": (
        ("one_step", "route_focus", "destination_hungry"),
        range(8),
        "c13ae9461401ec048b4dcd7a32738b21790d1868ffe12dc6d997c622493a00a7",
    ),
}


def games_digest(names: tuple[str, ...], seeds: range) -> str:
    """sha256 over the JSON records of one game per seed; seat ``q`` of game ``seed`` is
    ``names[q]`` seeded ``seed * players + q`` (as ``benchmarks/engine_speed.py`` seeds them)."""
    players = len(names)
    digest = hashlib.sha256()
    for seed in seeds:
        agents = [_AGENTS[name](seed=seed * players + q) for q, name in enumerate(names)]
        digest.update(play_game(agents, seed=seed).record().to_json().encode())
    return digest.hexdigest()


@pytest.mark.parametrize("group", sorted(PINNED))
def test_baseline_games_are_unchanged(group: str) -> None:
    names, seeds, expected = PINNED[group]
    assert games_digest(names, seeds) == expected
