"""Environment steps per second of each RL wrapper against the bare engine and the compiled
core (median of 5 runs).

Every runner plays uniformly random legal actions for ``--steps`` decisions (new games as they
end, seeded; the engine, core and PettingZoo runners deal the same games), one CPU core; the
choice is Python's ``random.choice`` over the legal actions (the engine's list, the core's
codes, or the mask's ids), so that the policy costs about the same in every runner:

- ``engine``: ``state.legal_action_list()`` + ``state.apply`` (the bare Python engine);
- ``core``: ``game.legal()`` + ``game.apply(code)`` on a ``CoreGame`` (the compiled core stepped
  from Python through its own API; absent where the core is not built);
- ``pettingzoo``: ``env.last()`` (observation vector + action mask) + ``env.step(id)``;
- ``parallel``: ``env.step({agent: id})`` of the parallel environment (every agent's observation
  and mask each step);
- ``pettingzoo_ids`` and ``parallel_ids``: the same, the policy picking from
  ``info["legal_ids"]`` (the ids the environment lists beside the mask) instead of the mask;
- ``parallel_floor``: the ``parallel_ids`` loop on a parallel environment that does nothing (its
  step looks up the mover's action and returns five dicts made once): what the loop, the policy
  and the parallel API's calls cost by themselves, with no game behind them;
- ``gymnasium``: ``env.step(id)`` for one seat against a ``random`` agent; opponent decisions
  count as steps too (they are actions the wrapper runs);
- ``mask_scan``: ``legal_from_mask`` alone, on masks of PettingZoo games, printed as
  ``mask_to_ids_us`` (microseconds a call): the part of the wrapper runners' policy that the
  engine and core runners need not pay;
- ``openspiel``: ``state.legal_actions()`` + ``state.apply_action(id)`` + the current player's
  observation tensor; the chance nodes between decisions (deal, draws) are sampled
  (``play_chance``: ``random.choices`` over ``chance_outcomes()``) and applied as part of the
  step. On the core (``rl/openspiel_core.py``) each chance node runs the pending action again
  in C with the draws chosen so far;
- ``openspiel_native`` and ``openspiel_native_bots``: the same game as ``ttr_nordic_native``, in
  C++ (``rl/openspiel_native.py``, where it is built): the OpenSpiel runner's Python loop, and
  whole games in OpenSpiel's own C++ loop (``pyspiel.evaluate_bots`` with two uniform random bots,
  chance sampled in C++; decisions counted, chance nodes not);
- ``openspiel_engine``: the OpenSpiel runner on the Python engine (``engine="python"``) whatever
  ``--engine`` says;
- ``openspiel_floor``: the same loop on a Python OpenSpiel game that does nothing, shaped as a
  random 2-player ``ttr_nordic`` game (a chance node of 12 outcomes before each decision, 12
  legal ids, 510 observation values): the cost of OpenSpiel's calls into Python (its
  ``apply_action`` calls the state's ``current_player`` and ``_apply_action`` from C++),
  ``play_chance`` and the lists by themselves, which no Python game can go below.

Each runner first plays a short warm-up game set (untimed); then the runs alternate between the
runners (the order reversed every other round) and run ``i`` of every runner plays seed ``i``.
Before each timed run what survived so far (the board, the claim caches, the wrappers' id tables)
goes to the garbage collector's permanent generation with ``gc.freeze()``, as in
``benchmarks/engine_speed.py`` and as a long simulation should after warming up; otherwise a full
collection of those objects lands in whichever runner happens to be going (``--no-freeze``
measures that way). Prints the median of the runs per runner and ``env_steps_per_second N`` (PettingZoo) last; the
target is at least half of the engine's actions per second (``ratio_pettingzoo``). With the
core, ``ratio_NAME_core`` is each wrapper's rate over the core's (target: 0.5 or more); the
wrappers step the core then (OpenSpiel too: its states' ``engine`` parameter is ``auto``).
``--engine python`` (or ``TTR_NORDIC_PURE_PYTHON=1``) measures the wrappers on the Python engine.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pyspiel

from ttr_nordic import fast
from ttr_nordic.engine import GameState
from ttr_nordic.rl import aec_env, openspiel_native, parallel_env
from ttr_nordic.rl.openspiel import play_chance  # importing it registers ttr_nordic


def engine_steps(steps: int, seed: int) -> float:
    rng = random.Random(seed)
    # The deals of the PettingZoo runner: its env.reset(seed=seed) draws each game's engine seed
    # and first player from random.Random(seed) this way.
    deals = random.Random(seed)

    def deal() -> GameState:
        game_seed = deals.getrandbits(63)
        return GameState.new(players=2, seed=game_seed, first_player=game_seed % 2)

    state, done = deal(), 0
    started = CLOCK()
    while done < steps:
        if state.is_over:
            state = deal()
        state.apply(rng.choice(state.legal_action_list()))
        done += 1
    return steps / (CLOCK() - started)


CLOCK = time.perf_counter
"""The clock of every runner: the wall clock, or the process's CPU time with ``--cpu-time``."""
COMPILED: bool | None = None
"""Whether the wrappers step the core (None: where it is built); ``--engine`` sets it."""


