"""``ttr-nordic tune``: search ticket values for a balance goal, and write the tuned variant with the
report that justifies it.

The goal: every participant's win rate, at every player count asked for, lies within
``tolerance`` of an even share (``1 / players``; ``1 / 2`` for two participants at three players).
The knobs: two scale factors on the ticket values, one for the short tickets (at most the median
value) and one for the long ones; a ticket is worth ``max(1, round(points × scale))``. The search:

1. one common scale for every ticket, tried over a grid (``--scales``; 1.0 is the rules as given);
2. then, from the best, each group's scale in turn multiplied by ``1 / step`` and ``step``, for
   ``--rounds`` rounds, a change kept only when it brings the rates closer to the goal (no round
   at all when the rules as given already meet it).

A candidate is judged by how far the win rates lie outside the band (summed); among candidates
equally close to the goal (all inside the band, say), the least change to the ticket values wins,
then the smallest largest distance from an even share: a designer changes no more than the goal
asks, and the rules as given are kept when they already meet it. Every candidate plays the same
seeds (common random numbers), so two candidates differ by their ticket values, not by their luck.
The best is then played again on fresh seeds (the validation playtest, a full playtest report), so
that the report does not rest on the games the search chose it by.

>>> scaled_points((2, 5, 10, 20), 0.5, 2.0, median=5)
(1, 2, 20, 40)
"""

from __future__ import annotations

import copy
import html
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..engine.board import board_to_dict
from ..engine.variant import Variant
from .playtest import PlaytestConfig, run_playtest, write_csv, write_outputs
from .playtest_report import STYLE, cell, image, table
from .playtest_stats import Row, win_rates

#: The scales tried first (a common factor on every ticket value).
DEFAULT_SCALES = (0.6, 0.8, 1.0, 1.25, 1.5)
#: Each refining move multiplies a group's scale by this factor or divides it by it.
DEFAULT_STEP = 1.2


def scaled_points(points: Sequence[int], short: float, long: float, median: float) -> tuple[int, ...]:
    """Ticket values with the short ones (at most ``median``) scaled by ``short``, the others by ``long``."""
    return tuple(max(1, round(p * (short if p <= median else long))) for p in points)


def ticket_variant(base: Variant, points: Sequence[int], name: str) -> Variant:
    """``base`` with its tickets worth ``points`` (its board written out whole, so the file stands alone)."""
    data = copy.deepcopy(base.to_dict())
    board = board_to_dict(base.board)
    for ticket, value in zip(board["tickets"], points, strict=True):
        ticket["points"] = value
    data["board"] = board
    data["name"] = name
    data["description"] = (base.description + " " if base.description else "") + "Ticket values tuned."
    return Variant.from_dict(data, source=name)


@dataclass(frozen=True)
class Candidate:
    """One setting of the knobs and how it played."""

    index: int
    stage: str
    short: float
    long: float
    points: tuple[int, ...]
    rates: tuple[Row, ...]  # win_rates rows
    miss: float  # summed distance of the win rates outside the band
    spread: float  # the largest distance from an even share
    change: float  # ticket points moved, as a share of all the points: sum |new - old| / sum old

    @property
    def key(self) -> tuple[float, float, float]:
        return (round(self.miss, 9), round(self.change, 9), round(self.spread, 9))


def judge(rates: Sequence[Row], tolerance: float) -> tuple[float, float]:
    """(distance outside the band summed, largest distance from an even share).

    >>> judge([{"win_rate": 0.7, "even_share": 0.5}, {"win_rate": 0.3, "even_share": 0.5}], 0.1)
    (0.2, 0.2)
    """
    miss = spread = 0.0
    for r in rates:
        distance = abs(r["win_rate"] - r["even_share"])
        miss += max(0.0, distance - tolerance)
        spread = max(spread, distance)
    return (round(miss, 12), round(spread, 12))


@dataclass(frozen=True)
class TuneSettings:
    """The goal and the budget of a search."""

    playtest: PlaytestConfig  # agents, games per candidate and player count, seed, workers, base variant
    tolerance: float = 0.1
    scales: tuple[float, ...] = DEFAULT_SCALES
    step: float = DEFAULT_STEP
    rounds: int = 2


