"""AI seats decide in worker processes: several experts at once never break each other, a failed
decision is retried (a dead worker replaced) and never leaves a game stuck, game creation is
limited per client, and idle games leave memory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

import ai_deciders
import pytest
from server_helpers import create_game, live_state, receive_until, ws_path
from starlette.testclient import TestClient

from ttr_nordic.engine import GameState
from ttr_nordic.server import create_app
from ttr_nordic.server.ai_workers import AIPool, DecisionJob

HUMAN = {"kind": "human"}


def job_for(state: GameState, game_id: str, level: str = "hard") -> DecisionJob:
    config = state.config
    return DecisionJob(
        game_id=game_id,
        players=config.players,
        seed=config.seed,
        first_player=config.first_player,
        actions=tuple(a.notation() for a in state.history),
        seat=state.decision.player,
        level=level,
        agent_seed=7,
    )


def legal(state: GameState) -> list[str]:
    return [a.notation() for a in state.legal_action_list()]


def test_a_decision_runs_in_a_worker_and_is_legal() -> None:
    state = GameState.new(players=2, seed=4)
    pool = AIPool(1)
    try:
        for _ in range(6):  # the worker keeps the position and applies only the new actions
            notation = asyncio.run(pool.decide(job_for(state, "game-a"), legal(state)))
            assert notation in legal(state)
            state.apply(next(a for a in state.legal_action_list() if a.notation() == notation))
    finally:
        pool.close()
    assert (pool.decisions, pool.failures, pool.fallbacks) == (6, 0, 0)


def test_closing_the_pool_leaves_no_worker_and_no_pool_thread_running() -> None:
    # Left running past the server's exit, the pool's manager thread races Python's exit hook
    # (which then writes to the thread's closed wake-up pipe: a traceback in the server's log).
    state = GameState.new(players=2, seed=4)
    pool = AIPool(1, quick_workers=1)
    try:
        asyncio.run(pool.decide(job_for(state, "game-c", level="expert"), legal(state)))
        asyncio.run(pool.decide(job_for(state, "game-d", level="easy"), legal(state)))
        executors = [lane.executor for lane in (pool.search, pool.quick)]
        threads = [getattr(e, "_executor_manager_thread", None) for e in executors]
        processes = [p for e in executors for p in (getattr(e, "_processes", None) or {}).values()]
        assert len(processes) == 2 and all(t is not None and t.is_alive() for t in threads)
    finally:
        pool.close()
    assert not any(t is not None and t.is_alive() for t in threads)
    assert not any(p.is_alive() for p in processes)


def test_a_worker_that_dies_is_replaced_and_the_decision_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = GameState.new(players=2, seed=5)
    pool = AIPool(1, decider=ai_deciders.die_once)
    marker = str(tmp_path / "marker")
    try:
        with caplog.at_level(logging.ERROR):
            notation = asyncio.run(pool.decide(job_for(state, marker), legal(state)))
    finally:
        pool.close()
    assert notation in legal(state)
    assert pool.failures == 1 and pool.fallbacks == 0
    assert "AI worker died" in caplog.text


@pytest.mark.parametrize("decider", [ai_deciders.always_fails, ai_deciders.answers_nonsense])
def test_a_decision_that_keeps_failing_ends_in_a_legal_move(decider: object, caplog: pytest.LogCaptureFixture) -> None:
    state = GameState.new(players=2, seed=6)
    pool = AIPool(1, decider=decider)  # type: ignore[arg-type]
    try:
        with caplog.at_level(logging.ERROR):
            notation = asyncio.run(pool.decide(job_for(state, "game-b"), legal(state)))
    finally:
        pool.close()
    assert notation in legal(state)
    assert pool.failures == 3 and pool.fallbacks == 1
    assert "plays a random move" in caplog.text


def test_decisions_wait_their_turn_in_order() -> None:
    pool = AIPool(1, max_thinking=1)
    states = [GameState.new(players=2, seed=s) for s in range(4)]
    finished: list[int] = []

    async def one(index: int) -> None:
        await pool.decide(job_for(states[index], f"game-{index}"), legal(states[index]))
        finished.append(index)

    async def all_of_them() -> None:
        await asyncio.gather(*(one(i) for i in range(4)))

    try:
        asyncio.run(all_of_them())
    finally:
        pool.close()
    assert finished == [0, 1, 2, 3]


def test_several_expert_games_at_once_all_keep_moving(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # With AI searches in threads, experts thinking at once broke the engine's shared caches
    # ("AI seat failed"), and those games never moved again. In worker processes each has its own.
    app = create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", ai_workers=2)
    with caplog.at_level(logging.ERROR), TestClient(app) as client:
        made = [create_game(client, "ai", [HUMAN, {"kind": "ai", "level": "expert"}], first_player=1) for _ in range(4)]
        other = create_game(client, "online", [HUMAN, HUMAN], first_player=0)
        worst_ping = 0.0
        with client.websocket_connect(ws_path(other["game"]["id"], other["invites"][0]["token"])) as ws:
            ws.receive_json()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                start = time.monotonic()
                ws.send_json({"type": "ping"})
                assert ws.receive_json() == {"type": "pong"}
                worst_ping = max(worst_ping, time.monotonic() - start)
                if all(len(live_state(client, m["game"]["id"]).history) >= 1 for m in made):
                    break
                time.sleep(0.05)
        for m in made:
            # Each expert chose its tickets, and the human seat now has its decision.
            with client.websocket_connect(ws_path(m["game"]["id"], m["invites"][0]["token"])) as ws:
                message = receive_until(ws, lambda msg: bool(msg.get("legal")))
                assert message["seat"] == 0
        service = app.state.service
        assert service.ai.failures == 0 and service.ai.fallbacks == 0
    assert "AI seat failed" not in caplog.text and "AI decision failed" not in caplog.text
    # A generous bound (the machine may be loaded): the searches ran in other processes, the
    # event loop answered throughout.
    assert worst_ping < 10.0


def test_game_creation_is_limited_per_client(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", games_per_minute=6)
    with TestClient(app) as client:
        codes = [client.post("/api/games", json={"mode": "online", "seats": [HUMAN, HUMAN]}) for _ in range(12)]
        assert [r.status_code for r in codes[:10]] == [201] * 10
        refused = codes[10]
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "TOO_MANY_GAMES"
        assert len(app.state.service.live) == 10  # a refused creation stores and loads nothing


def test_idle_games_leave_memory_and_come_back(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'games.sqlite'}", idle_unload_s=300)
    with TestClient(app) as client:
        made = create_game(client, "online", [HUMAN, HUMAN], first_player=0)
        game_id = made["game"]["id"]
        service = app.state.service
        assert service.unload_idle(now=time.monotonic() + 10) == []  # not idle long enough
        with client.websocket_connect(ws_path(game_id, made["invites"][0]["token"])) as ws:
            ws.receive_json()
            assert service.unload_idle(now=time.monotonic() + 1000) == []  # someone is connected
        assert service.unload_idle(now=time.monotonic() + 1000) == [game_id]
        assert game_id not in service.live
        # Reading its summary loads it again; it leaves again when idle.
        assert client.get(f"/api/games/{game_id}").json()["id"] == game_id
        assert game_id in service.live
        assert service.unload_idle(now=time.monotonic() + 1000) == [game_id]


def test_decisions_run_as_ray_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    state = GameState.new(players=2, seed=8)
    pool = AIPool(1, ray_address="local")
    try:
        notation = asyncio.run(pool.decide(job_for(state, "game-ray"), legal(state)))
    finally:
        pool.close()
        if ray.is_initialized():
            ray.shutdown()
    assert notation in legal(state)
    assert pool.failures == 0 and pool.decisions == 1


POOL_SCRIPT = """
import asyncio, sys, time
from ttr_nordic.engine import GameState
from ttr_nordic.server.ai_workers import AIPool, DecisionJob
pool = AIPool(2)
state = GameState.new(players=2, seed=3)
job = DecisionJob("g", 2, 3, None, (), state.decision.player, "easy", 1)
asyncio.run(pool.decide(job, [a.notation() for a in state.legal_action_list()]))
print(" ".join(str(pid) for pid in pool.worker_pids()), flush=True)
time.sleep(120)
"""


def test_workers_leave_when_the_server_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    server = subprocess.Popen([sys.executable, "-c", POOL_SCRIPT], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        pids = [int(p) for p in server.stdout.readline().split()]
        assert pids
        server.send_signal(signal.SIGKILL)  # no shutdown: the workers must notice by themselves
        server.wait(10)
        deadline = time.monotonic() + 15
        alive = pids
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [pid for pid in pids if Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)]
        assert alive == []
    finally:
        if server.poll() is None:
            server.kill()
        for pid in locals().get("pids", []):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
