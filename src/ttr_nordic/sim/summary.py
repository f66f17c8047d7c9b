"""Tournament statistics: per participant, per seat, head to head.

Wins are counted as *win shares*: a sole winner gets 1, and a tie that survives the
rules' tie-breaks (R9.6: score, then completed tickets, then longest path) gives each of
the k tied seats 1/k. Shares add up to the number of games, so win rates of the
participants of a game add up to 1, and the Wilson interval is computed on the share
count (a fractional "number of successes"; with no shared tie it is the textbook interval).

Head to head, participant A beats B in a game when A's best seat ranks above B's best
seat by the same order (score, tickets completed, longest path); an exact tie counts 1/2.
In 2-player games this is simply A's win rate against B.

>>> low, high = wilson_interval(5, 10)
>>> round(low, 3), round(high, 3)
(0.237, 0.763)
"""

from __future__ import annotations

import math
import statistics
import textwrap
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

from .results import GameRow
from .schedule import Entry, cycle_length


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``successes / trials``.

    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    >>> wilson_interval(10, 10)[1]
    1.0
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError("successes must lie between 0 and trials")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One participant's results. ``games`` counts games it played (once per game, even when
    it filled two seats); scores, tickets and decisions are per seat it played."""

    entry: int
    label: str
    agent: str
    games: int
    seat_games: int
    wins: float
    shared_wins: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    mean_score: float
    median_score: float
    mean_tickets_completed: float
    mean_tickets_failed: float
    mean_turns: float
    decisions: int
    time_mean: float
    time_median: float
    time_max: float


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """Results by seat (seat 0 plays first), whoever sat there."""

    seat: int
    games: int
    wins: float
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    mean_score: float


@dataclass(frozen=True)
class Summary:
    games: int
    players: int
    agents: tuple[AgentSummary, ...]
    seats: tuple[SeatSummary, ...]
    #: ``head_to_head[a][b]``: A's share of the games against B (None on the diagonal or with no game).
    head_to_head: tuple[tuple[float | None, ...], ...]
    head_to_head_games: tuple[tuple[int, ...], ...]
    decided_by: dict[str, int]
    mean_turns: float
    mean_actions: float
    cycle_length: int

    @property
    def balanced(self) -> bool:
        """Whether every participant sat in every seat equally often."""
        return self.games % self.cycle_length == 0

    def to_dict(self) -> dict[str, Any]:
        labels = [a.label for a in self.agents]
        return {
            "games": self.games,
            "players": self.players,
            "wins_counted_as": "win shares: a tie shared by k seats gives each 1/k",
            "seat_rotation": {"cycle_length": self.cycle_length, "balanced": self.balanced},
            "agents": [asdict(a) for a in self.agents],
            "seats": [asdict(s) for s in self.seats],
            "head_to_head": {
                "labels": labels,
                "rate": [list(row) for row in self.head_to_head],
                "games": [list(row) for row in self.head_to_head_games],
            },
            "decided_by": dict(self.decided_by),
            "mean_turns": self.mean_turns,
            "mean_actions": self.mean_actions,
        }


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else math.nan


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else math.nan


def _rank_key(row: GameRow, seat: int) -> tuple[int, int, int]:
    return (row.scores[seat], row.tickets_completed[seat], row.longest_path[seat])


def summarize(rows: Sequence[GameRow], entries: Sequence[Entry], players: int) -> Summary:
    """The statistics of a tournament's rows."""
    n = len(entries)
    games = [0] * n
    wins = [0.0] * n
    shared = [0] * n
    scores: list[list[float]] = [[] for _ in range(n)]
    completed: list[list[float]] = [[] for _ in range(n)]
    failed: list[list[float]] = [[] for _ in range(n)]
    turns: list[list[float]] = [[] for _ in range(n)]
    decisions = [0] * n
    time_total = [0.0] * n
    time_max = [0.0] * n
    times = [array("d") for _ in range(n)]
    medians: list[list[float]] = [[] for _ in range(n)]  # fallback when rows carry no raw times
    seat_games = [0] * players
    seat_wins = [0.0] * players
    seat_scores: list[list[float]] = [[] for _ in range(players)]
    h2h = [[0.0] * n for _ in range(n)]
    h2h_games = [[0] * n for _ in range(n)]
    decided: Counter[str] = Counter()

    for row in rows:
        decided[row.decided_by] += 1
        shares = row.win_shares()
        best: dict[int, tuple[int, int, int]] = {}
        share_of: dict[int, float] = {}
        for seat, entry in enumerate(row.seating):
            share_of[entry] = share_of.get(entry, 0.0) + shares[seat]
            key = _rank_key(row, seat)
            if entry not in best or key > best[entry]:
                best[entry] = key
            scores[entry].append(row.scores[seat])
            completed[entry].append(row.tickets_completed[seat])
            failed[entry].append(row.tickets_failed[seat])
            decisions[entry] += row.decisions[seat]
            time_total[entry] += row.time_total[seat]
            time_max[entry] = max(time_max[entry], row.time_max[seat])
            if row.decision_times:
                times[entry].extend(row.decision_times[seat])
            elif row.decisions[seat]:
                medians[entry].append(row.time_median[seat])
            seat_games[seat] += 1
            seat_wins[seat] += shares[seat]
            seat_scores[seat].append(row.scores[seat])
        for entry, share in share_of.items():
            games[entry] += 1
            wins[entry] += share
            if 0 < share < 1:
                shared[entry] += 1
            turns[entry].append(row.turns)
        for a in best:
            for b in best:
                if a != b:
                    h2h_games[a][b] += 1
                    if best[a] > best[b]:
                        h2h[a][b] += 1.0
                    elif best[a] == best[b]:
                        h2h[a][b] += 0.5

    agents = []
    for e in entries:
        i = e.index
        rate = wins[i] / games[i] if games[i] else math.nan
        low, high = wilson_interval(wins[i], games[i])
        agents.append(
            AgentSummary(
                entry=i,
                label=e.label,
                agent=e.agent,
                games=games[i],
                seat_games=len(scores[i]),
                wins=wins[i],
                shared_wins=shared[i],
                win_rate=rate,
                win_rate_low=low,
                win_rate_high=high,
                mean_score=_mean(scores[i]),
                median_score=_median(scores[i]),
                mean_tickets_completed=_mean(completed[i]),
                mean_tickets_failed=_mean(failed[i]),
                mean_turns=_mean(turns[i]),
                decisions=decisions[i],
                time_mean=time_total[i] / decisions[i] if decisions[i] else math.nan,
                time_median=_median(times[i]) if len(times[i]) else _median(medians[i]),
                time_max=time_max[i],
            )
        )
    seats = []
    for seat in range(players):
        low, high = wilson_interval(seat_wins[seat], seat_games[seat])
        seats.append(
            SeatSummary(
                seat=seat,
                games=seat_games[seat],
                wins=seat_wins[seat],
                win_rate=seat_wins[seat] / seat_games[seat] if seat_games[seat] else math.nan,
                win_rate_low=low,
                win_rate_high=high,
                mean_score=_mean(seat_scores[seat]),
            )
        )
    matrix = tuple(
        tuple(h2h[a][b] / h2h_games[a][b] if a != b and h2h_games[a][b] else None for b in range(n)) for a in range(n)
    )
    return Summary(
        games=len(rows),
        players=players,
        agents=tuple(agents),
        seats=tuple(seats),
        head_to_head=matrix,
        head_to_head_games=tuple(tuple(r) for r in h2h_games),
        decided_by=dict(sorted(decided.items())),
        mean_turns=_mean([r.turns for r in rows]),
        mean_actions=_mean([r.actions for r in rows]),
        cycle_length=cycle_length(n, players),
    )


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.3g}"


