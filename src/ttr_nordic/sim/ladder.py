"""A rating ladder: every participant rated against every other, games and ratings kept in SQLite.

A *participant* is a label and an agent spec: a registered agent or level name (``route_focus``,
``expert``) or an import spec for a saved agent version (``my_agents.py:make_v2``, see
:func:`ttr_nordic.ai.registry.load_factory`). A label keeps its spec for the life of the ladder,
so two versions of one agent are two labels.

Games are played in *tables*: each set of ``players`` distinct participants. Table ``T`` plays its
games ``0, 1, 2, …`` cycling through every seating (seats alternated), and game ``i``'s deal and
agent seeds derive from the ladder seed, ``T`` and ``i`` only. So a ladder is deterministic, a rerun
plays only the games it lacks (an interrupted run resumes), and adding a participant later adds its
tables without touching what is stored.

Ratings are the maximum-likelihood Plackett–Luce strengths of all stored games of one player count
(with two players this is the Bradley–Terry model), fitted by Hunter's MM algorithm, on the Elo
scale (400·log10 of the strength) with one participant as the 0 anchor. Intervals come from a
bootstrap over games. Every pair of participants also gets one virtual drawn game, a weak prior that
keeps a participant that never lost finite.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as folder:
...     ladder = Ladder(pathlib.Path(folder) / "ladder.sqlite", seed=3)
...     ladder.add("rnd", "random"); ladder.add("rf", "route_focus")
...     played = ladder.play(players=2, games=2)
...     table = ladder.table(players=2, anchor="rnd", bootstrap=20)
...     ladder.close()
>>> played, [row.label for row in table.rows], table.rows[0].games
(2, ['rf', 'rnd'], 2)
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from pathlib import Path

from ..ai.registry import make_agent
from ..paths import check_writable_folder
from .backends import batches, run_batches
from .play import TournamentError
from .results import GameRow
from .schedule import GameSpec, derive_seed, seatings
from .summary import wilson_interval

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    label TEXT PRIMARY KEY, spec TEXT NOT NULL, added TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    table_key TEXT NOT NULL,
    game INTEGER NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    labels TEXT NOT NULL,      -- JSON list, one label per seat (seat 0 plays first)
    scores TEXT NOT NULL,      -- JSON list of final totals
    winners TEXT NOT NULL,     -- JSON list of winning seats
    decided_by TEXT NOT NULL,
    decision_max TEXT NOT NULL, -- JSON list: each seat's slowest decision, seconds
    record TEXT NOT NULL,      -- the replayable game record
    PRIMARY KEY (table_key, game)
);
CREATE TABLE IF NOT EXISTS ratings (
    players INTEGER NOT NULL,
    label TEXT NOT NULL,
    elo REAL NOT NULL,
    low REAL NOT NULL,
    high REAL NOT NULL,
    games INTEGER NOT NULL,
    fitted TEXT NOT NULL,
    PRIMARY KEY (players, label)
);
"""

#: Preferred anchors (rating 0), in order, when none is named.
DEFAULT_ANCHORS = ("route_focus", "hard")

#: Names a label may not take: they would read as a spec.
LABEL_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+#")


class LadderError(ValueError):
    """A ladder cannot do what was asked (a bad label or spec, a mismatched seed, no games)."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """One stored game: labels and totals per seat, the winning seats."""

    table_key: str
    game: int
    labels: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def ranking(self) -> list[list[int]]:
        """Seats grouped best first: the winners, then the others by total (equal totals tie)."""
        rest = sorted({self.scores[s] for s in range(len(self.labels)) if s not in self.winners}, reverse=True)
        groups = [sorted(self.winners)]
        for total in rest:
            groups.append([s for s in range(len(self.labels)) if s not in self.winners and self.scores[s] == total])
        return groups

    def margin(self, seat: int) -> int:
        """The seat's total minus the best other total."""
        return self.scores[seat] - max(score for s, score in enumerate(self.scores) if s != seat)


