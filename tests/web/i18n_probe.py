"""Finding text the page writes without its catalogues: the page is served a pseudo-language
(every message of the English catalogue wrapped in ⟦ ⟧, placeholders kept), so that any visible
word outside the brackets, other than a name the page is given (cities, players), is a string
that was never translated.

    use_pseudo_language(page)            # before page.goto
    assert untranslated(page) == []
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from ttr_nordic.engine import load_board
from ttr_nordic.web.i18n import Message, catalogue

OPEN, CLOSE = "⟦", "⟧"
WORD = re.compile(r"[^\W\d_]{2,}")
# The innermost marked message: a message may hold another (a name written by the catalogues).
MARKED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")


def _wrap(message: Message) -> Message:
    if isinstance(message, dict):
        return {form: f"{OPEN}{text}{CLOSE}" for form, text in message.items()}
    return f"{OPEN}{message}{CLOSE}"


@lru_cache(maxsize=1)
def pseudo_catalogue() -> str:
    """The English catalogue with every message wrapped, as JSON."""
    return json.dumps({key: _wrap(message) for key, message in catalogue("en").items()})


def use_pseudo_language(page: Any) -> None:
    """Serve the pseudo-language to ``page`` in place of every catalogue it asks for."""
    page.route(
        "**/i18n/*.json",
        lambda route: route.fulfill(status=200, content_type="application/json", body=pseudo_catalogue()),
    )


# Visible text nodes and the attributes read aloud or shown on hover, of the page's document.
_COLLECT = """(selector) => {
  const out = [];
  const root = document.querySelector(selector) || document.body;
  const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, [data-i18n-skip], .sr-only")) continue;
    if (node.textContent.trim() && visible(parent)) out.push(node.textContent.trim());
  }
  for (const el of root.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (!visible(el) || el.closest("[data-i18n-skip]")) continue;
    for (const attr of ["aria-label", "title", "placeholder"]) {
      const value = el.getAttribute(attr);
      if (value && value.trim()) out.push(value.trim());
    }
  }
  return out;
}"""


@lru_cache(maxsize=1)
def board_names() -> tuple[str, ...]:
    """City names as on the board (never translated), longest first."""
    return tuple(sorted((city.name for city in load_board().cities), key=len, reverse=True))


def untranslated(page: Any, names: tuple[str, ...] = (), root: str = "body") -> list[str]:
    """The visible texts under ``root`` (a CSS selector) with a word outside the pseudo-language's
    brackets, once each; ``names`` (players, the game's own names) and the board's cities are not
    words to translate."""
    found: list[str] = []
    for text in page.evaluate(_COLLECT, root):
        rest, marked = text, 1
        while marked:
            rest, marked = MARKED.subn(" ", rest)
        for name in (*names, *board_names()):
            rest = rest.replace(name, " ")
        if WORD.search(rest) and text not in found:
            found.append(text)
    return found
