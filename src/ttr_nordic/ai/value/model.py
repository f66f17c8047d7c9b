"""The shipped value model: a checked loader and :func:`evaluate` (standard library only).

The weights (``weights.json`` beside this module, written by ``scripts/value_train.py``) hold,
per player count, two linear models on standardized :data:`~.features.FEATURE_NAMES`: one for
the final margin (own total minus the best other total) and one logistic model for the
probability of winning. The file names its format version and its feature names; a file that
does not match this code is refused with a :class:`ValueModelError`.

>>> from ttr_nordic.engine import GameState
>>> margin, p_win = evaluate(GameState.new(players=2, seed=1).view(0))
>>> 0.0 < p_win < 1.0
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ...engine import PlayerView
from .features import FEATURE_NAMES, features

FORMAT_VERSION: Final = 1
WEIGHTS_FILE: Final = "weights.json"


class ValueModelError(ValueError):
    """A weights file or a feature vector that does not fit this model."""


@dataclass(frozen=True, slots=True)
class LinearHead:
    """``intercept + sum(coef[i] * (x[i] - mean[i]) / scale[i])``."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def __call__(self, x: Sequence[float]) -> float:
        total = self.intercept
        for value, mean, scale, coef in zip(x, self.mean, self.scale, self.coef, strict=True):
            total += coef * (value - mean) / scale
        return total


@dataclass(frozen=True, slots=True)
class ValueModel:
    """Margin and win heads for each supported player count."""

    margin: Mapping[int, LinearHead]
    win: Mapping[int, LinearHead]
    metadata: Mapping[str, Any]

    def predict(self, players: int, x: Sequence[float]) -> tuple[float, float]:
        """(expected margin, win probability) of feature vector ``x`` in a ``players`` game."""
        if players not in self.margin:
            raise ValueModelError(f"no model for {players} players (have {sorted(self.margin)})")
        if len(x) != len(FEATURE_NAMES):
            raise ValueModelError(f"expected {len(FEATURE_NAMES)} features, got {len(x)}")
        if not all(math.isfinite(v) for v in x):
            raise ValueModelError("feature vector holds a non-finite value")
        logit = self.win[players](x)
        # Clamped so that exp cannot overflow on an extreme position.
        p_win = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, logit))))
        return self.margin[players](x), p_win

    def evaluate(self, view: PlayerView) -> tuple[float, float]:
        """(expected final margin, win probability) from ``view.player``'s side."""
        return self.predict(view.num_players, features(view))


def _floats(value: object, where: str, length: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != length:
        raise ValueModelError(f"{where}: expected a list of {length} numbers")
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not math.isfinite(item):
            raise ValueModelError(f"{where}: {item!r} is not a finite number")
        out.append(float(item))
    return tuple(out)


def _head(data: object, where: str) -> LinearHead:
    if not isinstance(data, dict):
        raise ValueModelError(f"{where}: expected an object")
    n = len(FEATURE_NAMES)
    try:
        mean = _floats(data["mean"], f"{where}.mean", n)
        scale = _floats(data["scale"], f"{where}.scale", n)
        coef = _floats(data["coef"], f"{where}.coef", n)
        (intercept,) = _floats([data["intercept"]], f"{where}.intercept", 1)
    except KeyError as exc:
        raise ValueModelError(f"{where}: missing {exc.args[0]!r}") from None
    if any(s <= 0.0 for s in scale):
        raise ValueModelError(f"{where}.scale: every scale must be positive")
    return LinearHead(mean, scale, coef, intercept)


def parse_model(data: object) -> ValueModel:
    """Check a decoded weights document and build the model; :class:`ValueModelError` if it does not fit."""
    if not isinstance(data, dict):
        raise ValueModelError("weights: expected a JSON object")
    if data.get("format") != FORMAT_VERSION:
        raise ValueModelError(f"weights: format {data.get('format')!r}, this code reads format {FORMAT_VERSION}")
    names = data.get("features")
    if names != list(FEATURE_NAMES):
        raise ValueModelError(f"weights: feature names {names!r} differ from this code's {list(FEATURE_NAMES)!r}")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ValueModelError("weights: 'models' must map player counts to heads")
    margin: dict[int, LinearHead] = {}
    win: dict[int, LinearHead] = {}
    for key, heads in models.items():
        if key not in ("2", "3") or not isinstance(heads, dict):
            raise ValueModelError(f"weights: unexpected model {key!r} (player counts are '2' and '3')")
        margin[int(key)] = _head(heads.get("margin"), f"models.{key}.margin")
        win[int(key)] = _head(heads.get("win"), f"models.{key}.win")
    meta = data.get("metadata", {})
    return ValueModel(margin, win, meta if isinstance(meta, dict) else {})


def load_model(path: str | Path | None = None) -> ValueModel:
    """Load and check a weights file (the shipped one when ``path`` is None)."""
    try:
        if path is None:
            text = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueModelError(f"cannot read value weights: {exc}") from None
    return parse_model(data)


_DEFAULT: list[ValueModel] = []


def default_model() -> ValueModel:
    """The shipped model (read once)."""
    if not _DEFAULT:
        _DEFAULT.append(load_model())
    return _DEFAULT[0]


def evaluate(view: PlayerView) -> tuple[float, float]:
    """(expected final margin, win probability) of ``view`` with the shipped model."""
    return default_model().evaluate(view)
