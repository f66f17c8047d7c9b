# The compiled core (see _core.c); optional: ttr_nordic.fast says whether it is built.
from typing import Any

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
    def play_out(
        self, seed: int, horizon: int, policies: list[tuple[bool, bool]], max_actions: int = 3000, /
    ) -> None: ...
    def result(
        self,
    ) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int], list[int], str]: ...

def play_random(board: CoreBoard, players: int, first_seed: int, games: int, /) -> tuple[int, list[int]]: ...

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

def play_route_focus(
    board: CoreBoard, players: int, first_seed: int, games: int, light: bool, /
) -> tuple[int, list[int]]: ...
def from_fields(board: CoreBoard, fields: dict[str, object], mt: tuple[int, ...], /) -> CoreGame: ...