@dataclass(frozen=True, slots=True)
class Rating:
    label: str
    elo: float
    low: float  # 95% bootstrap interval
    high: float
    games: int
    win_rate: float  # share of wins (shared wins count as a fraction)
    mean_margin: float  # own total minus the best other total


@dataclass(frozen=True, slots=True)
class PairResult:
    """Head to head, from the two-player games of ``a`` against ``b``."""

    a: str
    b: str
    games: int
    a_wins: float  # shared victories count half
    low: float  # Wilson 95% interval of a's win rate
    high: float
    mean_margin: float  # a's total minus b's
    sd_margin: float


@dataclass(frozen=True, slots=True)
class LadderTable:
    players: int
    anchor: str
    rows: tuple[Rating, ...]  # strongest first
    pairs: tuple[PairResult, ...]
    games: int


def table_key(players: int, labels: Iterable[str]) -> str:
    """The key of the table where ``labels`` play ``players``-player games.

    >>> table_key(2, ["hard", "easy"])
    '2:easy|hard'
    """
    return f"{players}:" + "|".join(sorted(labels))


def check_label(label: str) -> str:
    if not label or not set(label) <= LABEL_CHARS or len(label) > 60:
        raise LadderError(f"a label is 1-60 letters, digits or _-.+#, got {label!r}")
    return label


def parse_participant(text: str) -> tuple[str, str]:
    """``LABEL=SPEC`` or a bare agent name (its own label).

    >>> parse_participant("expert"), parse_participant("v2=agents.py:make")
    (('expert', 'expert'), ('v2', 'agents.py:make'))
    """
    label, sep, spec = text.strip().partition("=")
    if not sep:
        spec = label
    label, spec = label.strip(), spec.strip()
    if not sep and ":" in spec:
        raise LadderError(f"give an import spec a label: LABEL={spec}")
    return check_label(label), spec


