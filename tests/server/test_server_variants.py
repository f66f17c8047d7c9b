"""Games under a rule variant through the real server: created with a shipped variant or an
uploaded file (a bad one refused with the parser's one-line error, nothing created), stored
with the game (on SQLite and PostgreSQL), played to the end against the computer over the
WebSocket, reloaded after a restart, replayed, and the board each game is drawn from."""

from __future__ import annotations

import asyncio
import json
import random
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from account_helpers import finish
from server_helpers import create_game, live_state, receive_until, ws_path
from sqlalchemy import func, inspect, select, text
from starlette.testclient import TestClient

from ttr_nordic.ai.registry import LEVELS
from ttr_nordic.engine import GameConfig, GameState
from ttr_nordic.engine.variant import OFFICIAL, load_variant
from ttr_nordic.server import create_app, variants
from ttr_nordic.server.ai_workers import decide
from ttr_nordic.server.db import GameRow, VariantRow, utcnow
from ttr_nordic.server.live import LiveGame
from ttr_nordic.server.variants import MAX_UPLOAD_BYTES, resolve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"
SMALL_TOML = (EXAMPLES / "small-board.toml").read_text(encoding="utf-8")
SMALL_BOARD = (EXAMPLES / "small-board.json").read_text(encoding="utf-8")
ME = {"kind": "human", "name": "Me"}


def games_stored(client: TestClient) -> int:
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        count: int = connection.scalar(select(func.count()).select_from(GameRow))
    return count


def refused(client: TestClient, variant: Any, code: str = "BAD_VARIANT", **extra: Any) -> str:
    """Create a game with ``variant``: refused with ``code``, nothing stored; the message."""
    before = games_stored(client)
    body = {"mode": "ai", "seats": [ME, {"kind": "ai", "level": "easy"}], "variant": variant, **extra}
    response = client.post("/api/games", json=body)
    assert response.status_code == (400 if code == "BAD_VARIANT" else 422), response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert "\n" not in error["message"]
    assert games_stored(client) == before
    message: str = error["message"]
    return message


def test_a_game_is_created_under_each_shipped_variant(client: TestClient) -> None:
    listed = client.get("/api/variants").json()["variants"]
    assert [v["name"] for v in listed] == ["official", "short-game", "small-board"]
    assert [v["custom_board"] for v in listed] == [False, False, True]
    assert listed[0]["official"] and not listed[1]["official"]
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    for name, cities, custom, trains in [("official", 39, False, 40), ("short-game", 39, False, 25),
                                         ("small-board", 8, True, 18)]:  # fmt: skip
        game = create_game(client, "hotseat", [ME, {"kind": "human"}], variant=name)["game"]
        assert game["variant"]["name"] == name
        assert game["variant"]["official"] is (name == "official")
        board = client.get(f"/api/games/{game['id']}/board").json()
        assert len(board["cities"]) == cities and board["custom"] is custom
        if name == "official":
            assert board == client.get("/api/board").json()
        state = live_state(client, game["id"])
        assert state.variant == (OFFICIAL if name == "official" else load_variant(EXAMPLES / f"{name}.toml"))
        assert state.trains == [trains, trains]
        with engine.connect() as connection:
            stored = connection.scalar(select(GameRow.variant_hash).where(GameRow.id == game["id"]))
        assert (stored is None) is (name == "official")
    with engine.connect() as connection:
        assert sorted(connection.scalars(select(VariantRow.name))) == ["short-game", "small-board"]


def test_an_uploaded_variant_file_with_its_board_file(client: TestClient) -> None:
    upload = {"source": "my-small.toml", "text": SMALL_TOML, "files": {"small-board.json": SMALL_BOARD}}
    game = create_game(client, "hotseat", [ME, {"kind": "human"}], variant=upload)["game"]
    assert game["variant"] == {
        "name": "small-board",
        "description": load_variant(EXAMPLES / "small-board.toml").description,
        "official": False,
        "custom_board": True,
        "shipped": True,  # the same rules and board as the shipped one: the pages may word it their way
    }
    board = client.get(f"/api/games/{game['id']}/board").json()
    assert [c["name"] for c in board["cities"]] == ["Ada", "Bel", "Cor", "Dun", "Eri", "Fen", "Gal", "Hal"]
    # The same variant again (a JSON file, the board inline, no name: named after the file) is another row;
    # the shipped one sent again is not stored twice.
    inline = load_variant(EXAMPLES / "small-board.toml").to_dict()
    del inline["name"]
    again = create_game(client, "hotseat", [ME, {"kind": "human"}],
                        variant={"source": "island.json", "text": json.dumps(inline, indent=1)})["game"]  # fmt: skip
    assert again["variant"]["name"] == "island" and again["variant"]["shipped"] is False
    create_game(client, "hotseat", [ME, {"kind": "human"}], variant="small-board")
    engine = client.app.state.service.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        assert sorted(connection.scalars(select(VariantRow.name))) == ["island", "small-board"]


