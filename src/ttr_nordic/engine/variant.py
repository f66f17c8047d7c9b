"""Rule variants and custom boards: the numbers of the rules, and the board, as data.

A :class:`Variant` holds every rule number a designer may change (trains, the end-of-game
threshold, the deal of cards and tickets, face-up cards, the route scoring table, the bonuses,
the locomotive flush, the tunnel reveal, the ferry substitution) and the board. The official
rules are :data:`OFFICIAL`; a game is played under one variant (``GameState.new(..., variant=v)``).
Variant files are TOML or JSON (:func:`load_variant`); every field is checked, and a bad one
raises :class:`VariantError` naming the file, the line where it can be found and the field.

>>> v = variant_from_toml('name = "short"\\n[trains]\\nper_player = 25\\n')
>>> v.name, v.trains_per_player, v.tickets_drawn
('short', 25, 3)
>>> Variant.from_dict(v.to_dict()) == v
True
>>> variant_from_toml('[trains]\\nper_player = "many"\\n', source="x.toml")
Traceback (most recent call last):
...
ttr_nordic.engine.variant.VariantError: x.toml, line 2, trains.per_player: must be a whole number, got 'many'
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from .actions import MAX_FACE_UP
from .board import (
    FERRY_GROUP,
    ROUTE_POINTS,
    SPECIAL_GROUP,
    Board,
    BoardDataError,
    RouteKind,
    board_to_dict,
    load_board,
    parse_board,
)
from .cards import CARD_NAMES, COLORS, TOTAL_CARDS

#: A display with this many locomotives is flushed, where a variant turns the flush on.
FLUSH_LOCOMOTIVES: Final = 3

Path_ = tuple[str | int, ...]


class VariantError(ValueError):
    """A variant that cannot be used: the message names the source, the line (when known)
    and the field, e.g. ``short.toml, line 4, tickets.drawn: must be from 1 to 46, got 0``."""

    def __init__(self, message: str, field_path: str = "", source: str = "", line: int | None = None) -> None:
        self.field = field_path
        self.source = source
        self.line = line
        self.detail = message
        where = [part for part in (source, f"line {line}" if line else "", field_path) if part]
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


@dataclass(frozen=True)
class Variant:
    """The rules in force: every number a variant file may set, and the board.

    Defaults are the official rules (spec R1–R9). ``route_points`` is a tuple of
    ``(length, points)`` pairs in length order (see :attr:`points_by_length`);
    ``longest_path_bonus`` 0 means no bonus (the official rule), ``globetrotter_bonus`` 0
    likewise. ``ferry_substitution`` is how many cards of any colors stand for one locomotive
    (and, as in the official rule, for any other space) on a ferry.

    >>> OFFICIAL.trains_per_player, OFFICIAL.points_by_length[9], OFFICIAL.locomotive_flush
    (40, 27, False)
    """

    name: str = "official"
    description: str = ""
    trains_per_player: int = 40
    final_round_trains: int = 2
    initial_hand: int = 4
    face_up_cards: int = 5
    locomotive_flush: bool = False
    initial_tickets_dealt: int = 5
    initial_tickets_kept: int = 2
    tickets_drawn: int = 3
    tickets_kept: int = 1
    route_points: tuple[tuple[int, int], ...] = tuple(sorted(ROUTE_POINTS.items()))
    globetrotter_bonus: int = 10
    longest_path_bonus: int = 0
    tunnel_reveal: int = 3
    ferry_substitution: int = FERRY_GROUP
    board: Board = field(default_factory=load_board, compare=True, repr=False)

    def __post_init__(self) -> None:
        # One Board object per distinct board (the engine keeps its per-board tables by the
        # board's identity): an equal board built again, or unpickled, is swapped for the first.
        board = self.board
        if board is not load_board():
            object.__setattr__(self, "board", _interned(board))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through __init__ (pickle would skip __post_init__ and its interning).
        return (_rebuild, (tuple((f.name, getattr(self, f.name)) for f in fields(self)),))

    @property
    def points_by_length(self) -> dict[int, int]:
        """The route scoring table as a dict (length -> points)."""
        return dict(self.route_points)

    @property
    def is_official(self) -> bool:
        """Whether these are the official rules on the official board (the name aside)."""
        return _rules_of(self) == _rules_of(OFFICIAL) and self.board == OFFICIAL.board

    def check_players(self, players: int) -> None:
        """Raise :class:`VariantError` if a game of ``players`` cannot be dealt under this variant.

        >>> import dataclasses
        >>> try:
        ...     dataclasses.replace(OFFICIAL, name="v", initial_tickets_dealt=16).check_players(3)
        ... except VariantError as exc:
        ...     print(exc.detail)
        46 tickets are too few to deal 16 to each of 3 players
        """
        tickets = len(self.board.tickets)
        if players * self.initial_tickets_dealt > tickets:
            raise VariantError(
                f"{tickets} tickets are too few to deal {self.initial_tickets_dealt} to each of {players} players",
                "tickets.initial_dealt",
                self.name,
            )
        cards = players * self.initial_hand + self.face_up_cards
        if cards > TOTAL_CARDS:
            raise VariantError(
                f"{players} hands of {self.initial_hand} and {self.face_up_cards} face-up cards need {cards} "
                f"of the {TOTAL_CARDS} train cards",
                "cards.initial_hand",
                self.name,
            )

    def to_dict(self) -> dict[str, Any]:
        """The variant as JSON-able data in the variant file's layout (the board is left out
        when it is the official one). :meth:`from_dict` reads it back.

        >>> OFFICIAL.to_dict()["tickets"]
        {'initial_dealt': 5, 'initial_kept': 2, 'drawn': 3, 'kept': 1}
        """
        data: dict[str, Any] = {"name": self.name}
        if self.description:
            data["description"] = self.description
        for section, keys in _LAYOUT.items():
            data[section] = {key: _to_plain(getattr(self, attr)) for key, attr in keys.items()}
        if self.board != OFFICIAL.board:
            data["board"] = board_to_dict(self.board)
        return data

    @classmethod
    def from_dict(cls, data: Any, source: str = "", base_dir: Path | None = None) -> Variant:
        """A variant from data in the variant file's layout; every field is checked.

        ``source`` names where the data came from in error messages; ``base_dir`` is where a
        ``board.file`` path is looked up (the variant file's folder).

        >>> Variant.from_dict({"name": "quick", "trains": {"per_player": 20}}).trains_per_player
        20
        """
        return _parse(data, source, base_dir, _LineIndex.empty())


def _rebuild(items: tuple[tuple[str, Any], ...]) -> Variant:
    return Variant(**dict(items))


def _rules_of(variant: Variant) -> tuple[object, ...]:
    return tuple(getattr(variant, f.name) for f in fields(variant) if f.name not in ("name", "description", "board"))


def _to_plain(value: object) -> object:
    if isinstance(value, tuple):
        return {str(length): points for length, points in value}
    return value


# The file layout: section -> key -> Variant attribute.
_LAYOUT: Final[dict[str, dict[str, str]]] = {
    "trains": {"per_player": "trains_per_player", "final_round_at": "final_round_trains"},
    "cards": {"initial_hand": "initial_hand", "face_up": "face_up_cards", "locomotive_flush": "locomotive_flush"},
    "tickets": {
        "initial_dealt": "initial_tickets_dealt",
        "initial_kept": "initial_tickets_kept",
        "drawn": "tickets_drawn",
        "kept": "tickets_kept",
    },
    "scoring": {
        "route_points": "route_points",
        "globetrotter_bonus": "globetrotter_bonus",
        "longest_path_bonus": "longest_path_bonus",
    },
    "claims": {"tunnel_reveal": "tunnel_reveal", "ferry_substitution": "ferry_substitution"},
}


# ------------------------------------------------------------------ where a field is written


class _LineIndex:
    """The line of each key path in a variant file's text (best effort: a path not found
    gives the line of its nearest parent that is)."""

    def __init__(self, lines: dict[Path_, int]) -> None:
        self.lines = lines

    @classmethod
    def empty(cls) -> _LineIndex:
        return cls({})

    def line(self, path: Path_) -> int | None:
        for end in range(len(path), 0, -1):
            found = self.lines.get(path[:end])
            if found is not None:
                return found
        return None

    @classmethod
    def of_toml(cls, text: str) -> _LineIndex:
        lines: dict[Path_, int] = {}
        table: Path_ = ()
        counts: dict[Path_, int] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            stripped = raw.strip()
            if not stripped or stripped.startswith("#"):
                continue
            array = re.match(r"^\[\[\s*([^\]]+?)\s*\]\]", stripped)
            if array:
                name = _split_key(array.group(1))
                index = counts.get(name, 0)
                counts[name] = index + 1
                table = (*name, index)
                lines.setdefault(name, number)
                lines[table] = number
                continue
            header = re.match(r"^\[\s*([^\]]+?)\s*\]", stripped)
            if header:
                table = _split_key(header.group(1))
                lines.setdefault(table, number)
                continue
            key = _TOML_KEY.match(stripped)
            if key:
                lines.setdefault((*table, *_split_key(key.group(1))), number)
        return cls(lines)

    @classmethod
    def of_json(cls, text: str) -> _LineIndex:
        lines: dict[Path_, int] = {}
        # A small scan of the JSON tokens that keeps the path of each value.
        stack: list[list[Any]] = []  # [container kind, current key or index, expecting a key]
        line = 1
        pos = 0
        token = re.compile(r'\s+|"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')
        pending_key: str | None = None
        while pos < len(text):
            match = token.match(text, pos)
            if match is None:
                break
            tok = match.group(0)
            pos = match.end()
            if tok.isspace():
                line += tok.count("\n")
                continue
            top = stack[-1] if stack else None
            if top is not None and top[0] == "{" and top[2] and tok.startswith('"'):
                pending_key = json.loads(tok)
                continue
            if tok == ":":
                if top is not None and pending_key is not None:
                    top[1] = pending_key
                    top[2] = False
                continue
            if tok == ",":
                if top is not None:
                    if top[0] == "{":
                        top[2] = True
                    else:
                        top[1] += 1
                continue
            if tok in "}]":
                if stack:
                    stack.pop()
                continue
            path = tuple(entry[1] for entry in stack)
            lines.setdefault(path, line)
            if tok == "{":
                stack.append(["{", None, True])
            elif tok == "[":
                stack.append(["[", 0, False])
        return cls(lines)


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_TOML_KEY: Final = re.compile(rf"^({_KEY_PART}(?:\s*\.\s*{_KEY_PART})*)\s*=")


def _split_key(text: str) -> Path_:
    parts = re.findall(r'"[^"]*"|\'[^\']*\'|[^.\s]+', text)
    return tuple(part[1:-1] if part[:1] in "\"'" else part for part in parts)


def _dotted(path: Path_) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


# ----------------------------------------------------------------------------- parsing


class _Reader:
    """Reads checked values out of the data, raising errors that name the field."""

    def __init__(self, source: str, index: _LineIndex) -> None:
        self.source = source
        self.index = index

    def error(self, path: Path_, message: str) -> VariantError:
        return VariantError(message, _dotted(path), self.source, self.index.line(path))

    def table(self, value: Any, path: Path_, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(path, f"must be a table of fields, got {_show(value)}")
        for key in value:
            if key not in known:
                raise self.error((*path, key), f"unknown field (known here: {', '.join(known)})")
        return value

    def integer(self, value: Any, path: Path_, low: int, high: int) -> int:
        if type(value) is not int:
            raise self.error(path, f"must be a whole number, got {_show(value)}")
        if not low <= value <= high:
            raise self.error(path, f"must be from {low} to {high}, got {value}")
        return value

    def boolean(self, value: Any, path: Path_) -> bool:
        if type(value) is not bool:
            raise self.error(path, f"must be true or false, got {_show(value)}")
        return value

    def text(self, value: Any, path: Path_, limit: int = 200) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(path, f"must be a non-empty string, got {_show(value)}")
        if len(value) > limit:
            raise self.error(path, f"must be at most {limit} characters")
        return value

    def number(self, value: Any, path: Path_) -> float:
        if type(value) not in (int, float) or value != value or value in (float("inf"), float("-inf")):
            raise self.error(path, f"must be a number, got {_show(value)}")
        return float(value)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{value!r:.40}"


_TOP_KEYS: Final = ("name", "description", *_LAYOUT, "board")
_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,59}$")


def _parse(data: Any, source: str, base_dir: Path | None, index: _LineIndex) -> Variant:
    read = _Reader(source, index)
    top = read.table(data, (), _TOP_KEYS)
    values: dict[str, Any] = {}
    if "name" in top:
        name = read.text(top["name"], ("name",), 60)
        if not _NAME_PATTERN.match(name):
            raise read.error(("name",), "use letters, digits, spaces, '.', '_' and '-' (at most 60)")
        values["name"] = name
    elif source:
        values["name"] = Path(source).stem
    else:
        raise read.error(("name",), "a variant needs a name")
    if "description" in top:
        if not isinstance(top["description"], str) or len(top["description"]) > 2000:
            raise read.error(("description",), "must be a string of at most 2000 characters")
        values["description"] = top["description"]
    sections = {name: read.table(top.get(name, {}), (name,), tuple(keys)) for name, keys in _LAYOUT.items()}

    def get(section: str, key: str) -> tuple[Any, Path_] | None:
        if key in sections[section]:
            return sections[section][key], (section, key)
        return None

    def integer(section: str, key: str, low: int, high: int) -> None:
        found = get(section, key)
        if found is not None:
            values[_LAYOUT[section][key]] = read.integer(found[0], found[1], low, high)

    integer("trains", "per_player", 1, 200)
    trains = values.get("trains_per_player", OFFICIAL_DEFAULTS["trains_per_player"])
    integer("trains", "final_round_at", 0, trains - 1)
    integer("cards", "initial_hand", 0, 30)
    integer("cards", "face_up", 1, MAX_FACE_UP)
    found = get("cards", "locomotive_flush")
    if found is not None:
        values["locomotive_flush"] = read.boolean(*found)
    integer("tickets", "initial_dealt", 1, 15)
    integer("tickets", "initial_kept", 1, values.get("initial_tickets_dealt", 5))
    integer("tickets", "drawn", 1, 15)
    integer("tickets", "kept", 1, values.get("tickets_drawn", 3))
    found = get("scoring", "route_points")
    if found is not None:
        values["route_points"] = _route_points(read, *found)
    integer("scoring", "globetrotter_bonus", 0, 1000)
    integer("scoring", "longest_path_bonus", 0, 1000)
    integer("claims", "tunnel_reveal", 0, 6)
    integer("claims", "ferry_substitution", 2, 9)
    points = dict(values.get("route_points", OFFICIAL_DEFAULTS["route_points"]))
    group = values.get("ferry_substitution", FERRY_GROUP)
    if "board" in top:
        values["board"] = _board(read, top["board"], base_dir, points, group)
    else:
        values["board"] = _official_board(tuple(sorted(points.items())), group, read)
    return Variant(**values)


OFFICIAL_DEFAULTS: Final[dict[str, Any]] = {f.name: f.default for f in fields(Variant) if f.name != "board"}


def _route_points(read: _Reader, value: Any, path: Path_) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, dict) or not value:
        raise read.error(path, "must be a table of points by route length, e.g. { 1 = 1, 2 = 2 }")
    table: dict[int, int] = {}
    for key, points in value.items():
        here = (*path, str(key))
        text = str(key)
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 50:
            raise read.error(here, f"a route length is a whole number from 1 to 50, got {_show(key)}")
        table[int(text)] = read.integer(points, here, 0, 1000)
    return tuple(sorted(table.items()))


@lru_cache(maxsize=8)
def _official_board_with(points: tuple[tuple[int, int], ...], group: int) -> Board:
    official = load_board()
    if points == tuple(sorted(ROUTE_POINTS.items())) and group == FERRY_GROUP:
        return official
    return parse_board(board_to_dict(official), dict(points), group, SPECIAL_GROUP)


def _official_board(points: tuple[tuple[int, int], ...], group: int, read: _Reader) -> Board:
    lengths = {route.length for route in load_board().routes}
    missing = sorted(lengths - dict(points).keys())
    if missing:
        raise read.error(
            ("scoring", "route_points"),
            f"the board has routes of length {', '.join(map(str, missing))}: give their points",
        )
    return _official_board_with(points, group)


_BOARD_KEYS: Final = ("file", "cities", "routes", "tickets")
_CITY_KEYS: Final = ("name", "english_name", "country", "x", "y", "lat", "lon", "board_label", "x_pct", "y_pct")
_ROUTE_KEYS: Final = ("id", "a", "b", "length", "color", "kind", "ferry_locomotives", "double_route_with", "tunnel")
_TICKET_KEYS: Final = ("a", "b", "points")
_KINDS: Final = {"regular": RouteKind.REGULAR, "normal": RouteKind.REGULAR, "ferry": RouteKind.FERRY,
                 "tunnel": RouteKind.TUNNEL, "special": RouteKind.SPECIAL}  # fmt: skip
_COLOR_NAMES: Final = ("gray", *CARD_NAMES[: len(COLORS)])


def _board(read: _Reader, value: Any, base_dir: Path | None, points: dict[int, int], group: int) -> Board:
    path: Path_ = ("board",)
    raw = read.table(value, path, _BOARD_KEYS)
    if "file" in raw:
        if set(raw) != {"file"}:
            raise read.error(path, "give either 'file' or the cities, routes and tickets, not both")
        name = read.text(raw["file"], (*path, "file"), 500)
        board_path = Path(name) if base_dir is None else base_dir / name
        try:
            text = board_path.read_text(encoding="utf-8")
            data = json.loads(text)
        except OSError as exc:
            raise read.error((*path, "file"), f"cannot read {name}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise read.error((*path, "file"), f"cannot read {name}: not UTF-8 text") from exc
        except json.JSONDecodeError as exc:
            raise VariantError(f"not valid JSON: {exc.msg}", "", str(board_path), exc.lineno) from exc
        # Errors inside the board file name that file and its lines.
        return _check_board(_Reader(str(board_path), _LineIndex.of_json(text)), data, (), points, group)
    return _check_board(read, raw, path, points, group)


def _check_board(read: _Reader, data: Any, path: Path_, points: dict[int, int], group: int) -> Board:
    if not isinstance(data, dict):
        raise read.error(path, f"a board is a table of cities, routes and tickets, got {_show(data)}")
    for key in ("cities", "routes", "tickets"):
        if not isinstance(data.get(key), list) or not data[key]:
            raise read.error((*path, key), f"the board needs a non-empty list of {key}")
    names: set[str] = set()
    for i, city in enumerate(data["cities"]):
        here = (*path, "cities", i)
        read.table(city, here, _CITY_KEYS)
        if "name" not in city or "x" not in city or "y" not in city:
            raise read.error(here, "a city needs a name, x and y")
        name = read.text(city["name"], (*here, "name"), 60)
        if name in names:
            raise read.error((*here, "name"), f"duplicate city {name!r}")
        names.add(name)
        for key in ("x", "y", "lat", "lon", "x_pct", "y_pct"):
            if key in city:
                read.number(city[key], (*here, key))
        for key in ("english_name", "country", "board_label"):
            if key in city and not isinstance(city[key], str):
                raise read.error((*here, key), f"must be a string, got {_show(city[key])}")
    codes: dict[str, int] = {}
    routes = data["routes"]
    for i, route in enumerate(routes):
        here = (*path, "routes", i)
        read.table(route, here, _ROUTE_KEYS)
        code = route.get("id", f"R{i + 1:02d}")
        if not isinstance(code, str) or not re.fullmatch(r"R\d{1,4}", code) or int(code[1:]) != i + 1:
            raise read.error((*here, "id"), f"route ids are R01, R02, … in order: this one is R{i + 1:02d}")
        codes[code] = i
        for end in ("a", "b"):
            if end not in route:
                raise read.error(here, "a route needs cities 'a' and 'b', a length and a color")
            if not isinstance(route[end], str) or route[end] not in names:
                raise read.error((*here, end), f"unknown city {_show(route[end])}")
        if route["a"] == route["b"]:
            raise read.error((*here, "b"), "a route joins two different cities")
        if "length" not in route or "color" not in route:
            raise read.error(here, "a route needs cities 'a' and 'b', a length and a color")
        length = read.integer(route["length"], (*here, "length"), 1, 50)
        if length not in points:
            raise read.error((*here, "length"), f"no points for length {length} in scoring.route_points")
        if not isinstance(route["color"], str) or route["color"] not in _COLOR_NAMES:
            raise read.error((*here, "color"), f"unknown color {_show(route['color'])} (use {', '.join(_COLOR_NAMES)})")
        kind_name = route.get("kind", "regular")
        if not isinstance(kind_name, str) or kind_name not in _KINDS:
            raise read.error((*here, "kind"), f"unknown kind {_show(kind_name)}: use regular, ferry, tunnel or special")
        kind = _KINDS[kind_name]
        locos = route.get("ferry_locomotives", 0)
        if kind is RouteKind.FERRY:
            read.integer(locos, (*here, "ferry_locomotives"), 1, length)
        elif locos != 0:
            raise read.error((*here, "ferry_locomotives"), f"only a ferry has locomotive spaces, got {_show(locos)}")
        if kind is RouteKind.SPECIAL and route["color"] != "gray":
            raise read.error((*here, "color"), "the special route (groups of 4 cards) is gray")
        if "tunnel" in route and route["tunnel"] != (kind is RouteKind.TUNNEL):
            raise read.error((*here, "tunnel"), "disagrees with the route's kind")
    for i, route in enumerate(routes):
        twin = route.get("double_route_with")
        if twin is None:
            continue
        here = (*path, "routes", i, "double_route_with")
        if not isinstance(twin, str) or twin not in codes:
            raise read.error(here, f"unknown route {_show(twin)}")
        other = routes[codes[twin]]
        if codes[twin] == i or {other["a"], other["b"]} != {route["a"], route["b"]}:
            raise read.error(here, f"{twin} does not join the same two cities")
        if other.get("double_route_with") != route.get("id", f"R{i + 1:02d}"):
            raise read.error(here, f"{twin} must name this route as its double route too")
    lanes: dict[frozenset[str], list[int]] = {}
    for i, route in enumerate(routes):
        lanes.setdefault(frozenset((route["a"], route["b"])), []).append(i)
    for indexes in lanes.values():
        if len(indexes) > 2:
            raise read.error((*path, "routes", indexes[2]), "at most two routes join the same two cities")
        if len(indexes) == 2 and routes[indexes[0]].get("double_route_with") is None:
            raise read.error(
                (*path, "routes", indexes[1]), "two routes join the same cities: make them each other's double route"
            )
    seen_tickets: set[frozenset[str]] = set()
    for i, ticket in enumerate(data["tickets"]):
        here = (*path, "tickets", i)
        read.table(ticket, here, _TICKET_KEYS)
        for end in ("a", "b"):
            if end not in ticket:
                raise read.error(here, "a ticket needs cities 'a' and 'b' and points")
            if not isinstance(ticket[end], str) or ticket[end] not in names:
                raise read.error((*here, end), f"unknown city {_show(ticket[end])}")
        if ticket["a"] == ticket["b"]:
            raise read.error((*here, "b"), "a ticket joins two different cities")
        if "points" not in ticket:
            raise read.error(here, "a ticket needs cities 'a' and 'b' and points")
        read.integer(ticket["points"], (*here, "points"), 1, 100)
        pair = frozenset((ticket["a"], ticket["b"]))
        if pair in seen_tickets:
            raise read.error(here, f"duplicate ticket {ticket['a']}–{ticket['b']}")
        seen_tickets.add(pair)
    try:
        board = parse_board(data, points, group, SPECIAL_GROUP)
    except BoardDataError as exc:
        raise read.error(path, str(exc)) from exc
    return board


# One Board object per distinct board: the engine keeps its per-board tables by identity.
_BOARDS: dict[Board, Board] = {}


def _interned(board: Board) -> Board:
    official = load_board()
    if board is official or board == official:
        return official
    if len(_BOARDS) > 64:
        _BOARDS.clear()
    return _BOARDS.setdefault(board, board)


# ----------------------------------------------------------------------------- loading


def variant_from_toml(text: str, source: str = "", base_dir: Path | None = None) -> Variant:
    """A variant from TOML text (``source`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise VariantError(f"not valid TOML: {exc}", "", source, int(line.group(1)) if line else None) from exc
    return _parse(data, source, base_dir, _LineIndex.of_toml(text))


def variant_from_json(text: str, source: str = "", base_dir: Path | None = None) -> Variant:
    """A variant from JSON text (``source`` names it in errors).

    >>> variant_from_json('{"name": "j", "cards": {"face_up": 6}}').face_up_cards
    6
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VariantError(f"not valid JSON: {exc.msg}", "", source, exc.lineno) from exc
    return _parse(data, source, base_dir, _LineIndex.of_json(text))


def load_variant(path: str | Path) -> Variant:
    """A variant from a ``.toml`` or ``.json`` file; ``board.file`` is found beside it.

    >>> load_variant("no/such/file.toml")
    Traceback (most recent call last):
    ...
    ttr_nordic.engine.variant.VariantError: no/such/file.toml: cannot read the file: No such file or directory
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise VariantError(f"cannot read the file: {reason}", "", str(path)) from exc
    if file.suffix.lower() == ".json":
        return variant_from_json(text, str(path), file.parent)
    if file.suffix.lower() == ".toml":
        return variant_from_toml(text, str(path), file.parent)
    raise VariantError("a variant file ends in .toml or .json", "", str(path))


#: The official rules on the official board.
OFFICIAL: Final = Variant()
