# The C observation encoder (see _fastobs.c); optional: observation.py runs without it.
from typing import Any

LAYOUT: tuple[int, ...]

def encode(out: Any, view: Any, board_table: bytes, phases: tuple[Any, ...], /) -> None: ...
def mark(mask: Any, ids: list[int], /) -> None: ...