def core_steps(steps: int, seed: int) -> float:
    rng = random.Random(seed)
    deals = random.Random(seed)  # the deals of the engine runner
    module, board = fast.core_module(), fast.core_board()

    def deal() -> Any:
        game_seed = deals.getrandbits(63)
        return module.CoreGame(board, 2, game_seed, game_seed % 2)

    game, done = deal(), 0
    started = CLOCK()
    while done < steps:
        if game.is_over:
            game = deal()
        game.apply(rng.choice(game.legal()))
        done += 1
    return steps / (CLOCK() - started)


def legal_from_mask(mask: np.ndarray) -> list[int]:
    """The legal ids of an int8 mask. Through a bool view: ``nonzero`` on int8 costs about 10x more."""
    return mask.view(np.bool_).nonzero()[0].tolist()  # type: ignore[no-any-return]


def pettingzoo_steps(steps: int, seed: int) -> float:
    env = aec_env(players=2, compiled=COMPILED)
    rng = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    started = CLOCK()
    while done < steps:
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(rng.choice(legal_from_mask(obs["action_mask"])))
        done += 1
    return steps / (CLOCK() - started)


def pettingzoo_ids_steps(steps: int, seed: int) -> float:
    """``pettingzoo_steps`` with the policy reading the info's legal ids instead of the mask."""
    env = aec_env(players=2, compiled=COMPILED)
    rng = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    started = CLOCK()
    while done < steps:
        _obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(rng.choice(info["legal_ids"]))
        done += 1
    return steps / (CLOCK() - started)


def mask_scan_steps(steps: int, seed: int) -> float:
    """``legal_from_mask`` alone, over masks of a random PettingZoo game: the part of the
    wrappers' policy that the engine and core runners do not have (their legal lists are lists).
    Eight masks in turn, in the caches as a step's fresh mask is (2,000 would be read from memory)."""
    env = aec_env(players=2, compiled=COMPILED)
    rng = random.Random(seed)
    env.reset(seed=seed)
    masks: list[np.ndarray] = []
    while len(masks) < 8:
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.reset()
            continue
        masks.append(obs["action_mask"].copy())
        env.step(rng.choice(legal_from_mask(obs["action_mask"])))
    done = 0
    started = CLOCK()
    while done < steps:
        for mask in masks[: steps - done]:
            legal_from_mask(mask)
        done += min(len(masks), steps - done)
    return steps / (CLOCK() - started)


def parallel_steps(steps: int, seed: int) -> float:
    env = parallel_env(players=2, compiled=COMPILED)
    rng = random.Random(seed)
    observations, _infos = env.reset(seed=seed)
    done = 0
    started = CLOCK()
    while done < steps:
        mover = env.agent_to_move
        if mover is None:
            observations, _infos = env.reset()
            continue
        chosen = rng.choice(legal_from_mask(observations[mover]["action_mask"]))
        observations, _rewards, _terms, _truncs, _infos = env.step(dict.fromkeys(env.agents, chosen))
        done += 1
    return steps / (CLOCK() - started)


