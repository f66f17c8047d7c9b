"""The optional C accelerator of the environments (``_fastobs``, compiled by the package's build
hook from ``_fastobs.c``), or None when it is not built or ``TTR_NORDIC_PURE_PYTHON`` is set.

Everything it does has a Python path with the same results (the tests run both)."""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING


def _load() -> ModuleType | None:
    if os.environ.get("TTR_NORDIC_PURE_PYTHON"):
        return None
    try:
        from ttr_nordic.rl import _fastobs
    except ImportError:
        return None
    return _fastobs


FAST = _load()


if TYPE_CHECKING:
    from ttr_nordic.rl._fastobs import IdTable


def new_id_table() -> IdTable | None:
    """A fresh C table of ints by object address, or None without the accelerator."""
    return None if FAST is None else FAST.IdTable()
