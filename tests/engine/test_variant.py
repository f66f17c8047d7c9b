"""Variant files: every field read and checked, the error each bad value gives, and games
played, scored and replayed under a variant. The official rules stay the default (the rest
of tests/engine, pinned games included, runs them unchanged)."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from ttr_nordic.engine import Claim, GameConfig, GameRecord, GameState, IllegalActionError, RecordError
from ttr_nordic.engine.actions import FACE_UP_DRAWS
from ttr_nordic.engine.board import board_to_dict, load_board
from ttr_nordic.engine.cards import LOCOMOTIVE, parse_cards
from ttr_nordic.engine.core import Phase
from ttr_nordic.engine.payments import check_payment, payment_options
from ttr_nordic.engine.variant import (
    OFFICIAL,
    Variant,
    VariantError,
    load_variant,
    variant_from_json,
    variant_from_toml,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def _play(game: GameState, seed: int) -> GameState:
    choose = random.Random(seed).choice
    while not game.is_over:
        game.apply(choose(game.legal_action_list()))
    return game


def _small_board() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "small-board.json").read_text(encoding="utf-8"))
    return data


# ------------------------------------------------------------------ the example files


def test_the_official_example_file_is_the_official_variant() -> None:
    assert load_variant(EXAMPLES / "official.toml") == OFFICIAL
    assert OFFICIAL.is_official and OFFICIAL.name == "official"
    assert OFFICIAL.board is load_board()


def test_every_example_loads_and_round_trips_through_its_dict() -> None:
    for path in sorted(EXAMPLES.glob("*.toml")):
        variant = load_variant(path)
        assert variant.name == path.stem
        data = json.loads(json.dumps(variant.to_dict()))
        again = Variant.from_dict(data)
        assert again == variant
        assert again.board is variant.board  # one Board object per distinct board


def test_the_short_game_changes_what_it_says() -> None:
    short = load_variant(EXAMPLES / "short-game.toml")
    assert (short.trains_per_player, short.initial_tickets_dealt, short.longest_path_bonus) == (25, 3, 10)
    assert short.board is load_board()
    game = GameState.new(players=3, seed=5, variant=short)
    assert game.variant is short and game.trains == [25, 25, 25]
    assert [len(offer) for offer in game.offers] == [3, 3, 3]


def test_a_json_variant_reads_like_the_toml_one() -> None:
    toml_variant = load_variant(EXAMPLES / "small-board.toml")
    text = json.dumps({**toml_variant.to_dict()}, indent=1)
    assert variant_from_json(text, "x.json") == toml_variant


# ------------------------------------------------------------------ each field, and its errors

FIELDS = [
    ("trains", "per_player", 12, "trains_per_player"),
    ("trains", "final_round_at", 5, "final_round_trains"),
    ("cards", "initial_hand", 6, "initial_hand"),
    ("cards", "face_up", 7, "face_up_cards"),
    ("cards", "locomotive_flush", True, "locomotive_flush"),
    ("tickets", "initial_dealt", 4, "initial_tickets_dealt"),
    ("tickets", "initial_kept", 1, "initial_tickets_kept"),
    ("tickets", "drawn", 4, "tickets_drawn"),
    ("tickets", "kept", 2, "tickets_kept"),
    ("scoring", "globetrotter_bonus", 0, "globetrotter_bonus"),
    ("scoring", "longest_path_bonus", 10, "longest_path_bonus"),
    ("claims", "tunnel_reveal", 1, "tunnel_reveal"),
    ("claims", "ferry_substitution", 2, "ferry_substitution"),
]


@pytest.mark.parametrize(("section", "key", "value", "attribute"), FIELDS)
def test_each_field_is_read(section: str, key: str, value: object, attribute: str) -> None:
    shown = str(value).lower()
    variant = variant_from_toml(f'name = "v"\n[{section}]\n{key} = {shown}\n')
    assert getattr(variant, attribute) == value
    assert getattr(OFFICIAL, attribute) != value


@pytest.mark.parametrize(("section", "key", "value", "attribute"), FIELDS)
def test_each_field_refuses_a_wrong_type_naming_line_and_field(
    section: str, key: str, value: object, attribute: str
) -> None:
    text = f'name = "v"\n\n[{section}]\n{key} = "x"\n'
    with pytest.raises(VariantError) as caught:
        variant_from_toml(text, "v.toml")
    assert caught.value.line == 4
    assert caught.value.field == f"{section}.{key}"
    message = str(caught.value)
    assert message.startswith(f"v.toml, line 4, {section}.{key}: must be ")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("[trains]\nper_player = 0", "trains.per_player", "must be from 1 to 200, got 0"),
        ("[trains]\nper_player = 10\nfinal_round_at = 10", "trains.final_round_at", "must be from 0 to 9, got 10"),
        ("[cards]\nface_up = 10", "cards.face_up", "must be from 1 to 9, got 10"),
        ("[tickets]\ninitial_dealt = 3\ninitial_kept = 4", "tickets.initial_kept", "must be from 1 to 3, got 4"),
        ("[tickets]\ndrawn = 2\nkept = 3", "tickets.kept", "must be from 1 to 2, got 3"),
        ("[claims]\nferry_substitution = 1", "claims.ferry_substitution", "must be from 2 to 9, got 1"),
        ("[claims]\ntunnel_reveal = -1", "claims.tunnel_reveal", "must be from 0 to 6, got -1"),
        ("[scoring]\nglobetrotter_bonus = 2.5", "scoring.globetrotter_bonus", "must be a whole number, got 2.5"),
        ("[scoring]\nroute_points = { 1 = 1 }", "scoring.route_points", "the board has routes of length 2, 3"),
        ("[scoring]\nroute_points = { x = 1 }", "scoring.route_points.x", "a route length is a whole number"),
        ("[trains]\nper_player = true", "trains.per_player", "must be a whole number, got True"),
        ("[cards]\nlocomotive_flush = 1", "cards.locomotive_flush", "must be true or false, got 1"),
        ("[cards]\nface_ups = 4", "cards.face_ups", "unknown field (known here: initial_hand, face_up"),
        ("[rules]\nx = 1", "rules", "unknown field"),
        ("trains = 3", "trains", "must be a table of fields, got 3"),
        ('name = "a/b"', "name", "use letters, digits"),
    ],
)
def test_bad_values_are_refused_with_the_field_named(text: str, field: str, message: str) -> None:
    with pytest.raises(VariantError) as caught:
        variant_from_toml(text + "\n", "bad.toml")
    assert caught.value.field == field
    assert message in str(caught.value)
    assert caught.value.line is not None


def test_a_nameless_variant_takes_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "my-rules.toml"
    path.write_text("[trains]\nper_player = 30\n", encoding="utf-8")
    assert load_variant(path).name == "my-rules"
    with pytest.raises(VariantError, match="a variant needs a name"):
        Variant.from_dict({"trains": {"per_player": 30}})


def test_unreadable_and_malformed_files_say_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[trains\n', encoding="utf-8")
    with pytest.raises(VariantError, match=r"bad.toml, line 2: not valid TOML"):
        load_variant(bad)
    broken = tmp_path / "bad.json"
    broken.write_text('{"name": "x",\n "trains": }', encoding="utf-8")
    with pytest.raises(VariantError, match=r"bad.json, line 2: not valid JSON"):
        load_variant(broken)
    other = tmp_path / "rules.yaml"
    other.write_text("x: 1", encoding="utf-8")
    with pytest.raises(VariantError, match=r"ends in \.toml or \.json"):
        load_variant(other)


def test_json_errors_name_the_line_too() -> None:
    text = '{\n  "name": "j",\n  "tickets": {\n    "drawn": 0\n  }\n}'
    with pytest.raises(VariantError) as caught:
        variant_from_json(text, "j.json")
    assert (caught.value.line, caught.value.field) == (4, "tickets.drawn")


def test_a_game_needs_enough_tickets_and_cards_for_its_players() -> None:
    many = variant_from_toml('name = "v"\n[tickets]\ninitial_dealt = 15\n')
    GameState.new(players=3, seed=1, variant=many)  # 45 of the 46 tickets
    board = _small_board()
    small = Variant.from_dict({"name": "s", "tickets": {"initial_dealt": 5}, "board": board})
    GameState.new(players=2, seed=1, variant=small)
    with pytest.raises(VariantError, match="12 tickets are too few to deal 5 to each of 3 players"):
        GameConfig(3, 1, None, small)
    # A file allows hands of 30 at most (99 cards for three players); a Variant built in code is
    # checked when a game is set up.
    big_hands = variant_from_toml('name = "v"\n[cards]\ninitial_hand = 30\nface_up = 9\n')
    GameState.new(players=3, seed=1, variant=big_hands)
    with pytest.raises(VariantError, match="need 111 of the 110 train cards") as caught:
        GameConfig(3, 1, None, dataclasses.replace(big_hands, initial_hand=34))
    assert caught.value.field == "cards.initial_hand"
    with pytest.raises(ValueError, match="variant must be a Variant"):
        GameConfig(2, 1, None, "short-game")  # type: ignore[arg-type]


# ------------------------------------------------------------------ custom boards


def _board_error(board: dict[str, Any]) -> VariantError:
    with pytest.raises(VariantError) as caught:
        Variant.from_dict({"name": "b", "board": board})
    return caught.value


def test_a_custom_board_inline_or_from_a_file_is_the_same(tmp_path: Path) -> None:
    board = _small_board()
    inline = Variant.from_dict({"name": "b", "board": board})
    (tmp_path / "b.json").write_text(json.dumps(board), encoding="utf-8")
    (tmp_path / "b.toml").write_text('name = "b"\n[board]\nfile = "b.json"\n', encoding="utf-8")
    assert load_variant(tmp_path / "b.toml") == inline
    assert len(inline.board.cities) == 8 and inline.board.route_by_code("R15").group == 4


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda b: b["routes"][3].update(b="Nowhere"), "board.routes[3].b", "unknown city 'Nowhere'"),
        (lambda b: b["tickets"][2].update(a="Atlantis"), "board.tickets[2].a", "unknown city 'Atlantis'"),
        (lambda b: b["cities"][5].update(name="Ada"), "board.cities[5].name", "duplicate city 'Ada'"),
        (lambda b: b["routes"][0].update(length=7), "board.routes[0].length", "no points for length 7"),
        (lambda b: b["routes"][0].update(color="pink"), "board.routes[0].color", "unknown color 'pink'"),
        (lambda b: b["routes"][0].update(kind="bridge"), "board.routes[0].kind", "unknown kind 'bridge'"),
        (lambda b: b["routes"][0].update(b="Cor"), "board.routes[0].b", "joins two different cities"),
        (lambda b: b["routes"][3].update(a="Ada", b="Bel"), "board.routes[3]", "at most two routes join"),
        (lambda b: b["routes"][3].update(a="Dun", b="Ada"), "board.routes[4]", "make them each other's double"),
        (lambda b: b["routes"][6].update(ferry_locomotives=0), "board.routes[6].ferry_locomotives", "from 1 to 3"),
        (lambda b: b["routes"][0].update(ferry_locomotives=1), "board.routes[0].ferry_locomotives", "only a ferry"),
        (lambda b: b["routes"][14].update(color="red"), "board.routes[14].color", "special route"),
        (lambda b: b["routes"][1].update(double_route_with="R09"), "board.routes[1].double_route_with", "same two"),
        (lambda b: b["routes"][1].update(double_route_with="R99"), "board.routes[1].double_route_with", "unknown"),
        (lambda b: b["routes"][2].update(id="R07"), "board.routes[2].id", "in order: this one is R03"),
        (lambda b: b["routes"][0].update(lanes=2), "board.routes[0].lanes", "unknown field"),
        (lambda b: b["cities"][0].update(x="left"), "board.cities[0].x", "must be a number"),
        (lambda b: b["cities"][0].pop("y"), "board.cities[0]", "a city needs a name, x and y"),
        (lambda b: b["tickets"][1].update(points=0), "board.tickets[1].points", "from 1 to 100, got 0"),
        (lambda b: b["tickets"][2].update(a="Hal", b="Ada"), "board.tickets[2]", "duplicate ticket Hal–Ada"),
        (lambda b: b.update(tickets=[]), "board.tickets", "non-empty list of tickets"),
    ],
)
def test_bad_boards_are_refused(change: Any, field: str, message: str) -> None:
    board = _small_board()
    change(board)
    error = _board_error(board)
    assert error.field == field
    assert message in str(error)


def test_errors_in_a_board_file_name_that_file_and_line(tmp_path: Path) -> None:
    board = _small_board()
    board["routes"][4]["b"] = "Nowhere"
    (tmp_path / "b.json").write_text(json.dumps(board, indent=1), encoding="utf-8")
    (tmp_path / "v.toml").write_text('name = "v"\n[board]\nfile = "b.json"\n', encoding="utf-8")
    with pytest.raises(VariantError) as caught:
        load_variant(tmp_path / "v.toml")
    error = caught.value
    assert error.source.endswith("b.json") and error.field == "routes[4].b"
    line = (tmp_path / "b.json").read_text(encoding="utf-8").splitlines()[(error.line or 0) - 1]
    assert '"Nowhere"' in line
    (tmp_path / "w.toml").write_text('name = "w"\n[board]\nfile = "missing.json"\n', encoding="utf-8")
    with pytest.raises(VariantError, match=r"w.toml, line 3, board.file: cannot read missing.json"):
        load_variant(tmp_path / "w.toml")


def test_toml_board_tables_name_their_line() -> None:
    text = (
        'name = "t"\n'
        "[[board.cities]]\n"
        'name = "A"\nx = 0\ny = 0\n'
        "[[board.cities]]\n"
        'name = "B"\nx = 1\ny = 1\n'
        "[[board.routes]]\n"
        'a = "A"\nb = "C"\nlength = 1\ncolor = "red"\n'
        "[[board.tickets]]\n"
        'a = "A"\nb = "B"\npoints = 2\n'
    )
    with pytest.raises(VariantError) as caught:
        variant_from_toml(text, "t.toml")
    assert (caught.value.field, caught.value.line) == ("board.routes[0].b", 12)


# ------------------------------------------------------------------ the rules under a variant


def test_a_custom_board_plays_to_the_end_and_replays_from_its_record() -> None:
    variant = load_variant(EXAMPLES / "small-board.toml")
    for players in (2, 3):
        for seed in range(6):
            game = _play(GameState.new(players=players, seed=seed, variant=variant), seed)
            record = GameRecord.from_json(game.record().to_json())
            assert record.config.variant == variant
            replayed = record.replay()
            assert replayed.history == game.history and replayed.result() == game.result()


def test_official_records_do_not_name_a_variant_and_old_records_replay_as_official() -> None:
    game = _play(GameState.new(players=2, seed=3), 3)
    data = game.record().to_dict()
    assert "variant" not in data
    assert GameRecord.from_dict(data).replay().variant is OFFICIAL
    data["variant"] = {"name": "broken", "trains": {"per_player": 0}}
    with pytest.raises(RecordError, match=r"trains\.per_player: must be from 1 to 200"):
        GameRecord.from_dict(data)


def test_the_deal_follows_the_variant() -> None:
    variant = variant_from_toml(
        'name = "d"\n[trains]\nper_player = 30\n[cards]\ninitial_hand = 6\nface_up = 7\n'
        "[tickets]\ninitial_dealt = 4\ninitial_kept = 3\n"
    )
    game = GameState.new(players=2, seed=9, variant=variant)
    assert [sum(hand) for hand in game.hands] == [6, 6]
    assert len(game.display) == 7 and game.deck_count == 110 - 12 - 7
    assert [len(offer) for offer in game.offers] == [4, 4]
    assert min(len(a.tickets) for a in game.legal_action_list()) == 3  # type: ignore[attr-defined]
    game.apply(game.legal_action_list()[0])
    game.apply(game.legal_action_list()[0])
    assert FACE_UP_DRAWS[6] in game.legal_actions()
    assert GameState.new(players=2, seed=9).rejection(FACE_UP_DRAWS[6]) is not None


def test_tickets_drawn_and_kept_later_follow_the_variant() -> None:
    variant = variant_from_toml('name = "t"\n[tickets]\ndrawn = 4\nkept = 2\n')
    game = GameState.new(players=2, seed=2, variant=variant, first_player=0)
    for _ in range(2):
        game.apply(game.legal_action_list()[0])
    game.apply(next(a for a in game.legal_action_list() if a.notation() == "T"))
    assert game.phase is Phase.KEEP_TICKETS and len(game.offers[0]) == 4
    assert min(len(a.tickets) for a in game.legal_action_list()) == 2  # type: ignore[attr-defined]


def test_the_final_round_starts_at_the_variant_threshold() -> None:
    variant = variant_from_toml('name = "f"\n[trains]\nper_player = 12\nfinal_round_at = 6\n')
    left_at_trigger = []
    for seed in range(8):
        game = GameState.new(players=2, seed=seed, variant=variant)
        choose = random.Random(seed).choice
        while game.final_round_trigger < 0 and not game.is_over:
            game.apply(choose(game.legal_action_list()))
        if game.final_round_trigger >= 0:
            left_at_trigger.append(game.trains[game.final_round_trigger])
            assert game.final_turns_left == 2
    assert left_at_trigger and max(left_at_trigger) <= 6
    assert any(left > 2 for left in left_at_trigger)  # earlier than the official 2 trains


def test_route_points_and_bonuses_follow_the_variant() -> None:
    variant = variant_from_toml(
        'name = "s"\n[scoring]\nroute_points = { 1 = 5, 2 = 6, 3 = 7, 4 = 8, 5 = 9, 6 = 10, 9 = 11 }\n'
        "globetrotter_bonus = 0\nlongest_path_bonus = 12\n"
    )
    assert variant.board.route_by_code("R51").points == 11
    assert OFFICIAL.board.route_by_code("R51").points == 27
    for seed in range(8):
        game = _play(GameState.new(players=3, seed=seed, variant=variant), seed)
        result = game.result()
        longest = max(p.longest_path for p in result.players)
        for p in result.players:
            assert p.globetrotter == 0
            assert p.longest_path_bonus == (12 if p.longest_path == longest and longest > 0 else 0)
            assert p.total == p.route_points + p.ticket_points + p.longest_path_bonus
            owned = [r for r, owner in enumerate(game.route_owner) if owner == p.player]
            assert p.route_points == sum(variant.board.routes[r].points for r in owned)
    official = _play(GameState.new(players=3, seed=1), 1).result()
    assert all(p.longest_path_bonus == 0 for p in official.players)


def test_the_tunnel_reveal_size_follows_the_variant() -> None:
    for reveal in (0, 1, 5):
        variant = variant_from_toml(f'name = "t"\n[claims]\ntunnel_reveal = {reveal}\n')
        seen: set[int] = set()
        for seed in range(40):
            game = _play(GameState.new(players=2, seed=seed, variant=variant), seed)
            tunnels = {r.id for r in variant.board.routes if r.kind.value == "tunnel"}
            claims = [e for e in game.log if isinstance(e.action, Claim) and e.action.route in tunnels]
            seen.update(len(entry.revealed) for entry in claims)
            if reveal in seen:
                break
        assert reveal in seen and max(seen) <= reveal


def test_the_ferry_substitution_rate_follows_the_variant() -> None:
    two = variant_from_toml('name = "f"\n[claims]\nferry_substitution = 2\n')
    ferry = two.board.route_by_code("R45")  # Kristiansand–Stavanger, 3 orange, 1 locomotive space
    official = load_board().route_by_code("R45")
    assert check_payment(ferry, parse_cards("OOPK")) is None  # 2 orange + any 2 cards
    assert check_payment(official, parse_cards("OOPK")) is not None
    assert check_payment(official, parse_cards("OOPKW")) is None
    assert parse_cards("OOPK") in payment_options(ferry, parse_cards("OOPK"))
    # The special route keeps its groups of 4.
    assert two.board.route_by_code("R51").group == 4


def test_the_locomotive_flush_replaces_a_display_of_three_locomotives() -> None:
    flush = variant_from_toml('name = "f"\n[cards]\nlocomotive_flush = true\n')
    flushed = 0
    for seed in range(60):
        plain = GameState.new(players=2, seed=seed)
        game = GameState.new(players=2, seed=seed, variant=flush)
        if plain.display.count(LOCOMOTIVE) >= 3:
            flushed += 1
            assert game.display != plain.display
        choose = random.Random(seed).choice
        while not game.is_over:
            assert game.display.count(LOCOMOTIVE) < 3 or game.deck_count + game.discard_count < 5
            game.apply(choose(game.legal_action_list()))
        assert sum(game.card_total()) == 110
    assert flushed > 0  # the seeds above include displays dealt with three locomotives


def test_a_board_round_trips_through_its_dict() -> None:
    board = load_board()
    data = board_to_dict(board)
    assert Variant.from_dict({"name": "same", "board": data}).board == board


def test_a_variant_pickles_to_the_same_board_object() -> None:
    # Process pools send configs by pickle: the board comes back as the one already known, so
    # the engine's per-board tables are not built again for every game.
    variant = load_variant(EXAMPLES / "small-board.toml")
    config = pickle.loads(pickle.dumps(GameConfig(3, 7, None, variant)))
    assert config.variant == variant and config.variant.board is variant.board
    assert pickle.loads(pickle.dumps(OFFICIAL)).board is load_board()
    game = GameState.from_config(config)
    assert _play(game, 7).record().replay().result() == game.result()


def test_phase_texts_give_the_variant_numbers() -> None:
    variant = variant_from_toml('name = "p"\n[tickets]\ninitial_dealt = 4\ninitial_kept = 3\n')
    assert Phase.INITIAL_TICKETS.text(variant) == "choose initial tickets (keep at least 3)"
    assert Phase.INITIAL_TICKETS.text() == Phase.INITIAL_TICKETS.value  # the official text
    game = GameState.new(players=2, seed=1, variant=variant)
    assert game.rejection(FACE_UP_DRAWS[0]) is not None
    with pytest.raises(IllegalActionError, match=r"now: choose initial tickets \(keep at least 3\)"):
        game.apply(FACE_UP_DRAWS[0])


JUNK: list[Any] = [None, "x", "", -1, 0, 1, 10**30, 1.5, float("nan"), True, [], {}, [1], {"a": 1}, "Ada", "R01"]


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        found.append((*prefix, key))
        found += _paths(value, (*prefix, key))
    return found


def test_any_damaged_variant_gives_a_one_line_variant_error_or_a_playable_game() -> None:
    # Random damage anywhere in a valid variant (a value replaced by junk, or a key removed):
    # a VariantError of one line, or a variant whose games play to the end. Never another error.
    base = load_variant(EXAMPLES / "small-board.toml").to_dict()
    paths = _paths(base)
    rng = random.Random(5)
    loaded = 0
    for trial in range(400):
        data = json.loads(json.dumps(base))
        for _ in range(rng.randint(1, 2)):
            *parents, last = rng.choice(paths)
            try:
                holder = data
                for key in parents:
                    holder = holder[key]
                if isinstance(holder, dict) and rng.random() < 0.15:
                    del holder[last]
                else:
                    holder[last] = rng.choice(JUNK)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier change removed or replaced a parent
        try:
            variant = Variant.from_dict(data)
            game = GameState.new(players=2, seed=trial, variant=variant)
        except VariantError as exc:
            assert "\n" not in str(exc) and exc.field is not None
            continue
        loaded += 1
        _play(game, trial)
    assert 0 < loaded < 400