def parallel_ids_steps(steps: int, seed: int, env: Any = None) -> float:
    """``parallel_steps`` with the policy reading the mover's info's legal ids instead of its mask."""
    env = env or parallel_env(players=2, compiled=COMPILED)
    rng = random.Random(seed)
    _observations, infos = env.reset(seed=seed)
    done = 0
    started = CLOCK()
    while done < steps:
        mover = env.agent_to_move
        if mover is None:
            _observations, infos = env.reset()
            continue
        chosen = rng.choice(infos[mover]["legal_ids"])
        _observations, _rewards, _terms, _truncs, infos = env.step(dict.fromkeys(env.agents, chosen))
        done += 1
    return steps / (CLOCK() - started)


class _ParallelFloor:
    """A parallel environment that does nothing, shaped as a random 2-player game (180 steps, 12
    legal ids, each agent's 510-value observation and 6,394-cell mask): its ``step`` looks up the
    mover's action and hands back five dicts made once, what ``parallel_ids`` pays around the game."""

    possible_agents = ("player_0", "player_1")

    def __init__(self) -> None:
        self.agents: list[str] = []
        self.mover, self.steps = 0, 0
        observations = {
            a: {"observation": np.zeros(510, np.float32), "action_mask": np.zeros(6394, np.int8)}
            for a in self.possible_agents
        }
        zeros, falses = dict.fromkeys(self.possible_agents, 0.0), dict.fromkeys(self.possible_agents, False)
        self.results = [
            (
                observations,
                zeros,
                falses,
                falses,
                {
                    a: {"active_agent": self.possible_agents[m], "illegal_action": False, "legal_ids": _FLOOR_LEGAL}
                    for a in self.possible_agents
                },
            )
            for m in (0, 1)
        ]

    @property
    def agent_to_move(self) -> str | None:
        return self.possible_agents[self.mover] if self.agents else None

    def reset(self, seed: int | None = None) -> tuple[Any, Any]:
        self.agents, self.mover, self.steps = list(self.possible_agents), 0, 0
        return self.results[0][0], self.results[0][4]

    def step(self, actions: dict[str, Any]) -> Any:
        actions[self.possible_agents[self.mover]]
        self.mover ^= 1
        self.steps += 1
        if self.steps == 180:
            self.agents = []
        return self.results[self.mover]


def parallel_floor_steps(steps: int, seed: int) -> float:
    """The ``parallel_ids`` runner's loop on a parallel environment that does nothing."""
    return parallel_ids_steps(steps, seed, _ParallelFloor())


def gymnasium_steps(steps: int, seed: int) -> float:
    env = gymnasium.make("TTRNordic-v0", opponents=["random"], compiled=COMPILED)
    rng = random.Random(seed)
    obs, _info = env.reset(seed=seed)
    unwrapped = env.unwrapped
    done, before = 0, unwrapped.actions_played
    started = CLOCK()
    while done < steps:
        obs, _reward, terminated, _truncated, _info = env.step(rng.choice(legal_from_mask(obs["action_mask"])))
        done += unwrapped.actions_played - before
        if terminated:
            obs, _info = env.reset()
        before = unwrapped.actions_played
    return done / (CLOCK() - started)


def openspiel_steps(steps: int, seed: int, engine: str | None = None) -> float:
    engine = engine or {None: "auto", True: "core", False: "python"}[COMPILED]
    return openspiel_loop(pyspiel.load_game("ttr_nordic", {"engine": engine}), steps, seed)


