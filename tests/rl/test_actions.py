"""The fixed action enumeration: every legal action of thousands of random positions round-trips."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ttr_nordic.engine import Claim, GameState, KeepTickets, RouteKind, load_board, parse_action
from ttr_nordic.rl import _accel, aec_env
from ttr_nordic.rl import actions as actions_module
from ttr_nordic.rl.actions import action_space


def random_positions(games: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    positions = []
    for g in range(games):
        state = GameState.new(players=2 + g % 2, seed=seed * 1000 + g)
        while not state.is_over:
            positions.append(state.clone())
            state.apply(rng.choice(state.legal_action_list()))
    return positions


def test_every_legal_action_has_its_own_id_and_round_trips() -> None:
    space = action_space()
    positions = random_positions(24, seed=7)
    assert len(positions) > 3000
    checked = 0
    for state in positions:
        legal = state.legal_action_list()
        ids = [space.encode(action, state) for action in legal]
        # Injective: no two distinct legal actions of one decision share an id.
        assert len(set(ids)) == len(legal), [space.describe(i) for i in ids]
        for action, action_id in zip(legal, ids, strict=True):
            assert 0 <= action_id < space.size
            assert space.decode(action_id, state) == action
        assert space.legal_ids(state) == dict(zip(ids, legal, strict=True))
        checked += len(legal)
    assert checked > 30_000


def gray_ferry_positions(tries: int, seed: int) -> list[GameState]:
    """Positions where a player holds many cards and a gray ferry is free: where payments of
    one ferry are most alike (random play seldom gets there)."""
    rng = random.Random(seed)
    board = GameState.new(players=2, seed=0).board
    gray = [r.id for r in board.routes if r.color < 0 and r.kind in (RouteKind.FERRY, RouteKind.SPECIAL)]
    positions = []
    for t in range(tries):
        state = GameState.new(players=2, seed=seed * 1000 + t)
        while not state.is_over and len(positions) < tries:
            legal = state.legal_action_list()
            if any(isinstance(a, Claim) and a.route in gray for a in legal):
                positions.append(state.clone())
            # Draw mostly, so that hands grow large and mixed.
            draws = [a for a in legal if not isinstance(a, Claim)] if rng.random() < 0.9 else legal
            state.apply(rng.choice(draws or legal))
    return positions


def test_gray_ferries_and_murmansk_lieksa_get_one_id_per_payment() -> None:
    space = action_space()
    positions = gray_ferry_positions(300, seed=3)
    assert len(positions) >= 300
    displaced = 0
    for state in positions:
        legal = state.legal_action_list()
        ids = space.legal_ids(state)
        assert len(ids) == len(legal)
        for action_id, action in ids.items():
            assert space.encode(action, state) == action_id
            assert space.decode(action_id, state) == action
            displaced += "another payment" in space.describe(action_id)
    # These positions do hold payments that share a main color (the case the overflow slot is for).
    assert displaced > 0


def test_ids_are_stable_and_describe_the_layout() -> None:
    space = action_space()
    assert space.encode(parse_action("F1")) == 0
    assert space.encode(parse_action("F5")) == 4
    assert space.encode(parse_action("B")) == 5
    assert space.encode(parse_action("T")) == 6
    assert space.encode(KeepTickets((3, 9)), offer=(9, 3, 20)) == 7 + 0b011 - 1
    assert space.describe(space.encode(parse_action("decline"))) == "decline tunnel"
    assert space.describe(space.encode(parse_action("pass"))) == "pass"
    assert space.describe(space.encode(parse_action("X OL"))) == "tunnel extra: 2 card(s), 1 locomotive(s)"
    assert space.describe(space.encode(parse_action("C R45 OOL"))).startswith("claim R45: 3 cards")
    # Ids from before the overflow slots keep their meaning; the overflow slots come last.
    assert space.encode(parse_action("C R45 OOL")) == 2887
    assert space.describe(6192) == "claim R81: 3 cards, main color -1, 3 locomotive(s)"
    assert space.describe(6193).startswith("claim R02: 2 cards, another payment")
    assert space.size == 6394


def test_bad_ids_and_actions_are_refused() -> None:
    space = action_space()
    state = GameState.new(players=2, seed=1)
    with pytest.raises(ValueError, match="action ids are 0 to"):
        space.decode(space.size, state)
    with pytest.raises(ValueError, match="not legal now"):
        space.decode(space.blind, state)  # initial tickets come first
    with pytest.raises(ValueError, match="not in the offer"):
        space.encode(KeepTickets((1,)), offer=(2, 3))
    with pytest.raises(ValueError, match="extra cards"):
        space.encode(parse_action("X OOOL"))
    with pytest.raises(ValueError, match="needs the state"):
        space.encode(parse_action("C R02 UL"))  # a gray ferry: its slot depends on the position
    with pytest.raises(ValueError, match="needs the offer or the state"):
        space.encode(KeepTickets((1,)))
    with pytest.raises(ValueError, match="action ids are 0 to"):
        space.describe(-1)


def encoded_one_by_one(state: GameState) -> dict[int, object]:
    space = action_space()
    return {space.encode(action, state): action for action in state.legal_action_list()}


@pytest.mark.parametrize("path", ["c", "python"])
@pytest.mark.parametrize("limit", [None, 3])
def test_cached_legal_ids_equal_the_legal_actions_encoded(
    monkeypatch: pytest.MonkeyPatch, limit: int | None, path: str
) -> None:
    """The remembered ids (by action object, and the slots of gray-ferry listings) give what
    encoding each legal action gives: in a fresh enumeration, called again on the same
    position, and with caches so small that they are emptied all the time; with the table in
    C (the accelerator, which ``make test``'s install builds) and in Python."""
    if limit is not None:
        monkeypatch.setattr(actions_module, "_FIXED_CACHE_LIMIT", limit)
        monkeypatch.setattr(actions_module, "_LISTING_CACHE_LIMIT", limit)
    fresh = action_space.__wrapped__(load_board())
    if path == "python":
        object.__setattr__(fresh, "_fast_ids", None)
    else:
        assert fresh._fast_ids is not None, "the C accelerator is not built: python hatch_build.py"
    for state in random_positions(8, seed=21) + gray_ferry_positions(60, seed=22):
        expected = encoded_one_by_one(state)
        assert fresh.legal_ids(state) == expected
        assert fresh.legal_ids(state) == expected
        assert list(fresh.legal_ids(state)) == list(expected)  # in the engine's order


def test_the_pettingzoo_mask_is_the_legal_actions_encoded() -> None:
    env = aec_env(players=3)
    env.reset(seed=8)
    rng = random.Random(8)
    steps = 0
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.state
        legal = sorted(encoded_one_by_one(state))
        assert obs["action_mask"].nonzero()[0].tolist() == legal
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(rng.choice(legal))
        steps += 1
    assert steps > 100


@pytest.mark.parametrize("path", ["c", "python"])
def test_masks_mark_exactly_the_ids(monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """``ActionSpace.mask`` (the C accelerator's, which ``make test``'s install builds, and the
    Python one) marks the given ids and nothing else, in a fresh array each call."""
    if path == "python":
        monkeypatch.setattr(actions_module, "_MARK", None)
    else:
        assert actions_module._MARK is not None, "the C accelerator is not built: python hatch_build.py"
    space = action_space()
    rng = random.Random(5)
    for _ in range(200):
        ids = rng.sample(range(space.size), rng.randrange(0, 60))
        mask = space.mask(ids)
        assert mask.dtype == np.int8 and mask.shape == (space.size,)
        assert mask.nonzero()[0].tolist() == sorted(ids)
    assert space.mask(iter([3, 1])).nonzero()[0].tolist() == [1, 3]


def test_the_c_mask_refuses_ids_outside_it() -> None:
    mark = actions_module._MARK
    assert mark is not None, "the C accelerator is not built: python hatch_build.py"
    mask = np.zeros(10, np.int8)
    for bad in ([3, 10], [3, -1], [3, "4"], [3, 2**70]):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            mark(mask, bad)
        assert not mask.any()  # checked before anything is written
    with pytest.raises(TypeError):
        mark(mask, (1, 2))
    with pytest.raises(ValueError):
        mark(np.zeros(10, np.float32), [1])


def test_the_c_id_table_keeps_ints_by_object() -> None:
    """The accelerator's table: values by object, a miss anywhere gives None, it grows past its
    first size, it empties, and bad input raises."""
    assert _accel.FAST is not None, "the C accelerator is not built: python hatch_build.py"
    table = _accel.FAST.IdTable()
    objects = [object() for _ in range(5000)]  # past the first size (1,024 slots)
    for value, thing in enumerate(objects):
        table.put(id(thing), value)
    assert len(table) == 5000
    assert table.lookup(objects) == list(range(5000))
    assert table.lookup([]) == []
    assert table.lookup([objects[3], object()]) is None
    table.put(id(objects[3]), -2)  # a value replaced, not added
    assert len(table) == 5000 and table.lookup([objects[3]]) == [-2]
    table.clear()
    assert len(table) == 0 and table.lookup(objects[:1]) is None
    with pytest.raises(TypeError):
        table.lookup(tuple(objects))
    with pytest.raises((TypeError, ValueError)):
        table.put("x", 1)
    with pytest.raises(ValueError):
        table.put(0, 1)
    with pytest.raises(TypeError):
        _accel.FAST.IdTable(3)


def test_a_copied_or_pickled_space_starts_its_tables_afresh() -> None:
    """Copies (``copy.deepcopy`` of an environment, pickles sent to other processes) leave the
    tables by object behind, whose keys are this process's addresses, and give right ids."""
    import copy
    import pickle

    # On the engine, whose steps fill the space's tables (the core's steps use its own; alone,
    # this test found them empty when it ran on the core).
    env = aec_env(players=2, compiled=False)
    env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(40):
        obs = env.last()[0]
        env.step(rng.choice(obs["action_mask"].nonzero()[0].tolist()))
    space = env.unwrapped.space
    assert space._fixed_ids
    for other in (copy.deepcopy(space), pickle.loads(pickle.dumps(space))):
        assert other == space and not other._fixed_ids and not other._held
        for state in random_positions(3, seed=41) + gray_ferry_positions(20, seed=42):
            assert other.legal_ids(state) == encoded_one_by_one(state)
    twin = copy.deepcopy(env)
    for _ in range(40):
        obs, _reward, term, trunc, _info = twin.last()
        if term or trunc:
            break
        state = twin.unwrapped.state
        assert obs["action_mask"].nonzero()[0].tolist() == sorted(encoded_one_by_one(state))
        twin.step(rng.choice(obs["action_mask"].nonzero()[0].tolist()))
