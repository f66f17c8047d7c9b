"""The optional C accelerator of the environments (``_fastobs``, compiled by the package's build
hook from ``_fastobs.c``), or None when it is not built or ``TTR_NORDIC_PURE_PYTHON`` is set.

Everything it does has a Python path with the same results (the tests run both)."""

from __future__ import annotations

import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("TTR_NORDIC_PURE_PYTHON"):
        return None
    try:
        from ttr_nordic.rl import _fastobs
    except ImportError:
        return None
    return _fastobs


FAST = _load()
