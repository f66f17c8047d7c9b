"""``ttr-nordic playtest --compare DIR_A DIR_B``: two earlier playtests side by side.

Each folder is a playtest's output (its ``games.csv``, one row per seat per game, and
``playtest.json``). For every player count and participant found in both, the comparison gives
B − A with a 95% interval:

* win rates (win shares / games): Newcombe's hybrid score interval for a difference of two
  independent proportions (built from the two Wilson intervals);
* mean score and each score source, and mean game length in turns: Welch's t-interval.

A difference whose interval leaves out 0 is marked. Outputs: ``compare.html`` (self-contained,
like the report) and ``compare.csv``.

>>> low, high = newcombe_interval(30, 100, 45, 100)
>>> round(low, 3), round(high, 3)
(0.016, 0.277)
"""

from __future__ import annotations

import csv
import html
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .playtest import write_csv
from .playtest_report import STYLE, cell, image, table
from .playtest_stats import Row
from .summary import wilson_interval

SCORE_FIELDS = ("score", "route_points", "tickets_won", "tickets_lost", "globetrotter", "longest_path_bonus")


class CompareError(ValueError):
    """A folder to compare is missing or is not a playtest's output."""


def newcombe_interval(wins_a: float, games_a: int, wins_b: float, games_b: int) -> tuple[float, float]:
    """95% interval of ``wins_b / games_b - wins_a / games_a`` (Newcombe's method 10)."""
    pa, pb = wins_a / games_a, wins_b / games_b
    la, ua = wilson_interval(wins_a, games_a)
    lb, ub = wilson_interval(wins_b, games_b)
    diff = pb - pa
    return (diff - math.hypot(pb - lb, ua - pa), diff + math.hypot(ub - pb, pa - la))


def welch_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """95% Welch t-interval of ``mean(b) - mean(a)`` (needs scipy for the t quantile).

    >>> low, high = welch_interval([1, 2, 3, 4], [3, 4, 5, 6])
    >>> round(low, 3), round(high, 3)
    (-0.234, 4.234)
    """
    from scipy.stats import t

    diff = statistics.fmean(b) - statistics.fmean(a)
    if len(a) < 2 or len(b) < 2:
        return (-math.inf, math.inf)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return (diff, diff)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(t.ppf(0.975, df)) * se
    return (diff - half, diff + half)


@dataclass(frozen=True)
class Playtest:
    """An earlier playtest read back: its settings and its per-seat rows."""

    folder: Path
    settings: dict[str, Any]
    rows: list[dict[str, str]]

    @property
    def name(self) -> str:
        return str(self.settings.get("variant") or self.folder.name)


def load_playtest(folder: Path) -> Playtest:
    """Read ``folder``'s ``playtest.json`` and ``games.csv``."""
    try:
        settings = json.loads((folder / "playtest.json").read_text(encoding="utf-8"))
        with (folder / "games.csv").open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except FileNotFoundError as exc:
        raise CompareError(f"{folder} is not a playtest's output folder (no {Path(exc.filename).name})") from None
    except (OSError, ValueError) as exc:
        raise CompareError(f"cannot read the playtest in {folder}: {exc}") from None
    if not isinstance(settings, dict) or not rows or "win_share" not in rows[0]:
        raise CompareError(f"{folder} is not a playtest's output folder (games.csv has no games)")
    return Playtest(folder, settings, rows)


def _win_counts(rows: Sequence[dict[str, str]]) -> dict[tuple[int, str], tuple[float, int]]:
    """(players, label) -> (win shares, games), a label counted once per game."""
    wins: dict[tuple[int, str], float] = defaultdict(float)
    games: dict[tuple[int, str], set[str]] = defaultdict(set)
    for r in rows:
        key = (int(r["players"]), r["label"])
        wins[key] += float(r["win_share"])
        games[key].add(r["game"])
    return {key: (wins[key], len(games[key])) for key in wins}


def _seat_counts(rows: Sequence[dict[str, str]]) -> dict[tuple[int, str], tuple[float, int]]:
    out: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for r in rows:
        counts = out[int(r["players"]), f"seat {r['seat']}"]
        counts[0] += float(r["win_share"])
        counts[1] += 1
    return {key: (value[0], int(value[1])) for key, value in out.items()}


def _values(rows: Sequence[dict[str, str]], field: str) -> dict[tuple[int, str], list[float]]:
    out: dict[tuple[int, str], list[float]] = defaultdict(list)
    for r in rows:
        out[int(r["players"]), r["label"]].append(float(r[field]))
    return out


