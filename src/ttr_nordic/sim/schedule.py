"""Who plays which game, in which seat, with which seeds: all derived from one tournament seed.

A tournament has a *lineup*: the agent names given on the command line, in order. Each
entry of the lineup is one participant, even when two entries name the same agent
(``expert,route_focus,route_focus`` has three participants, labelled ``expert``,
``route_focus#1`` and ``route_focus#2``).

Seats are the turn order: seat 0 always plays first (``first_player=0``), so rotating
participants through the seats spreads the first-player advantage evenly.

* With at least as many participants as seats, the games cycle through every ordered
  choice of participants for the seats (``itertools.permutations``): 2 of 2 alternate,
  3 of 3 rotate through all 6 orders, 3 participants in 2-player games play all 6
  ordered pairings.
* With fewer participants than seats (2 participants, 3 players), the seats are filled
  by cycling through the lineup, continuing from game to game: ``A B A``, then ``B A B``.

Over a whole number of cycles (see :func:`cycle_length`), every participant sits in
every seat equally often.

>>> [s.seating for s in schedule(["a", "b"], players=2, games=4, seed=1)]
[(0, 1), (1, 0), (0, 1), (1, 0)]
>>> [s.seating for s in schedule(["a", "b"], players=3, games=2, seed=1)]
[(0, 1, 0), (1, 0, 1)]
>>> spec = schedule(["random", "random"], players=2, games=1, seed=7)[0]
>>> spec.labels, spec.seed == derive_seed(7, "game", 0)
(('random#1', 'random#2'), True)
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from ..engine.variant import OFFICIAL, Variant

#: Derived seeds stay below 2**53 so that they survive JSON readers that use doubles.
SEED_BITS = 53


def derive_seed(seed: int, *parts: object) -> int:
    """A seed derived from ``seed`` and ``parts`` (stable across runs, platforms and Python versions).

    >>> derive_seed(1, "game", 0) == derive_seed(1, "game", 0) != derive_seed(1, "game", 1)
    True
    """
    text = ":".join(str(part) for part in (seed, *parts))
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


@dataclass(frozen=True, slots=True)
class Entry:
    """One participant: its place in the lineup, its agent name and a unique label."""

    index: int
    agent: str
    label: str


def split_label(name: str) -> tuple[str | None, str]:
    """A lineup entry ``LABEL=SPEC`` as (label, spec); a bare name or spec has no label of its own.

    >>> split_label("v2=my_agents.py:make_v2"), split_label("expert")
    (('v2', 'my_agents.py:make_v2'), (None, 'expert'))
    """
    label, sep, spec = name.partition("=")
    return (label.strip(), spec.strip()) if sep else (None, name.strip())


def make_entries(names: Sequence[str]) -> tuple[Entry, ...]:
    """The participants of a lineup, with labels made unique by ``#k`` where a name repeats;
    ``LABEL=SPEC`` gives a participant its own label (as in the ladder).

    >>> [e.label for e in make_entries(["expert", "route_focus", "route_focus"])]
    ['expert', 'route_focus#1', 'route_focus#2']
    >>> [(e.agent, e.label) for e in make_entries(["rf=route_focus", "hard"])]
    [('route_focus', 'rf'), ('hard', 'hard')]
    """
    if not names:
        raise ValueError("a tournament needs at least one agent")
    split = [split_label(name) for name in names]
    own_labels = [label if label is not None else spec for label, spec in split]
    counts = Counter(own_labels)
    seen: Counter[str] = Counter()
    entries = []
    for index, ((_, spec), own) in enumerate(zip(split, own_labels, strict=True)):
        seen[own] += 1
        label = own if counts[own] == 1 else f"{own}#{seen[own]}"
        entries.append(Entry(index, spec, label))
    return tuple(entries)


def seatings(participants: int, players: int) -> list[tuple[int, ...]]:
    """One cycle of seatings (a participant index per seat); see the module docstring.

    >>> seatings(3, 3)
    [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    >>> seatings(1, 2)
    [(0, 0)]
    """
    if participants < 1 or players < 1:
        raise ValueError("need at least one participant and one seat")
    if participants >= players:
        return list(permutations(range(participants), players))
    # Cycle through the lineup, continuing across games, until the offset comes back to 0.
    cycle: list[tuple[int, ...]] = []
    offset = 0
    while True:
        cycle.append(tuple((offset + seat) % participants for seat in range(players)))
        offset = (offset + players) % participants
        if offset == 0:
            return cycle


def cycle_length(participants: int, players: int) -> int:
    """How many games it takes for every participant to sit in every seat equally often."""
    return len(seatings(participants, players))


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything a worker needs to play game ``game`` of a tournament (picklable, small)."""

    game: int
    seed: int
    players: int
    first_player: int
    seating: tuple[int, ...]
    agents: tuple[str, ...]
    labels: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    tournament_seed: int
    variant: str = ""  # the rules as JSON (Variant.to_dict); empty for the official rules


def variant_text(variant: Variant | None) -> str:
    """A variant as :attr:`GameSpec.variant` carries it: JSON, or empty for the official rules."""
    return "" if variant is None or variant == OFFICIAL else json.dumps(variant.to_dict(), sort_keys=True)


def schedule(
    names: Sequence[str], players: int, games: int, seed: int, variant: Variant | None = None
) -> list[GameSpec]:
    """The games of a tournament, in order. Game ``i`` depends only on ``seed``, ``i``, the lineup
    and the rules (``variant``, official by default)."""
    entries = make_entries(names)
    rules = variant_text(variant)
    cycle = seatings(len(entries), players)
    specs = []
    for game in range(games):
        seating = cycle[game % len(cycle)]
        specs.append(
            GameSpec(
                game=game,
                seed=derive_seed(seed, "game", game),
                players=players,
                first_player=0,
                seating=seating,
                agents=tuple(entries[e].agent for e in seating),
                labels=tuple(entries[e].label for e in seating),
                agent_seeds=tuple(derive_seed(seed, "agent", game, seat) for seat in range(players)),
                tournament_seed=seed,
                variant=rules,
            )
        )
    return specs
