"""The terminal game under a variant: a custom board played to the scoring screen, its map
drawn from the city positions, and bad variant files refused with one line."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

from test_terminal import Script
from ttr_nordic.cli import run
from ttr_nordic.engine import GameRecord, GameState
from ttr_nordic.engine.variant import load_variant
from ttr_nordic.terminal.boardmap import board_map, city_labels

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "variants"
RANGE = re.compile(r"\[1-(\d+)")


def answers_with_a_map(seed: int) -> Callable[[str], str]:
    """Random valid numbers; at the first main prompt, ask for the map once."""
    rng = random.Random(seed)
    asked = False

    def answer(prompt: str) -> str:
        nonlocal asked
        if " keep (ticket numbers" in prompt:
            return "all"
        match = RANGE.search(prompt)
        if match and not asked:
            asked = True
            return "m"
        return str(rng.randint(1, int(match.group(1)))) if match else ""

    return answer


def test_a_custom_board_is_played_to_the_scoring_screen(tmp_path: Path) -> None:
    save = tmp_path / "small.json"
    variant_file = EXAMPLES / "small-board.toml"
    script = Script(strategy=answers_with_a_map(3))
    argv = ["play", "--seed", "3", "--no-color", "--save", str(save), "--variant", str(variant_file)]
    assert run(argv, script.io()) == 0, script.err.getvalue()
    text = script.text
    assert "=== Map ===" in text and "Ada Ada" in text and "Routes: . free, 1 = " in text
    assert "=== Final scoring ===" in text
    record = GameRecord.load(save)
    variant = load_variant(variant_file)
    assert record.config.variant == variant
    game = record.replay()
    assert game.is_over and len(game.board.cities) == 8
    # The small board's variant has a longest-path bonus: the scoring screen shows it when won.
    if any(p.longest_path_bonus for p in game.result().players):
        assert "Longest path bonus" in text
    assert "used only to break ties" not in text


def test_a_bad_variant_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[trains]\nper_player = 0\n', encoding="utf-8")
    script = Script()
    assert run(["play", "--seed", "1", "--variant", str(bad)], script.io()) == 2
    error = script.err.getvalue().strip()
    assert error == f"ttr-nordic play: error: {bad}, line 3, trains.per_player: must be from 1 to 200, got 0"
    assert script.calls == 0
    missing = Script()
    assert run(["play", "--seed", "1", "--variant", str(tmp_path / "none.toml")], missing.io()) == 2
    assert "cannot read the file" in missing.err.getvalue()


def test_the_map_places_cities_by_their_positions() -> None:
    board = load_variant(EXAMPLES / "small-board.toml").board
    owners = [-1] * len(board.routes)
    owners[board.route_by_code("R04").id] = 1  # Bel–Cor, seat 2
    rows = board_map(board, owners, width=60, height=16)
    labels = dict(zip((c.name for c in board.cities), city_labels(board), strict=True))

    def where(name: str) -> tuple[int, int]:
        for row, line in enumerate(rows):
            col = line.find(labels[name])
            if col >= 0:
                return row, col
        raise AssertionError(name)

    # Ada is north-west of Hal, Cor east of Bel, Gal south of Dun: as their x and y say.
    assert where("Ada") < where("Hal") and where("Ada")[1] < where("Hal")[1]
    assert where("Cor")[1] > where("Bel")[1]
    assert where("Gal")[0] > where("Dun")[0]
    assert "2" in rows[where("Bel")[0]] + rows[where("Bel")[0] + 1]
    # The official board too: one row per line asked for, no label cut off.
    nordic = board_map(GameState.new(seed=1).board, [-1] * 81)
    assert len(nordic) == 32 and all(len(line) <= 96 for line in nordic)
    assert sum(line.count(label) for line in nordic for label in ("Osl", "Hel", "Mur")) == 3


def test_a_replay_of_a_custom_board_game_draws_its_map(tmp_path: Path) -> None:
    variant = load_variant(EXAMPLES / "small-board.toml")
    game = GameState.new(players=2, seed=8, variant=variant)
    choose = random.Random(8).choice
    while not game.is_over:
        game.apply(choose(game.legal_action_list()))
    path = tmp_path / "small.json"
    game.record().save(path)
    script = Script(["e", "m", "q"])
    assert run(["replay", str(path), "--no-color"], script.io()) == 0, script.err.getvalue()
    text = script.text
    assert "=== Map ===" in text and "Hal Hal" in text
    owned = {str(owner + 1) for owner in game.route_owner if owner >= 0}
    map_text = text[text.index("=== Map ===") :]
    assert all(mark in map_text for mark in owned)  # the claimed routes are drawn with seat numbers
