"""Rematch: after a game between people, the same people, the same format, a new deal.

Each seat's holder accepts (``POST /api/games/{id}/rematch`` with its token); the others see the
offer (``GET``). When every seat has accepted, one new game is created whose seats open with
the same tokens as before (their hashes are copied), so each browser's "Your games" opens its
new seat as it is; the accounts that held seats hold the new ones, a rated game's rematch is
rated, and a lobby game's rematch keeps its time control and stays public. Every function here
runs in a database thread.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .account_db import GameRatingRow, SeatAccountRow
from .db import utcnow
from .lobby import STARTED, LobbyError
from .lobby_db import RematchRow, TableRow, TableSeatRow
from .ratings import PENDING
from .serialize import JSON

#: Marks an offer every seat accepted, whose new game is being made.
STARTING_MARK = "+"


def offer_of(engine: Engine, game_id: str) -> JSON:
    """The seats that accepted a rematch of ``game_id`` and its new game (None until made)."""
    with Session(engine) as session:
        row = session.get(RematchRow, game_id)
        if row is None:
            return {"accepted": [], "new_game_id": None}
        return {"accepted": [int(c) for c in row.accepted.rstrip(STARTING_MARK)], "new_game_id": row.new_game_id}


def accept(engine: Engine, game_id: str, seat: int, seats: int) -> bool:
    """Record that ``seat`` accepts; returns True for the acceptance that completes the offer
    (its caller makes the new game: exactly one caller does)."""
    try:
        with Session(engine) as session, session.begin():
            row = session.scalars(select(RematchRow).where(RematchRow.game_id == game_id).with_for_update()).first()
            if row is None:
                row = RematchRow(game_id=game_id, accepted="", created_at=utcnow())
                session.add(row)
            if row.accepted.endswith(STARTING_MARK) or row.new_game_id is not None:
                return False
            accepted = sorted(set(row.accepted) | {str(seat)})
            complete = len(accepted) == seats
            row.accepted = "".join(accepted) + (STARTING_MARK if complete else "")
            return complete
    except IntegrityError as exc:  # two first acceptances at once
        raise LobbyError(409, "REMATCH_BUSY", "the rematch offer changed at this moment: try again") from exc


def made(engine: Engine, game_id: str, new_game_id: str) -> None:
    """Link the new game to the old: its seats' accounts, its rating, its lobby table."""
    with Session(engine) as session, session.begin():
        row = session.get(RematchRow, game_id)
        if row is not None:
            row.new_game_id = new_game_id
        for held in session.scalars(select(SeatAccountRow).where(SeatAccountRow.game_id == game_id)).all():
            session.add(SeatAccountRow(game_id=new_game_id, seat=held.seat, user_id=held.user_id))
        if session.get(GameRatingRow, game_id) is not None:
            session.add(GameRatingRow(game_id=new_game_id, state=PENDING))
        table = session.scalars(select(TableRow).where(TableRow.game_id == game_id)).first()
        if table is not None:
            now = utcnow()
            new_table = TableRow(
                id=new_game_id,
                players=table.players,
                rated=table.rated,
                time_control=table.time_control,
                variant_hash=table.variant_hash,
                status=STARTED,
                creator_key=table.creator_key,
                game_id=new_game_id,
                created_at=now,
                updated_at=now,
            )
            session.add(new_table)
            session.flush()
            for seat in session.scalars(select(TableSeatRow).where(TableSeatRow.table_id == table.id)).all():
                session.add(
                    TableSeatRow(
                        table_id=new_game_id,
                        seat=seat.seat,
                        name=seat.name,
                        ticket_hash=seat.ticket_hash,
                        user_id=seat.user_id,
                        client_key=seat.client_key,
                    )
                )


def reopen(engine: Engine, game_id: str) -> None:
    """The new game could not be made: the offer stands again, with every acceptance."""
    with Session(engine) as session, session.begin():
        row = session.get(RematchRow, game_id)
        if row is not None and row.new_game_id is None:
            row.accepted = row.accepted.rstrip(STARTING_MARK)
