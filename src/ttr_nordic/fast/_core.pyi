# The compiled core (see _core.c); optional: ttr_nordic.fast says whether it is built.
from collections.abc import Callable, Mapping
from typing import Any, overload

class CoreBoard:
    def __init__(
        self,
        routes: list[tuple[int, int, int, int, int, int, int, int]],
        tickets: list[tuple[int, int, int]],
        cities: int,
    ) -> None: ...

class CoreGame:
    phase: int
    current: int
    players: int
    actions: int
    is_over: bool
    def __init__(self, board: CoreBoard, players: int, seed: int, first_player: int = -1) -> None: ...
    def clone(self) -> CoreGame: ...
    def legal(self) -> list[int]: ...
    def apply(self, code: int, /) -> None: ...
    def state(self) -> dict[str, Any]: ...
    def rng_state(self) -> tuple[int, ...]: ...
    def features(self, player: int, /) -> list[float]: ...
    def legal_ids(self, space: CoreSpace, /) -> list[int]: ...
    def apply_id(self, space: CoreSpace, action_id: int, /) -> int: ...
    def observe(self, space: CoreSpace, seat: int, out: Any, /) -> None: ...
    def mask(self, space: CoreSpace, out: Any, /) -> None: ...
    @overload
    def observation(self, space: CoreSpace, seat: int, /) -> dict[str, Any]: ...
    @overload
    def observation(self, space: CoreSpace, seat: int, only_vector: bool, /) -> Any: ...
    def end_rewards(self, win: bool, /) -> list[float]: ...
    def step_id(self, space: CoreSpace, action_id: int, codes: list[int], /) -> list[int]: ...
    def observations(self, space: CoreSpace, agents: tuple[str, ...], /) -> dict[str, dict[str, Any]]: ...
    def parallel_step(
        self,
        space: CoreSpace,
        actions: Mapping[str, Any],
        codes: list[int],
        agents: tuple[str, ...],
        truncate: bool,
        win: bool,
        skip: bool,
        /,
    ) -> tuple[
        dict[str, dict[str, Any]], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]: ...
    def apply_drawn(
        self, space: CoreSpace, action_id: int, chosen: list[int], /
    ) -> list[int] | tuple[str, list[tuple[int, float]]]: ...
    def sorted_ids(self, space: CoreSpace, /) -> list[int]: ...
    def observation_values(self, space: CoreSpace, seat: int, /) -> list[float]: ...
    def gym_step(
        self,
        space: CoreSpace,
        action: int | None,
        codes: list[int],
        seat: int,
        seats: tuple[object, ...],
        only_vector: bool,
        win: bool,
        /,
    ) -> tuple[Any, float, bool, bool, dict[str, Any]] | None: ...
    def aec_step(
        self, space: CoreSpace, action: Any, codes: list[int], infos: dict[str, Any], agents: tuple[str, ...], /
    ) -> str | None: ...
    def play_out(
        self, seed: int, horizon: int, policies: list[tuple[bool, bool]], max_actions: int = 3000, /
    ) -> None: ...
    def result(
        self,
    ) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int], list[int], str]: ...

def play_random(board: CoreBoard, players: int, first_seed: int, games: int, /) -> tuple[int, list[int]]: ...

class CoreSpace:
    def __init__(
        self,
        board: CoreBoard,
        space: tuple[int, ...],
        claim_index: bytes,
        slotted: list[int],
        layout: tuple[int, ...],
        arrays: tuple[Any, Any, Any],
        /,
    ) -> None: ...

class ParallelStep:
    def __init__(
        self, space: CoreSpace, agents: tuple[str, ...], env: object, refuse: Callable[..., Any], /
    ) -> None: ...
    def bind(self, game: CoreGame, codes: list[int], max_cycles: int, win: bool, skip: bool, /) -> None: ...
    @property
    def steps(self) -> int: ...
    def __call__(
        self, actions: Mapping[str, Any], /
    ) -> tuple[
        dict[str, dict[str, Any]], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]: ...

class CoreBatch:
    def __init__(
        self,
        board: CoreBoard,
        n_envs: int,
        players: int,
        seat: int,
        seed: int,
        win_reward: bool,
        record: bool,
        route_focus: bool,
        space: tuple[int, ...],
        claim_index: bytes,
        slotted: list[int],
        layout: tuple[int, ...],
        obs: Any,
        mask: Any,
        rewards: Any,
        dones: Any,
        /,
    ) -> None: ...
    def reset(self) -> None: ...
    def step(self, actions: Any, /) -> None: ...
    def sample(self, out: Any, seed: int, /) -> None: ...
    def episode(self, index: int, /) -> tuple[int, list[int]]: ...

class CoreAgent:
    def __init__(self, seed: int, light: bool = False, long_weights: bool = False) -> None: ...
    def choose(self, game: CoreGame, /) -> int: ...
    def __copy__(self) -> CoreAgent: ...
    def __deepcopy__(self, memo: object, /) -> CoreAgent: ...

def play_route_focus(
    board: CoreBoard, players: int, first_seed: int, games: int, light: bool, /
) -> tuple[int, list[int]]: ...
def from_fields(board: CoreBoard, fields: dict[str, object], mt: tuple[int, ...], /) -> CoreGame: ...
def dealt(
    board: CoreBoard, players: int, first_player: int, chosen: list[int], /
) -> CoreGame | tuple[str, list[tuple[int, float]]]: ...
def chance_setup(board: CoreBoard, space: CoreSpace, chance_id: int, terminal_id: int, /) -> None: ...

class ChanceNode:
    game: CoreGame | None
    chosen: list[int]
    behind: list[int]
    player: int
    players: int
    first: int
    pending: int
    chance: tuple[str, list[tuple[int, float]]] | None
    ids: list[int]
    def __init__(self, players: int, *args: Any) -> None: ...
    def apply(self, action: int, /) -> None: ...
    def copy(self) -> Any: ...
    def restore(
        self,
        game: CoreGame | None,
        first: int,
        pending: int,
        chosen: list[int],
        chance: tuple[str, list[tuple[int, float]]] | None,
        player: int,
        /,
    ) -> None: ...

NUMPY_API: int  # 1: the RL arrays made with numpy's C API; 0: with numpy.empty (built without numpy's headers)
