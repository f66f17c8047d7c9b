"""Tournament plots as PNG files (matplotlib, Agg; needs the ``reports`` extra).

* ``win_rate_matrix.png``: head to head, each participant's share of the games against each other one;
* ``win_rates.png``: win rate per participant and per seat, with 95% Wilson intervals;
* ``score_distributions.png``: final scores per participant (violins and histograms);
* ``route_heatmap.png``: how often each route was claimed, drawn on the board's geometry
  (city positions are pixels of the 1125×1744 board image, so the y axis points down);
* ``route_heatmap_by_agent.png``: the same per participant (the share of its games in which it claimed the route).

Only :class:`matplotlib.figure.Figure` is used (no ``pyplot``), so no global state or GUI is touched.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine import Board, load_board
from .play import TournamentError
from .results import GameRow
from .schedule import Entry
from .summary import Summary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap, Normalize
    from matplotlib.figure import Figure

#: Board image size in pixels (the cities' x/y coordinates).
BOARD_WIDTH = 1125
BOARD_HEIGHT = 1744
#: Half the gap between the two lanes of a double route, in board pixels.
TWIN_OFFSET = 7.0

PLOT_FILES = (
    "win_rate_matrix.png",
    "win_rates.png",
    "score_distributions.png",
    "route_heatmap.png",
    "route_heatmap_by_agent.png",
)


MATPLOTLIB_HINT = (
    "plots need matplotlib, in the reports extra: .venv/bin/pip install -e '.[reports]' in a checkout "
    "(pip install 'ttr-nordic[reports]' elsewhere)"
)


def have_matplotlib() -> bool:
    """Whether the plots can be drawn (matplotlib, from the ``reports`` extra, is installed)."""
    return importlib.util.find_spec("matplotlib") is not None


def require_matplotlib() -> None:
    """Raise :class:`TournamentError` with the install hint when matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        raise TournamentError(MATPLOTLIB_HINT)


def _figure(width: float, height: float) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=120, layout="constrained")


def _active(entries: Sequence[Entry], summary: Summary) -> list[Entry]:
    """The participants that played at least one game."""
    return [e for e in entries if summary.agents[e.index].games > 0]


