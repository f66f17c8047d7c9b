"""The rating ladder: deterministic from its seed, resumable, rating fits that recover known
strengths, the sequential test, agent specs for saved versions, and the command line."""

from __future__ import annotations

import json
import math
import random
import sqlite3
import textwrap
from pathlib import Path

import pytest

from ttr_nordic.ai.registry import load_factory, make_agent
from ttr_nordic.cli import main as ttr_main
from ttr_nordic.sim.ladder import (
    Ladder,
    LadderError,
    LadderGame,
    fit_elo,
    fit_plackett_luce,
    parse_participant,
)
from ttr_nordic.sim.ladder_cli import main as ladder_main
from ttr_nordic.sim.sprt import SequentialTest


def stored(path: Path) -> list[tuple[object, ...]]:
    """Every stored game's deterministic columns (no timings)."""
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT table_key, game, seed, labels, scores, winners, decided_by, record FROM games"
            " ORDER BY table_key, game"
        ).fetchall()


def make_ladder(path: Path, seed: int = 11) -> Ladder:
    ladder = Ladder(path, seed=seed)
    ladder.add("rnd", "random")
    ladder.add("easy", "easy")
    ladder.add("hard", "hard")
    return ladder


def test_same_seed_same_games_whatever_the_workers(tmp_path: Path) -> None:
    one = make_ladder(tmp_path / "one.sqlite")
    assert one.play(players=2, games=3) == 9  # three tables of three games
    one.close()
    two = make_ladder(tmp_path / "two.sqlite")
    assert two.play(players=2, games=3, workers=2, batch_size=2) == 9
    two.close()
    assert stored(tmp_path / "one.sqlite") == stored(tmp_path / "two.sqlite")
    other = make_ladder(tmp_path / "other.sqlite", seed=12)
    other.play(players=2, games=3)
    other.close()
    assert [row[2] for row in stored(tmp_path / "other.sqlite")] != [row[2] for row in stored(tmp_path / "one.sqlite")]


def test_seats_alternate_within_a_table(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path / "l.sqlite")
    ladder.play(players=2, games=4, labels=["easy", "hard"])
    games = ladder.games(2)
    assert [g.labels for g in games] == [("easy", "hard"), ("hard", "easy")] * 2
    ladder.close()


def test_resume_plays_only_what_is_missing_and_ends_where_a_full_run_ends(tmp_path: Path) -> None:
    full = make_ladder(tmp_path / "full.sqlite")
    full.play(players=2, games=4)
    full.close()

    partial = make_ladder(tmp_path / "partial.sqlite")
    # An interrupted run: only some of the games got stored before the process died.
    from ttr_nordic.sim.play import play_batch

    todo = partial.specs(players=2, games=4)
    partial.store(play_batch(todo[::3]))
    partial.close()
    resumed = make_ladder(tmp_path / "partial.sqlite")
    assert resumed.play(players=2, games=4) == len(todo) - len(todo[::3])
    assert resumed.play(players=2, games=4) == 0
    resumed.close()
    assert stored(tmp_path / "partial.sqlite") == stored(tmp_path / "full.sqlite")


def test_a_new_participant_adds_its_tables_and_leaves_the_rest(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path / "l.sqlite")
    ladder.play(players=2, games=2)
    before = stored(tmp_path / "l.sqlite")
    ladder.add("medium", "medium")
    assert ladder.play(players=2, games=2) == 6  # three new tables
    after = stored(tmp_path / "l.sqlite")
    assert set(before) <= set(after) and len(after) == len(before) + 6
    ladder.close()


def test_three_player_tables_cycle_all_six_seatings(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path / "l.sqlite")
    ladder.play(players=3, games=6)
    orders = {g.labels for g in ladder.games(3)}
    assert len(orders) == 6
    table = ladder.table(players=3, bootstrap=10)
    assert {row.label for row in table.rows} == {"rnd", "easy", "hard"}
    assert table.pairs == ()
    ladder.close()


def test_labels_keep_their_spec_and_the_seed_is_fixed(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path / "l.sqlite")
    ladder.add("hard", "hard")  # the same again is fine
    with pytest.raises(LadderError, match="already in the ladder"):
        ladder.add("hard", "route_focus")
    with pytest.raises(LadderError, match="unknown agent"):
        ladder.add("x", "no_such_agent")
    with pytest.raises(LadderError, match="label"):
        ladder.add("bad label", "random")
    with pytest.raises(LadderError, match="not in the ladder"):
        ladder.specs(players=2, games=1, labels=["ghost", "hard"])
    with pytest.raises(LadderError, match="2 or 3"):
        ladder.specs(players=4, games=1)
    ladder.close()
    with pytest.raises(LadderError, match="seed 11, not 3"):
        Ladder(tmp_path / "l.sqlite", seed=3)
    assert Ladder(tmp_path / "l.sqlite").seed == 11


def test_participants_parse() -> None:
    assert parse_participant(" expert ") == ("expert", "expert")
    assert parse_participant("v2=pkg.mod:make") == ("v2", "pkg.mod:make")
    with pytest.raises(LadderError, match="label"):
        parse_participant("pkg.mod:make")


def test_bradley_terry_fit_recovers_known_strengths() -> None:
    # Three agents 0 / +100 / +250 Elo; 3000 simulated two-player games.
    truth = {"a": 0.0, "b": 100.0, "c": 250.0}
    rng = random.Random(4)
    games = []
    names = list(truth)
    for i in range(3000):
        x, y = rng.sample(names, 2)
        p_x = 1 / (1 + 10 ** ((truth[y] - truth[x]) / 400))
        winner = 0 if rng.random() < p_x else 1
        scores = (100, 80) if winner == 0 else (80, 100)
        games.append(LadderGame(f"2:{x}|{y}", i, (x, y), scores, (winner,)))
    elo = fit_elo(games, names, "a")
    assert elo["a"] == 0
    assert abs(elo["b"] - 100) < 30 and abs(elo["c"] - 250) < 30


