"""The four baseline agents: they finish games, stay legal, cover every decision,
are deterministic, read only their view, and clearly beat random play."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

import ttr_nordic.ai.baselines as baselines_module
import ttr_nordic.ai.planning as planning_module
from ttr_nordic.ai import (
    BaselineAgent,
    DestinationHungryAgent,
    LongRouteAgent,
    OneStepThinkingAgent,
    RandomAgent,
    RouteFocusAgent,
    play_game,
)
from ttr_nordic.ai.base import Agent
from ttr_nordic.ai.expert import LightRouteFocus
from ttr_nordic.ai.planning import (
    BLOCKED,
    FREE,
    OWN,
    board_tables,
    card_deficits,
    costs_for,
    plan_tickets,
    route_status,
    shortest_path,
)
from ttr_nordic.ai.registry import AGENTS, make_agent
from ttr_nordic.engine import Action, GameState, PlayerView
from ttr_nordic.engine.cards import parse_cards

BASELINES: dict[str, type[BaselineAgent]] = {
    "destination_hungry": DestinationHungryAgent,
    "route_focus": RouteFocusAgent,
    "one_step": OneStepThinkingAgent,
    "long_route": LongRouteAgent,
}
PHASES = {"INITIAL_TICKETS", "CHOOSE_ACTION", "SECOND_CARD", "KEEP_TICKETS", "TUNNEL_EXTRA"}
TWO_PLAYER_GAMES = 16  # per agent, against RandomAgent, seats alternating
THREE_PLAYER_GAMES = 6  # per agent, with RandomAgent and the next baseline
MIN_WINS_VS_RANDOM = 14  # of 16; measured: 40/40 for each agent (seeds 1000-1039)


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


def strict(name: str, seed: int) -> BaselineAgent:
    agent = BASELINES[name](seed=seed)
    agent.strict = True  # internal errors raise instead of falling back
    return agent


@dataclass
class Played:
    wins_vs_random: int = 0
    games: int = 0
    phases: Counter[str] = field(default_factory=Counter)
    fallbacks: int = 0


@pytest.fixture(scope="module")
def played() -> dict[str, Played]:
    """Every baseline plays 2-player games against RandomAgent and 3-player games with
    RandomAgent and another baseline (shared by several tests to keep the file fast)."""
    names = list(BASELINES)
    out: dict[str, Played] = {}
    for index, name in enumerate(names):
        record = Played()
        for i in range(TWO_PLAYER_GAMES):
            agent = strict(name, seed=i)
            seats: list[Agent] = [Checked(agent, record.phases), RandomAgent(seed=100 + i)]
            if i % 2:
                seats.reverse()
            game = play_game(seats, seed=1000 + i)
            result = game.result()
            me = i % 2
            record.wins_vs_random += int(result.winners == (me,))
            record.games += 1
            record.fallbacks += agent.fallbacks
        for i in range(THREE_PLAYER_GAMES):
            agent = strict(name, seed=i)
            other = strict(names[(index + 1) % len(names)], seed=50 + i)
            trio: list[Agent] = [Checked(agent, record.phases), RandomAgent(seed=i), Checked(other, Counter())]
            shift = i % 3
            trio = trio[shift:] + trio[:shift]
            game = play_game(trio, seed=2000 + i)
            assert game.is_over
            record.games += 1
            record.fallbacks += agent.fallbacks + other.fallbacks
        out[name] = record
    return out


@pytest.mark.parametrize("name", list(BASELINES))
def test_finishes_games_legally_without_fallbacks(played: dict[str, Played], name: str) -> None:
    record = played[name]
    assert record.games == TWO_PLAYER_GAMES + THREE_PLAYER_GAMES
    assert record.fallbacks == 0


@pytest.mark.parametrize("name", list(BASELINES))
def test_meets_every_decision_type(played: dict[str, Played], name: str) -> None:
    assert set(played[name].phases) == PHASES, played[name].phases


@pytest.mark.parametrize("name", list(BASELINES))
def test_clearly_beats_random(played: dict[str, Played], name: str) -> None:
    assert played[name].wins_vs_random >= MIN_WINS_VS_RANDOM


@pytest.mark.parametrize("name", list(BASELINES))
def test_deterministic_given_seeds(name: str) -> None:
    opponent = "route_focus" if name != "route_focus" else "one_step"
    for seed in (3, 4):
        records = [
            play_game([make_agent(name, seed=seed), make_agent(opponent, seed=seed + 1)], seed=seed).record()
            for _ in range(2)
        ]
        assert records[0] == records[1]


def test_registered_and_exported() -> None:
    for name, cls in BASELINES.items():
        assert AGENTS[name] is cls
        agent = make_agent(name, seed=1)
        assert isinstance(agent, cls)
        assert isinstance(agent, Agent)
        assert agent.name == name


# ------------------------------------------------------------------ view only

_VIEW_FIELDS = {f.name for f in dataclasses.fields(PlayerView)} | {"is_my_turn", "ticket_status"}


class RecordingView:
    """Delegates to a PlayerView and records every attribute read."""

    def __init__(self, view: PlayerView, seen: set[str]) -> None:
        object.__setattr__(self, "_view", view)
        object.__setattr__(self, "_seen", seen)

    def __getattr__(self, name: str) -> Any:
        self._seen.add(name)
        return getattr(self._view, name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AssertionError(f"an agent wrote view.{name}")


@pytest.mark.parametrize("name", list(BASELINES))
def test_reads_only_the_view(name: str) -> None:
    params = list(inspect.signature(BASELINES[name].choose).parameters)
    assert params == ["self", "view", "legal"]
    seen: set[str] = set()
    agent = strict(name, seed=0)

    class Recorded:
        name = agent.name

        def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
            return agent.choose(RecordingView(view, seen), legal)  # type: ignore[arg-type]

    play_game([Recorded(), RandomAgent(seed=1)], seed=7)
    assert seen <= _VIEW_FIELDS, seen - _VIEW_FIELDS
    assert "determinize" not in seen and "log" not in seen
    for module in (baselines_module, planning_module):
        assert not hasattr(module, "GameState")


@pytest.mark.parametrize("name", list(BASELINES))
def test_decisions_ignore_hidden_information(name: str) -> None:
    """The same view (hidden cards and tickets dealt differently) gives the same choice."""
    agent = strict(name, seed=5)
    rng = random.Random(0)
    game = GameState.new(players=2, seed=11)
    checked = 0
    while not game.is_over and checked < 60:
        player = game.decision.player
        view = game.view(player)
        legal = game.legal_action_list()
        other = game.determinize(player, rng)
        twin = copy.deepcopy(agent)
        action = agent.choose(view, legal)
        assert twin.choose(other.view(player), legal) == action
        checked += 1
        game.apply(action if player == 0 else rng.choice(legal))
    assert checked == 60


# ------------------------------------------------------------------ planning


def test_route_status_marks_own_blocked_and_closed_twins() -> None:
    game = GameState.new(players=2, seed=1)
    board = game.board
    oslo_orebro = board.routes_between("Oslo", "Örebro")  # a double route
    game.route_owner[oslo_orebro[0].id] = 1
    game.route_owner[board.route_by_code("R20").id] = 0  # Göteborg–Oslo, own
    status = route_status(game.view(0))
    assert status[board.route_by_code("R20").id] == OWN
    assert status[oslo_orebro[0].id] == BLOCKED
    assert status[oslo_orebro[1].id] == BLOCKED  # closed twin in a 2-player game
    assert status[board.route_by_code("R51").id] == FREE
    game3 = GameState.new(players=3, seed=1)
    game3.route_owner[oslo_orebro[0].id] = 1
    assert route_status(game3.view(0))[oslo_orebro[1].id] == FREE
    assert route_status(game3.view(1))[oslo_orebro[1].id] == BLOCKED  # twin of one's own


def test_shortest_path_uses_own_routes_for_free() -> None:
    game = GameState.new(players=2, seed=1)
    board = game.board
    tables = board_tables(board)
    oslo, helsinki = board.city("Oslo").id, board.city("Helsinki").id
    before, _ = shortest_path(tables, costs_for(route_status(game.view(0)), tables.train_cost), oslo, helsinki)
    for route in shortest_path(tables, costs_for(route_status(game.view(0)), tables.train_cost), oslo, helsinki)[1]:
        game.route_owner[route] = 0
    after, path = shortest_path(tables, costs_for(route_status(game.view(0)), tables.train_cost), oslo, helsinki)
    assert before > 0 and after == 0 and path
    ticket = board.ticket_between("Oslo", "Helsinki").id
    plan = plan_tickets(tables, route_status(game.view(0)), tables.train_cost, [ticket])
    assert plan.completed == [ticket] and plan.routes == []


def test_card_deficits_for_ferry_and_gray_route() -> None:
    tables = board_tables(GameState.new(seed=0).board)
    ferry = tables.board.route_by_code("R45").id  # Kristiansand–Stavanger, 3 orange, 1 loco
    gray = tables.board.route_by_code("R18").id  # Göteborg–Norrköping, 3 gray
    deficits, colors = card_deficits(tables, [ferry, gray], parse_cards("ORRL"))
    assert deficits[0][4] == 1 and deficits[0][8] == 0  # one orange missing, the locomotive held
    assert colors[1] == 6 and deficits[1][6] == 1  # gray takes red, the color held most


@pytest.mark.parametrize("name", list(BASELINES))
def test_legal_choice_when_no_card_can_be_drawn(name: str) -> None:
    """Draw pile, discard pile and display empty: the agent still answers legally,
    and passes when passing is all that is left."""
    game = GameState.new(players=2, seed=4, first_player=0)
    while game.decision.phase.name == "INITIAL_TICKETS":
        game.apply(game.legal_action_list()[-1])  # keep the minimum
    for card in game.deck:
        game.hands[1][card] += 1
    game.deck = []
    game.display = [-1] * 5
    agent = strict(name, seed=0)
    legal = game.legal_action_list()
    assert not any(a.notation().startswith(("F", "B")) for a in legal)
    assert agent.choose(game.view(0), legal) in legal
    game.ticket_deck = []
    game.hands[0] = [0] * 9
    legal = game.legal_action_list()
    assert [a.notation() for a in legal] == ["pass"]
    assert agent.choose(game.view(0), legal) == legal[0]


def test_plan_extending_a_held_plan_equals_planning_from_scratch() -> None:
    """``plan_tickets(start=...)`` (used to score ticket choices) gives the same plan as one pass."""
    rng = random.Random(3)
    for seed in range(12):
        game = GameState.new(players=2, seed=seed)
        tables = board_tables(game.board)
        for rid in rng.sample(range(len(game.route_owner)), 12):
            game.route_owner[rid] = rng.randrange(2)
        status = route_status(game.view(0))
        tickets = rng.sample(range(len(game.board.tickets)), 7)
        trains = rng.choice([None, 12, 25, 40])
        held, extra = tickets[:4], tickets[4:]
        whole = plan_tickets(tables, status, tables.train_cost, tickets, trains)
        start = plan_tickets(tables, status, tables.train_cost, held, trains)
        before = dataclasses.asdict(start)
        extended = plan_tickets(tables, status, tables.train_cost, extra, trains, start=start)
        assert dataclasses.asdict(extended) == dataclasses.asdict(whole)
        assert dataclasses.asdict(start) == before  # the start plan is not changed


def test_light_route_focus_keeps_its_plan_unless_the_plan_is_touched() -> None:
    """Rollouts re-plan only when tickets or trains change or a planned route is taken."""
    game = GameState.new(players=2, seed=5)
    agent = LightRouteFocus(seed=1)
    game.tickets[0] = [game.board.ticket_between("Oslo", "Helsinki").id]
    agent._context(game.view(0), [])
    plan = agent._plan
    assert plan is not None and plan.routes
    routes = game.board.routes
    off_plan = next(r for r in range(len(routes)) if r not in plan.routes and routes[r].twin is None)
    game.route_owner[off_plan] = 1
    agent._context(game.view(0), [])
    assert agent._plan is plan  # an opponent's claim off the plan: kept
    game.route_owner[plan.routes[0]] = 1
    agent._context(game.view(0), [])
    assert agent._plan is not plan  # a planned route taken: re-planned
    assert plan.routes[0] not in agent._plan.routes