def search(settings: TuneSettings, on_candidate: Callable[[Candidate], None] | None = None) -> list[Candidate]:
    """Play every candidate the search visits; returns them in order (the best: ``min(key=...)``)."""
    base = settings.playtest.variant
    points = tuple(t.points for t in base.board.tickets)
    median = statistics.median(points)
    tried: dict[tuple[int, ...], Candidate] = {}
    order: list[Candidate] = []

    def evaluate(stage: str, short: float, long: float) -> Candidate:
        values = scaled_points(points, short, long, median)
        if values in tried:
            return tried[values]
        variant = base if values == points else ticket_variant(base, values, f"{base.name}-tuned")
        facts = run_playtest(replace(settings.playtest, variant=variant))
        rates = win_rates(facts)
        miss, spread = judge(rates, settings.tolerance)
        change = sum(abs(new - old) for new, old in zip(values, points, strict=True)) / sum(points)
        found = Candidate(len(order), stage, short, long, values, tuple(rates), miss, spread, change)
        tried[values] = found
        order.append(found)
        if on_candidate is not None:
            on_candidate(found)
        return found

    best = min((evaluate("common scale", s, s) for s in settings.scales), key=lambda c: c.key)
    for _ in range(settings.rounds):
        if best.miss == 0 and best.change == 0:
            break  # the rules as given meet the goal: nothing can beat them
        improved = False
        for group in ("short", "long"):
            for factor in (1 / settings.step, settings.step):
                short = best.short * factor if group == "short" else best.short
                long = best.long * factor if group == "long" else best.long
                found = evaluate(f"{group} tickets × {factor:.3g}", short, long)
                if found.key < best.key:
                    best, improved = found, True
        if not improved:
            break
    return order


def _rates_text(c: Candidate) -> str:
    return "; ".join(f"{r['players']}p {r['label']} {r['win_rate']:.3f}" for r in c.rates)


def candidate_rows(candidates: Sequence[Candidate]) -> list[Row]:
    """One row per candidate: its scales, how it was judged, each win rate (``2p label``) and its ticket values."""
    return [
        {"candidate": c.index, "stage": c.stage, "short_scale": c.short, "long_scale": c.long}
        | {"miss": c.miss, "change": c.change, "spread": c.spread}
        | {f"{r['players']}p {r['label']}": r["win_rate"] for r in c.rates}
        | {"points": " ".join(map(str, c.points))}
        for c in candidates
    ]


def _rate_of(candidate: Candidate, players: int, label: str) -> float:
    rows = [r["win_rate"] for r in candidate.rates if (r["players"], r["label"]) == (players, label)]
    return float(rows[0]) if rows else math.nan