def test_plackett_luce_three_player_fit() -> None:
    strengths = [1.0, 2.0, 4.0]
    rng = random.Random(9)
    rankings = []
    for _ in range(4000):
        left = [0, 1, 2]
        order = []
        while left:
            pick = rng.choices(left, weights=[strengths[i] for i in left])[0]
            order.append(pick)
            left.remove(pick)
        rankings.append((order, 1.0))
    gamma = fit_plackett_luce(rankings, 3)
    assert math.isclose(gamma[1] / gamma[0], 2.0, rel_tol=0.12)
    assert math.isclose(gamma[2] / gamma[0], 4.0, rel_tol=0.12)


def test_a_tie_counts_half_and_an_unbeaten_agent_stays_finite() -> None:
    tie = LadderGame("2:a|b", 0, ("a", "b"), (90, 90), (0, 1))
    assert fit_elo([tie] * 10, ["a", "b"], "a")["b"] == pytest.approx(0, abs=1e-6)
    wins = [LadderGame("2:a|b", i, ("a", "b"), (100, 50), (0,)) for i in range(20)]
    elo = fit_elo(wins, ["a", "b"], "b")
    assert 400 < elo["a"] < 1500


def test_sequential_test_decides_both_ways_and_checks_its_settings() -> None:
    rng = random.Random(2)
    better = SequentialTest(h0=0, h1=5)
    while not better.add(rng.gauss(8, 36)):
        pass
    assert better.decision == "H1" and better.games < 2000
    same = SequentialTest(h0=0, h1=5)
    while not same.add(rng.gauss(-2, 36)):
        pass
    assert same.decision == "H0"
    assert "H0 accepted" in same.summary()
    with pytest.raises(ValueError):
        SequentialTest(h0=1, h1=1)
    with pytest.raises(ValueError):
        SequentialTest(alpha=0.7)


def test_saved_agent_versions_load_from_a_module_or_a_file(tmp_path: Path) -> None:
    source = tmp_path / "my_agents.py"
    source.write_text(
        textwrap.dedent(
            """
            from ttr_nordic.ai.baselines import RouteFocusAgent

            def route_focus_v1(seed):
                agent = RouteFocusAgent(seed)
                agent.name = "route_focus_v1"
                return agent
            """
        ),
        encoding="utf-8",
    )
    assert make_agent(f"{source}:route_focus_v1", 1).name == "route_focus_v1"
    assert load_factory("ttr_nordic.ai.baselines:RouteFocusAgent")(2).name == "route_focus"
    for bad, message in [
        ("nomodule_xyz:make", "cannot import"),
        (f"{source}:missing", "no callable"),
        (f"{tmp_path / 'none.py'}:make", "no file"),
        ("ttr_nordic.ai.base:", "module:callable"),
        ("ttr_nordic.ai.registry:LEVELS", "no callable"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, 1)
    ladder = Ladder(tmp_path / "l.sqlite", seed=1)
    ladder.add("v1", f"{source}:route_focus_v1")
    ladder.add("hard", "hard")
    assert ladder.play(players=2, games=2, workers=2) == 2  # spawned workers load the file too
    assert {g.labels for g in ladder.games(2)} == {("hard", "v1"), ("v1", "hard")}
    ladder.close()


def test_command_line_run_show_and_sprt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "ladder.sqlite"
    run = ["ladder", "run", "--db", str(db), "--agents", "easy,hard,rnd=random", "--games", "2", "--seed", "5"]
    code = ttr_main([*run, "-q", "--bootstrap", "20", "--plot", str(tmp_path / "ladder.png")])
    out = capsys.readouterr().out
    assert code == 0
    assert "6 games to play" in out and "2-player ladder: 6 games" in out and "hard = 0" in out
    assert (tmp_path / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Rerunning plays nothing more; show prints the same ratings and writes JSON.
    assert ladder_main(["run", "--db", str(db), "--games", "2", "-q", "--bootstrap", "20"]) == 0
    assert "0 games to play" in capsys.readouterr().out
    assert ladder_main(["show", "--db", str(db), "--json", str(tmp_path / "t.json"), "--anchor", "easy"]) == 0
    payload = json.loads((tmp_path / "t.json").read_text())
    assert payload["anchor"] == "easy" and payload["games"] == 6 and len(payload["pairs"]) == 3
    with sqlite3.connect(db) as stored_db:
        assert stored_db.execute("SELECT COUNT(*) FROM ratings WHERE players = 2").fetchone()[0] == 3
    capsys.readouterr()
    code = ladder_main(
        ["sprt", "--db", str(db), "--a", "hard", "--b", "rnd", "--h1", "20", "--max-games", "60", "--step", "30", "-q"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "hard vs rnd" in out and "H1 accepted" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--agents", "no_such_agent", "--games", "1"], "unknown agent"),
        (["show", "--players", "3"], "no ladder at"),
        (["sprt", "--a", "hard", "--b", "hard"], "different labels"),
        (["run", "--agents", "hard", "--games", "1"], "at least 2 participants"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert ladder_main([*argv, "--db", str(tmp_path / "l.sqlite")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_ray_backend_gives_the_same_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    local = make_ladder(tmp_path / "local.sqlite")
    local.play(players=2, games=2)
    local.close()
    remote = make_ladder(tmp_path / "ray.sqlite")
    try:
        remote.play(players=2, games=2, workers=2, backend="ray", batch_size=2)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        remote.close()
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "local.sqlite")
