"""The rule variants of the server's games: the shipped examples, uploaded files, and storage.

A game is created under the official rules, under a shipped example variant named by its
``name`` (the files of ``examples/variants``: ``short-game``, ``small-board``), or under a
variant file a player uploads: its text (TOML or JSON, at most :data:`MAX_UPLOAD_BYTES`, with
the board file it names beside it if it has one), checked by the engine's parser, whose one-line
error (file, line, field) is the answer to a bad file. The server reads no file a player names.

A variant other than the official rules is stored once, as its canonical JSON (the variant
file's layout, with its board when custom) under the SHA-256 of that text, in the table
``variants``; the game names it by that hash (``games.variant_hash``, NULL for the official
rules). The same text goes to the AI workers (:class:`.ai_workers.DecisionJob`).

>>> short = resolve("short-game")
>>> short.name, short.trains_per_player
('short-game', 25)
>>> resolve(Upload("mine.toml", 'name = "mine"\\n[trains]\\nper_player = 0\\n'))
Traceback (most recent call last):
...
ttr_nordic.engine.variant.VariantError: mine.toml, line 3, trains.per_player: must be from 1 to 200, got 0
>>> variant_from_text(canonical_json(short)) == short
True
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import tomllib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, cast

from sqlalchemy import Table, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine

from ..engine.variant import OFFICIAL, Variant, VariantError, load_variant, variant_from_json, variant_from_toml
from .db import VariantRow, utcnow

#: The most an uploaded variant may weigh: its file and its board file together, in UTF-8 bytes.
MAX_UPLOAD_BYTES: Final = 256 * 1024
#: Board files an upload may carry beside the variant file.
MAX_BOARD_FILES: Final = 4

_PACKAGED: Final = Path(__file__).resolve().parent / "example_variants"  # in a wheel (pyproject's force-include)
_SOURCE_TREE: Final = Path(__file__).resolve().parents[3] / "examples" / "variants"  # in a clone
_FILE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.()-]{0,99}$")


def examples_dir() -> Path | None:
    """The folder of the shipped example variants (None if this installation has none)."""
    for folder in (_PACKAGED, _SOURCE_TREE):
        if folder.is_dir():
            return folder
    return None


@lru_cache(maxsize=1)
def shipped() -> dict[str, Variant]:
    """The shipped example variants by name, the official rules first.

    >>> list(shipped())
    ['official', 'short-game', 'small-board']
    """
    found: dict[str, Variant] = {"official": OFFICIAL}
    folder = examples_dir()
    for path in sorted(folder.glob("*.toml")) if folder else ():
        variant = load_variant(path)
        found.setdefault(variant.name, variant)
    return found


def describe(variant: Variant) -> dict[str, Any]:
    """What the pages show of a variant: its name, description, whether it is the official
    rules, whether its board is a custom one, and whether it is a shipped variant as shipped
    (the pages then word its description in their own language).

    >>> describe(OFFICIAL)
    {'name': 'official', 'description': '', 'official': True, 'custom_board': False, 'shipped': True}
    """
    return {
        "name": variant.name,
        "description": variant.description,
        "official": variant == OFFICIAL,
        "custom_board": variant.board != OFFICIAL.board,
        "shipped": shipped().get(variant.name) == variant,
    }


@dataclass(frozen=True)
class Upload:
    """A variant file sent by a player: its file name (``.toml`` or ``.json``; it names the
    variant when the file does not), its text, and the board files it names (name -> text)."""

    source: str
    text: str
    files: dict[str, str] = field(default_factory=dict)


def resolve(choice: str | Upload | None) -> Variant:
    """The variant a new game asks for: None or ``"official"`` (the official rules), a shipped
    example's name, or an :class:`Upload`. Raises :class:`VariantError` (one line) otherwise."""
    if choice is None:
        return OFFICIAL
    if isinstance(choice, str):
        variant = shipped().get(choice)
        if variant is None:
            raise VariantError(f"no variant {choice[:60]!r} on this server (it has {', '.join(shipped())})", "variant")
        return variant
    return _from_upload(choice)


def _from_upload(upload: Upload) -> Variant:
    source = Path(upload.source.replace("\\", "/")).name or "variant.toml"
    if not _FILE_NAME.match(source):
        raise VariantError("a file name of letters, digits, spaces and . _ - ( ), at most 100", "variant.source")
    size = len(upload.text.encode("utf-8")) + sum(len(t.encode("utf-8")) for t in upload.files.values())
    if size > MAX_UPLOAD_BYTES:
        raise VariantError(
            f"{size // 1024} KiB is too large: a variant is at most {MAX_UPLOAD_BYTES // 1024} KiB", "", source
        )
    if len(upload.files) > MAX_BOARD_FILES:
        raise VariantError(f"at most {MAX_BOARD_FILES} board files go with a variant file", "", source)
    for name in upload.files:
        if not _FILE_NAME.match(name) or name.startswith("."):
            raise VariantError(
                f"a board file's name is letters, digits, spaces and . _ - ( ): {name[:60]!r}", "", source
            )
    as_json = source.lower().endswith(".json") or (
        not source.lower().endswith(".toml") and upload.text.lstrip().startswith("{")
    )
    _check_board_file(upload, source, as_json)
    with tempfile.TemporaryDirectory(prefix="ttr-variant-") as folder:
        for name, text in upload.files.items():
            (Path(folder) / name).write_text(text, encoding="utf-8")
        try:
            if as_json:
                return variant_from_json(upload.text, source, Path(folder))
            return variant_from_toml(upload.text, source, Path(folder))
        except VariantError as exc:
            if exc.source.startswith(folder):  # an error inside a board file: named as the player named it
                raise VariantError(exc.detail, exc.field, Path(exc.source).name, exc.line) from None
            raise


