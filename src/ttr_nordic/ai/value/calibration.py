"""Calibrated win chances: the value model's per-seat outputs mapped to chances that add up to 1.

Each seat's view gives its inputs (:data:`INPUTS`): the predicted final margin, the win head's
logit and the features themselves. A fitted map per phase of the game (by the ``stage`` feature)
scores each seat ``s = coef · inputs`` and the chances are the softmax of the scores over the
seats: in a two-player game a logistic map of the two seats' difference, in a three-player game
the Plackett–Luce chance of coming first. The maps are fitted by ``scripts/value_calibration.py``
on games of the site's agent mix and measured on held-out games (``docs/value-model.md``).

The file ``calibration.json`` records the fingerprint of the value weights it was fitted for;
a calibration of other weights is refused (refit it after retraining the model).

>>> from ttr_nordic.engine import GameState
>>> state = GameState.new(players=3, seed=2)
>>> chances = calibrated_chances([state.view(p, log=False) for p in range(3)])
>>> round(sum(chances), 9), all(0 < c < 1 for c in chances)
(1.0, True)
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ...engine import PlayerView
from .features import FEATURE_NAMES, features
from .model import ValueModel, ValueModelError, load_model

CALIBRATION_FORMAT: Final = 1
CALIBRATION_FILE: Final = "calibration.json"
#: The per-seat inputs of the map, in the order of each phase's coefficients.
INPUTS: Final[tuple[str, ...]] = ("margin", "win_logit", *FEATURE_NAMES)
_STAGE: Final = FEATURE_NAMES.index("stage")


def fingerprint(model: ValueModel) -> str:
    """A short hash of the model's heads (what a calibration was fitted on).

    >>> len(fingerprint(load_model()))
    16
    """
    heads = [
        [players, list(head.mean), list(head.scale), list(head.coef), head.intercept]
        for players in sorted(model.margin)
        for head in (model.margin[players], model.win[players])
    ]
    return hashlib.sha256(json.dumps(heads).encode()).hexdigest()[:16]


def seat_inputs(model: ValueModel, players: int, x: Sequence[float]) -> tuple[float, ...]:
    """The :data:`INPUTS` of one seat's feature vector ``x``."""
    margin, _ = model.predict(players, x)
    logit = max(-40.0, min(40.0, model.win[players](x)))
    return (margin, logit, *x)


def softmax(scores: Sequence[float]) -> tuple[float, ...]:
    """``exp(s) / sum(exp(s))``, computed without overflow.

    >>> softmax([0.0, 0.0])
    (0.5, 0.5)
    """
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return tuple(w / total for w in weights)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per player count: the phases' upper stage bounds and one coefficient vector per phase."""

    bounds: Mapping[int, tuple[float, ...]]
    coef: Mapping[int, tuple[tuple[float, ...], ...]]
    weights: str  # fingerprint of the value model fitted on
    metadata: Mapping[str, Any]

    def phase(self, players: int, stage: float) -> int:
        """Index of the phase that ``stage`` falls in (the last phase takes the rest)."""
        bounds = self.bounds[players]
        for index, bound in enumerate(bounds):
            if stage < bound:
                return index
        return len(bounds)

    def chances(self, model: ValueModel, xs: Sequence[Sequence[float]]) -> tuple[float, ...]:
        """Each seat's chance to win from each seat's feature vector (``xs[p]`` from seat p's view)."""
        players = len(xs)
        if players not in self.coef:
            raise ValueModelError(f"no calibration for {players} players (have {sorted(self.coef)})")
        coef = self.coef[players][self.phase(players, xs[0][_STAGE])]
        scores = [sum(c * v for c, v in zip(coef, seat_inputs(model, players, x), strict=True)) for x in xs]
        return softmax(scores)


def parse_calibration(data: object, model: ValueModel) -> Calibration:
    """Check a decoded calibration document against ``model``; :class:`ValueModelError` if it does not fit."""
    if not isinstance(data, dict):
        raise ValueModelError("calibration: expected a JSON object")
    if data.get("format") != CALIBRATION_FORMAT:
        raise ValueModelError(f"calibration: format {data.get('format')!r}, this code reads {CALIBRATION_FORMAT}")
    if data.get("inputs") != list(INPUTS):
        raise ValueModelError(f"calibration: inputs {data.get('inputs')!r} differ from {list(INPUTS)!r}")
    if data.get("weights") != fingerprint(model):
        raise ValueModelError(
            "calibration: fitted for other value weights; run scripts/value_calibration.py after retraining"
        )
    maps = data.get("maps")
    if not isinstance(maps, dict) or not maps:
        raise ValueModelError("calibration: 'maps' must map player counts to phases")
    bounds: dict[int, tuple[float, ...]] = {}
    coef: dict[int, tuple[tuple[float, ...], ...]] = {}
    for key, item in maps.items():
        if key not in ("2", "3") or not isinstance(item, dict):
            raise ValueModelError(f"calibration: unexpected map {key!r} (player counts are '2' and '3')")
        raw_bounds, raw_coef = item.get("bounds"), item.get("coef")
        if not isinstance(raw_bounds, list) or not isinstance(raw_coef, list) or len(raw_coef) != len(raw_bounds) + 1:
            raise ValueModelError(f"calibration.maps.{key}: needs 'bounds' and one more 'coef' row than bounds")
        numbers = [*raw_bounds, *(v for row in raw_coef if isinstance(row, list) for v in row)]
        if any(isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) for v in numbers):
            raise ValueModelError(f"calibration.maps.{key}: every number must be finite")
        if any(not isinstance(row, list) or len(row) != len(INPUTS) for row in raw_coef):
            raise ValueModelError(f"calibration.maps.{key}: each coef row needs {len(INPUTS)} numbers")
        if list(raw_bounds) != sorted(raw_bounds):
            raise ValueModelError(f"calibration.maps.{key}: bounds must increase")
        bounds[int(key)] = tuple(float(v) for v in raw_bounds)
        coef[int(key)] = tuple(tuple(float(v) for v in row) for row in raw_coef)
    meta = data.get("metadata", {})
    return Calibration(bounds, coef, str(data["weights"]), meta if isinstance(meta, dict) else {})


def load_calibration(model: ValueModel, path: str | Path | None = None) -> Calibration:
    """Load and check a calibration file (the shipped one when ``path`` is None) for ``model``."""
    try:
        if path is None:
            text = resources.files(__package__).joinpath(CALIBRATION_FILE).read_text(encoding="utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueModelError(f"cannot read the win-chance calibration: {exc}") from None
    return parse_calibration(data, model)


_SHIPPED: list[tuple[ValueModel, Calibration]] = []


def calibrated_chances(views: Sequence[PlayerView]) -> tuple[float, ...]:
    """Each seat's chance to win, ``views[p]`` being seat p's own view (shipped model and calibration)."""
    if not _SHIPPED:
        model = load_model()
        _SHIPPED.append((model, load_calibration(model)))
    model, calibration = _SHIPPED[0]
    return calibration.chances(model, [features(view) for view in views])
