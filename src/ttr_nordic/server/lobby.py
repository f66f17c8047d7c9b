"""The lobby: open tables that become games when their seats are full (storage and rules).

A table has a format (2 or 3 seats, rated or casual, a time control or none). Whoever makes or
joins one gets a seat *ticket*, a secret that becomes that seat's game token when the table
starts, so the browser opens ``/play/{game}?seat={ticket}`` at once. The list is the
database's, so on several server processes over one PostgreSQL a table made through one is
joined through another. Every function here runs in a database thread.

>>> import tempfile
>>> from ttr_nordic.server.db import make_engine, migrate
>>> engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/lobby.sqlite")
>>> _ = migrate(engine)
>>> made = create_table(engine, Format(2, False, None), "Ann", "client-a", None)
>>> joined = join_table(engine, made.table_id, "Bob", "client-b", None)
>>> joined.seat, joined.full
(1, True)
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .account_db import GameRatingRow, PlayerRatingRow, SeatAccountRow, UserRow
from .db import GameRow, VariantRow, utcnow
from .lobby_db import TableRow, TableSeatRow
from .ratings import PENDING, START_MU, START_SIGMA, display
from .serialize import JSON
from .store import ACTIVE
from .tokens import client_key, hash_token, new_token

#: Open tables one client address (or account) may have made at once.
MAX_OPEN_PER_CLIENT = 3
#: Seats one client address may hold at open tables at once (its own tables' included).
MAX_SEATS_PER_CLIENT = 6
#: Open tables in the whole lobby (a new one beyond is refused).
MAX_OPEN_TABLES = 500
#: Tables one list answer carries.
LIST_LIMIT = 100
#: Seconds after which a table still "starting" has lost its starter: the process that took the
#: last seat was stopped before the game was made (creating one takes well under a second).
STARTING_STALE_S = 60

OPEN = "open"
STARTING = "starting"
STARTED = "started"
CANCELLED = "cancelled"


class LobbyError(Exception):
    """A refused lobby request: an HTTP status, a code and a one-line message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Format:
    """What a table plays: its seats, rated or casual, its time control (JSON text or None) and
    its rule variant (the hash of its stored row, see :mod:`.variants`; None: the official rules)."""

    players: int
    rated: bool
    time_control: str | None
    variant_hash: str | None = None


@dataclass(frozen=True)
class Taken:
    """A seat taken at a table: its number and ticket (shown only this once); ``full`` when the
    table has no empty seat left and is the caller's to start."""

    table_id: str
    seat: int
    ticket: str
    full: bool


@dataclass(frozen=True)
class StartSeat:
    """A seat of a table being started: a person (ticket hash, maybe an account) or a computer."""

    name: str
    ticket_hash: str | None
    user_id: str | None
    level: str | None = None


@dataclass(frozen=True)
class Starting:
    """A table whose game is to be created now."""

    table_id: str
    rated: bool
    time_control: JSON | None
    seats: list[StartSeat]
    variant_hash: str | None = None


