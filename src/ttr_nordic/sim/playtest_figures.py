"""The playtest report's figures (matplotlib, Agg; needs the ``reports`` extra), each returned as PNG bytes.

Maps are drawn from the board data: city positions as the board gives them (pixels of the board
image, y pointing down), each lane of a double route drawn beside its twin.

Only :class:`matplotlib.figure.Figure` is used (no ``pyplot``), so no global state or GUI is touched.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine import Board
from .playtest_facts import GameFacts
from .playtest_stats import PHASES, Row

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Half the gap between the two lanes of a double route, as a share of the board's width.
TWIN_OFFSET = 0.007


def _figure(width: float, height: float) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight", pad_inches=0.08)
    return buffer.getvalue()


def _by_players(rows: Sequence[Row], players: int) -> list[Row]:
    return [r for r in rows if r["players"] == players]


def win_rates_figure(rates: Sequence[Row], seats: Sequence[Row], counts: Sequence[int]) -> bytes:
    """Per player count: each participant's win rate and each seat's, with 95% Wilson intervals."""
    fig = _figure(10, 3.2 * len(counts))
    axes = fig.subplots(len(counts), 2, squeeze=False)
    for (left, right), players in zip(axes, counts, strict=True):
        for ax, rows, key, name in (
            (left, _by_players(rates, players), "label", "participant"),
            (right, _by_players(seats, players), "seat", "seat"),
        ):
            xs = list(range(len(rows)))
            values = [r["win_rate"] for r in rows]
            errors = [[r["win_rate"] - r["low"] for r in rows], [r["high"] - r["win_rate"] for r in rows]]
            ax.bar(xs, values, color="tab:blue" if key == "label" else "tab:gray", alpha=0.85)
            ax.errorbar(xs, values, yerr=errors, fmt="none", ecolor="black", capsize=4)
            even = rows[0]["even_share"] if key == "label" and rows else 1 / players
            ax.axhline(even, color="tab:red", linestyle="--", linewidth=1)
            names = [
                str(r[key]) if key == "label" else f"seat {r['seat']}" + (" (first)" * (r["seat"] == 0)) for r in rows
            ]
            ax.set_xticks(xs, names, rotation=15 if key == "label" else 0)
            ax.set_ylim(0, 1)
            ax.set_ylabel("win rate")
            ax.set_title(
                f"{players} players: win rate per {name}\n95% Wilson interval; dashed: even share", fontsize=10
            )
    return png(fig)


def score_sources_figure(sources: Sequence[Row], counts: Sequence[int]) -> bytes:
    """Per player count and participant: mean points from routes, tickets won, Globetrotter, and tickets lost."""
    fig = _figure(10, 3.2 * len(counts))
    axes = fig.subplots(len(counts), 1, squeeze=False)[:, 0]
    parts = (
        ("routes", "tab:blue"),
        ("tickets_won", "tab:green"),
        ("globetrotter", "tab:orange"),
        ("longest_path_bonus", "tab:purple"),
    )
    for ax, players in zip(axes, counts, strict=True):
        rows = _by_players(sources, players)
        ys = list(range(len(rows)))
        left = [0.0] * len(rows)
        for name, color in parts:
            values = [r[name] for r in rows]
            ax.barh(ys, values, left=left, color=color, label=name.replace("_", " "))
            left = [a + b for a, b in zip(left, values, strict=True)]
        ax.barh(ys, [r["tickets_lost"] for r in rows], color="tab:red", label="tickets lost")
        ax.scatter([r["score"] for r in rows], ys, marker="D", color="black", zorder=3, label="mean total")
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(ys, [str(r["label"]) for r in rows])
        ax.set_xlabel("mean points per seat played")
        ax.set_title(f"{players} players: where the points come from", fontsize=10)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, fontsize=8, ncols=5, loc="outside lower center")
    return png(fig)


def lengths_figure(facts: Sequence[GameFacts], counts: Sequence[int]) -> bytes:
    """Histogram of turns per game, one series per player count."""
    fig = _figure(8, 3.2)
    ax = fig.add_subplot()
    turns = [f.turns for f in facts]
    low, high = min(turns), max(turns) + 1
    for players in counts:
        values = [f.turns for f in facts if f.players == players]
        ax.hist(
            values,
            bins=min(30, max(5, high - low)),
            range=(low, high),
            histtype="step",
            linewidth=1.8,
            label=f"{players} players ({len(values)} games)",
        )
    ax.set_xlabel("turns per game (every player's turns, passes included)")
    ax.set_ylabel("games")
    ax.set_title("game length", fontsize=10)
    ax.legend(fontsize=8)
    return png(fig)


def tickets_figure(tickets: Sequence[Row], players: int) -> bytes:
    """Each ticket's keep rate (kept / offered) and completion rate (completed / kept), by points."""
    rows = sorted(_by_players(tickets, players), key=lambda r: (r["points"], r["name"]))
    fig = _figure(10, 0.19 * len(rows) + 1.2)
    ax = fig.add_subplot()
    ys = list(range(len(rows)))
    keep = [0.0 if math.isnan(r["keep_rate"]) else r["keep_rate"] for r in rows]
    done = [0.0 if math.isnan(r["completion_rate"]) else r["completion_rate"] for r in rows]
    ax.barh([y + 0.2 for y in ys], keep, height=0.4, color="tab:blue", label="kept / offered")
    ax.barh([y - 0.2 for y in ys], done, height=0.4, color="tab:green", label="completed / kept")
    ax.set_yticks(ys, [f"{r['name']} ({r['points']})" for r in rows], fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_title(f"{players} players: tickets by value, kept and completed", fontsize=10)
    fig.legend(fontsize=8, ncols=2, loc="outside lower center")
    return png(fig)


def _extent(board: Board) -> tuple[float, float, float, float]:
    xs = [c.x for c in board.cities]
    ys = [c.y for c in board.cities]
    pad = 0.06 * max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    return min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad


def _aspect(board: Board) -> float:
    """Height over width of the board's map, kept between 0.5 and 2."""
    x0, x1, y0, y1 = _extent(board)
    return min(2.0, max(0.5, (y1 - y0) / (x1 - x0)))


def _lanes(board: Board) -> list[list[tuple[float, float]]]:
    x0, x1, _, _ = _extent(board)
    offset = TWIN_OFFSET * (x1 - x0)
    segments = []
    for route in board.routes:
        a, b = board.cities[route.a], board.cities[route.b]
        ax_, ay, bx, by = a.x, a.y, b.x, b.y
        if route.twin is not None:
            dx, dy = bx - ax_, by - ay
            length = math.hypot(dx, dy) or 1.0
            sign = 1.0 if route.id < route.twin else -1.0
            ox, oy = -dy / length * offset * sign, dx / length * offset * sign
            ax_, ay, bx, by = ax_ + ox, ay + oy, bx + ox, by + oy
        segments.append([(ax_, ay), (bx, by)])
    return segments


def _base_map(ax: Axes, board: Board, labels: bool = True) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.patheffects import withStroke

    ax.add_collection(LineCollection(_lanes(board), colors="0.82", linewidths=0.8, zorder=1))
    if labels:
        for city in board.cities:
            ax.annotate(
                city.name,
                (city.x, city.y),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize=5.5,
                zorder=5,
                path_effects=[withStroke(linewidth=1.8, foreground="white")],
            )
    x0, x1, y0, y1 = _extent(board)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)  # board pixels: y grows downwards, north is up
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def route_maps_figure(
    board: Board, panels: Sequence[tuple[str, Sequence[float]]], scale_label: str, shared_scale: bool = True
) -> bytes:
    """One board map per panel, each lane coloured and thickened by its value: from 0 to the
    largest value of all panels, or of its own panel when the panels measure different things."""
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize

    cmap = matplotlib.colormaps["plasma_r"]
    top = max((max(values, default=0.0) for _, values in panels), default=0.0) or 1.0
    width = {1: 7.0, 2: 4.8}.get(len(panels), 3.6)
    fig = _figure(width * len(panels) + 1.0 * (1 if shared_scale else len(panels)), width * _aspect(board) + 0.5)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, values) in zip(axes, panels, strict=True):
        norm = Normalize(0.0, top if shared_scale else max(values, default=0.0) or 1.0)
        _base_map(ax, board, labels=len(panels) <= 2)
        scaled = [float(norm(v)) for v in values]
        ax.add_collection(
            LineCollection(
                _lanes(board),
                colors=[cmap(v) if v > 0 else (0, 0, 0, 0) for v in scaled],
                linewidths=[0.8 + 5.0 * v for v in scaled],
                capstyle="round",
                zorder=2,
            )
        )
        ax.scatter([c.x for c in board.cities], [c.y for c in board.cities], s=8, color="black", zorder=3)
        ax.set_title(title, fontsize=9)
        if not shared_scale:
            fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.5, label=scale_label)
    if shared_scale:
        fig.colorbar(ScalarMappable(Normalize(0.0, top), cmap), ax=list(axes), shrink=0.6, label=scale_label)
    return png(fig)


