"""AI time is shared fairly: the order in which waiting decisions get a worker.

The tests look at the ORDER of dispatch (never at timings): a quick level never waits behind a
search, clients take turns, one client never holds more than its share, a hint waits for games.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import ai_deciders

from ttr_nordic.engine import GameState
from ttr_nordic.server.ai_queue import FairQueue, Ticket
from ttr_nordic.server.ai_workers import AIPool, DecisionJob

#: Only a guard against a hang: an order that is right answers in well under a second.
HANG_GUARD_S = 60.0


def job(state: GameState, game_id: str, level: str) -> DecisionJob:
    config = state.config
    actions = tuple(a.notation() for a in state.history)
    return DecisionJob(game_id, config.players, config.seed, config.first_player, actions, 0, level, 7)


def dispatch_all(queue: FairQueue) -> list[Ticket]:
    """Run the queue to the end, one worker at a time: each dispatched decision ends before the next."""
    order = []
    while (ticket := queue.next()) is not None:
        order.append(ticket)
        queue.done(ticket)
    return order


def test_an_easy_decision_runs_while_every_search_worker_is_busy(tmp_path: Path) -> None:
    """Three expert decisions hold (and queue for) the one search worker; an easy decision asked
    after them is answered before any of them ends."""
    pool = AIPool(1, decider=ai_deciders.expert_waits_for_go)
    state = GameState.new(players=2, seed=11)
    legal = [a.notation() for a in state.legal_action_list()]
    held = str(tmp_path / "held")

    async def scenario() -> tuple[str, list[bool]]:
        experts = [asyncio.ensure_future(pool.decide(job(state, f"{held}", "expert"), legal)) for _ in range(3)]
        await asyncio.sleep(0)  # the experts are queued first
        easy = await asyncio.wait_for(pool.decide(job(state, "easy-game", "easy"), legal), HANG_GUARD_S)
        finished_before = [task.done() for task in experts]
        Path(held + ".go").write_text("go", encoding="utf-8")
        await asyncio.wait_for(asyncio.gather(*experts), HANG_GUARD_S)
        return easy, finished_before

    try:
        easy, finished_before = asyncio.run(scenario())
    finally:
        pool.close()
    assert easy in legal
    assert finished_before == [False, False, False]


def test_clients_take_turns_whatever_the_number_of_their_games() -> None:
    queue = FairQueue(slots=1)
    for index in range(8):  # one address with eight expert games, all waiting
        queue.push(Ticket("10.0.0.1", f"many-{index}"))
    queue.push(Ticket("10.0.0.2", "single-0"))
    queue.push(Ticket("10.0.0.3", "other-0"))
    order = [t.game_id for t in dispatch_all(queue)]
    assert order[:4] == ["many-0", "single-0", "other-0", "many-1"]
    assert order[4:] == [f"many-{i}" for i in range(2, 8)]  # its own games in the order asked


def test_a_new_client_is_served_before_a_busy_one_that_was_just_served() -> None:
    queue = FairQueue(slots=1)
    busy = [queue.push(Ticket("busy", f"b{i}")) for i in range(3)]
    first = queue.next()
    assert first is busy[0]
    newcomer = queue.push(Ticket("new", "n0"))  # arrives while busy's decision runs
    queue.done(first)
    assert queue.next() is newcomer


def test_one_client_never_holds_more_than_its_share_of_the_workers() -> None:
    queue = FairQueue(slots=4)
    for index in range(10):
        queue.push(Ticket("greedy", f"g{index}"))
    running = []
    while (ticket := queue.next()) is not None:
        running.append(ticket)
    assert len(running) == 2 == queue.owner_cap  # half of 4 workers, though two are idle
    late = queue.push(Ticket("late", "l0"))
    assert queue.next() is late  # a worker was kept for others
    queue.done(running[0])
    assert queue.next() is not None and queue.running["greedy"] == 2


def test_a_hint_waits_while_games_moves_can_go_but_is_not_starved() -> None:
    queue = FairQueue(slots=1, hint_patience=3)
    hint = queue.push(Ticket("player", "their-game", hint=True))
    for index in range(6):
        queue.push(Ticket(f"client-{index}", f"g{index}"))
    order = dispatch_all(queue)
    assert order.index(hint) == 3  # after three moves went ahead of it, not before
    lone = FairQueue(slots=1)
    alone = lone.push(Ticket("player", "their-game", hint=True))
    assert lone.next() is alone  # nothing else waits: at once


def test_a_decision_given_up_while_waiting_leaves_the_queue() -> None:
    queue = FairQueue(slots=1)
    running = queue.push(Ticket("a", "g0"))
    assert queue.next() is running
    gone = queue.push(Ticket("b", "g1"))
    kept = queue.push(Ticket("c", "g2"))
    queue.withdraw(gone)
    queue.withdraw(running)  # a running one frees its worker
    assert queue.next() is kept and queue.waiting() == 0
