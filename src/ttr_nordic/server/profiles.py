"""A player's profile: games played and won by format, the rating and its history, recent games.

Profiles are public, like a player's page on Board Game Arena or Lichess; a finished game is
listed with its players' seat names and result. Which replays a visitor may open is decided by
the caller (see :mod:`.account_routes`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, selectinload

from .account_db import GameRatingRow, RatingChangeRow, SeatAccountRow, UserRow
from .db import GameRow
from .games import FINISHED, iso
from .ratings import APPLIED, display, rating_of

#: How many recent games a profile lists, and how many points its rating chart draws.
RECENT_GAMES = 20
HISTORY_POINTS = 200


def _format(players: int) -> str:
    return f"{players}p"


def profile(engine: Engine, user: UserRow) -> dict[str, Any]:
    """The profile of ``user``: ``stats`` (``{"2p": {"rated": {"played", "won"}, "casual": ...}}``),
    ``rating`` (see :class:`.ratings.Rating`), ``history`` (one point per rated game, oldest
    first) and ``recent`` (finished games, newest first; each seat with the ``account`` that
    held it, if any)."""
    with Session(engine) as session:
        held: dict[str, set[int]] = defaultdict(set)
        for game_id, seat in session.execute(
            select(SeatAccountRow.game_id, SeatAccountRow.seat).where(SeatAccountRow.user_id == user.id)
        ):
            held[game_id].add(seat)
        games = list(
            session.scalars(
                select(GameRow)
                .options(selectinload(GameRow.seats))
                .where(GameRow.id.in_(list(held)), GameRow.status == FINISHED)
                .order_by(GameRow.finished_at.desc(), GameRow.id)
            )
        )
        changes = {
            row.game_id: row
            for row in session.scalars(
                select(RatingChangeRow).where(RatingChangeRow.user_id == user.id).order_by(RatingChangeRow.created_at)
            )
        }
        applied = set(
            session.scalars(
                select(GameRatingRow.game_id).where(
                    GameRatingRow.game_id.in_(list(held)), GameRatingRow.state == APPLIED
                )
            )
        )
        shown = [game.id for game in games[:RECENT_GAMES]]
        accounts = {
            (game_id, seat): name
            for game_id, seat, name in session.execute(
                select(SeatAccountRow.game_id, SeatAccountRow.seat, UserRow.name)
                .join(UserRow, UserRow.id == SeatAccountRow.user_id)
                .where(SeatAccountRow.game_id.in_(shown))
            )
        }
    stats: dict[str, dict[str, dict[str, int]]] = {
        _format(n): {kind: {"played": 0, "won": 0} for kind in ("rated", "casual")} for n in (2, 3)
    }
    recent: list[dict[str, Any]] = []
    for game in games:
        winners = {int(w) for w in game.winners.split(",")} if game.winners else set()
        change = changes.get(game.id)
        rated = game.id in applied and change is not None
        won: bool | None = (
            (change.rank == 1 and not change.forfeit) if rated and change else bool(held[game.id] & winners)
        )
        if not rated and len(held[game.id]) > 1:
            won = None  # pass and play: the account played every seat it holds, winner and loser alike
        bucket = stats.setdefault(_format(game.players), {k: {"played": 0, "won": 0} for k in ("rated", "casual")})
        entry = bucket["rated" if rated else "casual"]
        entry["played"] += 1
        entry["won"] += int(bool(won))
        if len(recent) < RECENT_GAMES:
            item: dict[str, Any] = {
                "id": game.id,
                "mode": game.mode,
                "players": game.players,
                "finished_at": None if game.finished_at is None else iso(game.finished_at),
                "seats": [
                    {"seat": s.seat, "name": s.name, "kind": s.kind, "account": accounts.get((game.id, s.seat))}
                    for s in game.seats
                ],
                "mine": sorted(held[game.id]),
                "winners": sorted(winners),
                "won": won,
                "rated": rated,
                "delta": None,
            }
            if rated and change is not None:
                item["delta"] = display(change.mu_after, change.sigma_after) - display(
                    change.mu_before, change.sigma_before
                )
            recent.append(item)
    history = [
        {
            "game_id": change.game_id,
            "at": iso(change.created_at),
            "rating": display(change.mu_after, change.sigma_after),
            "delta": display(change.mu_after, change.sigma_after) - display(change.mu_before, change.sigma_before),
        }
        for change in changes.values()
    ][-HISTORY_POINTS:]
    return {
        "name": user.name,
        "member_since": iso(user.created_at),
        "rating": rating_of(engine, user.id).public(),
        "history": history,
        "stats": stats,
        "recent": recent,
    }
