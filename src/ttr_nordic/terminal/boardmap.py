"""A text map of any board, drawn from its city positions: routes as lines, cities as labels.

The board's ``x``/``y`` (pixels on the board image for Nordic Countries, any units for a custom
board) are scaled into a grid of characters; a route is a line of ``.`` (free) or of its
owner's seat number, a city the first letters of its name. Nothing here knows the Nordic
outline, so a custom board is drawn the same way.

>>> from ttr_nordic.engine.variant import load_variant
>>> board = load_variant("examples/variants/small-board.toml").board
>>> rows = board_map(board, [-1] * len(board.routes), width=40, height=12)
>>> len(rows), max(len(row) for row in rows) <= 40
(12, True)
>>> "Ada" in rows[0] and "Bel" in rows[0]
True
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Board

FREE = "."


def _grid_point(x: float, y: float, box: tuple[float, float, float, float], width: int, height: int) -> tuple[int, int]:
    left, top, right, bottom = box
    col = 0 if right == left else round((x - left) / (right - left) * (width - 1))
    row = 0 if bottom == top else round((y - top) / (bottom - top) * (height - 1))
    return col, row


def _line(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The grid cells from ``a`` to ``b`` (Bresenham), ends included."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    cells = []
    while True:
        cells.append((x0, y0))
        if (x0, y0) == (x1, y1):
            return cells
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def city_labels(board: Board) -> list[str]:
    """A distinct three-letter label per city: its first three letters, or, where two cities
    share them (Tromsø and Trondheim), its first two letters and a later one of its own.

    >>> from ttr_nordic.engine import load_board
    >>> labels = city_labels(load_board())
    >>> labels[load_board().city("Tromsø").id], labels[load_board().city("Trondheim").id]
    ('Trm', 'Trn')
    """
    first = [c.name[:3] for c in board.cities]
    labels: list[str] = []
    for index, city in enumerate(board.cities):
        label = first[index]
        if first.count(label) > 1:
            taken = set(labels) | {f for i, f in enumerate(first) if i != index and first.count(f) == 1}
            others = [c.name for i, c in enumerate(board.cities) if i != index and first[i] == label]
            for char in city.name[2:]:
                candidate = city.name[:2] + char
                if candidate not in taken and all(char not in other[2:3] for other in others):
                    label = candidate
                    break
            else:
                label = city.name[:2] + str(index % 10)
        labels.append(label)
    return labels


def board_map(board: Board, route_owner: Sequence[int], width: int = 96, height: int = 32) -> list[str]:
    """The board as ``height`` lines of at most ``width`` characters (see the module docstring).

    A route owned by seat ``p`` is drawn with the digit ``p + 1``; city labels are three
    letters, moved left where they would run off the right edge.
    """
    label = 3
    xs = [c.x for c in board.cities]
    ys = [c.y for c in board.cities]
    box = (min(xs), min(ys), max(xs), max(ys))
    inner = max(2, width - label)  # room for the last label
    points = [_grid_point(c.x, c.y, box, inner, height) for c in board.cities]
    grid = [[" "] * width for _ in range(height)]
    # Free routes first, owned ones over them: a claim stays visible where lines cross.
    order = sorted(range(len(board.routes)), key=lambda r: route_owner[r] >= 0)
    for rid in order:
        route = board.routes[rid]
        owner = route_owner[rid]
        mark = FREE if owner < 0 else str(owner + 1)
        for col, row in _line(points[route.a], points[route.b])[1:-1]:
            grid[row][col] = mark
    for name, (col, row) in zip(city_labels(board), points, strict=True):
        start = min(col, width - len(name))
        for offset, char in enumerate(name):
            grid[row][start + offset] = char
    return ["".join(row).rstrip() for row in grid]


def map_legend(board: Board) -> list[str]:
    """The cities' full names by their three-letter labels, wrapped to about 96 characters."""
    entries = [f"{label} {c.name}" for label, c in zip(city_labels(board), board.cities, strict=True)]
    lines: list[str] = []
    current = ""
    for entry in entries:
        if current and len(current) + len(entry) + 3 > 96:
            lines.append(current)
            current = ""
        current = f"{current} · {entry}" if current else entry
    if current:
        lines.append(current)
    return lines
