"""A playtest's tables: the facts of many games (see :mod:`.playtest_facts`) counted per agent,
seat, player count, ticket, route and city. Each table is a list of rows (dicts) that the report
shows and writes as a CSV file.

Win rates count win shares (a tie that survives the tie-breaks splits the win) with 95% Wilson
intervals, as the tournament summary does.

>>> from ttr_nordic.sim.playtest_facts import GameFacts
>>> facts = [GameFacts(0, 1, 2, ("a", "b"), ("a", "b"), (80, 60), (50, 40), (30, 20), (0, 0), (10, 0),
...                    (0, 0), (1.0, 0.0), "score", 40, 200)]
>>> [(r["label"], r["wins"], r["games"]) for r in win_rates(facts)]
[('a', 1.0, 1), ('b', 0.0, 1)]
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import Board
from .playtest_facts import EDGE_CASES, GameFacts
from .summary import wilson_interval

Row = dict[str, Any]

PHASES = ("early", "mid", "late")


def _rate(successes: float, trials: int) -> tuple[float, float, float]:
    low, high = wilson_interval(successes, trials)
    return (successes / trials if trials else math.nan, low, high)


def player_counts(facts: Iterable[GameFacts]) -> list[int]:
    return sorted({f.players for f in facts})


def win_rates(facts: Sequence[GameFacts]) -> list[Row]:
    """Per player count and participant: games, win shares, win rate and its 95% Wilson interval, and
    the even share (``1 / min(participants, players)``)."""
    games: dict[tuple[int, str], int] = defaultdict(int)
    wins: dict[tuple[int, str], float] = defaultdict(float)
    agent: dict[str, str] = {}
    for f in facts:
        counted: set[str] = set()
        for seat, label in enumerate(f.labels):
            agent[label] = f.agents[seat]
            wins[f.players, label] += f.win_shares[seat]
            if label not in counted:
                games[f.players, label] += 1
                counted.add(label)
    rows = []
    for (players, label), n in sorted(games.items()):
        rate, low, high = _rate(wins[players, label], n)
        # Win rates of the participants add up to 1 over a cycle of seatings: with fewer
        # participants than seats (2 in 3-player games) an even share is 1/2, not 1/3.
        participants = sum(1 for p, _ in games if p == players)
        rows.append(
            {"players": players, "label": label, "agent": agent[label], "games": n, "wins": wins[players, label]}
            | {"win_rate": rate, "low": low, "high": high, "even_share": 1 / min(participants, players)}
        )
    return rows


def seat_rates(facts: Sequence[GameFacts]) -> list[Row]:
    """Per player count and seat (seat 0 plays first): win rate, its interval, and the advantage over
    an even share (``1 / players``) with the same interval shifted."""
    games: dict[tuple[int, int], int] = defaultdict(int)
    wins: dict[tuple[int, int], float] = defaultdict(float)
    for f in facts:
        for seat in range(f.players):
            games[f.players, seat] += 1
            wins[f.players, seat] += f.win_shares[seat]
    rows = []
    for (players, seat), n in sorted(games.items()):
        rate, low, high = _rate(wins[players, seat], n)
        even = 1 / players
        rows.append(
            {"players": players, "seat": seat, "games": n, "wins": wins[players, seat], "win_rate": rate}
            | {"low": low, "high": high, "advantage": rate - even, "advantage_low": low - even}
            | {"advantage_high": high - even}
        )
    return rows


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return (math.nan, math.nan)
    return (statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0)


def score_sources(facts: Sequence[GameFacts]) -> list[Row]:
    """Per player count and participant, per seat played: mean total and where it came from
    (routes, tickets completed, tickets failed as a negative number, Globetrotter, a variant's
    longest-path bonus)."""
    parts: dict[tuple[int, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for f in facts:
        for seat, label in enumerate(f.labels):
            values = parts[f.players, label]
            values["score"].append(f.scores[seat])
            values["routes"].append(f.route_points[seat])
            values["tickets_won"].append(f.ticket_gain[seat])
            values["tickets_lost"].append(-f.ticket_loss[seat])
            values["globetrotter"].append(f.globetrotter[seat])
            values["longest_path_bonus"].append(f.longest_path_bonus[seat])
    rows = []
    for (players, label), values in sorted(parts.items()):
        mean, sd = _mean_sd(values["score"])
        row: Row = {"players": players, "label": label, "seats": len(values["score"]), "score": mean, "score_sd": sd}
        for name in ("routes", "tickets_won", "tickets_lost", "globetrotter", "longest_path_bonus"):
            row[name] = statistics.fmean(values[name])
        rows.append(row)
    return rows


def game_lengths(facts: Sequence[GameFacts]) -> list[Row]:
    """Per player count: turns and actions per game (mean, median, spread)."""
    rows = []
    for players in player_counts(facts):
        turns = [f.turns for f in facts if f.players == players]
        actions = [f.actions for f in facts if f.players == players]
        mean, sd = _mean_sd(turns)
        rows.append(
            {"players": players, "games": len(turns), "turns_mean": mean, "turns_sd": sd}
            | {"turns_median": statistics.median(turns), "turns_min": min(turns), "turns_max": max(turns)}
            | {"actions_mean": statistics.fmean(actions)}
        )
    return rows


def ticket_table(facts: Sequence[GameFacts], board: Board) -> list[Row]:
    """Per player count and ticket: how often it was offered, kept and completed, and its mean
    value to the seat that kept it (+points completed, -points failed)."""
    offered: dict[tuple[int, int], int] = defaultdict(int)
    kept: dict[tuple[int, int], int] = defaultdict(int)
    completed: dict[tuple[int, int], int] = defaultdict(int)
    value: dict[tuple[int, int], int] = defaultdict(int)
    for f in facts:
        for _seat, ticket in f.offered:
            offered[f.players, ticket] += 1
        for t in f.tickets:
            kept[f.players, t.ticket] += 1
            completed[f.players, t.ticket] += t.completed
            value[f.players, t.ticket] += t.value
    rows = []
    for players in player_counts(facts):
        for card in board.tickets:
            key = (players, card.id)
            k = kept[key]
            rows.append(
                {"players": players, "ticket": card.id, "name": card.name, "points": card.points}
                | {"offered": offered[key], "kept": k, "keep_rate": k / offered[key] if offered[key] else math.nan}
                | {"completed": completed[key], "completion_rate": completed[key] / k if k else math.nan}
                | {"mean_value": value[key] / k if k else math.nan}
            )
    return rows


def route_table(facts: Sequence[GameFacts], board: Board) -> list[Row]:
    """Per player count and lane (each lane of a double route is its own row): claims, claims by
    third of the game, how often the claimer needed it for an incomplete ticket when claiming it,
    how often it decided its owner's ticket, how often it was taken to block."""
    rows = []
    for players in player_counts(facts):
        games = [f for f in facts if f.players == players]
        # total, early, mid, late, decides, blocks, needed by the claimer
        claims: dict[int, list[int]] = defaultdict(lambda: [0] * 7)
        for f in games:
            for c in f.claims:
                counts = claims[c.route]
                counts[0] += 1
                counts[1 + c.third] += 1
                counts[4] += c.decides
                counts[5] += c.blocks
                counts[6] += c.needed_by_claimer
        for route in board.routes:
            total, early, mid, late, decides, blocks, needed = claims[route.id]
            twin = "" if route.twin is None else board.routes[route.twin].code
            rows.append(
                {"players": players, "games": len(games), "route": route.code, "name": route.name}
                | {"length": route.length}
                | {"color": route.color_name, "kind": route.kind.value, "twin": twin}
                | {"claimed": total, "claim_rate": total / len(games), "early": early, "mid": mid, "late": late}
                | {"needed_by_claimer": needed, "decides_ticket": decides, "blocking": blocks}
            )
    return rows


