"""What players type that the server keeps: seat names and chat lines.

A refusal is a :class:`pydantic_core.PydanticCustomError` (a :class:`ValueError`) whose type is a
code the pages word in their language (``errors.<CODE>``), its English sentence the message and
its numbers the context, e.g. ``CHAT_TOO_LONG`` with ``{"max": 500}``.

>>> clean_name("  Astrid   Lindgren ")
'Astrid Lindgren'
>>> clean_name("  ")
Traceback (most recent call last):
    ...
pydantic_core._pydantic_core.PydanticCustomError: a name cannot be blank
>>> clean_chat("x" * 501, 500)
Traceback (most recent call last):
    ...
pydantic_core._pydantic_core.PydanticCustomError: a chat message is at most 500 characters
"""

from __future__ import annotations

import unicodedata

from pydantic_core import PydanticCustomError

#: Unicode categories a name or a message may not hold: control, surrogate, format (zero-width
#: and direction marks), private use, unassigned.
_HIDDEN = ("Cc", "Cs", "Cf", "Co", "Cn")


def _hidden(text: str) -> bool:
    return any(unicodedata.category(char) in _HIDDEN for char in text)


def clean_name(value: str) -> str:
    """A seat's name with runs of white space made one space; refused (NAME_INVISIBLE,
    NAME_BLANK) if it holds control or invisible characters or nothing else."""
    if _hidden(value):
        raise PydanticCustomError("NAME_INVISIBLE", "a name cannot contain control or invisible characters")
    value = " ".join(value.split())
    if not value:
        raise PydanticCustomError("NAME_BLANK", "a name cannot be blank")
    return value


def clean_chat(text: str, max_chars: int) -> str:
    """A chat message with runs of white space made one space; refused (CHAT_INVISIBLE,
    CHAT_BLANK, CHAT_TOO_LONG) if it holds control or invisible characters, nothing else, or
    more than ``max_chars`` characters."""
    if _hidden(text):
        raise PydanticCustomError("CHAT_INVISIBLE", "a chat message cannot contain control or invisible characters")
    text = " ".join(text.split())
    if not text:
        raise PydanticCustomError("CHAT_BLANK", "a chat message cannot be blank")
    if len(text) > max_chars:
        raise PydanticCustomError("CHAT_TOO_LONG", "a chat message is at most {max} characters", {"max": max_chars})
    return text
