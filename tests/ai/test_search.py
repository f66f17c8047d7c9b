"""The search agents (ISMCTS, paired Monte Carlo, the rollout-search expert): they finish
2- and 3-player games with legal actions, answer every decision type, are deterministic
given their seed and an iteration budget, and read only their view."""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest

from ttr_nordic import fast
from ttr_nordic.ai import play_game
from ttr_nordic.ai.base import Agent
from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import RolloutSearchAgent, rollout_value
from ttr_nordic.ai.mcts import HeuristicAgent, MCTSAgent, PairedSearchAgent
from ttr_nordic.ai.registry import AGENTS, LEVELS, make_agent
from ttr_nordic.engine import Action, GameState, PlayerView

PHASES = {"INITIAL_TICKETS", "CHOOSE_ACTION", "SECOND_CARD", "KEEP_TICKETS", "TUNNEL_EXTRA"}

#: Small budgets keep the file fast; the search code paths are the same as with big ones.
SEARCHERS: dict[str, Callable[[int], Agent]] = {
    "rollout_search": lambda seed: RolloutSearchAgent(
        ticket_rollouts=4, action_rollouts=2, keep_candidates=3, seed=seed
    ),
    "rollout_search_inferring": lambda seed: RolloutSearchAgent(
        ticket_rollouts=4,
        action_rollouts=2,
        keep_candidates=3,
        search_actions=True,
        ticket_inference=True,
        light_rollouts=True,
        seed=seed,
    ),
    "turn_search": lambda seed: RolloutSearchAgent(
        ticket_rollouts=4,
        action_rollouts=2,
        keep_candidates=3,
        ticket_inference=True,
        light_rollouts=True,
        search_turns=True,
        turn_rollouts=3,
        turn_time=None,
        horizon=12,
        block=True,
        seed=seed,
    ),
    "ismcts": lambda seed: MCTSAgent(iterations=4, seed=seed),
    "paired": lambda seed: PairedSearchAgent(rollouts=4, max_candidates=3, seed=seed),
    "heuristic": lambda seed: HeuristicAgent(seed=seed),
}


class Checked:
    """Wraps an agent: asserts every choice is legal and records the phases it met."""

    def __init__(self, agent: Agent, phases: Counter[str]) -> None:
        self.agent = agent
        self.name = agent.name
        self.phases = phases

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        action = self.agent.choose(view, legal)
        assert action in legal, f"{self.name} chose {action!r} in {view.phase.name}"
        self.phases[view.phase.name] += 1
        return action


@pytest.mark.parametrize("name", list(SEARCHERS))
@pytest.mark.parametrize("players", [2, 3])
def test_finishes_games_with_legal_actions(name: str, players: int) -> None:
    phases: Counter[str] = Counter()
    seats: list[Agent] = [Checked(SEARCHERS[name](1), phases)]
    seats += [RouteFocusAgent(seed=10 + q) for q in range(1, players)]
    game = play_game(seats, seed=40 + players)
    assert game.is_over
    assert {"INITIAL_TICKETS", "CHOOSE_ACTION", "SECOND_CARD"} <= set(phases)


def decision_samples() -> Iterator[tuple[GameState, PlayerView, list[Action]]]:
    """One decision of every type taken from Route Focus games, late in the game where
    possible (short rollouts keep the tests fast)."""
    found: Counter[str] = Counter()
    for seed in range(60):
        game = GameState.new(players=2 + seed % 2, seed=seed)
        agents = [RouteFocusAgent(seed=seed + q) for q in range(game.num_players)]
        while not game.is_over:
            player = game.decision.player
            view = game.view(player)
            legal = game.legal_action_list()
            phase = view.phase.name
            late = phase not in ("CHOOSE_ACTION", "SECOND_CARD") or min(game.trains) <= 12
            if len(legal) > 1 and not found[phase] and late:
                found[phase] += 1
                yield game.clone(), view, legal
            game.apply(agents[player].choose(view, legal))
        if all(found[p] for p in PHASES):
            return
    raise AssertionError(f"not every decision type met: {found}")


@pytest.fixture(scope="module")
def decisions() -> list[tuple[GameState, PlayerView, list[Action]]]:
    return list(decision_samples())


@pytest.mark.parametrize("name", list(SEARCHERS))
def test_answers_every_decision_type(name: str, decisions: list[tuple[GameState, PlayerView, list[Action]]]) -> None:
    agent = SEARCHERS[name](3)
    met: set[str] = set()
    for game, view, legal in decisions:
        action = agent.choose(view, legal)
        assert game.is_legal(action), (name, view.phase.name, action)
        met.add(view.phase.name)
    assert met == PHASES


def test_rollout_search_searches_actions_and_tunnels(
    decisions: list[tuple[GameState, PlayerView, list[Action]]],
) -> None:
    agent = RolloutSearchAgent(ticket_rollouts=4, action_rollouts=3, keep_candidates=3, search_actions=True, seed=2)
    searched: set[str] = set()
    for _game, view, legal in decisions:
        action = agent.choose(view, legal)
        assert action in legal
        if agent.last_rollouts:
            searched.add(view.phase.name)
    assert {"INITIAL_TICKETS", "KEEP_TICKETS", "CHOOSE_ACTION", "TUNNEL_EXTRA"} <= searched