def openspiel_loop(game: Any, steps: int, seed: int) -> float:
    """The OpenSpiel runners' loop: ``steps`` decisions of random play on ``game``."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    done = 0
    started = CLOCK()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        # Chance nodes (the deal, every draw) are sampled with their probabilities; not counted.
        play_chance(state, rng)
        if state.is_terminal():
            continue
        state.observation_tensor(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return steps / (CLOCK() - started)


_FLOOR_TYPE = pyspiel.GameType(
    short_name="ttr_nordic_floor",
    long_name="A Python OpenSpiel game that does nothing (rl_speed.py's floor)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=True,
    parameter_specification={},
)
# The shape of a random 2-player ttr_nordic game: 180 decisions, a chance node of 12 outcomes
# before each, 12 legal ids, an observation of 510 values (mostly zero).
_FLOOR_OBSERVATION = [0.0] * 480 + [0.5] * 30
_FLOOR_LEGAL = list(range(0, 6394, 533))
_FLOOR_OUTCOMES = [(k, 1 / 12) for k in range(12)]


class _FloorGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        info = pyspiel.GameInfo(
            num_distinct_actions=6394,
            max_chance_outcomes=46,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=1000,
        )
        super().__init__(_FLOOR_TYPE, info, params or {})

    def new_initial_state(self) -> _FloorState:
        return _FloorState(self)


class _FloorState(pyspiel.State):  # type: ignore[misc]
    """Every method as ttr_nordic's CoreState answers it from Python, with nothing behind it."""

    def __init__(self, game: _FloorGame) -> None:
        super().__init__(game)
        self.player, self.decisions = -1, 0

    def current_player(self) -> int:
        return self.player

    def is_chance_node(self) -> bool:
        return self.player == -1

    def is_terminal(self) -> bool:
        return self.player == -4

    def legal_actions(self, player: int | None = None) -> list[int]:
        return _FLOOR_LEGAL[:]

    def _legal_actions(self, player: int) -> list[int]:
        return _FLOOR_LEGAL[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(_FLOOR_OUTCOMES)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return _FLOOR_OBSERVATION[:]

    def _apply_action(self, action: int) -> None:
        if self.player == -1:
            self.player = self.decisions % 2
        else:
            self.decisions += 1
            self.player = -4 if self.decisions == 180 else -1

    def returns(self) -> list[float]:
        return [0.0, 0.0]

    def __str__(self) -> str:
        return f"decision {self.decisions}"

    def _action_to_string(self, player: int, action: int) -> str:
        return str(action)


pyspiel.register_game(_FLOOR_TYPE, _FloorGame)


def openspiel_floor_steps(steps: int, seed: int) -> float:
    """The OpenSpiel runner's loop on a Python game that does nothing: what OpenSpiel's calls
    into a Python game, ``play_chance`` and the lists cost by themselves."""
    return openspiel_loop(pyspiel.load_game("ttr_nordic_floor"), steps, seed)


def openspiel_native_steps(steps: int, seed: int) -> float:
    """The OpenSpiel runner's loop (from Python) on ``ttr_nordic_native``, the game in C++."""
    return openspiel_loop(pyspiel.load_game("ttr_nordic_native"), steps, seed)


def openspiel_native_bots_steps(steps: int, seed: int) -> float:
    """Whole games of ``ttr_nordic_native`` played by OpenSpiel's C++ loop
    (``pyspiel.evaluate_bots``, two uniform random bots, chance sampled in C++) until ``steps``
    decisions: decisions (chance nodes not counted) per second of the calls."""
    game = pyspiel.load_game("ttr_nordic_native")
    bots = [pyspiel.make_uniform_random_bot(p, seed) for p in range(2)]
    done, spent, game_seed = 0, 0.0, seed * 100_000
    while done < steps:
        state = game.new_initial_state()
        started = CLOCK()
        pyspiel.evaluate_bots(state, bots, game_seed)
        spent += CLOCK() - started
        done += sum(1 for entry in state.full_history() if entry.player >= 0)
        game_seed += 1
    return done / spent


WARM_UP_SEED = 1000
RUNNERS: dict[str, Callable[[int, int], float]] = {
    "engine": engine_steps,
    "core": core_steps,
    "pettingzoo": pettingzoo_steps,
    "parallel": parallel_steps,
    "pettingzoo_ids": pettingzoo_ids_steps,
    "parallel_ids": parallel_ids_steps,
    "parallel_floor": parallel_floor_steps,
    "gymnasium": gymnasium_steps,
    "openspiel": openspiel_steps,
    "openspiel_floor": openspiel_floor_steps,
    "openspiel_engine": lambda steps, seed: openspiel_steps(steps, seed, "python"),
    "openspiel_native": openspiel_native_steps,
    "openspiel_native_bots": openspiel_native_bots_steps,
    "mask_scan": mask_scan_steps,
}
#: The runners of the OpenSpiel game in C++ (``rl/openspiel_native.py``), where it is built.
NATIVE = ("openspiel_native", "openspiel_native_bots")
NATIVE_BUILT = openspiel_native.load()
WRAPPERS = (
    "pettingzoo",
    "pettingzoo_ids",
    "parallel",
    "parallel_ids",
    "parallel_floor",
    "gymnasium",
    "openspiel",
    "openspiel_engine",
    "openspiel_floor",
    *NATIVE,
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--steps", type=int, default=40000, help="decisions per run (long enough for the engine's caches to warm up)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--cpu-time", action="store_true", help="rates per CPU-second of this process (on a loaded, shared machine)"
    )
    parser.add_argument("--only", nargs="+", choices=list(RUNNERS), default=None, help="runners to time (default: all)")
    parser.add_argument(
        "--engine",
        choices=("auto", "core", "python"),
        default="auto",
        help="what the wrappers step: the compiled core where built (auto), the core, or the Python engine",
    )
    parser.add_argument(
        "--no-freeze", action="store_true", help="leave the garbage collector alone (no gc.freeze() before each run)"
    )
    args = parser.parse_args(argv)
    if args.steps < 1 or args.runs < 1:
        parser.error("--steps and --runs must be positive")
    if args.engine == "core" and not fast.AVAILABLE:
        parser.error("the compiled core is not available (build it: python hatch_build.py)")
    global COMPILED, CLOCK
    COMPILED = {"auto": None, "core": True, "python": False}[args.engine]
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    if args.only is None:
        args.only = [name for name in RUNNERS if (name != "core" or fast.AVAILABLE) and name not in NATIVE]
        if NATIVE_BUILT and COMPILED is not False:
            args.only += list(NATIVE)
    elif "core" in args.only and not fast.AVAILABLE:
        parser.error("the core runner needs the compiled core (build it: python hatch_build.py)")
    if set(NATIVE) & set(args.only) and not NATIVE_BUILT:
        parser.error("ttr_nordic_native is not built (python -m ttr_nordic.rl.openspiel_native build)")
    on_core = fast.AVAILABLE and COMPILED is not False
    clock = "CPU time" if args.cpu_time else "wall clock"
    stepped = "the compiled core" if on_core else "the Python engine"
    print(f"wrappers step {stepped}; {clock}")
    if "engine" not in args.only or "pettingzoo" not in args.only:
        parser.error("--only needs engine and pettingzoo (the ratio and the last line use them)")
    # Warm-up: imports, the engine's per-hand claim caches and the wrappers' id tables are
    # filled before anything is timed, so the first runner timed does not pay for the others.
    for name in args.only:
        RUNNERS[name](max(1, args.steps // 5), WARM_UP_SEED)
    # Runs alternate between the runners (the order reversed every other round), so a change in
    # the machine's load reaches all of them alike; run i of every runner plays the same seed.
    rates: dict[str, list[float]] = {name: [] for name in args.only}
    for run in range(args.runs):
        for name in args.only if run % 2 == 0 else reversed(args.only):
            if not args.no_freeze:
                gc.collect()
                gc.freeze()
            rates[name].append(RUNNERS[name](args.steps, run))
    medians = {name: statistics.median(found) for name, found in rates.items()}
    for name in args.only:
        print(f"{name}_steps_per_second {medians[name]:.0f} (runs: {', '.join(f'{r:.0f}' for r in rates[name])})")
    for name in [n for n in args.only if n not in ("engine", "mask_scan")]:
        print(f"ratio_{name} {medians[name] / medians['engine']:.2f}")
    if "mask_scan" in medians:
        print(f"mask_to_ids_us {1e6 / medians['mask_scan']:.2f} (the wrappers' policy: legal_from_mask per decision)")
    if "core" in medians:
        for name in [n for n in WRAPPERS if n in medians]:
            print(f"ratio_{name}_core {medians[name] / medians['core']:.2f}")
    print(f"env_steps_per_second {medians['pettingzoo']:.0f}")


if __name__ == "__main__":
    main()
