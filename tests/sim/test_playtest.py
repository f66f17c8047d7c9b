"""``ttr-nordic playtest``: the report's numbers against a small run counted by hand from the game
records (through the engine, not the report code), the comparison, and bad flags."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from ttr_nordic.cli import main
from ttr_nordic.engine import GameRecord, GameState, RouteKind, load_board
from ttr_nordic.engine.scoring import ticket_completed
from ttr_nordic.engine.variant import load_variant
from ttr_nordic.sim.playtest import CSV_FILES
from ttr_nordic.sim.playtest_compare import newcombe_interval, welch_interval
from ttr_nordic.sim.playtest_facts import needs_route

GAMES = 4


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``ttr-nordic ARGV`` in this process; returns the status, stdout and stderr."""
    capture = pytest.MonkeyPatch()
    stdout, stderr = io.StringIO(), io.StringIO()
    capture.setattr(sys, "stdout", stdout)
    capture.setattr(sys, "stderr", stderr)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    finally:
        capture.undo()
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def playtest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4 games at 2 and at 3 players, every record kept."""
    out = tmp_path_factory.mktemp("playtest")
    argv = ["playtest", "--agents", "random,route_focus", "--games", str(GAMES), "--players", "2,3"]
    code, stdout, stderr = run_cli([*argv, "--seed", "5", "--out", str(out), "--all-records"])
    assert code == 0, stderr
    assert stdout.strip() == str(out / "report.html")
    assert f"{2 * GAMES}/{2 * GAMES} games" in stderr  # progress on stderr
    return out


def test_outputs_written(playtest: Path) -> None:
    for name in (*CSV_FILES, "report.html", "playtest.json"):
        assert (playtest / name).stat().st_size > 0, name
    assert json.loads((playtest / "playtest.json").read_text())["agents"] == ["random", "route_focus"]
    assert len(list((playtest / "records").glob("game-*.json"))) == 2 * GAMES
    page = (playtest / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') >= 8
    assert "http://" not in page and "https://" not in page and "<script" not in page


def records(folder: Path) -> list[tuple[GameRecord, list[GameState]]]:
    """Each kept record with its states (before the first action, then after each)."""
    out = []
    for path in sorted((folder / "records").glob("game-*.json")):
        record = GameRecord.load(path)
        out.append((record, list(record.states())))
    return out


def test_numbers_match_a_count_by_hand(playtest: Path) -> None:
    board = load_board()
    wins: Counter[tuple[int, str]] = Counter()
    first_wins: Counter[int] = Counter()
    turns: dict[int, list[int]] = defaultdict(list)
    kept: Counter[tuple[int, int]] = Counter()
    offered: Counter[tuple[int, int]] = Counter()
    completed: Counter[tuple[int, int]] = Counter()
    claimed: Counter[tuple[int, str]] = Counter()
    tunnels: Counter[tuple[int, str]] = Counter()
    route_points: dict[tuple[int, str], list[int]] = defaultdict(list)
    decides: Counter[tuple[int, str]] = Counter()
    ticket_deck_empty: Counter[int] = Counter()
    passes: Counter[int] = Counter()
    games = records(playtest)
    assert len(games) == 2 * GAMES
    for record, states in games:
        n = record.config.players
        final = states[-1]
        assert final.is_over
        result = final.result()
        names = record.meta["names"]
        for seat in result.winners:
            wins[n, names[seat]] += 1 / len(result.winners)
        first_wins[n] += (0 in result.winners) / len(result.winners)
        turns[n].append(final.turn)
        for seat in range(n):
            offered.update((n, t) for t in states[0].offers[seat])
        for index, text in enumerate(record.actions):
            before, after = states[index], states[index + 1]
            if text == "T":
                offered.update((n, t) for t in after.offers[before.current])
            elif text.startswith("K "):
                kept.update((n, int(t)) for t in text.split()[1:])
            elif text.startswith("C ") and board.route_by_code(text.split()[1]).kind is RouteKind.TUNNEL:
                tunnels[n, "tunnel_attempts"] += 1
            elif text.startswith("X "):
                tunnels[n, "tunnel_paid"] += 1
            elif text == "decline":
                tunnels[n, "tunnel_declined"] += 1
            elif text == "pass":
                passes[n] += 1
        for player in result.players:
            route_points[n, names[player.player]].append(player.route_points)
            completed.update((n, t.ticket) for t in player.tickets if t.completed)
            owned = [r for r, owner in enumerate(final.route_owner) if owner == player.player]
            for route in owned:
                rest = [r for r in owned if r != route]
                if any(t.completed and not ticket_completed(board, rest, t.ticket) for t in player.tickets):
                    decides[n, board.routes[route].code] += 1
        for route, owner in enumerate(final.route_owner):
            if owner >= 0:
                claimed[n, board.routes[route].code] += 1
        ticket_deck_empty[n] += not final.ticket_deck

    for row in read_csv(playtest / "win_rates.csv"):
        assert float(row["wins"]) == pytest.approx(wins[int(row["players"]), row["label"]])
        assert int(row["games"]) == GAMES
        assert float(row["even_share"]) == 0.5  # two participants, at 2 and at 3 players
    seats = {(int(r["players"]), int(r["seat"])): r for r in read_csv(playtest / "seats.csv")}
    for n in (2, 3):
        assert float(seats[n, 0]["wins"]) == pytest.approx(first_wins[n])
        assert float(seats[n, 0]["win_rate"]) == pytest.approx(first_wins[n] / GAMES, abs=1e-6)
    for row in read_csv(playtest / "score_sources.csv"):
        values = route_points[int(row["players"]), row["label"]]
        assert float(row["routes"]) == pytest.approx(sum(values) / len(values), abs=1e-5)
    for row in read_csv(playtest / "game_lengths.csv"):
        n = int(row["players"])
        assert float(row["turns_mean"]) == pytest.approx(sum(turns[n]) / GAMES, abs=1e-5)
        assert int(row["turns_max"]) == max(turns[n])
    for row in read_csv(playtest / "tickets.csv"):
        key = (int(row["players"]), int(row["ticket"]))
        assert (int(row["offered"]), int(row["kept"]), int(row["completed"])) == (
            offered[key],
            kept[key],
            completed[key],
        ), row
    for row in read_csv(playtest / "routes.csv"):
        key = (int(row["players"]), row["route"])
        assert int(row["claimed"]) == claimed[key], row
        assert int(row["early"]) + int(row["mid"]) + int(row["late"]) == claimed[key]
        assert int(row["decides_ticket"]) == decides[key], row
        assert int(row["needed_by_claimer"]) + int(row["blocking"]) <= claimed[key]  # a blocking claim is not needed
    for row in read_csv(playtest / "special_routes.csv"):
        if row["statistic"] in ("tunnel_attempts", "tunnel_paid", "tunnel_declined"):
            assert int(row["total"]) == tunnels[int(row["players"]), row["statistic"]], row
    edges = {r["kind"]: r for r in read_csv(playtest / "edge_cases.csv")}
    assert int(edges["ticket_deck_empty"]["games"]) == sum(ticket_deck_empty.values())
    assert int(edges["pass"]["occurrences"]) == sum(passes.values())
    assert sum(claimed.values()) > 0 and sum(decides.values()) > 0 and sum(kept.values()) > 0


def test_needs_route_reads_the_shortest_completion() -> None:
    board = load_board()
    game = GameState.new(players=2, seed=1)
    game.tickets[1] = [board.ticket_between("Oslo", "Stockholm").id]
    first, second = board.routes_between("Oslo", "Örebro")  # Oslo–Örebro–Stockholm: 4 trains, the shortest
    onward = board.routes_between("Örebro", "Stockholm")
    detour = board.routes_between("Bergen", "Oslo")[0]
    assert needs_route(game, 1, first.id) and needs_route(game, 1, second.id)
    assert not needs_route(game, 0, first.id)  # player 0 holds no ticket
    assert not needs_route(game, 1, detour.id)
    game.route_owner[first.id] = 0  # two players: the other lane closes
    assert not needs_route(game, 1, second.id)
    assert needs_route(game, 1, onward[0].id)  # still on a shortest way left (round the closed lane)
    game.route_owner[first.id] = 1
    game.route_owner[onward[0].id] = 1  # player 1 has connected Oslo and Stockholm
    assert not needs_route(game, 1, detour.id) and not needs_route(game, 1, onward[1].id)


def test_compare_two_variants(playtest: Path, tmp_path: Path) -> None:
    variant = tmp_path / "no-globetrotter.toml"
    variant.write_text('name = "no-globetrotter"\n[scoring]\nglobetrotter_bonus = 0\n')
    other = tmp_path / "other"
    argv = ["playtest", "--agents", "random,route_focus", "--games", "3", "--seed", "9", "--out", str(other), "-q"]
    code, _, stderr = run_cli([*argv, "--variant", str(variant)])
    assert code == 0, stderr
    assert json.loads((other / "variant.json").read_text())["scoring"]["globetrotter_bonus"] == 0
    out = tmp_path / "cmp"
    code, stdout, stderr = run_cli(["playtest", "--compare", str(playtest), str(other), "--out", str(out)])
    assert code == 0, stderr
    assert stdout.strip() == str(out / "compare.html")
    rows = read_csv(out / "compare.csv")
    rate_a = {r["label"]: r for r in read_csv(playtest / "win_rates.csv") if r["players"] == "2"}
    rate_b = {r["label"]: r for r in read_csv(other / "win_rates.csv")}
    compared = [r for r in rows if r["metric"] == "win rate"]
    assert {r["who"] for r in compared} == {"random", "route_focus"}
    assert all(r["players"] == "2" for r in rows)  # only the player count both played
    for r in compared:
        a, b = rate_a[r["who"]], rate_b[r["who"]]
        assert float(r["a"]) == pytest.approx(float(a["win_rate"]))
        assert float(r["b"]) == pytest.approx(float(b["win_rate"]))
        low, high = newcombe_interval(float(a["wins"]), int(a["games"]), float(b["wins"]), int(b["games"]))
        assert (float(r["low"]), float(r["high"])) == pytest.approx((low, high), abs=1e-5)
        assert float(r["low"]) <= float(r["difference"]) <= float(r["high"])
    assert {"mean score", "mean turns", "seat win rate"} <= {r["metric"] for r in rows}
    # The one field changed: the bonus went from (on average) some points to none, and the interval says so.
    bonus = [r for r in rows if r["metric"] == "mean globetrotter" and r["who"] == "route_focus"]
    assert len(bonus) == 1 and float(bonus[0]["a"]) > 0 and float(bonus[0]["b"]) == 0
    assert bonus[0]["differs"] == "yes" and float(bonus[0]["high"]) < 0
    page = (out / "compare.html").read_text()
    assert "data:image/png;base64," in page and "<script" not in page
    assert "A = official" in page and "B = no-globetrotter" in page


def test_intervals() -> None:
    # Newcombe (1998), table II example: 56/70 against 48/80 gives 0.0524 to 0.3339 for p1 - p2.
    low, high = newcombe_interval(48, 80, 56, 70)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    low, high = welch_interval([10, 12, 14], [10, 12, 14])
    assert low < 0 < high


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,nosuch"], "unknown agent 'nosuch'"),
        (["--agents", "random", "--players", "4"], "expected 2, 3 or 2,3"),
        (["--agents", "random", "--games", "0"], "must be at least 1"),
        (["--agents", "random", "--workers", "x"], "expected a whole number"),
        (["--games", "3"], "--agents"),
        (["--agents", "random", "--address", "ray://x:1"], "--address needs --backend ray"),
        (["--compare", "nowhere-a", "nowhere-b"], "not a playtest's output folder"),
        (["--compare", "a", "b", "--agents", "random"], "takes no --agents"),
        (["--agents", "random", "--variant", "no/such.toml"], "--variant: no/such.toml: cannot read the file"),
    ],
)
def test_bad_flags_exit_2_with_one_line(argv: list[str], message: str, tmp_path: Path) -> None:
    code, _, stderr = run_cli(["playtest", *argv, "--out", str(tmp_path / "out")])
    assert code == 2
    assert message in stderr.strip().splitlines()[-1]
    assert not (tmp_path / "out").exists()


def test_out_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    code, _, stderr = run_cli(["playtest", "--agents", "random", "--games", "1", "--out", str(target)])
    assert code == 2 and "is a file" in stderr


def test_custom_board_variant(tmp_path: Path) -> None:
    variant = Path(__file__).resolve().parents[2] / "examples" / "variants" / "small-board.toml"
    argv = ["playtest", "--agents", "random,route_focus", "--games", "2", "--variant", str(variant), "--all-records"]
    code, _, stderr = run_cli([*argv, "--out", str(tmp_path)])
    assert code == 0, stderr
    board = load_variant(variant).board
    assert [r["city"] for r in read_csv(tmp_path / "cities.csv")] == [c.name for c in board.cities]
    assert [r["route"] for r in read_csv(tmp_path / "routes.csv")] == [r.code for r in board.routes]
    assert sum(int(r["claimed"]) for r in read_csv(tmp_path / "routes.csv")) > 0
    assert "rules: small-board" in (tmp_path / "report.html").read_text()
    # The score sources add up to the engine's totals, the variant's longest-path bonus included.
    seats = read_csv(tmp_path / "games.csv")
    for seat in seats:
        parts = ("route_points", "tickets_won", "globetrotter", "longest_path_bonus")
        assert int(seat["score"]) == sum(int(seat[p]) for p in parts) - int(seat["tickets_lost"])
    assert any(int(seat["longest_path_bonus"]) == 5 for seat in seats)
    assert len(list((tmp_path / "records").glob("game-*.json"))) == 2
    for path in (tmp_path / "records").glob("game-*.json"):  # the records replay under the variant they name
        final = GameRecord.load(path).replay()
        assert final.is_over and final.variant.name == "small-board"
    assert load_variant(tmp_path / "variant.json") == load_variant(variant)


def test_process_pool_plays_the_same_games(tmp_path: Path) -> None:
    """Two spawned workers (the variant travelling as JSON in each game's spec) give the games of one."""
    variant = Path(__file__).resolve().parents[2] / "examples" / "variants" / "short-game.toml"
    argv = ["playtest", "--agents", "random,route_focus", "--games", "4", "--variant", str(variant), "-q"]
    for workers in ("1", "2"):
        code, _, stderr = run_cli([*argv, "--workers", workers, "--out", str(tmp_path / workers)])
        assert code == 0, stderr
    assert read_csv(tmp_path / "1" / "games.csv") == read_csv(tmp_path / "2" / "games.csv")
    assert read_csv(tmp_path / "1" / "routes.csv") == read_csv(tmp_path / "2" / "routes.csv")


def test_ray_backend_plays_the_same_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    argv = ["playtest", "--agents", "random,route_focus", "--games", "4", "-q"]
    try:
        code, _, stderr = run_cli([*argv, "--workers", "2", "--backend", "ray", "--out", str(tmp_path / "ray")])
        assert code == 0, stderr
        assert not ray.is_initialized()  # the command shut down the instance it started
    finally:
        if ray.is_initialized():
            ray.shutdown()
    code, _, stderr = run_cli([*argv, "--out", str(tmp_path / "here")])
    assert code == 0, stderr
    assert read_csv(tmp_path / "ray" / "games.csv") == read_csv(tmp_path / "here" / "games.csv")