def _num(value: float, digits: int = 1) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def _wins(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def summary_table(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the per-participant results table (wins and scores)."""
    headers = ["agent", "games", "wins", "win rate [95% CI]", "mean score", "median score"]
    rows = []
    for a in summary.agents:
        rate = "-" if math.isnan(a.win_rate) else f"{a.win_rate:.3f} [{a.win_rate_low:.3f}, {a.win_rate_high:.3f}]"
        rows.append([a.label, str(a.games), _wins(a.wins), rate, _num(a.mean_score), _num(a.median_score)])
    return headers, rows


def play_table(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the per-participant play table: tickets per game, and the time each
    decision took, in milliseconds (mean, median, slowest)."""
    headers = ["agent", "tickets done", "failed", "decisions", "mean ms", "median ms", "max ms"]
    rows = [
        [
            a.label,
            _num(a.mean_tickets_completed, 2),
            _num(a.mean_tickets_failed, 2),
            str(a.decisions),
            _ms(a.time_mean),
            _ms(a.time_median),
            _ms(a.time_max),
        ]
        for a in summary.agents
    ]
    return headers, rows


def format_text_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain aligned table: the first column left-aligned, the others right-aligned.

    >>> print(format_text_table(["a", "b"], [["x", "10"]]))
    a   b
    -  --
    x  10
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def format_summary(summary: Summary) -> str:
    """The whole summary as plain text: participants, seats, head to head, how games were decided."""
    headers, rows = summary_table(summary)
    out = [format_text_table(headers, rows)]
    out.append("")
    out.append("tickets: mean per game; decisions: all games; time per decision in milliseconds:")
    out.append(format_text_table(*play_table(summary)))
    out.append("")
    seat_rows = [
        [
            f"seat {s.seat}" + (" (first)" if s.seat == 0 else ""),
            str(s.games),
            _wins(s.wins),
            f"{s.win_rate:.3f} [{s.win_rate_low:.3f}, {s.win_rate_high:.3f}]" if s.games else "-",
            _num(s.mean_score),
        ]
        for s in summary.seats
    ]
    out.append(format_text_table(["seat", "games", "wins", "win rate [95% CI]", "mean score"], seat_rows))
    labels = [a.label for a in summary.agents]
    if len(labels) > 1:
        out.append("")
        out.append("head to head (row's share of the games against column; ties count 1/2):")
        h2h_rows = [
            [labels[a], *("-" if v is None else f"{v:.3f}" for v in summary.head_to_head[a])]
            for a in range(len(labels))
        ]
        out.append(format_text_table(["", *labels], h2h_rows))
    out.append("")
    decided = ", ".join(f"{how}: {count}" for how, count in summary.decided_by.items())
    out.append(
        f"{summary.games} games, {summary.players} players; per game: mean {summary.mean_turns:.1f} turns, "
        f"{summary.mean_actions:.1f} actions"
    )
    notes = [
        f"decided by {decided}",
        "wins are win shares: a tie that survives the tie-breaks gives each of the k tied seats 1/k",
    ]
    if not summary.balanced:
        notes.append(
            f"note: {summary.games} is not a multiple of the seat rotation cycle ({summary.cycle_length} games), "
            "so seats are not perfectly balanced"
        )
    for note in notes:
        out.extend(textwrap.wrap(note, 80, break_on_hyphens=False))  # an 80-column terminal shows it unwrapped
    return "\n".join(out)
