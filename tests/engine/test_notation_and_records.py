"""Action notation and game records (replayable: config, seed and actions)."""

from __future__ import annotations

import json
import random

import pytest
from builders import snapshot

from ttr_nordic.engine import (
    Action,
    Claim,
    DrawFaceUp,
    GameRecord,
    GameState,
    KeepTickets,
    NotationError,
    PayTunnelExtra,
    RecordError,
    parse_action,
    parse_cards,
)
from ttr_nordic.engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_TICKETS, PASS


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("F1", DrawFaceUp(0)),
        ("F5", DrawFaceUp(4)),
        ("B", DRAW_BLIND),
        ("T", DRAW_TICKETS),
        ("K 4 17", KeepTickets((4, 17))),
        ("C R45 OOL", Claim(44, (0, 0, 0, 0, 2, 0, 0, 0, 1))),
        ("C R01 P", Claim(0, (1, 0, 0, 0, 0, 0, 0, 0, 0))),
        ("C R81 WUYL", Claim(80, (0, 1, 1, 1, 0, 0, 0, 0, 1))),
        ("X RL", PayTunnelExtra((0, 0, 0, 0, 0, 0, 1, 0, 1))),
        ("decline", DECLINE_TUNNEL),
        ("pass", PASS),
    ],
)
def test_parse_and_write(text: str, action: Action) -> None:
    assert parse_action(text) == action
    assert action.notation() == text


def test_parsing_is_lenient_on_case_spacing_and_order() -> None:
    assert parse_action("  c r45 ool ") == parse_action("C R45 OOL")
    assert parse_action("C R45 LOO") == parse_action("C R45 OOL")
    assert parse_action("K 17 4") == KeepTickets((4, 17))
    assert parse_action("PASS") == PASS
    assert parse_action("Decline") == DECLINE_TUNNEL


@pytest.mark.parametrize(
    "text",
    ["", "F0", "F6", "F", "Z", "B B", "K", "K 1 1", "K a", "C 45 OO", "C R45", "C R45 OOQ", "X", "X R Q", "T 3"],
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)


def test_card_letters() -> None:
    assert parse_cards("PWUYOKRGL") == (1,) * 9
    assert parse_cards("OOL") == (0, 0, 0, 0, 2, 0, 0, 0, 1)
    assert parse_cards("-") == (0,) * 9
    with pytest.raises(ValueError):
        parse_cards("OX")


def _random_game(players: int, seed: int, limit: int = 2000) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(players=players, seed=seed)
    while not state.is_over and len(state.history) < limit:
        state.apply(rng.choice(state.legal_action_list()))
    return state


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2)])
def test_record_round_trip_and_replay(players: int, seed: int) -> None:
    state = _random_game(players, seed)
    assert state.is_over
    record = state.record()
    assert len(record.actions) == len(state.history)
    for text, action in zip(record.actions, state.history, strict=True):
        assert parse_action(text) == action
    again = GameRecord.from_json(record.to_json())
    assert again.config == record.config
    assert again.actions == record.actions
    replayed = again.replay()
    assert snapshot(replayed) == snapshot(state)
    assert replayed.result() == state.result()
    states = list(again.states())
    assert len(states) == len(record.actions) + 1
    assert snapshot(states[-1]) == snapshot(state)


def test_record_file_round_trip(tmp_path: object) -> None:
    state = GameState.new(players=2, seed=4)
    for _ in range(6):
        state.apply(state.legal_action_list()[0])
    path = tmp_path / "game.json"  # type: ignore[operator]
    state.record().save(path)
    loaded = GameRecord.load(path)
    assert snapshot(loaded.replay()) == snapshot(state)


def test_illegal_record_is_refused() -> None:
    state = GameState.new(players=2, seed=4, first_player=0)
    for _ in range(4):
        state.apply(state.legal_action_list()[0])
    data = state.record().to_dict()
    data["actions"].append("C R51 GGGGGGGGG")  # nobody holds 9 green cards after 4 actions
    with pytest.raises(RecordError):
        GameRecord.from_dict(data).replay()
    data["actions"][-1] = "nonsense"
    with pytest.raises(RecordError):
        GameRecord.from_dict(data).replay()


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"format": "other", "version": 1, "players": 2, "seed": 0, "actions": []},
        {"format": "ttr-nordic-record", "version": 99, "players": 2, "seed": 0, "actions": []},
        {"format": "ttr-nordic-record", "version": 1, "players": 4, "seed": 0, "actions": []},
        {"format": "ttr-nordic-record", "version": 1, "players": 2, "seed": 0, "actions": [3]},
        {"format": "ttr-nordic-record", "version": 1, "players": 2, "actions": []},
    ],
)
def test_malformed_records(data: object) -> None:
    with pytest.raises(RecordError):
        GameRecord.from_json(json.dumps(data))


def test_not_json() -> None:
    with pytest.raises(RecordError):
        GameRecord.from_json("{")