def _check_board_file(upload: Upload, source: str, as_json: bool) -> None:
    """Refuse a ``board.file`` that was not uploaded with the variant (the server reads no file
    of its own); a file that does not parse is left to the engine, which says where."""
    try:
        data = json.loads(upload.text) if as_json else tomllib.loads(upload.text)
    except (ValueError, tomllib.TOMLDecodeError):
        return
    board = data.get("board") if isinstance(data, dict) else None
    name = board.get("file") if isinstance(board, dict) else None
    if not isinstance(name, str) or name in upload.files:
        return
    pattern = r'"file"\s*:' if as_json else r"^\s*(board\s*\.\s*)?file\s*="
    line = next((n for n, text in enumerate(upload.text.splitlines(), 1) if re.search(pattern, text)), None)
    raise VariantError(
        f"the board file {name[:100]!r} was not sent: choose it together with the variant file",
        "board.file",
        source,
        line,
    )


# ----------------------------------------------------------------------------- stored form


def canonical_json(variant: Variant) -> str:
    """The variant as compact JSON with sorted keys: what is stored and sent to the AI workers.

    >>> canonical_json(resolve("short-game"))[:60]
    '{"cards":{"face_up":5,"initial_hand":4,"locomotive_flush":fa'
    """
    return _canonical(variant)[0]


def variant_hash(variant: Variant) -> str | None:
    """The SHA-256 (hex) of the variant's canonical JSON; None for the official rules."""
    return None if variant == OFFICIAL else _canonical(variant)[1]


# By identity (hashing a variant hashes its board): the variants of the games held in memory.
_TEXTS: dict[int, tuple[Variant, str, str]] = {}


def _canonical(variant: Variant) -> tuple[str, str]:
    cached = _TEXTS.get(id(variant))
    if cached is None or cached[0] is not variant:
        text = json.dumps(variant.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        if len(_TEXTS) >= 64:
            _TEXTS.clear()
        cached = _TEXTS[id(variant)] = (variant, text, hashlib.sha256(text.encode("utf-8")).hexdigest())
    return cached[1], cached[2]


_PARSED: OrderedDict[str, Variant] = OrderedDict()


def variant_from_text(text: str | None) -> Variant:
    """The variant of a canonical JSON text (None: the official rules); the most recent ones
    are kept parsed."""
    if text is None:
        return OFFICIAL
    variant = _PARSED.pop(text, None)
    if variant is None:
        variant = Variant.from_dict(json.loads(text), source="the stored variant")
    _PARSED[text] = variant
    while len(_PARSED) > 32:
        _PARSED.popitem(last=False)
    return variant


def store_variant(engine: Engine, variant: Variant) -> str | None:
    """Store ``variant`` unless it is stored already (blocks: run it in a database thread);
    returns its hash (None for the official rules, which are not stored)."""
    digest = variant_hash(variant)
    if digest is None:
        return None
    values = {"hash": digest, "name": variant.name, "body": canonical_json(variant), "created_at": utcnow()}
    table = cast(Table, VariantRow.__table__)
    insert: Any = postgresql_insert(table) if engine.dialect.name == "postgresql" else sqlite_insert(table)
    with engine.begin() as connection:
        connection.execute(insert.values(**values).on_conflict_do_nothing(index_elements=["hash"]))
    _remember(digest, variant)
    return digest


_BY_HASH: OrderedDict[str, Variant] = OrderedDict()


def _remember(digest: str, variant: Variant) -> None:
    _BY_HASH[digest] = variant
    _BY_HASH.move_to_end(digest)
    while len(_BY_HASH) > 32:
        _BY_HASH.popitem(last=False)


def read_variant(engine: Engine, digest: str | None) -> Variant:
    """The variant stored under ``digest`` (None: the official rules); blocks. Raises
    ``LookupError`` when there is no such variant."""
    if digest is None:
        return OFFICIAL
    variant = _BY_HASH.get(digest)
    if variant is None:
        with engine.connect() as connection:
            body = connection.execute(select(VariantRow.body).where(VariantRow.hash == digest)).scalar()
        if body is None:
            raise LookupError(f"the game's variant {digest[:12]}… is not stored")
        variant = variant_from_text(body)
    _remember(digest, variant)
    return variant
