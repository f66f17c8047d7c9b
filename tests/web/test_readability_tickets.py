"""A ticket shows its progress on the map when hovered or focused, in real Chromium: the routes
still missing on the cheapest way between its cities (over your routes and the unclaimed ones)
are marked, and their length is the shortest such distance, computed here again from the board."""

from __future__ import annotations

import heapq
from typing import Any

from .conftest import RequestLog, shot
from .driver import keep_all, wait_my_turn
from .test_pages import start_ai_game


def cheapest(board: dict[str, Any], owners: dict[int, int], seat: int, a: int, b: int) -> int:
    """Cars still to place between cities a and b: own routes cost 0, others' are closed."""
    best = {a: 0}
    queue = [(0, a)]
    while queue:
        d, city = heapq.heappop(queue)
        if city == b:
            return d
        if d > best.get(city, 1 << 30):
            continue
        for r in board["routes"]:
            if city not in (r["a"], r["b"]) or owners.get(r["id"], seat) != seat:
                continue
            other = r["b"] if r["a"] == city else r["a"]
            nd = d + (0 if r["id"] in owners else r["length"])
            if nd < best.get(other, 1 << 30):
                best[other] = nd
                heapq.heappush(queue, (nd, other))
    raise AssertionError("no way left between the ticket's cities")


def test_a_hovered_ticket_shows_the_routes_still_missing(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    board = page.request.get("/api/board").json()
    city = {c["name"]: c["id"] for c in board["cities"]}
    owners = {
        int(k): int(v)
        for k, v in page.evaluate(
            "() => Object.fromEntries([...document.querySelectorAll('.route.claimed')]"
            ".map((g) => [g.dataset.route, g.dataset.owner]))"
        ).items()
    }
    tickets = page.locator("#tickets li.open")
    assert tickets.count() >= 2
    for index in range(tickets.count()):
        row = tickets.nth(index)
        row.focus()
        text = row.inner_text()
        ends = [name for name in city if f"{name} –" in text or f"– {name}" in text]
        assert len(ends) == 2, (text, ends)
        missing = page.evaluate(
            "() => [...document.querySelectorAll('.route.ticket-missing')].map((g) => +g.dataset.route)"
        )
        assert missing, text
        length = sum(board["routes"][r]["length"] for r in missing)
        assert length == cheapest(board, owners, 0, city[ends[0]], city[ends[1]]), (text, missing)
        # The marked routes join the ticket's two cities.
        joined = {city[ends[0]]}
        path = missing + [r for r, seat in owners.items() if seat == 0]
        for _ in path:
            for r in path:
                ra, rb = board["routes"][r]["a"], board["routes"][r]["b"]
                if ra in joined or rb in joined:
                    joined |= {ra, rb}
        assert city[ends[1]] in joined, (text, missing)
        if index == 0:
            shot(page, "ticket-progress-1440x900")
    row.blur()
    assert page.locator(".route.ticket-missing").count() == 0
    assert requests_seen.errors == []