def _progress_figure(candidates: Sequence[Candidate], tolerance: float) -> bytes:
    from .playtest_figures import _figure, png

    fig = _figure(9, 3.4)
    ax = fig.add_subplot()
    labels = sorted({(r["players"], r["label"]) for c in candidates for r in c.rates})
    for players, label in labels:
        ys = [_rate_of(c, players, label) for c in candidates]
        ax.plot(range(len(candidates)), ys, marker="o", label=f"{players}p {label}")
    for even in sorted({r["even_share"] for r in candidates[0].rates}):
        ax.axhspan(even - tolerance, even + tolerance, alpha=0.12, color="tab:green")
    ax.set_xticks(range(len(candidates)), [str(c.index) for c in candidates])
    ax.set_xlabel("candidate (in the order tried)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title("win rates of each candidate; shaded: the goal's band per player count", fontsize=10)
    ax.legend(fontsize=7, ncols=3)
    return png(fig)


def render_tune(
    settings: TuneSettings, candidates: Sequence[Candidate], best: Candidate, validation: Sequence[Row]
) -> str:
    base = settings.playtest.variant
    original = [t.points for t in base.board.tickets]
    changed = [
        {"ticket": t.name, "rules": old, "tuned": new}
        for t, old, new in zip(base.board.tickets, original, best.points, strict=True)
        if old != new
    ]
    band = settings.tolerance
    met = all(abs(r["win_rate"] - r["even_share"]) <= band for r in validation)
    inside = all(r["low"] <= r["even_share"] + band and r["high"] >= r["even_share"] - band for r in validation)
    if met:
        verdict = '<b class="good">met</b>: every win rate of the validation games lies in the band'
    elif inside:
        verdict = (
            '<b class="bad">not met</b> by the win rates of the validation games, though every 95% interval '
            "reaches the band: more games per candidate (--games) would tell"
        )
    else:
        verdict = '<b class="bad">not met</b>: a 95% interval of the validation games lies wholly outside the band'
    if best.points == tuple(original):
        verdict += "; the rules as given were the best candidate, and the written variant keeps them"
    goal = (
        f"every participant's win rate within ±{settings.tolerance:g} of an even share at "
        f"{' and '.join(map(str, settings.playtest.players))} players"
    )
    c = settings.playtest
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Ticket values tuned</title><style>{STYLE}</style></head><body>"
        f"<header><h1>Ticket values tuned: {html.escape(', '.join(c.agents))}</h1>"
        f"<p>from the rules {html.escape(base.name)}; {c.games} games per candidate and player count; "
        f"seed {c.seed}</p></header><main>"
        f"<section><h2>Goal and result</h2><p>Goal: {html.escape(goal)}. Result: {verdict}.</p>"
        f"<p>Chosen: candidate {best.index} (short tickets × {best.short:.3g}, long tickets × {best.long:.3g}), "
        "written to <code>tuned-variant.json</code>. Validation playtest on fresh seeds: "
        '<a href="validation/report.html">validation/report.html</a>.</p>'
        + table(validation, ["players", "label", "games", "wins", "win_rate", "low", "high", "even_share"])
        + f"</section><section><h2>Ticket values changed ({len(changed)})</h2>"
        + table(changed, scroll=True)
        + "</section><section><h2>Every candidate tried</h2>"
        + image(_progress_figure(candidates, settings.tolerance), "win rates per candidate")
        + table([{k: v for k, v in r.items() if k != "points"} for r in candidate_rows(candidates)])
        + '<p class="note">miss: how far the win rates lie outside the band, summed; change: ticket points moved '
        "as a share of all points; spread: the largest distance from an even share. Candidates share their "
        "seeds.</p></section></main></body></html>\n"
    )


def write_tune(settings: TuneSettings, candidates: Sequence[Candidate], out: Path) -> tuple[Candidate, list[Row]]:
    """Validate the best candidate on fresh seeds and write ``tuned-variant.json``, ``tune.csv``,
    ``tune.html`` and ``validation/`` (a full playtest) into ``out``; returns the best and its
    validation win rates."""
    best = min(candidates, key=lambda c: c.key)
    base = settings.playtest.variant
    points = tuple(t.points for t in base.board.tickets)
    variant = base if best.points == points else ticket_variant(base, best.points, f"{base.name}-tuned")
    check = replace(settings.playtest, variant=variant, seed=settings.playtest.seed + 1)
    facts = run_playtest(check)
    out.mkdir(parents=True, exist_ok=True)
    write_outputs(check, facts, out / "validation")
    validation = win_rates(facts)
    text = json.dumps(variant.to_dict(), indent=1, ensure_ascii=False)
    (out / "tuned-variant.json").write_text(text + "\n", encoding="utf-8")
    write_csv(out / "tune.csv", candidate_rows(candidates))
    (out / "tune.html").write_text(render_tune(settings, candidates, best, validation), encoding="utf-8")
    return best, validation


def describe(candidate: Candidate) -> str:
    """One progress line about a candidate."""
    return (
        f"  candidate {candidate.index} ({candidate.stage}): short × {cell(candidate.short)}, long × "
        f"{cell(candidate.long)}: miss {candidate.miss:.3f}, spread {candidate.spread:.3f} [{_rates_text(candidate)}]"
    )


def settings_dict(settings: TuneSettings) -> dict[str, Any]:
    return settings.playtest.settings() | {
        "tolerance": settings.tolerance,
        "scales": list(settings.scales),
        "step": settings.step,
        "rounds": settings.rounds,
    }
