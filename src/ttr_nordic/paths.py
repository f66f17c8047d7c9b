"""Where the ``ttr-nordic`` commands keep what they write when no path is given.

Everything goes under one data folder, the same root as the web server's SQLite file:
``$XDG_DATA_HOME/ttr-nordic`` or, without that variable, ``~/.local/share/ttr-nordic``.

>>> data_dir("tournaments").parts[-2:]
('ttr-nordic', 'tournaments')
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(*parts: str) -> Path:
    """The project's data folder (``$XDG_DATA_HOME/ttr-nordic``), or a folder inside it; nothing is created."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base, "ttr-nordic", *parts)


def check_writable_folder(path: Path) -> str | None:
    """Why a file cannot be written at ``path`` (its folder is missing or read-only), or None if it can.

    >>> check_writable_folder(Path("/nonexistent-folder/game.json"))
    'folder /nonexistent-folder does not exist'
    """
    folder = path.parent if str(path.parent) else Path()
    if not folder.exists():
        return f"folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    if path.is_dir():
        return f"{path} is a folder"
    return None
