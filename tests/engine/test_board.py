"""Board facts (R1.3, R1.7, D1, D2, R6.13; board README) and the packaged data."""

from __future__ import annotations

import heapq
import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from ttr_nordic.engine import GRAY, RouteKind, load_board
from ttr_nordic.engine.board import ROUTE_POINTS

board = load_board()


def test_city_route_and_ticket_counts() -> None:
    assert len(board.cities) == 39
    assert len({c.name for c in board.cities}) == 39
    assert len(board.routes) == 81
    assert len(board.tickets) == 46


def test_city_pairs_and_double_routes() -> None:
    pairs = Counter(frozenset((r.a, r.b)) for r in board.routes)
    assert len(pairs) == 67
    assert all(r.a != r.b for r in board.routes)
    doubles = [pair for pair, n in pairs.items() if n == 2]
    assert len(doubles) == 14
    assert max(pairs.values()) == 2
    # The twin links are mutual and join the same two cities (D2).
    twins = [r for r in board.routes if r.twin is not None]
    assert len(twins) == 28
    for r in twins:
        other = board.routes[r.twin]  # type: ignore[index]
        assert other.twin == r.id
        assert {other.a, other.b} == {r.a, r.b}
    for r in board.routes:
        if r.twin is None:
            assert pairs[frozenset((r.a, r.b))] == 1


def test_train_spaces_and_lengths() -> None:
    assert sum(r.length for r in board.routes) == 207
    by_length = Counter(r.length for r in board.routes)
    assert dict(by_length) == {1: 17, 2: 28, 3: 20, 4: 11, 5: 3, 6: 1, 9: 1}


def test_colors_and_gray_routes() -> None:
    assert sum(1 for r in board.routes if r.color == GRAY) == 11
    assert all(r.color == GRAY or 0 <= r.color <= 7 for r in board.routes)


def test_tunnels_and_ferries() -> None:
    tunnels = [r for r in board.routes if r.kind is RouteKind.TUNNEL]
    ferries = [r for r in board.routes if r.kind is RouteKind.FERRY]
    assert len(tunnels) == 10
    assert len(ferries) == 24
    assert sum(r.ferry_locomotives for r in ferries) == 30
    assert Counter(r.ferry_locomotives for r in ferries) == {1: 18, 2: 6}
    # D1: exactly one type; only ferries carry locomotive spaces; no gray tunnel on the map.
    assert all(r.ferry_locomotives == 0 for r in board.routes if r.kind is not RouteKind.FERRY)
    assert all(1 <= r.ferry_locomotives <= r.length for r in ferries)
    assert all(r.color != GRAY for r in tunnels)


def test_murmansk_lieksa_is_the_only_special_route() -> None:
    special = [r for r in board.routes if r.kind is RouteKind.SPECIAL]
    assert len(special) == 1
    route = special[0]
    names = {board.cities[route.a].name, board.cities[route.b].name}
    assert names == {"Murmansk", "Lieksa"}
    assert route.color == GRAY
    assert route.length == 9
    assert route.ferry_locomotives == 0
    assert route.twin is None
    assert route.points == 27


def test_tickets() -> None:
    points = [t.points for t in board.tickets]
    assert min(points) == 3
    assert max(points) == 24
    assert sum(points) == 460
    top = [t for t in board.tickets if t.points == 24]
    assert len(top) == 1
    assert {board.cities[top[0].a].name, board.cities[top[0].b].name} == {"København", "Murmansk"}
    assert all(t.a != t.b for t in board.tickets)
    assert len({frozenset((t.a, t.b)) for t in board.tickets}) == 46


def _distances(source: int) -> list[float]:
    dist = [float("inf")] * len(board.cities)
    dist[source] = 0
    queue = [(0, source)]
    while queue:
        d, city = heapq.heappop(queue)
        if d > dist[city]:
            continue
        for r in board.routes:
            if city in (r.a, r.b):
                other = r.b if city == r.a else r.a
                if d + r.length < dist[other]:
                    dist[other] = d + r.length
                    heapq.heappush(queue, (d + r.length, other))
    return dist


def test_ticket_points_equal_shortest_path_in_spaces() -> None:
    for t in board.tickets:
        assert _distances(t.a)[t.b] == t.points, t.name


def test_board_is_connected() -> None:
    assert all(d < float("inf") for d in _distances(0))


def test_route_codes_map_to_ids() -> None:
    for i, r in enumerate(board.routes):
        assert r.id == i
        assert r.code == f"R{i + 1:02d}"
        assert board.route_by_code(r.code) is r
        assert board.route_by_code(r.code.lower()) is r
    with pytest.raises(KeyError):
        board.route_by_code("R82")


def test_route_points_table() -> None:
    """R6.13: points depend only on the length."""
    assert ROUTE_POINTS == {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 9: 27}
    assert all(r.points == ROUTE_POINTS[r.length] for r in board.routes)