@pytest.mark.parametrize("name", ["rollout_search", "rollout_search_inferring", "turn_search", "ismcts", "paired"])
def test_deterministic_given_seed(name: str, decisions: list[tuple[GameState, PlayerView, list[Action]]]) -> None:
    first = SEARCHERS[name](7)
    second = SEARCHERS[name](7)
    for _, view, legal in decisions:
        assert first.choose(view, legal) == second.choose(view, legal)


def test_deterministic_games() -> None:
    records = [play_game([SEARCHERS["rollout_search"](5), RouteFocusAgent(seed=6)], seed=8).record() for _ in range(2)]
    assert records[0] == records[1]


@pytest.mark.parametrize("name", ["rollout_search", "rollout_search_inferring", "turn_search", "ismcts", "paired"])
def test_same_choice_when_hidden_information_is_dealt_again(
    name: str, decisions: list[tuple[GameState, PlayerView, list[Action]]]
) -> None:
    """A view and the view of a re-dealt sample of it (other hidden cards and tickets)
    give the same choice from the same agent state."""
    rng = random.Random(4)
    agent = SEARCHERS[name](9)
    for game, view, legal in decisions:
        other = game.determinize(view.player, rng)
        assert other.hands[view.player] == game.hands[view.player]
        twin = copy.deepcopy(agent)
        # a sample keeps no history: its view gets the real game's public log back
        redealt = dataclasses.replace(other.view(view.player), log=view.log)
        assert twin.choose(redealt, legal) == agent.choose(view, legal)


@pytest.mark.parametrize("name", ["rollout_search", "rollout_search_inferring", "turn_search", "ismcts", "paired"])
def test_touches_only_its_own_samples(
    name: str, monkeypatch: pytest.MonkeyPatch, decisions: list[tuple[GameState, PlayerView, list[Action]]]
) -> None:
    """While an agent chooses, every GameState it plays on, views or copies is a sample."""
    touched: Counter[str] = Counter()
    for method in ("apply_unchecked", "apply", "clone", "view", "legal_action_list", "result"):
        original = getattr(GameState, method)

        def guarded(
            self: GameState, *args: object, _original: object = original, _name: str = method, **kwargs: object
        ) -> object:
            assert self.determinized, f"{_name} called on a real GameState"
            touched[_name] += 1
            return _original(self, *args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(GameState, method, guarded)
    # Rollouts in the compiled core start from a state moved there: a sample too.
    from_state = fast.FastGame.from_state

    def guarded_move(state: GameState) -> fast.FastGame:
        assert state.determinized, "a real GameState moved into the core"
        touched["from_state"] += 1
        return from_state(state)

    monkeypatch.setattr(fast.FastGame, "from_state", guarded_move)
    agent = SEARCHERS[name](11)
    for _, view, legal in decisions:
        agent.choose(view, legal)
    assert touched["apply_unchecked"] + touched["from_state"] > 0


def test_rollout_value_is_margin_plus_win_bonus() -> None:
    game = play_game([RouteFocusAgent(seed=1), RouteFocusAgent(seed=2)], seed=3)
    result = game.result()
    for p in range(2):
        win = 20.0 / len(result.winners) if p in result.winners else 0.0
        margin = result.totals[p] - result.totals[1 - p]
        assert rollout_value(game, p) == pytest.approx(margin + win)


def test_rollout_value_by_objective() -> None:
    game = play_game([RouteFocusAgent(seed=1), RouteFocusAgent(seed=2), RouteFocusAgent(seed=3)], seed=4)
    totals = game.result().totals
    for p in range(3):
        assert rollout_value(game, p, "score") == totals[p]
        best_other = max(t for q, t in enumerate(totals) if q != p)
        assert rollout_value(game, p, "margin") >= totals[p] - best_other


@pytest.mark.parametrize(
    ("players", "objective", "expected"),
    [
        (2, "margin", "margin"),
        (3, "margin", "margin"),
        (2, "score", "score"),
        (3, "score", "score"),
        (2, "auto", "margin"),
        (3, "auto", "score"),
    ],
)
def test_search_scores_rollouts_by_its_objective(
    players: int, objective: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ttr_nordic.ai.expert as expert

    used: Counter[str] = Counter()
    original = expert.rollout_value

    def recording(state: GameState, player: int, objective: str = "margin") -> float:
        used[objective] += 1
        return original(state, player, objective)

    monkeypatch.setattr(expert, "rollout_value", recording)
    game = GameState.new(players=players, seed=6)
    # It watches the Python rollouts (tests/fast/test_expert_rollouts.py holds the core's to them).
    agent = RolloutSearchAgent(
        ticket_rollouts=4, keep_candidates=2, light_rollouts=True, objective=objective, seed=1, core_rollouts=False
    )
    agent.choose(game.view(game.current), game.legal_action_list())
    assert set(used) == {expected}


def test_unknown_objective_is_refused() -> None:
    with pytest.raises(ValueError, match="objective"):
        RolloutSearchAgent(objective="points")


def test_registered() -> None:
    agent = make_agent("rollout_search", seed=1)
    assert isinstance(agent, RolloutSearchAgent)
    assert agent.name == "rollout_search"
    assert set(LEVELS.values()) <= set(AGENTS)
    expert = make_agent("expert", seed=1)
    assert isinstance(expert, RolloutSearchAgent)
    assert expert.name == "turn_search"
    assert expert.search_turns and expert.horizon > 0 and expert.block and expert.inference is not None
