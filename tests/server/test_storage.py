"""Storage on each backend (SQLite and PostgreSQL): migrations at start, and concurrent
writers — one action index is stored once, whoever races for it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from datetime import datetime

import pytest
from sqlalchemy import func, inspect, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.db import ActionRow, GameRow, head_revision, make_engine, migrate
from ttr_nordic.server.games import Append, GameService, SeatSpec, StorageError

HUMAN = {"kind": "human"}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    try:
        yield engine
    finally:
        engine.dispose()


def test_migrations_run_when_the_app_starts_and_again_harmlessly(database_url: str, engine: Engine) -> None:
    assert inspect(engine).get_table_names() == []
    for _ in range(2):  # the second start finds the schema up to date
        with TestClient(create_app(database_url)) as client:
            assert client.post("/api/games", json={"mode": "online", "seats": [HUMAN, HUMAN]}).status_code == 201
    inspector = inspect(engine)
    assert {"alembic_version", "games", "seats", "actions", "creation_buckets"} <= set(inspector.get_table_names())
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT version_num FROM alembic_version")) == head_revision()
        assert conn.scalar(select(func.count()).select_from(GameRow)) == 2
    migrate(engine)  # idempotent


def _stored_game(engine: Engine, database_url: str) -> str:
    with TestClient(create_app(database_url)) as client:
        data = client.post("/api/games", json={"mode": "online", "seats": [HUMAN, HUMAN], "first_player": 0})
        game_id: str = data.json()["game"]["id"]
    return game_id


def test_racing_writers_store_each_action_index_once(database_url: str, engine: Engine) -> None:
    """Threads (standing in for server processes) append action 0 of the same games at the
    same moment: per game exactly one commits, the others get an integrity error and leave
    nothing behind."""
    games = [_stored_game(engine, database_url) for _ in range(3)]
    service = GameService(engine)
    writers = 4 * len(games)
    barrier = threading.Barrier(writers)
    outcomes: list[tuple[str, str]] = []
    lock = threading.Lock()

    def write(number: int) -> None:
        game_id = games[number % len(games)]
        barrier.wait(10)
        try:
            service.store.append(game_id, 0, 0, f"K {number}", None)
            outcome = "stored"
        except IntegrityError:
            outcome = "refused"
        with lock:
            outcomes.append((game_id, outcome))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(outcomes) == writers
    for game_id in games:
        mine = [outcome for g, outcome in outcomes if g == game_id]
        assert mine.count("stored") == 1, mine
        assert all(o == "refused" for o in mine if o != "stored"), mine
    with service.sessions() as session:
        rows = session.scalars(select(ActionRow).order_by(ActionRow.game_id)).all()
        assert sorted(r.game_id for r in rows) == sorted(games)
        assert all(r.index == 0 for r in rows)


def test_a_failed_write_leaves_nothing_behind(database_url: str, engine: Engine) -> None:
    """The action row and the game's update are one transaction: a write for a game that is
    not there stores nothing."""
    migrate(engine)
    service = GameService(engine)
    with pytest.raises((LookupError, IntegrityError)):
        service.store.append("no-such-game", 0, 0, "B", None)
    with service.sessions() as session:
        assert session.scalar(select(func.count()).select_from(ActionRow)) == 0


def test_group_commit_stores_waiting_actions_together_and_a_refused_one_alone(
    database_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Actions of several games arriving together are stored in one transaction; when one
    of them is refused (another process stored that index first), the others still are."""
    migrate(engine)
    service = GameService(engine)
    # Not catching up with other processes before storing (PostgreSQL does): the refusal of a
    # stored index is what is tested here.
    service.shared = False
    batches: list[int] = []
    append_many = service.store.append_many

    def recording(batch: list[Append]) -> datetime:
        batches.append(len(batch))
        return append_many(batch)

    monkeypatch.setattr(service.store, "append_many", recording)

    async def scenario() -> list[bool | BaseException]:
        seats = [SeatSpec("A", "human"), SeatSpec("B", "human")]
        games = [(await service.create("online", seats, 0))[0] for _ in range(5)]
        with service.sessions.begin() as session:  # "another process" stores action 0 of game 2
            session.add(ActionRow(game_id=games[2].id, index=0, seat=0, notation="K 0 1"))
        try:
            return await asyncio.gather(
                *(service.act(g, 0, g.state.legal_action_list()[0]) for g in games), return_exceptions=True
            )
        finally:
            await service.close()

    results = asyncio.run(scenario())
    assert [r is True for r in results] == [True, True, False, True, True]
    assert isinstance(results[2], StorageError)
    assert batches == [5, 1, 1, 1, 1, 1]  # together, then each alone after the refusal
    with service.sessions() as session:
        counts = session.execute(select(ActionRow.game_id, func.count()).group_by(ActionRow.game_id)).all()
        assert sorted(n for _, n in counts) == [1] * 5


def test_a_move_is_stored_only_for_whoever_plays_its_seat_now(engine: Engine) -> None:
    """The seat changes hands in the database (as another process would store it) after this
    process last looked: the move's own transaction sees it and refuses the move, which is not
    stored; a move by whoever plays the seat now is."""
    from ttr_nordic.server.db import SeatRow

    migrate(engine)
    service = GameService(engine)
    service.shared = False  # no catching up before storing: the transaction's own check is tested

    async def scenario() -> tuple[BaseException | bool, bool]:
        game, _ = await service.create("online", [SeatSpec("A", "human"), SeatSpec("B", "human")], 0)
        with service.sessions.begin() as session:  # "another process" hands seat 0 to the computer
            row = session.get(SeatRow, (game.id, 0))
            assert row is not None
            row.kind, row.ai_level = "ai", "easy"
        action = game.state.legal_action_list()[0]
        try:
            refused: BaseException | bool = await service.act(game, 0, action)
        except StorageError as exc:
            refused = exc
        game = await service.get(game.id)  # reloaded: the seat is the computer's
        assert game is not None and game.seats[0].kind == "ai"
        if game.ai_task is not None:
            game.ai_task.cancel()  # this test plays the computer's move itself
        accepted = await service.act(game, 0, game.state.legal_action_list()[0], by="ai")
        await service.close()
        return refused, accepted

    refused, accepted = asyncio.run(scenario())
    assert isinstance(refused, StorageError) and "SeatChanged" in str(refused), refused
    assert accepted is True
    with service.sessions() as session:
        assert session.scalar(select(func.count()).select_from(ActionRow)) == 1