def test_a_bad_variant_file_is_refused_with_the_parsers_line(client: TestClient) -> None:
    def upload(text: str, source: str = "mine.toml", **files: str) -> dict[str, Any]:
        return {"source": source, "text": text, "files": files}

    bad_toml = refused(client, upload('name = "x"\n[trains\nper_player = 3\n'))
    assert bad_toml.startswith("mine.toml, line 2: not valid TOML")
    assert refused(client, upload('[trains]\nper_player = "many"\n')) == (
        "mine.toml, line 2, trains.per_player: must be a whole number, got 'many'"
    )
    assert refused(client, upload('{"name": "j",\n "cards": {"face_up": 12}}', "j.json")) == (
        "j.json, line 2, cards.face_up: must be from 1 to 9, got 12"
    )
    # An error inside the board file names that file as uploaded.
    broken = SMALL_BOARD.replace('"b": "Eri"', '"b": "Nowhere"', 1)
    message = refused(client, upload(SMALL_TOML, "small.toml", **{"small-board.json": broken}))
    assert message.startswith("small-board.json, line ") and "unknown city 'Nowhere'" in message
    # The server reads no file a player names: the board file must come with the upload.
    assert refused(client, upload(SMALL_TOML)) == (
        "mine.toml, line 31, board.file: the board file 'small-board.json' was not sent: "
        "choose it together with the variant file"
    )
    assert "no variant 'huge-board'" in refused(client, "huge-board")
    big = "# " + "x" * MAX_UPLOAD_BYTES + "\n"
    assert "too large" in refused(client, upload(big))
    # A board whose tickets cannot be dealt to 3 players.
    dealt = SMALL_TOML.replace("initial_dealt = 3", "initial_dealt = 5")
    seats = [ME, {"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]
    variant = upload(dealt, **{"small-board.json": SMALL_BOARD})
    response = client.post("/api/games", json={"mode": "ai", "seats": seats, "variant": variant})
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "small-board, tickets.initial_dealt: 12 tickets are too few to deal 5 to each of 3 players"
    )
    # Rated games are played under the official rules only.
    people = [ME, {"kind": "human"}]
    rated = refused(client, "short-game", "VALIDATION_ERROR", rated=True, mode="online", seats=people)
    assert "official rules" in rated
    assert games_stored(client) == 0


def _human_move(message: dict[str, Any], rng: random.Random) -> str:
    legal = [a["action"] for a in message["legal"]]
    claims = [a for a in legal if a.startswith("C ")]
    return rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(legal)


def _play_to_the_end(client: TestClient, game_id: str, token: str, rng: random.Random) -> dict[str, Any]:
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        for _ in range(2000):
            message = receive_until(ws, lambda m: m["type"] in ("state", "game_over", "error"))
            assert message["type"] != "error", message
            if message["type"] == "game_over":
                return message
            if message["legal"]:
                ws.send_json({"type": "act", "action": _human_move(message, rng), "expected": message["actions"]})
    raise AssertionError("the game did not end")


def test_a_small_board_game_against_the_computer_to_the_end(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    with TestClient(create_app(url, ai_workers=1)) as client:
        data = create_game(client, "ai", [ME, {"kind": "ai", "level": "hard"}], variant="small-board")
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        over = _play_to_the_end(client, game_id, token, random.Random(5))
        assert len(over["result"]["players"]) == 2
        state = live_state(client, game_id) if game_id in client.app.state.service.live else None  # type: ignore[attr-defined]
        record = client.get(f"/api/games/{game_id}/record", headers={"X-Game-Token": token}).json()
        assert record["variant"]["name"] == "small-board" and len(record["variant"]["board"]["cities"]) == 8
        total = len(record["actions"])
        assert state is None or len(state.history) == total
        # The replay steps through the game under its variant.
        last = client.get(f"/api/games/{game_id}/replay/{total}", headers={"X-Game-Token": token}).json()
        assert last["result"] is not None and last["view"]["variant"]["name"] == "small-board"
        assert last["view"]["trains"] != [18, 18]
        chances = client.get(f"/api/games/{game_id}/chances", headers={"X-Game-Token": token})
        assert chances.status_code == 200, chances.text
        assert len(chances.json()["chances"]) == total + 1
        assert client.app.state.service.ai.fallbacks == 0  # type: ignore[attr-defined]


def test_a_variant_game_survives_a_restart(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored with its variant: after a restart the game is rebuilt under it, plays on, and the
    expert's hint (searched in an AI worker from the stored variant) is a legal move of it."""
    rng = random.Random(2)
    with TestClient(create_app(database_url, ai_workers=1)) as client:
        data = create_game(client, "ai", [ME, {"kind": "ai", "level": "medium"}], variant="small-board")
        game_id, token = data["game"]["id"], data["invites"][0]["token"]
        with client.websocket_connect(ws_path(game_id, token)) as ws:
            message = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
            while message["actions"] < 8:
                ws.send_json({"type": "act", "action": _human_move(message, rng), "expected": message["actions"]})
                message = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        seen = message["actions"]
    # A new process knows no variant: what it plays under comes from the database.
    monkeypatch.setattr(variants, "_BY_HASH", OrderedDict())
    monkeypatch.setattr(variants, "_PARSED", OrderedDict())
    with TestClient(create_app(database_url, ai_workers=1)) as client:
        summary = client.get(f"/api/games/{game_id}").json()
        assert summary["variant"]["name"] == "small-board" and summary["actions"] == seen
        assert len(client.get(f"/api/games/{game_id}/board").json()["cities"]) == 8
        with client.websocket_connect(ws_path(game_id, token)) as ws:
            message = receive_until(ws, lambda m: m["type"] == "state")
            assert message["actions"] == seen and message["view"]["variant"]["name"] == "small-board"
            assert message["view"]["trains"][0] <= 18 and len(message["view"]["display"]) == 4
            ws.send_json({"type": "hint"})
            hint = receive_until(ws, lambda m: m["type"] in ("hint", "error"))
            assert hint["type"] == "hint", hint
            assert hint["action"] in [a["action"] for a in message["legal"]]
            ws.send_json({"type": "act", "action": hint["action"], "expected": seen})
            after = receive_until(ws, lambda m: m["type"] in ("state", "error"))
            assert after["type"] == "state" and after["actions"] == seen + 1, after
        state = live_state(client, game_id)
        assert state.variant == load_variant(EXAMPLES / "small-board.toml")


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_ai_level_decides_under_the_games_variant(level: str) -> None:
    """The decision job carries the game's variant: a worker rebuilds the position under it."""
    variant = resolve("small-board")
    state = GameState.from_config(GameConfig(2, 7, 0, variant))
    rng = random.Random(1)
    for _ in range(20):
        state.apply(rng.choice(state.legal_action_list()))
    game = LiveGame("g", "ai", state, [], utcnow(), utcnow())
    job = game.decision_job(state.decision.player, level)
    assert job.variant is not None and json.loads(job.variant)["name"] == "small-board"
    notation = decide(job)
    assert notation in [a.notation() for a in state.legal_action_list()]


def test_migration_0006_keeps_older_games_official_and_goes_down_and_up(database_url: str) -> None:
    """A game stored before 0006 has no variant: it loads under the official rules. The
    migration goes down (the variants dropped) and up again."""
    from alembic import command

    from ttr_nordic.server.db import _alembic_config, make_engine, migrate
    from ttr_nordic.server.games import GameService

    engine = make_engine(database_url)

    def to(revision: str, down: bool = False) -> None:
        config = _alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            (command.downgrade if down else command.upgrade)(config, revision)

    try:
        to("0005")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO games (id, mode, players, seed, first_player, status, created_at, updated_at) "
                    "VALUES ('old', 'hotseat', 2, 11, 0, 'active', :now, :now)"
                ),
                {"now": utcnow()},
            )
            for seat in (0, 1):
                connection.execute(
                    text("INSERT INTO seats (game_id, seat, name, kind) VALUES ('old', :seat, :name, 'human')"),
                    {"seat": seat, "name": f"P{seat}"},
                )
        migrate(engine)

        async def load() -> Any:
            service = GameService(engine)
            try:
                game = await service.get("old")
                assert game is not None
                return game.state.variant
            finally:
                await service.close()

        assert asyncio.run(load()) is OFFICIAL
        assert "variants" in inspect(engine).get_table_names()
        to("0005", down=True)
        assert "variants" not in inspect(engine).get_table_names()
        assert "variant_hash" not in {c["name"] for c in inspect(engine).get_columns("games")}
        migrate(engine)
        assert "variant_hash" in {c["name"] for c in inspect(engine).get_columns("games")}
    finally:
        engine.dispose()


def test_a_lobby_table_under_a_variant_is_played_and_watched_under_it(client: TestClient) -> None:
    """A casual table may name a variant: listed with it, its game made under it, watched on its
    board; quick match pairs only tables of the same rules; a rated table keeps the official rules."""
    made = client.post("/api/lobby/tables", json={"players": 2, "name": "Astrid", "variant": "small-board"})
    assert made.status_code == 201, made.text
    table = made.json()["table"]
    assert table["variant"] == "small-board"
    listed = client.get("/api/lobby/tables").json()["tables"]
    assert [(t["id"], t["variant"]) for t in listed] == [(table["id"], "small-board")]
    # Quick match under the official rules does not join it: it opens an official table.
    quick = client.post("/api/lobby/quick", json={"players": 2, "name": "Leif"}).json()
    assert quick["matched"] is False and quick["table"]["variant"] is None
    joined = client.post(f"/api/lobby/tables/{table['id']}/join", json={"name": "Leif"}).json()
    game_id = joined["table"]["game_id"]
    assert joined["table"]["status"] == "started" and joined["table"]["variant"] == "small-board"
    assert live_state(client, game_id).variant == load_variant(EXAMPLES / "small-board.toml")
    playing = client.get("/api/lobby/tables").json()["playing"]
    assert [(t["game_id"], t["variant"]) for t in playing] == [(game_id, "small-board")]
    watched = client.get(f"/api/games/{game_id}/watch").json()
    assert watched["game"]["variant"]["name"] == "small-board"
    assert len(watched["view"]["route_owner"]) == 16 and len(watched["view"]["display"]) == 4
    assert len(client.get(f"/api/games/{game_id}/board").json()["cities"]) == 8
    with client.websocket_connect(f"/ws/watch/{game_id}") as ws:
        assert len(json.loads(ws.receive_text())["view"]["route_owner"]) == 16
    # Unknown or uploaded rules refuse the table, nothing made; a rated table is official.
    before = len(client.get("/api/lobby/tables").json()["tables"])
    bad = client.post("/api/lobby/tables", json={"players": 2, "variant": "huge-board"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "BAD_VARIANT"
    assert bad.json()["error"]["message"].startswith("variant: no variant 'huge-board' on this server")
    upload = {"source": "x.toml", "text": 'name = "x"\n'}
    uploaded = client.post("/api/lobby/tables", json={"players": 2, "variant": upload})
    assert uploaded.status_code == 422 and "a variant this server ships" in uploaded.text
    rated = client.post("/api/lobby/tables", json={"players": 2, "rated": True, "variant": "short-game"})
    assert rated.status_code == 422 and "official rules" in rated.text
    assert len(client.get("/api/lobby/tables").json()["tables"]) == before


def test_moves_are_read_in_the_games_own_notation(client: TestClient) -> None:
    """Six face-up cards: "F6" is a move of this game (the official rules stop at F5)."""
    upload = {"source": "six.toml", "text": 'name = "six"\n[cards]\nface_up = 6\n'}
    data = create_game(client, "hotseat", [ME, {"kind": "human"}], variant=upload, first_player=0)
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    with client.websocket_connect(ws_path(game_id, token)) as ws:
        message = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        while keeps := [a["action"] for a in message["legal"] if a["action"].startswith("K ")]:  # the first tickets
            ws.send_json({"type": "act", "action": keeps[0], "expected": message["actions"]})
            message = receive_until(ws, lambda m: m["type"] == "state" and bool(m["legal"]))
        assert len(message["view"]["display"]) == 6 and "F6" in [a["action"] for a in message["legal"]]
        ws.send_json({"type": "act", "action": "F6", "expected": message["actions"]})
        after = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        assert after["type"] == "state" and after["actions"] == message["actions"] + 1, after
        assert live_state(client, game_id).history[-1].notation() == "F6"


def test_a_rematch_keeps_the_rules(client: TestClient) -> None:
    made = client.post("/api/lobby/tables", json={"players": 2, "name": "Astrid", "variant": "small-board"}).json()
    joined = client.post(f"/api/lobby/tables/{made['table']['id']}/join", json={"name": "Leif"}).json()
    game_id = joined["table"]["game_id"]
    finish(client, game_id)
    for ticket in (made["ticket"], joined["ticket"]):
        answer = client.post(f"/api/games/{game_id}/rematch", headers={"X-Game-Token": ticket})
        assert answer.status_code == 200, answer.text
    new_id = answer.json()["new_game_id"]
    assert client.get(f"/api/games/{new_id}").json()["variant"]["name"] == "small-board"
    assert client.get(f"/api/lobby/tables/{new_id}").json()["variant"] == "small-board"
    assert len(client.get(f"/api/games/{new_id}/board").json()["cities"]) == 8


def test_a_shipped_variants_name_on_other_rules_is_not_the_shipped_variant(client: TestClient) -> None:
    # The pages word a shipped variant's description in their language; an upload that takes its
    # name for other rules keeps its own words.
    shipped = create_game(client, "hotseat", [ME, {"kind": "human"}], variant="short-game")["game"]
    assert shipped["variant"]["shipped"] is True
    edited = (EXAMPLES / "short-game.toml").read_text().replace("per_player = 25", "per_player = 26")
    assert edited != (EXAMPLES / "short-game.toml").read_text()
    other = create_game(client, "hotseat", [ME, {"kind": "human"}],
                        variant={"source": "short-game.toml", "text": edited})["game"]  # fmt: skip
    assert other["variant"]["name"] == "short-game" and other["variant"]["shipped"] is False