def city_table(facts: Sequence[GameFacts], board: Board) -> list[Row]:
    """Per player count and city: routes claimed that touch it, and kept tickets that name it (per game)."""
    rows = []
    for players in player_counts(facts):
        games = [f for f in facts if f.players == players]
        claims = [0] * len(board.cities)
        tickets = [0] * len(board.cities)
        blocks = [0] * len(board.cities)
        for f in games:
            for c in f.claims:
                route = board.routes[c.route]
                for city in (route.a, route.b):
                    claims[city] += 1
                    blocks[city] += c.blocks
            for t in f.tickets:
                ends = board.tickets[t.ticket]
                tickets[ends.a] += 1
                tickets[ends.b] += 1
        for place in board.cities:
            rows.append(
                {"players": players, "city": place.name, "x": round(place.x), "y": round(place.y)}
                | {"claims_per_game": claims[place.id] / len(games), "tickets_per_game": tickets[place.id] / len(games)}
                | {"blocking_per_game": blocks[place.id] / len(games)}
            )
    return rows


SPECIAL_FIELDS = (
    "tunnel_attempts",
    "tunnel_free",
    "tunnel_paid",
    "tunnel_declined",
    "tunnel_extra_cards",
    "ferry_claims",
    "ferry_locomotives",
    "ferry_substitutes",
    "locomotives_face_up",
    "locomotives_blind",
    "locomotives_spent",
)


def special_table(facts: Sequence[GameFacts]) -> list[Row]:
    """Per player count: tunnels, ferries and locomotives, totals and per game."""
    rows = []
    for players in player_counts(facts):
        games = [f for f in facts if f.players == players]
        for name in SPECIAL_FIELDS:
            total = sum(getattr(f, name) for f in games)
            rows.append({"players": players, "statistic": name, "total": total, "per_game": total / len(games)})
    return rows


@dataclass(frozen=True)
class EdgeCase:
    """A state the rules settle by a convention, the games it arose in and the records kept to replay it."""

    kind: str
    description: str
    games: tuple[int, ...]
    occurrences: int


def edge_cases(facts: Sequence[GameFacts]) -> list[EdgeCase]:
    """Every kind of :data:`~.playtest_facts.EDGE_CASES` with the games where it arose."""
    out = []
    for kind, description in EDGE_CASES.items():
        games = tuple(f.game for f in facts if f.edges.get(kind))
        occurrences = sum(f.edges.get(kind, 0) for f in facts)
        out.append(EdgeCase(kind, description, games, occurrences))
    return out


def game_rows(facts: Sequence[GameFacts]) -> list[Row]:
    """One row per seat of each game: the raw data ``--compare`` reads back."""
    rows = []
    for f in facts:
        for seat in range(f.players):
            rows.append(
                {"game": f.game, "seed": f.seed, "players": f.players, "seat": seat, "label": f.labels[seat]}
                | {"agent": f.agents[seat], "score": f.scores[seat], "route_points": f.route_points[seat]}
                | {"tickets_won": f.ticket_gain[seat], "tickets_lost": f.ticket_loss[seat]}
                | {"globetrotter": f.globetrotter[seat], "longest_path_bonus": f.longest_path_bonus[seat]}
                | {"win_share": f.win_shares[seat], "turns": f.turns}
                | {"actions": f.actions, "decided_by": f.decided_by}
            )
    return rows