# Appendix A of the rules specification: (a, b, length, color, kind, locomotive spaces).
APPENDIX_A = [
    ("Boden", "Kiruna", 3, "black", RouteKind.REGULAR, 0),
    ("Boden", "Kiruna", 3, "orange", RouteKind.REGULAR, 0),
    ("Göteborg", "Oslo", 2, "orange", RouteKind.REGULAR, 0),
    ("Göteborg", "Norrköping", 3, "gray", RouteKind.REGULAR, 0),
    ("Helsinki", "Lahti", 1, "black", RouteKind.REGULAR, 0),
    ("Helsinki", "Tampere", 1, "orange", RouteKind.REGULAR, 0),
    ("Tampere", "Turku", 1, "red", RouteKind.REGULAR, 0),
    ("Helsinki", "Turku", 1, "white", RouteKind.REGULAR, 0),
    ("Kirkenes", "Rovaniemi", 5, "blue", RouteKind.REGULAR, 0),
    ("Oulu", "Vaasa", 3, "black", RouteKind.REGULAR, 0),
    ("Oslo", "Örebro", 2, "green", RouteKind.REGULAR, 0),
    ("Oslo", "Örebro", 2, "yellow", RouteKind.REGULAR, 0),
    ("Örebro", "Stockholm", 2, "black", RouteKind.REGULAR, 0),
    ("Örebro", "Stockholm", 2, "purple", RouteKind.REGULAR, 0),
    ("Kajaani", "Lieksa", 1, "blue", RouteKind.REGULAR, 0),
    ("Kajaani", "Oulu", 2, "yellow", RouteKind.REGULAR, 0),
    ("Kristiansand", "Stavanger", 3, "orange", RouteKind.FERRY, 1),
    ("Kristiansand", "Stavanger", 2, "green", RouteKind.TUNNEL, 0),
    ("Mo i Rana", "Trondheim", 6, "red", RouteKind.FERRY, 2),
    ("Mo i Rana", "Trondheim", 5, "green", RouteKind.TUNNEL, 0),
    ("Ålborg", "Göteborg", 2, "gray", RouteKind.FERRY, 1),
    ("Århus", "København", 1, "gray", RouteKind.FERRY, 1),
    ("Stockholm", "Tallinn", 4, "green", RouteKind.FERRY, 2),
    ("Stockholm", "Turku", 3, "blue", RouteKind.FERRY, 1),
    ("Helsinki", "Tallinn", 2, "purple", RouteKind.FERRY, 1),
    ("Lillehammer", "Oslo", 2, "purple", RouteKind.TUNNEL, 0),
    ("Bergen", "Oslo", 4, "blue", RouteKind.TUNNEL, 0),
    ("Bergen", "Oslo", 4, "red", RouteKind.TUNNEL, 0),
    ("Kiruna", "Narvik", 1, "purple", RouteKind.TUNNEL, 0),
    ("Kiruna", "Narvik", 1, "white", RouteKind.TUNNEL, 0),
    ("Murmansk", "Lieksa", 9, "gray", RouteKind.SPECIAL, 0),
]


@pytest.mark.parametrize(("a", "b", "length", "color", "kind", "locos"), APPENDIX_A)
def test_appendix_a_routes(a: str, b: str, length: int, color: str, kind: RouteKind, locos: int) -> None:
    lanes = [r for r in board.routes_between(a, b) if r.color_name == color and r.length == length]
    assert len(lanes) == 1
    route = lanes[0]
    assert route.kind is kind
    assert route.ferry_locomotives == locos


@pytest.mark.parametrize(
    ("a", "b", "doubled"),
    [
        ("Boden", "Kiruna", True),
        ("Oslo", "Örebro", True),
        ("Örebro", "Stockholm", True),
        ("Stockholm", "Sundsvall", True),
        ("Kristiansand", "Stavanger", True),
        ("Mo i Rana", "Trondheim", True),
        ("Bergen", "Oslo", True),
        ("Kiruna", "Narvik", True),
        ("Göteborg", "Oslo", False),
        ("Helsinki", "Tallinn", False),
        ("Murmansk", "Lieksa", False),
    ],
)
def test_appendix_a_double_routes(a: str, b: str, doubled: bool) -> None:
    lanes = board.routes_between(a, b)
    assert len(lanes) == (2 if doubled else 1)
    if doubled:
        assert lanes[0].twin == lanes[1].id and lanes[1].twin == lanes[0].id


@pytest.mark.parametrize(
    ("a", "b", "points"),
    [
        ("Oslo", "Stockholm", 4),
        ("Tampere", "Tallinn", 3),
        ("Helsinki", "Lieksa", 5),
        ("Oslo", "Helsinki", 8),
        ("Stockholm", "København", 6),
        ("Oslo", "Honningsvåg", 21),
        ("Narvik", "Murmansk", 12),
    ],
)
def test_appendix_a_tickets(a: str, b: str, points: int) -> None:
    assert board.ticket_between(a, b).points == points
    assert board.ticket_between(b, a).points == points


def test_package_loads_its_own_data() -> None:
    """The board ships inside the package; nothing is read from ../shared at run time."""
    data = resources.files("ttr_nordic.engine").joinpath("data/nordic-map.json")
    assert data.is_file()
    parsed = json.loads(data.read_text(encoding="utf-8"))
    assert len(parsed["routes"]) == 81
    import ttr_nordic.engine.board as board_module

    source = Path(board_module.__file__).read_text(encoding="utf-8")
    assert "shared" not in source
    package_dir = Path(board_module.__file__).parent
    assert Path(str(data)).resolve().is_relative_to(package_dir.resolve())


def test_packaged_data_matches_the_shared_board_when_present() -> None:
    shared = Path(__file__).resolve().parents[3] / "shared" / "board" / "nordic-map.json"
    if not shared.is_file():
        pytest.skip("no ../shared checkout here")
    packaged = resources.files("ttr_nordic.engine").joinpath("data/nordic-map.json").read_text(encoding="utf-8")
    assert json.loads(packaged) == json.loads(shared.read_text(encoding="utf-8"))