class Ladder:
    """A ladder stored in one SQLite file (created when missing). Not for use from several
    processes at once; the games themselves run on the chosen backend."""

    def __init__(self, path: str | Path, seed: int | None = None, create: bool = True) -> None:
        self.path = Path(path)
        existed = self.path.exists()
        if not existed and not create:
            raise LadderError(f"no ladder at {self.path} (ladder run --db {self.path} makes one)")
        if not existed:
            problem = check_writable_folder(self.path)
            if problem is not None:
                raise LadderError(f"cannot make a ladder at {self.path}: {problem}")
        elif self.path.is_dir():
            raise LadderError(f"{self.path} is a folder, not a ladder file")
        try:
            self.db = sqlite3.connect(self.path)
            if existed:
                self._check_is_ladder()
            self.db.executescript(SCHEMA)
            stored = self.db.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise LadderError(f"{self.path} is not a ladder file ({exc})") from None
        if stored is None:
            self.seed = 0 if seed is None else seed
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('seed', ?)", (str(self.seed),))
        else:
            self.seed = int(stored[0])
            if seed is not None and seed != self.seed:
                self.close()
                raise LadderError(f"{self.path} was made with seed {self.seed}, not {seed}")

    def _check_is_ladder(self) -> None:
        """Refuse an existing SQLite file made by something else (a tournament's results, say):
        the ladder's tables are never added to it. An empty file is a ladder yet to be made."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not {"meta", "participants", "games"} <= tables:
            raise sqlite3.DatabaseError(f"it holds other tables: {', '.join(sorted(tables))}")

    def close(self) -> None:
        if hasattr(self, "db"):
            self.db.close()

    # -- participants ---------------------------------------------------------------------

    def add(self, label: str, spec: str) -> None:
        """Add a participant, or check that ``label`` already has ``spec`` (a bare label names the
        participant already there). The spec must make an agent."""
        check_label(label)
        row = self.db.execute("SELECT spec FROM participants WHERE label = ?", (label,)).fetchone()
        if row is not None:
            if row[0] != spec and spec != label:
                raise LadderError(f"{label!r} is already in the ladder as {row[0]!r}; give {spec!r} another label")
            return
        try:
            make_agent(spec, 0)
        except ValueError as exc:
            raise LadderError(str(exc)) from None
        with self.db:
            self.db.execute(
                "INSERT INTO participants VALUES (?, ?, ?)", (label, spec, time.strftime("%Y-%m-%dT%H:%M:%S"))
            )

    def participants(self) -> dict[str, str]:
        """Label → spec, in the order they were added."""
        return dict(self.db.execute("SELECT label, spec FROM participants ORDER BY rowid").fetchall())

    # -- playing ----------------------------------------------------------------------------

    def specs(
        self, players: int, games: int, labels: Sequence[str] | None = None, only_with: str | None = None
    ) -> list[GameSpec]:
        """The games still missing for ``games`` per table, over ``labels`` (default: everyone)."""
        if players not in (2, 3):
            raise LadderError(f"Nordic Countries is for 2 or 3 players, not {players}")
        known = self.participants()
        chosen = list(known) if labels is None else list(labels)
        for label in chosen:
            if label not in known:
                raise LadderError(f"{label!r} is not in the ladder (known: {', '.join(known) or 'none'})")
        if len(chosen) < players:
            raise LadderError(f"{players}-player tables need at least {players} participants")
        missing: list[GameSpec] = []
        for group in combinations(sorted(chosen), players):
            if only_with is not None and only_with not in group:
                continue
            key = table_key(players, group)
            have = {g for (g,) in self.db.execute("SELECT game FROM games WHERE table_key = ?", (key,))}
            cycle = seatings(players, players)
            for game in range(games):
                if game in have:
                    continue
                seating = cycle[game % len(cycle)]
                seat_labels = tuple(group[i] for i in seating)
                missing.append(
                    GameSpec(
                        game=game,
                        seed=derive_seed(self.seed, key, "game", game),
                        players=players,
                        first_player=0,
                        seating=seating,
                        agents=tuple(known[label] for label in seat_labels),
                        labels=seat_labels,
                        agent_seeds=tuple(derive_seed(self.seed, key, "agent", game, s) for s in range(players)),
                        tournament_seed=self.seed,
                    )
                )
        return missing

    def play(
        self,
        players: int,
        games: int,
        labels: Sequence[str] | None = None,
        *,
        workers: int = 1,
        backend: str = "process",
        address: str | None = None,
        batch_size: int | None = None,
        only_with: str | None = None,
        on_game: Callable[[int], None] | None = None,
    ) -> int:
        """Play the missing games (each stored as soon as its batch returns); the number played."""
        todo = self.specs(players, games, labels, only_with)
        if not todo:
            return 0
        size = batch_size or (
            1 if workers == 1 and backend == "process" else max(1, min(10, len(todo) // (workers * 4)))
        )
        played = 0
        for rows in run_batches(batches(todo, size), backend, workers, address):
            self.store(rows)
            played += len(rows)
            if on_game is not None:
                on_game(len(rows))
        return played

    def store(self, rows: Sequence[GameRow]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        table_key(row.players, row.labels),
                        row.game,
                        row.players,
                        row.seed,
                        json.dumps(list(row.labels)),
                        json.dumps(list(row.scores)),
                        json.dumps(list(row.winners)),
                        row.decided_by,
                        json.dumps([round(t, 6) for t in row.time_max]),
                        row.record,
                    )
                    for row in rows
                ],
            )

    def games(self, players: int, labels: Sequence[str] | None = None) -> list[LadderGame]:
        """Stored games of ``players`` players (only among ``labels`` when given), in table and game order."""
        allowed = None if labels is None else set(labels)
        out = []
        for key, game, seat_labels, scores, winners in self.db.execute(
            "SELECT table_key, game, labels, scores, winners FROM games WHERE players = ? ORDER BY table_key, game",
            (players,),
        ):
            names = tuple(json.loads(seat_labels))
            if allowed is not None and not set(names) <= allowed:
                continue
            out.append(LadderGame(key, game, names, tuple(json.loads(scores)), tuple(json.loads(winners))))
        return out

    def max_decision_s(self, label: str, players: int) -> float:
        """The slowest decision ``label`` made in stored ``players``-player games (seconds, this machine)."""
        slowest = 0.0
        for seat_labels, times in self.db.execute(
            "SELECT labels, decision_max FROM games WHERE players = ?", (players,)
        ):
            for seat, name in enumerate(json.loads(seat_labels)):
                if name == label:
                    slowest = max(slowest, json.loads(times)[seat])
        return slowest

    # -- ratings ----------------------------------------------------------------------------

    def table(
        self,
        players: int,
        anchor: str | None = None,
        labels: Sequence[str] | None = None,
        bootstrap: int = 200,
        store: bool = True,
        on_sample: Callable[[int], None] | None = None,
    ) -> LadderTable:
        """Fit the ratings of every participant with stored ``players``-player games; ``on_sample(1)``
        is called after each bootstrap resample (the slow part: a progress display)."""
        played = self.games(players, labels)
        if not played:
            raise LadderError(f"no {players}-player games stored in {self.path}")
        names = sorted({label for game in played for label in game.labels})
        if anchor is None:
            anchor = next((a for a in DEFAULT_ANCHORS if a in names), names[0])
        elif anchor not in names:
            raise LadderError(f"anchor {anchor!r} has no {players}-player games (rated: {', '.join(names)})")
        elo = fit_elo(played, names, anchor)
        rng = random.Random(derive_seed(self.seed, "bootstrap", players))
        samples: dict[str, list[float]] = {name: [] for name in names}
        by_table: dict[str, list[LadderGame]] = {}
        for game in played:
            by_table.setdefault(game.table_key, []).append(game)
        for _ in range(bootstrap):
            resampled = [rng.choice(group) for group in by_table.values() for _ in group]
            fitted = fit_elo(resampled, names, anchor)
            for name in names:
                samples[name].append(fitted[name])
            if on_sample is not None:
                on_sample(1)
        rows = []
        for name in names:
            low, high = _percentiles(samples[name], 0.025, 0.975) if bootstrap else (elo[name], elo[name])
            mine = [(game, game.labels.index(name)) for game in played if name in game.labels]
            wins = sum(1 / len(game.winners) for game, seat in mine if seat in game.winners)
            margins = [game.margin(seat) for game, seat in mine]
            rows.append(Rating(name, elo[name], low, high, len(mine), wins / len(mine), sum(margins) / len(margins)))
        rows.sort(key=lambda r: -r.elo)
        pairs = pair_results(played) if players == 2 else ()
        result = LadderTable(players, anchor, tuple(rows), pairs, len(played))
        if store:
            fitted_at = time.strftime("%Y-%m-%dT%H:%M:%S")
            with self.db:
                self.db.execute("DELETE FROM ratings WHERE players = ?", (players,))
                self.db.executemany(
                    "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(players, r.label, r.elo, r.low, r.high, r.games, fitted_at) for r in rows],
                )
        return result


def _percentiles(values: Sequence[float], *quantiles: float) -> tuple[float, ...]:
    ordered = sorted(values)
    last = len(ordered) - 1
    return tuple(ordered[min(last, max(0, round(q * last)))] for q in quantiles)


def fit_plackett_luce(
    rankings: Sequence[tuple[Sequence[int], float]], items: int, iterations: int = 500, tolerance: float = 1e-10
) -> list[float]:
    """Maximum-likelihood Plackett–Luce strengths (Hunter 2004, MM algorithm), normalised to mean 1.

    ``rankings`` are (item indices best first, weight). Strengths of items that never won a stage
    go to 0; callers add a prior (see :func:`fit_elo`).

    >>> strengths = fit_plackett_luce([((0, 1), 3.0), ((1, 0), 1.0)], 2)
    >>> round(strengths[0] / strengths[1], 6)
    3.0
    """
    gamma = [1.0] * items
    wins = [0.0] * items
    for order, weight in rankings:
        for chosen in order[:-1]:
            wins[chosen] += weight
    for _ in range(iterations):
        denominators = [0.0] * items
        for order, weight in rankings:
            tail = sum(gamma[i] for i in order)
            for j in range(len(order) - 1):
                share = weight / tail
                for i in order[j:]:
                    denominators[i] += share
                tail -= gamma[order[j]]
        new = [wins[i] / denominators[i] if denominators[i] > 0 else gamma[i] for i in range(items)]
        mean = sum(new) / items
        new = [g / mean for g in new]
        change = max(abs(a - b) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tolerance:
            break
    return gamma


def game_rankings(game: LadderGame, index: dict[str, int]) -> list[tuple[list[int], float]]:
    """A game as weighted full rankings: each tie expanded into its orders, sharing the weight."""
    return [(list(order), weight) for order, weight in _expand(game.ranking(), game.labels, index)]


def _expand(
    groups: Sequence[Sequence[int]], labels: Sequence[str], index: dict[str, int]
) -> list[tuple[tuple[int, ...], float]]:
    """Seat groups (best first, each a tie) as full rankings of participant indices with their weights."""
    expanded: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    for group in groups:
        orders = list(permutations(group))
        expanded = [
            (prefix + tuple(index[labels[seat]] for seat in order), weight / len(orders))
            for prefix, weight in expanded
            for order in orders
        ]
    return expanded


def fit_elo(played: Sequence[LadderGame], names: Sequence[str], anchor: str) -> dict[str, float]:
    """Elo ratings (anchor = 0) from games, with one virtual drawn game between every pair that met."""
    index = {name: i for i, name in enumerate(names)}
    # The likelihood depends only on how often each full ranking occurs: games that order the same
    # participants the same way are one weighted ranking (a ladder of thousands of games has a few
    # dozen distinct ones), which makes a fit, and the bootstrap's 200 fits, that much cheaper.
    outcomes: dict[tuple[tuple[str, ...], tuple[tuple[int, ...], ...]], int] = {}
    for game in played:
        key = (game.labels, tuple(tuple(group) for group in game.ranking()))
        outcomes[key] = outcomes.get(key, 0) + 1
    weights: dict[tuple[int, ...], float] = {}
    met: set[tuple[int, int]] = set()
    for (labels, groups), count in outcomes.items():
        for order, weight in _expand(groups, labels, index):
            weights[order] = weights.get(order, 0.0) + count * weight
        met.update(combinations(sorted({index[label] for label in labels}), 2))
    rankings: list[tuple[Sequence[int], float]] = list(weights.items())
    for a, b in sorted(met):
        rankings.append(((a, b), 0.5))
        rankings.append(((b, a), 0.5))
    gamma = fit_plackett_luce(rankings, len(names))
    base = math.log10(gamma[index[anchor]])
    return {name: 400 * (math.log10(gamma[index[name]]) - base) for name in names}


def pair_results(played: Sequence[LadderGame]) -> tuple[PairResult, ...]:
    """Head-to-head figures of every pair that met in two-player games."""
    by_pair: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for game in played:
        a, b = sorted(game.labels)
        seat_a = game.labels.index(a)
        win = 1 / len(game.winners) if seat_a in game.winners else 0.0
        by_pair.setdefault((a, b), []).append((win, game.margin(seat_a)))
    out = []
    for (a, b), results in sorted(by_pair.items()):
        n = len(results)
        wins = sum(w for w, _ in results)
        margins = [m for _, m in results]
        mean = sum(margins) / n
        sd = math.sqrt(sum((m - mean) ** 2 for m in margins) / (n - 1)) if n > 1 else 0.0
        low, high = wilson_interval(wins, n)
        out.append(PairResult(a, b, n, wins, low, high, mean, sd))
    return tuple(out)


def format_table(table: LadderTable, ladder: Ladder | None = None) -> str:
    """The ratings and the head-to-head figures as text (under 80 columns for labels up to 15 characters).

    ``won`` is each participant's share of its games won (ties shared); in the pair table, ``A won``
    and ``A margin`` are the first-named participant's share of the pair's games and mean margin.
    """
    width = max([len("participant"), *(len(row.label) for row in table.rows)])
    lines = [
        f"{table.players}-player ladder: {table.games} games; Elo with 95% bootstrap intervals, {table.anchor} = 0",
        f"{'rank':>4}  {'participant':<{width}}  {'Elo':>5}  {'95% interval':>12}  {'games':>5}  {'won':>5}  "
        f"{'margin':>6}" + ("  slowest ms" if ladder else ""),
    ]
    for rank, row in enumerate(table.rows, 1):
        interval = f"[{row.low:+.0f}, {row.high:+.0f}]" if row.label != table.anchor else "(anchor)"
        slowest = f"  {1000 * ladder.max_decision_s(row.label, table.players):10.1f}" if ladder else ""
        lines.append(
            f"{rank:>4}  {row.label:<{width}}  {row.elo:>+5.0f}  {interval:>12}  {row.games:>5}  "
            f"{row.win_rate:>5.3f}  {row.mean_margin:>+6.1f}{slowest}"
        )
    if table.pairs:
        names = [f"{pair.a} vs {pair.b}" for pair in table.pairs]
        pair_width = max([len("pair (A vs B)"), *(len(name) for name in names)])
        lines.append("")
        lines.append(
            f"{'pair (A vs B)':<{pair_width}}  {'games':>5}  {'A won':>5}  {'95% interval':>14}  "
            f"{'A margin':>8}  {'sd':>5}"
        )
        for name, pair in zip(names, table.pairs, strict=True):
            rate = pair.a_wins / pair.games
            lines.append(
                f"{name:<{pair_width}}  {pair.games:>5}  {rate:>5.3f}  "
                f"{f'[{pair.low:.3f}, {pair.high:.3f}]':>14}  {pair.mean_margin:>+8.1f}  {pair.sd_margin:>5.1f}"
            )
    return "\n".join(lines)


def plot_table(table: LadderTable, path: Path) -> Path:
    """The ratings with their intervals as a PNG (needs matplotlib, the ``reports`` extra)."""
    from .plots import _figure, require_matplotlib

    require_matplotlib()
    rows = list(reversed(table.rows))
    figure = _figure(7, 0.45 * len(rows) + 1.4)
    ax = figure.add_subplot(1, 1, 1)
    ys = range(len(rows))
    elo = [r.elo for r in rows]
    ax.errorbar(
        elo,
        list(ys),
        xerr=[[r.elo - r.low for r in rows], [r.high - r.elo for r in rows]],
        fmt="o",
        color="#1f4e79",
        ecolor="#6b8fb3",
        capsize=4,
    )
    ax.set_yticks(list(ys), [r.label for r in rows])
    ax.axvline(0, color="#999999", linewidth=0.8)
    ax.set_xlabel(f"Elo ({table.anchor} = 0), 95% bootstrap interval")
    ax.set_title(f"Ticket to Ride: Nordic Countries, {table.players}-player ladder ({table.games} games)")
    ax.grid(axis="x", alpha=0.3)
    figure.savefig(path, dpi=120)
    return path


__all__ = [
    "Ladder",
    "LadderError",
    "LadderGame",
    "LadderTable",
    "PairResult",
    "Rating",
    "TournamentError",
    "fit_elo",
    "fit_plackett_luce",
    "format_table",
    "parse_participant",
    "plot_table",
    "table_key",
]
