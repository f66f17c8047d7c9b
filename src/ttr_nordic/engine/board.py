"""The Nordic Countries board: cities, routes and tickets as immutable objects.

The data ships inside the package (``engine/data/nordic-map.json``) and is
loaded once.

>>> from ttr_nordic.engine.board import load_board
>>> board = load_board()
>>> len(board.cities), len(board.routes), len(board.tickets)
(39, 81, 46)
>>> route = board.route_by_code("R51")
>>> route.name, route.length, route.kind.value
('Lieksa–Murmansk', 9, 'special')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from .cards import CARD_NAMES, COLORS

#: The color of a gray route (any one color of the player's choice).
GRAY: Final = -1

#: Points for claiming a route, by length (R6.13).
ROUTE_POINTS: Final = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 9: 27}
#: Cards of any colors that stand for one space of a ferry (R6.9) and of Murmansk–Lieksa (R6.12).
FERRY_GROUP: Final = 3
SPECIAL_GROUP: Final = 4


class RouteKind(Enum):
    """The four route types of D1."""

    REGULAR = "regular"
    FERRY = "ferry"
    TUNNEL = "tunnel"
    SPECIAL = "special"


@dataclass(frozen=True, slots=True)
class City:
    """A city on the board; ``x``/``y`` are pixels on the 1125×1744 board image."""

    id: int
    name: str
    english_name: str
    country: str
    x: float
    y: float
    lat: float
    lon: float


@dataclass(frozen=True, slots=True)
class Route:
    """One lane between two cities. ``color`` is a card color or ``GRAY``."""

    id: int
    code: str
    a: int
    b: int
    name: str
    length: int
    color: int
    kind: RouteKind
    ferry_locomotives: int
    twin: int | None
    points: int
    #: How many cards of any colors stand for one space: 3 on a ferry, 4 on the special route,
    #: 0 on the others (a variant may change the ferry's number).
    group: int = 0

    @property
    def is_gray(self) -> bool:
        return self.color == GRAY

    @property
    def color_name(self) -> str:
        return "gray" if self.color == GRAY else CARD_NAMES[self.color]

    def describe(self) -> str:
        """A readable summary, e.g. ``'Kristiansand–Stavanger 3 orange ferry (1 loco)'``."""
        text = f"{self.name} {self.length} {self.color_name}"
        if self.kind is RouteKind.FERRY:
            text += f" ferry ({self.ferry_locomotives} loco)"
        elif self.kind is RouteKind.TUNNEL:
            text += " tunnel"
        elif self.kind is RouteKind.SPECIAL:
            text += f" special (any {self.group} cards = 1)"
        return text


@dataclass(frozen=True, slots=True)
class Ticket:
    """A destination ticket between cities ``a`` and ``b`` worth ``points``."""

    id: int
    a: int
    b: int
    name: str
    points: int


class BoardDataError(ValueError):
    """The board file is malformed."""


@dataclass(frozen=True)
class Board:
    """The whole board. Ids are indices into ``cities``, ``routes`` and ``tickets``."""

    cities: tuple[City, ...]
    routes: tuple[Route, ...]
    tickets: tuple[Ticket, ...]

    def city(self, name: str) -> City:
        """A city by board or English name (case-insensitive)."""
        key = name.strip().casefold()
        for city in self.cities:
            if city.name.casefold() == key or city.english_name.casefold() == key:
                return city
        raise KeyError(f"no city named {name!r}")

    def route_by_code(self, code: str) -> Route:
        """A route by its code (``'R45'``, case-insensitive)."""
        key = code.strip().upper()
        for route in self.routes:
            if route.code == key:
                return route
        raise KeyError(f"no route {code!r}")

    def routes_between(self, a: str | int, b: str | int) -> list[Route]:
        """The lanes between two cities (one, or two for a double route)."""
        ia = a if isinstance(a, int) else self.city(a).id
        ib = b if isinstance(b, int) else self.city(b).id
        return [r for r in self.routes if {r.a, r.b} == {ia, ib}]

    def ticket_between(self, a: str, b: str) -> Ticket:
        ia, ib = self.city(a).id, self.city(b).id
        for ticket in self.tickets:
            if {ticket.a, ticket.b} == {ia, ib}:
                return ticket
        raise KeyError(f"no ticket {a}–{b}")


def _kind(raw: dict[str, Any]) -> RouteKind:
    kind = raw.get("kind", "regular")
    if kind == "normal":
        return RouteKind.REGULAR
    return RouteKind(kind)


def _group(kind: RouteKind, ferry_group: int, special_group: int) -> int:
    if kind is RouteKind.FERRY:
        return ferry_group
    if kind is RouteKind.SPECIAL:
        return special_group
    return 0


def board_to_dict(board: Board) -> dict[str, Any]:
    """``board`` in the JSON structure of ``nordic-map.json`` (cities, routes, tickets), which
    :func:`parse_board` reads back. Route points and group sizes are rules, not board data,
    so they are left out.

    >>> data = board_to_dict(load_board())
    >>> parse_board(data) == load_board()
    True
    """
    cities = board.cities
    return {
        "cities": [
            {
                "name": c.name,
                "english_name": c.english_name,
                "country": c.country,
                "x": c.x,
                "y": c.y,
                "lat": c.lat,
                "lon": c.lon,
            }
            for c in cities
        ],
        "routes": [
            {
                "id": r.code,
                "a": cities[r.a].name,
                "b": cities[r.b].name,
                "length": r.length,
                "color": r.color_name,
                "kind": r.kind.value,
                "ferry_locomotives": r.ferry_locomotives,
                "double_route_with": None if r.twin is None else board.routes[r.twin].code,
            }
            for r in board.routes
        ],
        "tickets": [{"a": cities[t.a].name, "b": cities[t.b].name, "points": t.points} for t in board.tickets],
    }


def parse_board(
    data: dict[str, Any],
    route_points: dict[int, int] | None = None,
    ferry_group: int = FERRY_GROUP,
    special_group: int = SPECIAL_GROUP,
) -> Board:
    """Build a :class:`Board` from the JSON structure of ``nordic-map.json``.

    ``route_points`` (points by route length, default :data:`ROUTE_POINTS`) and the group sizes
    come from the rules in force (see :mod:`ttr_nordic.engine.variant`, which also checks a
    custom board field by field before building it here). A city's ``country``, ``lat`` and
    ``lon`` are optional; a route's ``kind`` defaults to regular.

    >>> board = parse_board({
    ...     "cities": [{"name": "A", "x": 0, "y": 0}, {"name": "B", "x": 10, "y": 0}],
    ...     "routes": [{"id": "R01", "a": "A", "b": "B", "length": 2, "color": "red"}],
    ...     "tickets": [{"a": "A", "b": "B", "points": 3}],
    ... })
    >>> board.routes[0].describe(), board.routes[0].points
    ('A–B 2 red', 2)
    """
    points_by_length = ROUTE_POINTS if route_points is None else route_points
    try:
        cities = tuple(
            City(
                id=i,
                name=c["name"],
                english_name=c.get("english_name", c["name"]),
                country=c.get("country", ""),
                x=float(c["x"]),
                y=float(c["y"]),
                lat=float(c.get("lat", 0.0)),
                lon=float(c.get("lon", 0.0)),
            )
            for i, c in enumerate(data["cities"])
        )
        index = {c.name: c.id for c in cities}
        codes = {r["id"]: i for i, r in enumerate(data["routes"])}
        color_index = {name: i for i, name in enumerate(CARD_NAMES[: len(COLORS)])}
        routes = []
        for i, r in enumerate(data["routes"]):
            a, b = sorted((index[r["a"]], index[r["b"]]), key=lambda c: cities[c].name)
            twin_code = r.get("double_route_with")
            routes.append(
                Route(
                    id=i,
                    code=r["id"],
                    a=a,
                    b=b,
                    name=f"{cities[a].name}–{cities[b].name}",
                    length=int(r["length"]),
                    color=GRAY if r["color"] == "gray" else color_index[r["color"]],
                    kind=_kind(r),
                    ferry_locomotives=int(r.get("ferry_locomotives", 0)),
                    twin=None if twin_code is None else codes[twin_code],
                    points=points_by_length[int(r["length"])],
                    group=_group(_kind(r), ferry_group, special_group),
                )
            )
        tickets = tuple(
            Ticket(
                id=i,
                a=index[t["a"]],
                b=index[t["b"]],
                name=f"{t['a']}–{t['b']}",
                points=int(t["points"]),
            )
            for i, t in enumerate(data["tickets"])
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BoardDataError(f"malformed board data: {exc!r}") from exc
    return Board(cities=cities, routes=tuple(routes), tickets=tickets)


@lru_cache(maxsize=1)
def load_board() -> Board:
    """The Nordic Countries board, from the package data (cached)."""
    text = resources.files("ttr_nordic.engine").joinpath("data/nordic-map.json").read_text(encoding="utf-8")
    return parse_board(json.loads(text))