def plot_win_matrix(summary: Summary, entries: Sequence[Entry], path: Path) -> None:
    import matplotlib

    labels = [e.label for e in entries]
    n = len(labels)
    data = [[math.nan if v is None else v for v in row] for row in summary.head_to_head]
    fig = _figure(2.2 + 1.3 * n, 1.6 + 1.1 * n)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="0.88")
    image = ax.imshow(data, cmap=cmap, vmin=0.0, vmax=1.0)
    for a in range(n):
        for b in range(n):
            value = summary.head_to_head[a][b]
            text = "–" if value is None else f"{value:.2f}\nn={summary.head_to_head_games[a][b]}"
            ax.text(b, a, text, ha="center", va="center", fontsize=9)
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("head to head: row's share of games against column\n(ties count 1/2)", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.savefig(path)


def plot_win_rates(summary: Summary, entries: Sequence[Entry], path: Path) -> None:
    fig = _figure(10, 4)
    left, right = fig.subplots(1, 2, width_ratios=[max(2, len(entries)), summary.players])
    shown = _active(entries, summary)
    agents = [summary.agents[e.index] for e in shown]
    xs = list(range(len(agents)))
    rates = [a.win_rate for a in agents]
    left.bar(xs, rates, color="tab:blue", alpha=0.8)
    left.errorbar(
        xs,
        rates,
        yerr=[[a.win_rate - a.win_rate_low for a in agents], [a.win_rate_high - a.win_rate for a in agents]],
        fmt="none",
        ecolor="black",
        capsize=4,
    )
    if len(entries) >= summary.players:
        left.axhline(1 / summary.players, color="tab:red", linestyle="--", linewidth=1, label="1 / players")
        left.legend(fontsize=8)
    left.set_xticks(xs, [e.label for e in shown], rotation=20, ha="right")
    left.set_ylim(0, 1)
    left.set_ylabel("win rate (win shares / games)")
    left.set_title("win rate per agent, 95% Wilson interval", fontsize=10)
    seats = summary.seats
    sx = [s.seat for s in seats]
    srates = [s.win_rate for s in seats]
    right.bar(sx, srates, color="tab:gray", alpha=0.8)
    right.errorbar(
        sx,
        srates,
        yerr=[[s.win_rate - s.win_rate_low for s in seats], [s.win_rate_high - s.win_rate for s in seats]],
        fmt="none",
        ecolor="black",
        capsize=4,
    )
    right.axhline(1 / summary.players, color="tab:red", linestyle="--", linewidth=1, label="1 / players")
    right.set_xticks(sx, [f"seat {s}" + (" (first)" if s == 0 else "") for s in sx])
    right.set_ylim(0, 1)
    right.set_title("win rate per seat", fontsize=10)
    right.legend(fontsize=8)
    fig.savefig(path)


def plot_scores(rows: Sequence[GameRow], entries: Sequence[Entry], path: Path) -> None:
    data: list[list[float]] = [[] for _ in entries]
    for row in rows:
        for seat, entry in enumerate(row.seating):
            data[entry].append(row.scores[seat])
    shown = [(e, data[e.index]) for e in entries if data[e.index]]
    fig = _figure(11, 4.5)
    left, right = fig.subplots(1, 2)
    if shown:
        positions = list(range(1, len(shown) + 1))
        parts = left.violinplot([d for _, d in shown], positions=positions, showmeans=True, showmedians=True)
        parts["cmedians"].set_color("black")
        left.set_xticks(positions, [e.label for e, _ in shown], rotation=20, ha="right")
        low = min(min(d) for _, d in shown)
        high = max(max(d) for _, d in shown)
        if low == high:
            high = low + 1
        for participant, values in shown:
            right.hist(values, bins=30, range=(low, high), histtype="step", linewidth=1.5, label=participant.label)
        right.legend(fontsize=8)
    left.set_ylabel("final score")
    left.set_title("score distribution per agent (blue bar: mean, black: median)", fontsize=10)
    right.set_xlabel("final score")
    right.set_ylabel("seats")
    right.set_title("score histogram", fontsize=10)
    fig.savefig(path)


def _draw_board(ax: Axes, board: Board, share: Sequence[float], cmap: Colormap, norm: Normalize) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.patheffects import withStroke

    segments = []
    for route in board.routes:
        a, b = board.cities[route.a], board.cities[route.b]
        x1, y1, x2, y2 = a.x, a.y, b.x, b.y
        if route.twin is not None:
            dx, dy = x2 - x1, y2 - y1
            length = math.hypot(dx, dy) or 1.0
            sign = 1.0 if route.id < route.twin else -1.0
            ox, oy = -dy / length * TWIN_OFFSET * sign, dx / length * TWIN_OFFSET * sign
            x1, y1, x2, y2 = x1 + ox, y1 + oy, x2 + ox, y2 + oy
        segments.append([(x1, y1), (x2, y2)])
    ax.add_collection(LineCollection(segments, colors="0.8", linewidths=0.8, zorder=1))
    scaled = [norm(v) for v in share]
    ax.add_collection(
        LineCollection(
            segments,
            colors=[cmap(float(v)) for v in scaled],
            linewidths=[1.0 + 5.0 * float(v) for v in scaled],
            capstyle="round",
            zorder=2,
        )
    )
    xs = [c.x for c in board.cities]
    ys = [c.y for c in board.cities]
    ax.scatter(xs, ys, s=14, color="black", zorder=3)
    for city in board.cities:
        ax.annotate(
            city.name,
            (city.x, city.y),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=6,
            zorder=4,
            path_effects=[withStroke(linewidth=2, foreground="white")],
        )
    ax.set_xlim(0, BOARD_WIDTH)
    ax.set_ylim(BOARD_HEIGHT, 0)  # image pixels: y grows downwards, north is up
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def route_shares(rows: Sequence[GameRow], board: Board, entry: int | None = None) -> list[float]:
    """Per route, the share of games in which it was claimed (by anyone, or by ``entry``
    among the games ``entry`` played)."""
    counts = [0] * len(board.routes)
    games = 0
    for row in rows:
        if entry is not None and entry not in row.seating:
            continue
        games += 1
        for rid, char in enumerate(row.route_owners):
            if char != "-" and (entry is None or row.seating[int(char)] == entry):
                counts[rid] += 1
    return [c / games if games else 0.0 for c in counts]


def plot_route_heatmap(rows: Sequence[GameRow], path: Path, board: Board | None = None) -> None:
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    board = board or load_board()
    share = route_shares(rows, board)
    cmap = matplotlib.colormaps["plasma_r"]
    norm = Normalize(0.0, 1.0)
    fig = _figure(7.5, 10.5)
    ax = fig.add_subplot()
    _draw_board(ax, board, share, cmap, norm)
    ax.set_title(f"routes claimed: share of {len(rows)} games", fontsize=11)
    fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.5, label="share of games with the route claimed")
    fig.savefig(path)


def plot_route_heatmap_by_agent(
    rows: Sequence[GameRow], entries: Sequence[Entry], path: Path, board: Board | None = None
) -> None:
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    board = board or load_board()
    cmap = matplotlib.colormaps["plasma_r"]
    norm = Normalize(0.0, 1.0)
    fig = _figure(4.2 * len(entries) + 1.0, 6.8)
    axes = fig.subplots(1, len(entries), squeeze=False)[0]
    for ax, entry in zip(axes, entries, strict=True):
        _draw_board(ax, board, route_shares(rows, board, entry.index), cmap, norm)
        ax.set_title(f"claimed by {entry.label}", fontsize=10)
    fig.colorbar(
        ScalarMappable(norm, cmap), ax=list(axes), shrink=0.6, label="share of the agent's games with the route"
    )
    fig.savefig(path)


def make_plots(rows: Sequence[GameRow], entries: Sequence[Entry], summary: Summary, out: Path) -> list[Path]:
    """Write every plot into ``out``; returns the files written."""
    require_matplotlib()
    out.mkdir(parents=True, exist_ok=True)
    board = load_board()
    paths = [out / name for name in PLOT_FILES]
    plot_win_matrix(summary, entries, paths[0])
    plot_win_rates(summary, entries, paths[1])
    plot_scores(rows, entries, paths[2])
    plot_route_heatmap(rows, paths[3], board)
    plot_route_heatmap_by_agent(rows, entries, paths[4], board)
    return paths