def _turns(rows: Sequence[dict[str, str]]) -> dict[tuple[int, str], list[float]]:
    out: dict[tuple[int, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["seat"] == "0":
            out[int(r["players"]), "all games"].append(float(r["turns"]))
    return out


def compare_rows(a: Playtest, b: Playtest) -> list[Row]:
    """Every compared statistic as a row: its A and B values, B − A and the 95% interval."""
    rows: list[Row] = []
    for metric, counts_a, counts_b in (
        ("win rate", _win_counts(a.rows), _win_counts(b.rows)),
        ("seat win rate", _seat_counts(a.rows), _seat_counts(b.rows)),
    ):
        for key in sorted(counts_a.keys() & counts_b.keys()):
            (wa, na), (wb, nb) = counts_a[key], counts_b[key]
            low, high = newcombe_interval(wa, na, wb, nb)
            rows.append(_row(metric, key, wa / na, wb / nb, na, nb, low, high))
    shared = [f for f in SCORE_FIELDS if f in a.rows[0] and f in b.rows[0]]  # older folders may lack a column
    numeric = [(f"mean {f.replace('_', ' ')}", _values(a.rows, f), _values(b.rows, f)) for f in shared]
    numeric.append(("mean turns", _turns(a.rows), _turns(b.rows)))
    for metric, values_a, values_b in numeric:
        for key in sorted(values_a.keys() & values_b.keys()):
            va, vb = values_a[key], values_b[key]
            low, high = welch_interval(va, vb)
            rows.append(_row(metric, key, statistics.fmean(va), statistics.fmean(vb), len(va), len(vb), low, high))
    return rows


def _row(metric: str, key: tuple[int, str], a: float, b: float, na: int, nb: int, low: float, high: float) -> Row:
    return {
        "metric": metric,
        "players": key[0],
        "who": key[1],
        "a": a,
        "b": b,
        "n_a": na,
        "n_b": nb,
        "difference": b - a,
        "low": low,
        "high": high,
        "differs": "yes" if low > 0 or high < 0 else "no",
    }


def _forest(rows: Sequence[Row], title: str) -> bytes:
    from .playtest_figures import _figure, png

    fig = _figure(9, 0.32 * len(rows) + 1.4)
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    for y, r in zip(ys, rows, strict=True):
        color = "tab:red" if r["differs"] == "yes" else "tab:blue"
        ax.plot([r["low"], r["high"]], [y, y], color=color, linewidth=2)
        ax.plot([r["difference"]], [y], "o", color=color)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys, [f"{r['players']}p {r['who']}: {r['metric']}" for r in rows], fontsize=8)
    ax.set_xlabel("B − A, 95% interval (red: leaves out 0)")
    ax.set_title(title, fontsize=10)
    return png(fig)


def render_compare(a: Playtest, b: Playtest, rows: Sequence[Row]) -> str:
    rates = [r for r in rows if "win rate" in r["metric"]]
    scores = [r for r in rows if r["metric"] == "mean score" or r["metric"] == "mean turns"]
    differs = [r for r in rows if r["differs"] == "yes"]
    found = "".join(
        f"<li>{r['players']} players, {html.escape(r['who'])}: {html.escape(r['metric'])} {cell(r['a'])} → "
        f"{cell(r['b'])} ({r['difference']:+.3f}, 95% [{r['low']:+.3f}, {r['high']:+.3f}])</li>"
        for r in differs
    )
    names = f"A = {html.escape(a.name)} ({html.escape(str(a.folder))}), B = {html.escape(b.name)} " + (
        f"({html.escape(str(b.folder))})"
    )
    parts = [
        f"<section><h2>Differences whose 95% interval leaves out 0</h2><ul>{found or '<li>none</li>'}</ul></section>",
        "<section><h2>Win rates</h2>",
        image(_forest(rates, "win rate, B − A (Newcombe interval)"), "win rate differences") if rates else "",
        table(rates),
        "</section><section><h2>Scores and game length</h2>",
        image(_forest(scores, "mean score and turns, B − A (Welch t-interval)"), "score differences") if scores else "",
        table([r for r in rows if "win rate" not in r["metric"]]),
        "</section>",
    ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Playtest comparison</title><style>{STYLE}</style></head><body>"
        f"<header><h1>Playtest comparison</h1><p>{names}</p></header><main>{''.join(parts)}</main></body></html>\n"
    )


def compare_command(folder_a: Path, folder_b: Path, out: Path) -> int:
    """Compare two playtest folders and write ``compare.html`` and ``compare.csv`` into ``out``."""
    a, b = load_playtest(folder_a), load_playtest(folder_b)
    rows = compare_rows(a, b)
    if not rows:
        raise CompareError("the two playtests share no player count and participant to compare")
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_csv(out / "compare.csv", rows)
        (out / "compare.html").write_text(render_compare(a, b, rows), encoding="utf-8")
    except OSError as exc:
        print(f"ttr-nordic playtest: error: cannot write to {out}: {exc}", file=sys.stderr)
        return 1
    print(out / "compare.html")
    return 0
