"""docs/rules.md says what the engine does: its counts, its points table and its rejection reasons are
read from the document and compared with the engine's own."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ttr_nordic.engine import GameState, Reason, RouteKind
from ttr_nordic.engine.board import ROUTE_POINTS
from ttr_nordic.engine.core import FINAL_ROUND_TRAINS, TRAINS_PER_PLAYER

RULES = (Path(__file__).resolve().parents[1] / "docs" / "rules.md").read_text(encoding="utf-8")


def rule(number: str) -> str:
    """The text of rule ``number`` (up to the next rule or heading)."""
    match = re.search(rf"\*\*{re.escape(number)}\*\*(.*?)(?=\n- \*\*|\n#|\Z)", RULES, re.S)
    assert match is not None, number
    return " ".join(match.group(1).split())


def test_the_points_table_is_the_engines() -> None:
    table = re.search(r"\| length \|(.*?)\|\n.*?\n\s*\| points \|(.*?)\|\n", RULES, re.S)
    assert table is not None
    lengths = [int(cell) for cell in table.group(1).split("|")]
    points = [int(cell) for cell in table.group(2).split("|")]
    assert dict(zip(lengths, points, strict=True)) == ROUTE_POINTS


def test_every_rejection_reason_is_listed() -> None:
    listed = set(re.findall(r"^\| `([A-Z_]+)` \|", RULES, re.M))
    assert listed == {reason.name for reason in Reason}


def test_counts_match_the_board_and_the_setup() -> None:
    state = GameState.new(players=3, seed=1)
    board = state.board
    kinds = Counter(route.kind for route in board.routes)
    text = rule("R1.7")
    assert f"{len(board.cities)} cities and {len(board.routes)} routes" in text
    assert f"{sum(route.length for route in board.routes)} spaces" in text
    assert f"{kinds[RouteKind.FERRY]} ferries, {kinds[RouteKind.TUNNEL]} tunnels" in text
    assert f"{len(board.tickets)} destination tickets" in rule("R1.3")
    assert f"{TRAINS_PER_PLAYER} trains per player" in rule("R1.4")
    assert f"{FINAL_ROUND_TRAINS} or fewer" in rule("R8.1")
    doubles = sum(1 for route in board.routes if route.twin is not None and route.twin >= 0) // 2
    assert f"{doubles} double routes" in text
    two = GameState.new(players=2, seed=1)
    setup = rule("R3.6")
    assert f"draw pile {state.deck_count}" in setup and f"ticket deck {len(state.ticket_deck)}" in setup
    assert f"draw pile {two.deck_count}" in setup and f"ticket deck {len(two.ticket_deck)}" in setup
