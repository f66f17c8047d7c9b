"""The ``variant`` field of a request that makes a game or a lobby table: a shipped variant's
name, or a variant file's content (see :mod:`.variants`).

>>> chosen_variant("small-board", 2).name
'small-board'
>>> chosen_variant(VariantUpload(source="x.toml", text="[tickets]\\ninitial_dealt = 16\\n"), 3)
Traceback (most recent call last):
...
ttr_nordic.engine.variant.VariantError: x.toml, line 2, tickets.initial_dealt: must be from 1 to 15, got 16
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..engine.variant import Variant
from .variants import MAX_BOARD_FILES, MAX_UPLOAD_BYTES, Upload, resolve


class VariantUpload(BaseModel):
    """A variant file a player uploads (see :class:`.variants.Upload`); its size and content are
    checked when the game is created (a bad one: 400 ``BAD_VARIANT`` with the parser's line)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=1, max_length=300)
    text: str = Field(max_length=4 * MAX_UPLOAD_BYTES)
    files: dict[str, str] = Field(default_factory=dict, max_length=MAX_BOARD_FILES)


#: A request's choice of rules: a shipped variant's name ("short-game"; "official", or null, the
#: official rules) or an uploaded file.
VariantChoice = Annotated[str, Field(max_length=100)] | VariantUpload | None


def chosen_variant(choice: VariantChoice, players: int) -> Variant:
    """The variant ``choice`` names, checked for ``players``; raises :class:`VariantError` (one
    line). Blocks for a few milliseconds on a large upload: call it in a thread."""
    if isinstance(choice, VariantUpload):
        variant = resolve(Upload(choice.source, choice.text, dict(choice.files)))
    else:
        variant = resolve(choice)
    variant.check_players(players)
    return variant


def one_line(error: Exception) -> str:
    """An error's message on one line (what a 400 answer carries)."""
    return " ".join(str(error).split())