def _ratings(session: Session, user_ids: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    if user_ids:
        for row in session.scalars(select(PlayerRatingRow).where(PlayerRatingRow.user_id.in_(user_ids))):
            found[row.user_id] = display(row.mu, row.sigma)
    return {user_id: found.get(user_id, display(START_MU, START_SIGMA)) for user_id in user_ids}


def _variant_names(session: Session, tables: list[TableRow]) -> dict[str | None, str | None]:
    """The names of the tables' variants, by hash (None: the official rules)."""
    hashes = {t.variant_hash for t in tables if t.variant_hash is not None}
    names: dict[str | None, str | None] = {None: None}
    if hashes:
        query = select(VariantRow.hash, VariantRow.name).where(VariantRow.hash.in_(hashes))
        names.update((digest, name) for digest, name in session.execute(query))
    return names


def _public(
    table: TableRow, seats: list[TableSeatRow], ratings: dict[str, int], variants: dict[str | None, str | None]
) -> JSON:
    return {
        "id": table.id,
        "players": table.players,
        "rated": table.rated,
        "time_control": None if table.time_control is None else json.loads(table.time_control),
        "variant": variants.get(table.variant_hash),  # its name; null: the official rules
        "status": table.status,
        "game_id": table.game_id,
        "created_at": table.created_at.isoformat(),
        "seats": [
            {
                "seat": seat.seat,
                "name": seat.name,
                "account": seat.user_id is not None,
                "rating": ratings.get(seat.user_id) if seat.user_id else None,
            }
            for seat in sorted(seats, key=lambda s: s.seat)
        ],
    }


def _seats(session: Session, table_ids: list[str]) -> dict[str, list[TableSeatRow]]:
    out: dict[str, list[TableSeatRow]] = {table_id: [] for table_id in table_ids}
    if table_ids:
        for seat in session.scalars(select(TableSeatRow).where(TableSeatRow.table_id.in_(table_ids))):
            out[seat.table_id].append(seat)
    return out


def open_tables(engine: Engine, limit: int = LIST_LIMIT) -> list[JSON]:
    """The open tables, oldest first (the first to fill), each with its seats and their ratings."""
    with Session(engine) as session:
        tables = list(
            session.scalars(select(TableRow).where(TableRow.status == OPEN).order_by(TableRow.created_at).limit(limit))
        )
        seats = _seats(session, [t.id for t in tables])
        users = [s.user_id for rows in seats.values() for s in rows if s.user_id]
        ratings = _ratings(session, users)
        variants = _variant_names(session, tables)
        return [_public(t, seats[t.id], ratings, variants) for t in tables]


def playing_tables(engine: Engine, limit: int = 20) -> list[JSON]:
    """The newest started tables whose game is still running (to watch)."""
    with Session(engine) as session:
        tables = list(
            session.scalars(
                select(TableRow)
                .join(GameRow, GameRow.id == TableRow.game_id)
                .where(TableRow.status == STARTED, GameRow.status == ACTIVE)
                .order_by(TableRow.updated_at.desc())
                .limit(limit)
            )
        )
        seats = _seats(session, [t.id for t in tables])
        users = [s.user_id for rows in seats.values() for s in rows if s.user_id]
        ratings = _ratings(session, users)
        variants = _variant_names(session, tables)
        return [_public(t, seats[t.id], ratings, variants) for t in tables]


def table_of(engine: Engine, table_id: str) -> JSON:
    """One table (any status), or :class:`LobbyError` 404."""
    with Session(engine) as session:
        table = session.get(TableRow, table_id)
        if table is None:
            raise LobbyError(404, "TABLE_NOT_FOUND", f"no table {table_id!r}")
        seats = _seats(session, [table_id])[table_id]
        ratings = _ratings(session, [s.user_id for s in seats if s.user_id])
        return _public(table, seats, ratings, _variant_names(session, [table]))


def create_table(engine: Engine, fmt: Format, name: str, client: str, user_id: str | None) -> Taken:
    """Make a table, its creator in seat 0. Refused: a rated table without an account, a client
    with :data:`MAX_OPEN_PER_CLIENT` open tables, a full lobby."""
    if fmt.rated and user_id is None:
        raise LobbyError(401, "SIGN_IN_REQUIRED", "a rated table is between accounts: sign in first")
    key = client_key(client)
    ticket = new_token()
    table_id = uuid.uuid4().hex
    with Session(engine) as session, session.begin():
        mine = session.scalar(
            select(func.count()).select_from(TableRow).where(TableRow.status == OPEN, TableRow.creator_key == key)
        )
        if (mine or 0) >= MAX_OPEN_PER_CLIENT:
            raise LobbyError(
                429, "TOO_MANY_TABLES", f"at most {MAX_OPEN_PER_CLIENT} open tables at once: wait for one to fill"
            )
        total = session.scalar(select(func.count()).select_from(TableRow).where(TableRow.status == OPEN))
        if (total or 0) >= MAX_OPEN_TABLES:
            raise LobbyError(503, "LOBBY_FULL", "the lobby is full: join an open table or try again later")
        now = utcnow()
        session.add(
            TableRow(
                id=table_id,
                players=fmt.players,
                rated=fmt.rated,
                time_control=fmt.time_control,
                variant_hash=fmt.variant_hash,
                status=OPEN,
                creator_key=key,
                created_at=now,
                updated_at=now,
            )
        )
        session.flush()
        _check_seats(session, key)
        session.add(
            TableSeatRow(
                table_id=table_id, seat=0, name=name, ticket_hash=hash_token(ticket), user_id=user_id, client_key=key
            )
        )
    return Taken(table_id, 0, ticket, False)


def join_table(engine: Engine, table_id: str, name: str, client: str, user_id: str | None) -> Taken:
    """Take the first empty seat of an open table. The join that fills it marks it "starting"
    (in the same transaction, so exactly one caller starts it) and says so (``full``)."""
    ticket = new_token()
    try:
        with Session(engine) as session, session.begin():
            table = session.scalars(select(TableRow).where(TableRow.id == table_id).with_for_update()).first()
            if table is None:
                raise LobbyError(404, "TABLE_NOT_FOUND", f"no table {table_id!r}")
            if table.status != OPEN:
                raise LobbyError(409, "TABLE_CLOSED", "this table is no longer open")
            if table.rated and user_id is None:
                raise LobbyError(401, "SIGN_IN_REQUIRED", "a rated table is between accounts: sign in first")
            seats = list(session.scalars(select(TableSeatRow).where(TableSeatRow.table_id == table_id)))
            if user_id is not None and any(s.user_id == user_id for s in seats):
                raise LobbyError(409, "ALREADY_SEATED", "your account already has a seat at this table")
            _check_seats(session, client_key(client))
            taken = {s.seat for s in seats}
            seat = min(i for i in range(table.players) if i not in taken)
            session.add(
                TableSeatRow(
                    table_id=table_id,
                    seat=seat,
                    name=name,
                    ticket_hash=hash_token(ticket),
                    user_id=user_id,
                    client_key=client_key(client),
                )
            )
            full = len(taken) + 1 == table.players
            table.updated_at = utcnow()
            if full:
                table.status = STARTING
    except IntegrityError as exc:  # another join took that seat at the same moment
        raise LobbyError(409, "SEAT_TAKEN", "that seat was just taken: try again") from exc
    return Taken(table_id, seat, ticket, full)


def _check_seats(session: Session, key: str) -> None:
    held = session.scalar(
        select(func.count())
        .select_from(TableSeatRow)
        .join(TableRow, TableRow.id == TableSeatRow.table_id)
        .where(TableSeatRow.client_key == key, TableRow.status == OPEN)
    )
    if (held or 0) >= MAX_SEATS_PER_CLIENT:
        raise LobbyError(
            429, "TOO_MANY_SEATS", f"at most {MAX_SEATS_PER_CLIENT} seats at open tables at once: wait for one to start"
        )


def _seat_by_ticket(session: Session, table_id: str, ticket: str) -> TableSeatRow:
    seat = session.scalars(
        select(TableSeatRow).where(TableSeatRow.table_id == table_id, TableSeatRow.ticket_hash == hash_token(ticket))
    ).first()
    if seat is None:
        raise LobbyError(403, "TICKET_REQUIRED", "send the ticket of your seat at this table")
    return seat


def fill_with_computer(engine: Engine, table_id: str, ticket: str) -> bool:
    """The creator (seat 0's ticket) fills the empty seats with the computer: the table becomes
    casual and "starting". Returns whether it was rated (now casual)."""
    with Session(engine) as session, session.begin():
        table = session.scalars(select(TableRow).where(TableRow.id == table_id).with_for_update()).first()
        if table is None:
            raise LobbyError(404, "TABLE_NOT_FOUND", f"no table {table_id!r}")
        if _seat_by_ticket(session, table_id, ticket).seat != 0:
            raise LobbyError(403, "NOT_CREATOR", "only the table's creator may fill its seats with the computer")
        if table.status != OPEN:
            raise LobbyError(409, "TABLE_CLOSED", "this table is no longer open")
        was_rated = table.rated
        table.rated = False
        table.status = STARTING
        table.updated_at = utcnow()
    return was_rated


def leave_table(engine: Engine, table_id: str, ticket: str) -> str:
    """Leave an open table: the creator cancels it, anyone else frees their seat. Returns the
    table's status afterwards."""
    with Session(engine) as session, session.begin():
        table = session.scalars(select(TableRow).where(TableRow.id == table_id).with_for_update()).first()
        if table is None:
            raise LobbyError(404, "TABLE_NOT_FOUND", f"no table {table_id!r}")
        seat = _seat_by_ticket(session, table_id, ticket)
        if table.status != OPEN:
            raise LobbyError(409, "TABLE_CLOSED", "this table is no longer open")
        if seat.seat == 0:
            table.status = CANCELLED
        else:
            session.delete(seat)
        table.updated_at = utcnow()
        return table.status


def starting(engine: Engine, table_id: str, level: str) -> Starting:
    """What a "starting" table's game is made of: its people, then the computer at ``level`` in
    the seats left empty."""
    with Session(engine) as session:
        table = session.get(TableRow, table_id)
        if table is None or table.status != STARTING:
            raise LobbyError(409, "TABLE_NOT_STARTING", "this table is not starting")
        by_seat = {s.seat: s for s in _seats(session, [table_id])[table_id]}
        seats = []
        for index in range(table.players):
            row = by_seat.get(index)
            if row is None:
                seats.append(StartSeat(f"Computer {index + 1} ({level})", None, None, level))
            else:
                seats.append(StartSeat(row.name, row.ticket_hash, row.user_id))
        tc = None if table.time_control is None else json.loads(table.time_control)
        return Starting(table_id, table.rated, tc, seats, table.variant_hash)


def started(engine: Engine, plan: Starting, game_id: str) -> None:
    """Link a started table to its game; a rated one is recorded rated, each seat held by its account."""
    with Session(engine) as session, session.begin():
        linked = session.execute(
            update(TableRow)
            .where(TableRow.id == plan.table_id, TableRow.status == STARTING)
            .values(status=STARTED, game_id=game_id, updated_at=utcnow())
        )
        if linked.rowcount != 1:  # type: ignore[attr-defined]  # opened again meanwhile: see recover_stale
            raise LobbyError(409, "TABLE_NOT_STARTING", "this table is not starting")
        for index, seat in enumerate(plan.seats):
            if seat.user_id is not None and session.get(UserRow, seat.user_id) is not None:
                session.add(SeatAccountRow(game_id=game_id, seat=index, user_id=seat.user_id))
        if plan.rated:
            session.add(GameRatingRow(game_id=game_id, state=PENDING))


def recover_stale(engine: Engine, table_id: str | None = None, now: datetime | None = None) -> list[str]:
    """Open again the tables (all, or ``table_id``) left "starting" for over ``STARTING_STALE_S``.

    The seat that filled such a table goes: its holder's ticket was in the answer that never
    came, so nobody could play that seat. Everyone else keeps their seat and ticket (the
    creator's page, polling, sees the table open again and waits); a table filled with the
    computer opens with its people only. Returns the tables opened again.

    >>> import tempfile
    >>> from ttr_nordic.server.db import make_engine, migrate
    >>> engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/lobby.sqlite")
    >>> _ = migrate(engine)
    >>> made = create_table(engine, Format(2, False, None), "Ann", "client-a", None)
    >>> _ = join_table(engine, made.table_id, "Bob", "client-b", None)  # then the process is stopped
    >>> recover_stale(engine) == []  # still in time
    True
    >>> recover_stale(engine, now=utcnow() + timedelta(seconds=STARTING_STALE_S + 1)) == [made.table_id]
    True
    >>> [(s["seat"], s["name"]) for s in table_of(engine, made.table_id)["seats"]]
    [(0, 'Ann')]
    """
    cutoff = (now or utcnow()) - timedelta(seconds=STARTING_STALE_S)
    reopened: list[str] = []
    with Session(engine) as session, session.begin():
        query = select(TableRow).where(TableRow.status == STARTING, TableRow.updated_at < cutoff)
        if table_id is not None:
            query = query.where(TableRow.id == table_id)
        for table in session.scalars(query.with_for_update(skip_locked=True)):
            seats = list(
                session.scalars(
                    select(TableSeatRow)
                    .where(TableSeatRow.table_id == table.id)
                    .order_by(TableSeatRow.joined_at.desc(), TableSeatRow.seat.desc())
                )
            )
            if len(seats) == table.players and seats[0].seat != 0:  # filled by a join, not by the computer
                session.delete(seats[0])
            table.status = OPEN
            table.updated_at = utcnow()
            reopened.append(table.id)
    return reopened


def reopen(engine: Engine, table_id: str) -> None:
    """A table whose game could not be created opens again (its seats kept)."""
    with Session(engine) as session, session.begin():
        session.execute(
            update(TableRow)
            .where(TableRow.id == table_id, TableRow.status == STARTING)
            .values(status=OPEN, updated_at=utcnow())
        )


def quick_candidate(engine: Engine, fmt: Format, exclude: list[str], user_id: str | None) -> str | None:
    """The oldest open table of exactly this format, not in ``exclude`` (the browser's own) and
    without this account at it (for quick match), or None."""
    with Session(engine) as session:
        query = select(TableRow.id).where(
            TableRow.status == OPEN,
            TableRow.players == fmt.players,
            TableRow.rated == fmt.rated,
            TableRow.id.not_in(exclude),
        )
        query = (
            query.where(TableRow.time_control.is_(None))
            if fmt.time_control is None
            else query.where(TableRow.time_control == fmt.time_control)
        )
        query = (
            query.where(TableRow.variant_hash.is_(None))
            if fmt.variant_hash is None
            else query.where(TableRow.variant_hash == fmt.variant_hash)
        )
        if user_id is not None:
            seated = select(TableSeatRow.table_id).where(TableSeatRow.user_id == user_id)
            query = query.where(TableRow.id.not_in(seated))
        return session.scalar(query.order_by(TableRow.created_at).limit(1))


def is_lobby_game(engine: Engine, game_id: str) -> bool:
    """Whether a game started from a lobby table (those are public: anyone may watch them)."""
    with Session(engine) as session:
        return session.scalar(select(TableRow.id).where(TableRow.game_id == game_id).limit(1)) is not None
