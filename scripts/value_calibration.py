"""Fit the win-chance calibration and measure it against today's chances on held-out games.

    python scripts/value_calibration.py --data 2=data/value/site-p2 --data 3=data/value/site-p3 \
        --out src/ttr_nordic/ai/value/calibration.json --plot docs/win-chance-calibration.png

The data come from ``scripts/value_data.py --mix site``. Every 5th game (``game % 5 == 0``) is held
out; the maps are fitted on the others. For each sampled position all seats' rows are taken
together (one row per seat, each from that seat's view):

* before: the chart's old chances, the win head's probability of each seat scaled to add up to 1;
* after: the calibrated chances (``ai/value/calibration.py``), a softmax over the seats of
  ``coef · (margin, win logit, score lead)`` with one coefficient vector per phase, fitted by
  Newton steps on the multinomial log loss.

Printed per player count and phase: positions, Brier score and log loss (per seat, against the
seat's share of the win) before and after (the file also keeps those of the win head's raw,
unscaled probability), and in routs (games lost by 40 points or more) the loser's mean chance. Needs
the ``train`` extra (numpy, matplotlib).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ttr_nordic.ai.value.calibration import CALIBRATION_FORMAT, INPUTS, fingerprint, parse_calibration
from ttr_nordic.ai.value.features import FEATURE_NAMES
from ttr_nordic.ai.value.model import LinearHead, ValueModel, load_model

#: Upper stage bounds of the phases (the last phase is the rest).
BOUNDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: A rout: lost by this many points or more.
ROUT = 40
EPS = 1e-9


def apply_head(head: LinearHead, x: np.ndarray) -> np.ndarray:
    return (x - np.array(head.mean)) / np.array(head.scale) @ np.array(head.coef) + head.intercept


def load_groups(directory: Path, players: int, model: ValueModel) -> dict[str, np.ndarray]:
    """The positions of a data directory: inputs (positions × seats × INPUTS), win shares, stages, games."""
    paths = sorted(directory.glob("shard-*.csv.gz"))
    if not paths:
        raise SystemExit(f"no shards in {directory}")
    with gzip.open(paths[0], "rt") as f:
        header = f.readline().strip().split(",")
    data = np.concatenate([np.loadtxt(p, delimiter=",", skiprows=1, ndmin=2) for p in paths])
    col = {name: i for i, name in enumerate(header)}
    x = data[:, [col[n] for n in FEATURE_NAMES]]
    # Rows come seat by seat for each sampled position: check, then fold them into positions.
    seats = data[:, col["seat"]].reshape(-1, players)
    games = data[:, col["game"]].reshape(-1, players)
    turns = data[:, col["turn"]].reshape(-1, players)
    if not ((seats == np.arange(players)).all() and (games == games[:, :1]).all() and (turns == turns[:, :1]).all()):
        raise SystemExit(f"{directory}: rows are not grouped by position and seat")
    margin = apply_head(model.margin[players], x)
    logit = np.clip(apply_head(model.win[players], x), -40, 40)
    inputs = np.concatenate([margin[:, None], logit[:, None], x], axis=1).reshape(-1, players, len(INPUTS))
    win = data[:, col["win"]].reshape(-1, players)
    return {
        "inputs": inputs,
        "share": win / win.sum(axis=1, keepdims=True),
        "stage": x[:, FEATURE_NAMES.index("stage")].reshape(-1, players)[:, 0],
        "game": games[:, 0],
        "raw": 1.0 / (1.0 + np.exp(-logit.reshape(-1, players))),
        "margin": data[:, col["margin"]].reshape(-1, players),
    }


def softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def fit_phase(raw: np.ndarray, y: np.ndarray, ridge: float = 1e-4, steps: int = 30) -> np.ndarray:
    """Coefficients minimising the multinomial log loss of ``softmax(raw @ w)`` against shares ``y``
    (fitted on standardized inputs; an input equal for every seat gets no weight)."""
    scale = raw.reshape(-1, raw.shape[2]).std(axis=0)
    scale[scale == 0] = 1.0
    f = raw / scale
    w = np.zeros(f.shape[2])
    for _ in range(steps):
        q = softmax(f @ w)
        grad = np.einsum("gp,gpk->k", q - y, f) / len(f) + ridge * w
        mean_f = np.einsum("gp,gpk->gk", q, f)
        hess = np.einsum("gp,gpk,gpl->kl", q, f, f) / len(f) - np.einsum("gk,gl->kl", mean_f, mean_f) / len(f)
        step = np.linalg.solve(hess + ridge * np.eye(len(w)), grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w / scale


def phase_of(stage: np.ndarray) -> np.ndarray:
    return np.searchsorted(np.array(BOUNDS), stage, side="right")


def scores(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    pc = np.clip(p, EPS, 1 - EPS)
    return {
        "brier": round(float(np.mean((p - y) ** 2)), 4),
        "log_loss": round(float(-np.mean(y * np.log(pc) + (1 - y) * np.log(1 - pc))), 4),
    }


def calibrate(players: int, groups: dict[str, np.ndarray]) -> tuple[list[list[float]], dict[str, Any], dict[str, Any]]:
    test = groups["game"] % 5 == 0
    phase = phase_of(groups["stage"])
    coef = []
    for k in range(len(BOUNDS) + 1):
        sel = ~test & (phase == k)
        coef.append(fit_phase(groups["inputs"][sel], groups["share"][sel]).tolist())
    after = softmax(np.einsum("gpk,gk->gp", groups["inputs"], np.array(coef)[phase]))
    raw = groups["raw"]
    before = np.clip(raw, 1e-6, 1.0)
    before = before / before.sum(axis=1, keepdims=True)
    y = groups["share"]
    rows = []
    names = [f"{lo:.1f}-{hi:.1f}" for lo, hi in zip((0.0, *BOUNDS), (*BOUNDS, 1.0), strict=True)]
    for label, sel in [*((n, test & (phase == k)) for k, n in enumerate(names)), ("all", test)]:
        rows.append(
            {
                "phase": label,
                "positions": int(sel.sum()),
                "before": scores(before[sel], y[sel]),
                "after": scores(after[sel], y[sel]),
                "raw_head": scores(raw[sel], y[sel]),
            }
        )
    # Routs: held-out games whose last seat lost by ROUT points or more (to the winner): that
    # seat's mean chance per phase, before and after.
    loser = groups["margin"].argmin(axis=1)
    routed = test & (groups["margin"].min(axis=1) <= -ROUT)
    rows_rout = []
    for k, label in enumerate(names):
        sel = routed & (phase == k)
        if sel.any():
            idx = np.flatnonzero(sel)
            rows_rout.append(
                {
                    "phase": label,
                    "positions": int(sel.sum()),
                    "before": round(float(before[idx, loser[idx]].mean()), 3),
                    "after": round(float(after[idx, loser[idx]].mean()), 3),
                }
            )
    metrics = {
        "games_fit": len(np.unique(groups["game"][~test])),
        "routs": rows_rout,
        "games_held_out": len(np.unique(groups["game"][test])),
        "by_phase": rows,
    }
    plot = {"before": (before[test].ravel(), y[test].ravel()), "after": (after[test].ravel(), y[test].ravel())}
    return coef, metrics, plot


def reliability(ax: Any, p: np.ndarray, y: np.ndarray, label: str, style: str) -> None:
    bins = np.clip((p * 10).astype(int), 0, 9)
    used = [b for b in range(10) if (bins == b).sum() >= 20]
    ax.plot([p[bins == b].mean() for b in used], [y[bins == b].mean() for b in used], style, marker="o", label=label)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", action="append", required=True, help="PLAYERS=DIRECTORY, once per player count")
    parser.add_argument("--out", type=Path, required=True, help="calibration file to write")
    parser.add_argument("--plot", type=Path, help="reliability plot (PNG)")
    args = parser.parse_args(argv)
    model = load_model()
    maps: dict[str, Any] = {}
    metrics: dict[str, Any] = {}
    plots: dict[str, Any] = {}
    for item in args.data:
        players, _, directory = item.partition("=")
        coef, m, plot = calibrate(int(players), load_groups(Path(directory), int(players), model))
        maps[players] = {"bounds": list(BOUNDS), "coef": coef}
        metrics[players], plots[players] = m, plot
        print(f"{players} players: fitted on {m['games_fit']} games, held out {m['games_held_out']}")
        print(
            f"  {'phase':<8} {'positions':>9}  {'Brier before':>12} {'after':>6}  {'log loss before':>15} {'after':>6}"
        )
        for row in m["by_phase"]:
            b, a = row["before"], row["after"]
            print(
                f"  {row['phase']:<8} {row['positions']:>9}  {b['brier']:>12.4f} {a['brier']:>6.4f}"
                f"  {b['log_loss']:>15.4f} {a['log_loss']:>6.4f}"
            )
        print(f"  routs (lost by {ROUT}+ points), the loser's mean chance by phase, before -> after:")
        for row in m["routs"]:
            print(f"  {row['phase']:<8} {row['positions']:>9}  {row['before']:.3f} -> {row['after']:.3f}")
        print(f"  coefficients per phase {list(INPUTS)}: {json.dumps(coef)}", flush=True)
    doc = {
        "format": CALIBRATION_FORMAT,
        "inputs": list(INPUTS),
        "weights": fingerprint(model),
        "maps": maps,
        "metadata": {"metrics": metrics, "data": args.data},
    }
    parse_calibration(json.loads(json.dumps(doc)), model)  # refuse to write a file the loader would refuse
    args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(plots), figsize=(5 * len(plots), 5), squeeze=False)
        for ax, (players, plot) in zip(axes[0], plots.items(), strict=True):
            ax.plot([0, 1], [0, 1], color="gray", linestyle=":", label="perfect")
            reliability(ax, *plot["before"], "before (win head, scaled to sum 1)", "--")
            reliability(ax, *plot["after"], "after (calibrated)", "-")
            ax.set_xlabel("predicted chance to win")
            ax.set_ylabel("observed share of wins")
            ax.set_title(f"{players} players, held-out games")
            ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
