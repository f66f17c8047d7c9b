"""A finished game's win chances move by move and its key moments (for the replay viewer)."""

from __future__ import annotations

from server_helpers import create_game
from starlette.testclient import TestClient
from test_online_server import finish

from ttr_nordic.ai.value.curve import replay_curve, win_chances
from ttr_nordic.engine import GameConfig, parse_action


def test_chances_of_a_finished_game(client: TestClient) -> None:
    created = create_game(client, "hotseat", [{"name": "A"}, {"name": "B"}, {"name": "C"}])
    game_id, token = created["game"]["id"], created["invites"][0]["token"]
    answer = client.get(f"/api/games/{game_id}/chances", headers={"X-Game-Token": token})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "GAME_NOT_FINISHED"
    finish(client, game_id, seed=8)
    record = client.get(f"/api/games/{game_id}/record", headers={"X-Game-Token": token}).json()
    data = client.get(f"/api/games/{game_id}/chances", headers={"X-Game-Token": token}).json()
    steps = data["chances"]
    assert data["players"] == 3
    assert len(steps) == len(record["actions"]) + 1
    assert all(abs(sum(step) - 1) < 1e-3 and all(0 <= p <= 1 for p in step) for step in steps)
    assert steps[0] == [0.3333] * 3  # nothing known yet: a fair share each
    # The end is the result: the winners share it.
    winners = {i for i, p in enumerate(steps[-1]) if p > 0}
    assert winners and all(abs(steps[-1][i] - 1 / len(winners)) < 1e-3 for i in winners)
    # The same numbers as the library's, from the record alone.
    config = GameConfig(3, record["seed"], record.get("first_player"))
    expected = win_chances(config, [parse_action(a) for a in record["actions"]])
    for got, want in zip(steps, expected, strict=True):
        assert all(abs(a - b) < 1e-3 for a, b in zip(got, want, strict=True))
    moments = data["moments"]
    assert 1 <= len(moments) <= 5
    swings = [abs(m["after"] - m["before"]) for m in moments]
    assert swings == sorted(swings, reverse=True)
    # Each moment is its mover's decision; a ticket keep is judged at a later step ("until").
    movers = replay_curve(config, [parse_action(a) for a in record["actions"]]).movers
    for m in moments:
        assert 1 <= m["step"] <= m["until"] < len(steps) - 1 and m["text"].startswith("Player ")
        assert movers[m["step"] - 1] == m["player"]
        assert abs(steps[m["step"] - 1][m["player"]] - m["before"]) < 1e-3
        assert abs(steps[m["until"]][m["player"]] - m["after"]) < 1e-3
        if m["until"] > m["step"]:
            assert record["actions"][m["step"] - 1].startswith("K ")
    assert client.get("/api/games/nope/chances").status_code == 404
