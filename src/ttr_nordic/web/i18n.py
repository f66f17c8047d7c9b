"""The message catalogues of the page and the e-mails, in six languages.

Each language has a folder ``static/i18n/<code>/`` of JSON files, one per part of the product
(``top.json``, ``game.json``, ...); a message's key is ``<part>.<key>``. A message is a string
with ``{name}`` placeholders, or a plural: an object of CLDR plural forms (``"one"``,
``"other"``) chosen by the ``count`` placeholder. The browser loads a language merged into one
object (``GET /i18n/<code>.json``, see :mod:`ttr_nordic.server.pages`); the server writes
e-mails with :func:`translate`.

>>> translate("en", "top.rules")
'Rules'
>>> pick_language("sv-FI,sv;q=0.9,en;q=0.8")
'sv'
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from . import STATIC

CATALOGUES = STATIC / "i18n"
#: The languages, each in its own name, in the picker's order.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "nb": "Norsk bokmål",
    "sv": "Svenska",
    "da": "Dansk",
    "fi": "Suomi",
    "de": "Deutsch",
}
DEFAULT = "en"
_ALIASES = {"no": "nb", "nn": "nb"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")

Message = str | dict[str, str]


class CatalogueError(ValueError):
    """A catalogue file that cannot be read (its path and the reason in one line)."""


def _read(path: Path) -> dict[str, Message]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: a catalogue is a JSON object of messages")
    for key, value in data.items():
        plural = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        if not (isinstance(value, str) or plural):
            raise CatalogueError(f"{path}: {key}: a message is a string or an object of plural forms")
    return data


def parts(code: str) -> dict[str, dict[str, Message]]:
    """The catalogue files of language ``code``, by part name (file name without ``.json``)."""
    folder = CATALOGUES / code
    return {path.stem: _read(path) for path in sorted(folder.glob("*.json"))}


@lru_cache(maxsize=len(LANGUAGES))
def catalogue(code: str) -> dict[str, Message]:
    """Every message of language ``code`` as ``{"<part>.<key>": message}``.

    >>> catalogue("de")["top.rules"]
    'Regeln'
    """
    if code not in LANGUAGES:
        raise KeyError(f"unknown language {code!r} (one of {', '.join(LANGUAGES)})")
    merged: dict[str, Message] = {}
    for part, messages in parts(code).items():
        for key, message in messages.items():
            merged[f"{part}.{key}"] = message
    return merged


def pick_language(accept_language: str | None) -> str:
    """The first language of an ``Accept-Language`` header the product speaks, else English
    (weights are taken in the order given, as browsers send them sorted)."""
    for item in (accept_language or "").split(","):
        tag = item.split(";")[0].strip().lower()
        base = tag.split("-")[0]
        code = _ALIASES.get(base, base)
        if code in LANGUAGES:
            return code
    return DEFAULT


def plural_form(code: str, count: int) -> str:
    """The CLDR plural form of an integer ``count``: the six languages all have "one" (1) and "other"."""
    return "one" if count == 1 else "other"


def number(code: str, value: int) -> str:
    """An integer written the language's way (thousands grouped: 1,234 / 1 234 / 1.234)."""
    text = f"{value:,}"
    separator = {"en": ",", "de": ".", "da": "."}.get(code, "\u00a0")
    return text.replace(",", separator)


def translate(code: str, key: str, **params: object) -> str:
    """The message ``key`` in language ``code`` (English where it lacks it), placeholders filled.

    >>> translate("nb", "top.rules")
    'Regler'
    """
    messages = catalogue(code if code in LANGUAGES else DEFAULT)
    message = messages.get(key, catalogue(DEFAULT).get(key))
    if message is None:
        raise KeyError(f"no message {key!r}")
    if isinstance(message, dict):
        count = params.get("count", 0)
        form = plural_form(code, count if isinstance(count, int) else 0)
        message = message.get(form, message["other"])

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            return match.group(0)
        value = params[name]
        return number(code, value) if isinstance(value, int) and not isinstance(value, bool) else str(value)

    return PLACEHOLDER.sub(fill, message)
