"""Train the value model on a data set from scripts/value_data.py and write the shipped weights.

    python scripts/value_train.py --data 2=data/value/p2 --data 3=data/value/p3 \
        --weights src/ttr_nordic/ai/value/weights.json --plot docs/value-model-calibration.png

Per player count: a ridge regression for the final margin and a logistic regression
(Newton steps) for the win, on standardized features. Every 10th game is held out
(``game % 10 == 0``) and the metrics below are measured on it: Brier score (and that of
the constant base rate), log loss, R² of the margin by game stage, and a calibration plot.
Needs the ``train`` extra (numpy, matplotlib).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ttr_nordic.ai.value.features import FEATURE_NAMES
from ttr_nordic.ai.value.model import FORMAT_VERSION, parse_model

STAGES = ((0.0, 0.33), (0.33, 0.66), (0.66, 1.01))


def fit_margin(x: np.ndarray, y: np.ndarray, ridge: float = 1e-3) -> tuple[np.ndarray, float]:
    a = np.hstack([x, np.ones((len(x), 1))])
    reg = ridge * len(x) * np.eye(a.shape[1])
    reg[-1, -1] = 0.0
    w = np.linalg.solve(a.T @ a + reg, a.T @ y)
    return w[:-1], float(w[-1])


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-4, steps: int = 25) -> tuple[np.ndarray, float]:
    a = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(a.shape[1])
    reg = ridge * len(x) * np.eye(a.shape[1])
    reg[-1, -1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -40, 40)))
        grad = a.T @ (p - y) + reg @ w
        hess = (a * (p * (1 - p))[:, None]).T @ a + reg
        w -= np.linalg.solve(hess, grad)
    return w[:-1], float(w[-1])


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    return float(1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))


def train(players: int, directory: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, np.ndarray]]:
    paths = sorted(directory.glob("shard-*.csv.gz"))
    if not paths:
        raise SystemExit(f"no shards in {directory}")
    with gzip.open(paths[0], "rt") as f:
        header = f.readline().strip().split(",")
    # numpy reads each shard straight into an array (a million rows as Python lists would not fit).
    data = np.concatenate([np.loadtxt(p, delimiter=",", skiprows=1, ndmin=2) for p in paths])
    col = {name: i for i, name in enumerate(header)}
    x = data[:, [col[n] for n in FEATURE_NAMES]]
    margin, win, game = data[:, col["margin"]], data[:, col["win"]], data[:, col["game"]]
    test = game % 10 == 0
    mean, scale = x[~test].mean(axis=0), x[~test].std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    coef_m, icpt_m = fit_margin(z[~test], margin[~test])
    coef_w, icpt_w = fit_logistic(z[~test], win[~test])
    pred_m = z[test] @ coef_m + icpt_m
    p = 1.0 / (1.0 + np.exp(-np.clip(z[test] @ coef_w + icpt_w, -40, 40)))
    y = win[test]
    base = win[~test].mean()
    eps = 1e-9
    stage = x[test, FEATURE_NAMES.index("stage")]
    by_stage = {}
    for lo, hi in STAGES:
        sel = (stage >= lo) & (stage < hi)
        by_stage[f"{lo:.2f}-{min(hi, 1.0):.2f}"] = {
            "rows": int(sel.sum()),
            "r2_margin": round(r2(margin[test][sel], pred_m[sel]), 4),
            "brier": round(float(np.mean((p[sel] - y[sel]) ** 2)), 4),
        }
    metrics = {
        "rows_train": int((~test).sum()),
        "rows_test": int(test.sum()),
        "games": len(np.unique(game)),
        "win_rate": round(float(y.mean()), 4),
        "brier": round(float(np.mean((p - y) ** 2)), 4),
        "brier_constant": round(float(np.mean((base - y) ** 2)), 4),
        "log_loss": round(float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))), 4),
        "r2_margin": round(r2(margin[test], pred_m), 4),
        "margin_sd": round(float(margin[test].std()), 2),
        "by_stage": by_stage,
    }

    def head(coef: np.ndarray, icpt: float) -> dict[str, Any]:
        return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": coef.tolist(), "intercept": icpt}

    heads = {"margin": head(coef_m, icpt_m), "win": head(coef_w, icpt_w)}
    return heads, metrics, {"p": p, "y": y}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", action="append", required=True, help="PLAYERS=DIRECTORY, once per player count")
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--plot", type=Path, help="calibration plot (PNG)")
    args = parser.parse_args(argv)
    models: dict[str, Any] = {}
    metrics: dict[str, Any] = {}
    calibration = {}
    for item in args.data:
        players, _, directory = item.partition("=")
        heads, m, cal = train(int(players), Path(directory))
        models[players], metrics[players], calibration[players] = heads, m, cal
        print(f"{players} players: {json.dumps(m)}", flush=True)
    doc = {
        "format": FORMAT_VERSION,
        "features": list(FEATURE_NAMES),
        "models": models,
        "metadata": {"metrics": metrics},
    }
    parse_model(json.loads(json.dumps(doc)))  # refuse to write a file the loader would refuse
    args.weights.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 5))
        ax.plot([0, 1], [0, 1], color="gray", linestyle="--", label="perfect")
        for players, cal in calibration.items():
            bins = np.clip((cal["p"] * 10).astype(int), 0, 9)
            xs = [cal["p"][bins == b].mean() for b in range(10) if (bins == b).any()]
            ys = [cal["y"][bins == b].mean() for b in range(10) if (bins == b).any()]
            ax.plot(xs, ys, marker="o", label=f"{players} players (held-out)")
        ax.set_xlabel("predicted win probability")
        ax.set_ylabel("observed win rate")
        ax.set_title("Value model calibration")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
