"""The browser game's files: ``static/`` (package data) — the page, ES modules, CSS, map data.

This package holds no code that serves them: the server's routes for the pages, the static
files, the board and replay steps are in :mod:`ttr_nordic.server.pages`.
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).parent / "static"
