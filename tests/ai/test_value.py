"""The value model: view-only features, a seeded and resumable generator, a checked loader,
and a win probability better than a constant on games it was not trained on."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from ttr_nordic.ai import RouteFocusAgent
from ttr_nordic.ai.value import FEATURE_NAMES, ValueModelError, evaluate, features, load_model
from ttr_nordic.ai.value.data import DataConfig, generate, play_and_sample, read_shards, shard_name
from ttr_nordic.ai.value.model import WEIGHTS_FILE, parse_model
from ttr_nordic.engine import GameState


def mid_game(players: int, seed: int, actions: int = 60) -> GameState:
    state = GameState.new(players=players, seed=seed)
    agents = [RouteFocusAgent(seed=seed + p) for p in range(players)]
    for _ in range(actions):
        p = state.decision.player
        state.apply(agents[p].choose(state.view(p), state.legal_action_list()), p)
    return state


@pytest.mark.parametrize("players", [2, 3])
def test_features_depend_on_the_view_only(players: int) -> None:
    state = mid_game(players, seed=11)
    view = state.view(0)
    expected = features(view)
    assert len(expected) == len(FEATURE_NAMES)
    redealt = 0
    for k in range(4):
        # Re-deal everything player 0 cannot see: the features must not move.
        sample = view.determinize(random.Random(k))
        redealt += sample.hands[1] != state.hands[1] or sample.tickets[1] != state.tickets[1]
        assert features(sample.view(0)) == expected
    assert redealt > 0


def shard_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("shard-*"))}


def test_generator_is_seeded_and_resumable(tmp_path: Path) -> None:
    config = DataConfig(players=2, seed=5, shard_games=1)
    whole, resumed, other = tmp_path / "whole", tmp_path / "resumed", tmp_path / "other"
    assert [k for k, _ in generate(config, whole, 3)] == [0, 1, 2]
    # An interrupted run: one shard done, then the same command again.
    list(generate(config, resumed, 1))
    assert [k for k, _ in generate(config, resumed, 3)] == [1, 2]
    assert shard_bytes(resumed) == shard_bytes(whole)
    # A shard lost in a crash is played again, identically.
    (resumed / shard_name(1)).unlink()
    assert [k for k, _ in generate(config, resumed, 3)] == [1]
    assert shard_bytes(resumed) == shard_bytes(whole)
    list(generate(DataConfig(players=2, seed=6, shard_games=1), other, 1))
    assert shard_bytes(other)[shard_name(0)] != shard_bytes(whole)[shard_name(0)]
    header, rows = read_shards(whole)
    assert header[: len(FEATURE_NAMES)] == list(FEATURE_NAMES) and len(rows) > 20


def test_generator_refuses_other_settings_in_the_same_directory(tmp_path: Path) -> None:
    list(generate(DataConfig(players=2, seed=5, shard_games=1), tmp_path, 1))
    with pytest.raises(ValueError, match="other settings"):
        list(generate(DataConfig(players=2, seed=7, shard_games=1), tmp_path, 1))


def test_generator_site_mix_is_recorded_and_an_unknown_mix_refused(tmp_path: Path) -> None:
    site = DataConfig(players=2, seed=5, shard_games=1, mix="site")
    list(generate(site, tmp_path / "site", 1))
    assert json.loads((tmp_path / "site" / "manifest.json").read_text(encoding="utf-8"))["mix"] == "site"
    with pytest.raises(ValueError, match="other settings"):
        list(generate(DataConfig(players=2, seed=5, shard_games=1), tmp_path / "site", 1))
    with pytest.raises(ValueError, match="unknown agent mix"):
        list(generate(DataConfig(players=2, seed=5, shard_games=1, mix="nope"), tmp_path / "nope", 1))


def shipped() -> dict[str, object]:
    path = Path(__file__).parents[2] / "src/ttr_nordic/ai/value" / WEIGHTS_FILE
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_shipped_model_loads_and_evaluates() -> None:
    model = load_model()
    assert set(model.margin) == {2, 3}
    for players in (2, 3):
        margin, p_win = evaluate(mid_game(players, seed=3).view(1))
        assert math.isfinite(margin) and 0.0 < p_win < 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format=99), "format"),
        (lambda d: d.update(features=list(reversed(FEATURE_NAMES))), "feature names"),
        (lambda d: d["models"]["2"]["win"].update(coef=[1.0]), "list of"),
        (lambda d: d["models"]["2"]["margin"]["scale"].__setitem__(0, 0.0), "positive"),
        (lambda d: d["models"]["3"]["margin"].pop("intercept"), "missing"),
        (lambda d: d["models"].update({"4": d["models"]["2"]}), "unexpected model"),
        (lambda d: d["models"]["2"]["win"]["mean"].__setitem__(2, "x"), "not a finite number"),
    ],
)
def test_loader_refuses_a_broken_file(change: object, message: str, tmp_path: Path) -> None:
    data = shipped()
    change(data)  # type: ignore[operator]
    with pytest.raises(ValueModelError, match=message):
        parse_model(data)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueModelError, match=message):
        load_model(path)
    path.write_text("{not json")
    with pytest.raises(ValueModelError, match="cannot read"):
        load_model(path)


def test_predict_refuses_a_wrong_feature_vector() -> None:
    model = load_model()
    good = features(mid_game(2, seed=4).view(0))
    model.predict(2, good)
    with pytest.raises(ValueModelError, match="expected 16 features"):
        model.predict(2, good[:-1])
    with pytest.raises(ValueModelError, match="non-finite"):
        model.predict(2, [*good[:-1], math.nan])
    with pytest.raises(ValueModelError, match="no model for 5"):
        model.predict(5, good)


def test_win_probability_beats_a_constant_on_unseen_games() -> None:
    # Seed 424242 is not a training seed, so these games are held out.
    model = load_model()
    config = DataConfig(players=2, seed=424242, shard_games=1)
    rows = [row for game in range(24) for row in play_and_sample(config, game)]
    n = len(FEATURE_NAMES)
    win = [row[-1] for row in rows]
    p = [model.predict(2, row[:n])[1] for row in rows]
    brier = sum((a - b) ** 2 for a, b in zip(p, win, strict=True)) / len(rows)
    assert brier < 0.25 * 0.97  # 0.25 is the Brier score of the constant 1/2


def test_speed_benchmark_prints_its_figures() -> None:
    from benchmark_script import run_benchmark

    done = run_benchmark("value_speed.py", "--positions", "10", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6 and all(" us, p99 " in line for line in lines)
    assert sum("chances" in line for line in lines) == 2


def test_generator_on_ray_writes_the_same_shards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    config = DataConfig(players=2, seed=5, shard_games=1)
    local, remote = tmp_path / "local", tmp_path / "ray"
    list(generate(config, local, 2))
    try:
        assert sorted(k for k, _ in generate(config, remote, 2, workers=2, backend="ray")) == [0, 1]
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert shard_bytes(remote) == shard_bytes(local)
