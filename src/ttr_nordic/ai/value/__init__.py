"""A learned evaluation: from one player's view to the expected final margin and win probability.

* :mod:`.features` -- the features a strong player looks at, computed from a
  :class:`~ttr_nordic.engine.PlayerView` only.
* :mod:`.model` -- the shipped weights (package data), their checked loader and
  :func:`evaluate`.
* :mod:`.data` -- the seeded, resumable data generator (``scripts/value_data.py``).
"""

from .features import FEATURE_NAMES, features
from .model import ValueModel, ValueModelError, evaluate, load_model

__all__ = ["FEATURE_NAMES", "ValueModel", "ValueModelError", "evaluate", "features", "load_model"]