def city_map_figure(board: Board, cities: Sequence[Row], players: int) -> bytes:
    """Cities sized by the routes claimed around them and coloured by the tickets that name them."""
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    rows = _by_players(cities, players)
    claims = [r["claims_per_game"] for r in rows]
    tickets = [r["tickets_per_game"] for r in rows]
    cmap = matplotlib.colormaps["viridis"]
    norm = Normalize(0.0, max(tickets, default=0.0) or 1.0)
    top = max(claims, default=0.0) or 1.0
    fig = _figure(6.4, 5.4 * _aspect(board) + 0.8)
    ax = fig.add_subplot()
    _base_map(ax, board)
    ax.scatter(
        [c.x for c in board.cities],
        [c.y for c in board.cities],
        s=[20 + 380 * v / top for v in claims],
        c=[cmap(float(norm(v))) for v in tickets],
        edgecolors="black",
        linewidths=0.5,
        alpha=0.85,
        zorder=4,
    )
    ax.set_title(
        f"{players} players: circle area = routes claimed at the city per game\n"
        f"(largest {top:.1f}); colour = kept tickets naming it per game",
        fontsize=9,
    )
    fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.5, label="kept tickets naming the city, per game")
    return png(fig)


def phase_panels(routes: Sequence[Row], players: int) -> list[tuple[str, list[float]]]:
    """The route maps of one player count's claims by third of the game (claims per game)."""
    rows = _by_players(routes, players)
    panels = []
    for phase in PHASES:
        total = sum(r[phase] for r in rows)
        games = rows[0]["games"] if rows else 1
        panels.append((f"{phase} third: {total / games:.1f} claims per game", [r[phase] / games for r in rows]))
    return panels
