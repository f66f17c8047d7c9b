"""The tournament system: scheduling, determinism, storage, statistics, plots, the command line, Ray."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import sqlite3
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from ttr_nordic.engine import GameRecord
from ttr_nordic.sim import (
    GameRow,
    TournamentConfig,
    TournamentError,
    load_rows,
    make_entries,
    run_tournament,
    schedule,
    seatings,
    summarize,
    wilson_interval,
)
from ttr_nordic.sim.cli import main as tournament_main
from ttr_nordic.sim.play import encode_owners
from ttr_nordic.sim.plots import PLOT_FILES
from ttr_nordic.sim.results import columns

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def outcomes(rows: Sequence[GameRow]) -> list[dict[str, object]]:
    return [row.outcome() for row in rows]


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """One small tournament through the command, with every output switched on."""
    out = tmp_path_factory.mktemp("tournament")
    capture = pytest.MonkeyPatch()
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    capture.setattr(sys, "stdout", stdout)
    capture.setattr(sys, "stderr", stderr)
    try:
        code = tournament_main(
            [
                "--agents",
                "random,random",
                "--players",
                "2",
                "--games",
                "6",
                "--seed",
                "11",
                "--workers",
                "1",
                "--out",
                str(out),
                "--csv",
                "--json",
                str(out / "summary.json"),
            ]
        )
    finally:
        capture.undo()
    assert code == 0, stderr.getvalue()
    return out, stdout.getvalue(), stderr.getvalue()


# ------------------------------------------------------------------ scheduling


@pytest.mark.parametrize(
    ("names", "players"),
    [
        (["a", "b"], 2),
        (["a", "b", "c"], 3),
        (["expert", "route_focus", "route_focus"], 3),
        (["a", "b"], 3),
        (["a", "b", "c"], 2),
        (["a"], 2),
    ],
)
def test_each_participant_sits_in_each_seat_equally(names: list[str], players: int) -> None:
    cycle = len(seatings(len(names), players))
    specs = schedule(names, players, games=3 * cycle, seed=5)
    seats = Counter((entry, seat) for spec in specs for seat, entry in enumerate(spec.seating))
    assert len(set(seats.values())) == 1
    assert {entry for entry, _ in seats} == set(range(len(names)))
    assert {seat for _, seat in seats} == set(range(players))
    per_entry = Counter(entry for spec in specs for entry in spec.seating)
    assert len(set(per_entry.values())) == 1  # and everyone plays equally often
    for spec in specs:
        assert spec.first_player == 0
        assert spec.agents == tuple(names[e] for e in spec.seating)


def test_two_players_alternate_and_two_agents_cycle_through_three_seats() -> None:
    assert [s.seating for s in schedule(["a", "b"], 2, 4, seed=0)] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [s.seating for s in schedule(["a", "b"], 3, 4, seed=0)] == [(0, 1, 0), (1, 0, 1), (0, 1, 0), (1, 0, 1)]
    assert len(seatings(3, 3)) == 6


def test_repeated_names_get_distinct_labels() -> None:
    assert [e.label for e in make_entries(["expert", "route_focus", "route_focus"])] == [
        "expert",
        "route_focus#1",
        "route_focus#2",
    ]


def test_seeds_derive_from_the_tournament_seed() -> None:
    first = schedule(["a", "b"], 2, 50, seed=1)
    assert first == schedule(["a", "b"], 2, 50, seed=1)
    assert schedule(["a", "b"], 2, 10, seed=1) == first[:10]  # game i does not depend on N
    other = schedule(["a", "b"], 2, 50, seed=2)
    assert [s.seed for s in first] != [s.seed for s in other]
    assert len({s.seed for s in first}) == 50
    assert len({seed for s in first for seed in s.agent_seeds}) == 100
    assert all(0 <= s.seed < 2**53 for s in first)


# ----------------------------------------------------------------- determinism


def test_same_seed_same_rows_whatever_the_workers() -> None:
    one = run_tournament(TournamentConfig(agents=("random", "random"), games=6, seed=21))
    again = run_tournament(TournamentConfig(agents=("random", "random"), games=6, seed=21, batch_size=4))
    two = run_tournament(TournamentConfig(agents=("random", "random"), games=6, seed=21, workers=2, batch_size=2))
    assert outcomes(one.rows) == outcomes(again.rows) == outcomes(two.rows)
    assert [r.game for r in two.rows] == list(range(6))
    other = run_tournament(TournamentConfig(agents=("random", "random"), games=2, seed=22))
    assert outcomes(other.rows) != outcomes(one.rows[:2])


def test_three_players_rows() -> None:
    result = run_tournament(TournamentConfig(agents=("random", "random"), players=3, games=2, seed=4))
    assert [r.seating for r in result.rows] == [(0, 1, 0), (1, 0, 1)]
    assert result.rows[0].labels == ("random#1", "random#2", "random#1")
    summary = result.summary
    assert [a.games for a in summary.agents] == [2, 2]
    assert [a.seat_games for a in summary.agents] == [3, 3]
    assert math.isclose(sum(a.wins for a in summary.agents), 2)
    for row in result.rows:
        assert len(row.scores) == len(row.decisions) == 3


# ------------------------------------------------------ rows, records, storage


def test_rows_agree_with_replaying_their_records(cli_run: tuple[Path, str, str]) -> None:
    out, _, _ = cli_run
    rows = load_rows(out / "results.sqlite")
    assert [r.game for r in rows] == list(range(6))
    for row in rows:
        record_file = GameRecord.load(out / "records" / f"game-{row.game}.json")
        assert record_file == GameRecord.from_json(row.record)
        assert record_file.config.seed == row.seed
        assert record_file.meta["names"] == list(row.labels)
        assert record_file.meta["agents"] == list(row.agents)
        state = record_file.replay()
        assert state.is_over
        result = state.result()
        assert result.totals == row.scores
        assert result.winners == row.winners
        assert result.decided_by == row.decided_by
        assert tuple(p.tickets_completed for p in result.players) == row.tickets_completed
        assert tuple(p.tickets_failed for p in result.players) == row.tickets_failed
        assert tuple(p.route_points for p in result.players) == row.route_points
        assert tuple(p.longest_path for p in result.players) == row.longest_path
        assert state.turn == row.turns
        assert len(state.history) == row.actions == sum(row.decisions)
        assert encode_owners(state.route_owner) == row.route_owners
        # Per-seat timing statistics are present and coherent.
        for seat in range(row.players):
            assert row.decisions[seat] > 0
            assert 0 <= row.time_median[seat] <= row.time_max[seat]
            assert math.isclose(row.time_mean[seat] * row.decisions[seat], row.time_total[seat], rel_tol=1e-6)


def test_stored_rows_equal_the_rows_played(cli_run: tuple[Path, str, str]) -> None:
    out, _, _ = cli_run
    stored = load_rows(out / "results.sqlite")
    played = run_tournament(TournamentConfig(agents=("random", "random"), games=6, seed=11))
    assert outcomes(stored) == outcomes(played.rows)
    db = sqlite3.connect(out / "results.sqlite")
    try:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (6,)
        assert db.execute("SELECT count(*), sum(won) FROM seats").fetchone()[0] == 12
        settings = dict(db.execute("SELECT key, value FROM tournament").fetchall())
        assert settings["seed"] == "11" and settings["agents"] == "random,random"
    finally:
        db.close()


def test_csv_output(cli_run: tuple[Path, str, str]) -> None:
    out, _, _ = cli_run
    with open(out / "results.csv", newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == columns(2)
        rows = list(reader)
    stored = load_rows(out / "results.sqlite")
    assert [int(r["game"]) for r in rows] == list(range(6))
    for text, row in zip(rows, stored, strict=True):
        assert int(text["seed"]) == row.seed
        assert (int(text["seat0_score"]), int(text["seat1_score"])) == row.scores
        assert (text["seat0_label"], text["seat1_label"]) == row.labels
        assert text["record_file"] == f"records/game-{row.game}.json"
        assert (out / text["record_file"]).is_file()


def test_json_summary(cli_run: tuple[Path, str, str]) -> None:
    out, _, _ = cli_run
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert data["tournament"]["games"] == 6 and data["tournament"]["seed"] == 11
    assert data["throughput"]["games_per_s"] > 0
    agents = data["agents"]
    assert [a["label"] for a in agents] == ["random#1", "random#2"]
    assert sum(a["wins"] for a in agents) == pytest.approx(6)
    for a in agents:
        assert a["games"] == 6
        assert a["win_rate_low"] <= a["win_rate"] <= a["win_rate_high"]
        for key in ("mean_score", "median_score", "mean_tickets_completed", "mean_tickets_failed", "mean_turns"):
            assert isinstance(a[key], float)
        assert a["time_median"] <= a["time_max"]
    assert data["head_to_head"]["rate"][0][1] + data["head_to_head"]["rate"][1][0] == pytest.approx(1)
    assert data["seat_rotation"] == {"cycle_length": 2, "balanced": True}


def test_plots_are_png_files(cli_run: tuple[Path, str, str]) -> None:
    out, _, _ = cli_run
    for name in PLOT_FILES:
        data = (out / name).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 5_000, name


def test_printed_summary_and_progress(cli_run: tuple[Path, str, str]) -> None:
    _, stdout, stderr = cli_run
    assert "win rate [95% CI]" in stdout
    assert "random#1" in stdout and "random#2" in stdout
    assert "games/s" in stdout
    assert "6/6 games (100%)" in stderr  # plain progress when not on a terminal


def test_no_plots_and_records_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "records" / "game-99.json"
    stale.parent.mkdir()
    stale.write_text("{}", encoding="utf-8")
    code = tournament_main(["--agents", "random", "--games", "1", "--out", str(tmp_path), "--no-plots", "-q"])
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "records").iterdir()) == ["game-0.json"]
    assert not any((tmp_path / name).exists() for name in PLOT_FILES)
    assert "games/s" in capsys.readouterr().out


# ------------------------------------------------------------------ statistics


def test_wilson_interval_matches_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(0, 10), (3, 10), (5, 10), (10, 10), (57, 200), (1, 1)]:
        expected = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson_interval(k, n)
        assert low == pytest.approx(expected.low, abs=1e-9)
        assert high == pytest.approx(expected.high, abs=1e-9)
    low, high = wilson_interval(2.5, 10)  # win shares may be fractional
    assert 0 < low < 0.25 < high < 1
    assert wilson_interval(0, 0) == (0.0, 1.0)
    narrow, wide = wilson_interval(50, 100), wilson_interval(5, 10)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]


def test_summary_numbers() -> None:
    result = run_tournament(TournamentConfig(agents=("random", "random"), games=4, seed=3))
    rows = list(result.rows)
    summary = result.summary
    for agent in summary.agents:
        seats = [(r, s) for r in rows for s, e in enumerate(r.seating) if e == agent.entry]
        scores = [r.scores[s] for r, s in seats]
        assert agent.games == agent.seat_games == 4
        assert agent.mean_score == pytest.approx(sum(scores) / 4)
        assert agent.median_score == pytest.approx(sorted(scores)[1] / 2 + sorted(scores)[2] / 2)
        assert agent.mean_tickets_failed == pytest.approx(sum(r.tickets_failed[s] for r, s in seats) / 4)
        assert agent.mean_turns == pytest.approx(sum(r.turns for r in rows) / 4)
        assert agent.decisions == sum(r.decisions[s] for r, s in seats)
        assert agent.wins == sum(1 for r, s in seats if r.winners == (s,))
        assert agent.win_rate_low <= agent.win_rate <= agent.win_rate_high
        assert agent.time_max == max(r.time_max[s] for r, s in seats)
    assert [s.games for s in summary.seats] == [4, 4]
    # A tie that survives the tie-breaks is shared: each tied seat gets half a win.
    tied = [dataclasses.replace(rows[0], winners=(0, 1), decided_by="shared"), *rows[1:]]
    shared = summarize(tied, result.entries, 2)
    assert sum(a.wins for a in shared.agents) == pytest.approx(4)
    assert sorted(a.wins % 1 for a in shared.agents) == [0.5, 0.5]
    assert sum(a.shared_wins for a in shared.agents) == 2


# ------------------------------------------------------------- the command line


def test_subcommand_is_wired_into_ttr_nordic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("ttr_nordic.terminal.app")  # the top-level parser also builds play/replay
    from ttr_nordic.cli import main

    code = main(["tournament", "--agents", "random,random", "--games", "2", "--out", str(tmp_path), "--no-plots"])
    assert code == 0
    assert (tmp_path / "results.sqlite").is_file()
    assert "games/s" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,nobody", "--games", "2"], "unknown agent 'nobody'"),
        (["--agents", "random,random", "--players", "4"], "invalid choice: 4"),
        (["--agents", "random,random", "--games", "0"], "must be at least 1"),
        (["--agents", "random,random", "--games", "many"], "expected a whole number"),
        (["--agents", "random,random", "--workers", "0"], "must be at least 1"),
        (["--agents", "random,,random"], "expected agent names separated by commas"),
        (["--agents", "random,random", "--address", "10.0.0.1:6379"], "--address needs --backend ray"),
        (["--games", "3"], "--agents"),
    ],
)
def test_bad_arguments_exit_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tournament_main([*argv, "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_missing_optional_packages_are_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(SystemExit) as exit_info:
        tournament_main(["--agents", "random", "--games", "1", "--backend", "ray", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "pip install 'ttr-nordic[cluster]'" in capsys.readouterr().err
    # Without matplotlib the games and the table still come; the note says how to get the plots.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert tournament_main(["--agents", "random", "--games", "1", "--out", str(tmp_path), "-q"]) == 0
    captured = capsys.readouterr()
    assert "note: no plots; plots need matplotlib, in the reports extra: .venv/bin/pip install -e '.[reports]'" in (
        captured.err
    )
    assert "win rate [95% CI]" in captured.out and (tmp_path / "results.sqlite").is_file()
    assert not any((tmp_path / name).exists() for name in PLOT_FILES)


class BrokenAgent:
    name = "broken"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: object, legal: Sequence[object]) -> object:
        raise ZeroDivisionError("no idea")


def test_a_failing_agent_is_reported_with_its_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ttr_nordic.ai import registry

    monkeypatch.setitem(registry.AGENTS, "broken", BrokenAgent)
    code = tournament_main(["--agents", "random,broken", "--games", "2", "--out", str(tmp_path), "--no-plots"])
    assert code == 1
    seed = schedule(["random", "broken"], 2, 1, seed=0)[0].seed
    assert f"game 0 (seed {seed}, agents random, broken) failed: ZeroDivisionError: no idea" in capsys.readouterr().err


def test_config_checks() -> None:
    with pytest.raises(TournamentError, match="unknown agent"):
        TournamentConfig(agents=("nobody",))
    with pytest.raises(TournamentError, match="2 or 3 players"):
        TournamentConfig(agents=("random",), players=4)
    with pytest.raises(TournamentError, match="at least 1 game"):
        TournamentConfig(agents=("random",), games=0)


# --------------------------------------------------------------------------- Ray


def test_ray_backend_gives_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert not ray.is_initialized()
    try:
        # The command starts a local instance with --workers (2) CPUs and shuts it down after.
        argv = ["--agents", "random,random", "--games", "6", "--seed", "8", "--workers", "2", "--backend", "ray"]
        code = tournament_main([*argv, "--batch-size", "2", "--out", str(tmp_path / "ray"), "--no-plots", "-q"])
        assert code == 0
        assert not ray.is_initialized()
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert "(ray, 2 worker(s))" in capsys.readouterr().out
    process = run_tournament(TournamentConfig(agents=("random", "random"), games=6, seed=8))
    assert outcomes(load_rows(tmp_path / "ray" / "results.sqlite")) == outcomes(process.rows)
