"""One game of an environment in the compiled core: action ids, observations, masks and rewards
straight from the core's state, the engine's state made only when asked.

The PettingZoo, parallel and Gymnasium environments step a :class:`CoreEnvGame` where the core
is built (:data:`ttr_nordic.fast.AVAILABLE`), and the Python engine otherwise
(``TTR_NORDIC_PURE_PYTHON=1``, no compiler); ``compiled=`` picks one. Both give the same
observations, masks, rewards and seeds (``tests/rl/test_core_paths.py`` plays the same games on
both). The ids and the vector are those of :mod:`ttr_nordic.rl.actions` and
:mod:`ttr_nordic.rl.observation`, worked out in C (the batched environment's code).

>>> from ttr_nordic import fast
>>> if fast.AVAILABLE:
...     game = CoreEnvGame(players=2, seed=5, first_player=1)
...     game.apply_id(game.legal_ids()[0])
...     assert game.engine_state().history == [fast.decode_action(game.codes[0])]
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ttr_nordic import fast
from ttr_nordic.engine import GameState, load_board

from . import observation
from .actions import MAX_LOCOMOTIVES, OVERFLOW, action_space

if TYPE_CHECKING:
    from ttr_nordic.fast._core import CoreGame, CoreSpace

_ID_SLOTS, _ID_LOCOS, _ID_TOTALS = 10, MAX_LOCOMOTIVES + 1, 37


def claim_table() -> bytes:
    """The action space's claim offsets as the core reads them: int32 [route][slot + 1][locos][total]."""
    space = action_space()
    table = np.full((len(load_board().routes), _ID_SLOTS, _ID_LOCOS, _ID_TOTALS), -1, dtype=np.int32)
    for (route, slot, locos, total), offset in space.claim_index.items():
        table[route, (slot if slot != OVERFLOW else _ID_SLOTS - 2) + 1, locos, total] = offset
    return table.tobytes()


def layout() -> tuple[int, ...]:
    """The observation vector's offsets, as the core reads them."""
    o = observation
    return (o.SIZE, o.ROUTES_END, o.KNOWN_START, o.DISPLAY_START, o.PILES_START, o.TICKETS_START, o.OFFER_START,
            o.TICKETS_END, o.PHASE_START, o.TURN_START, o.FINAL_START, o.TUNNEL_START)  # fmt: skip


def space_numbers() -> tuple[int, ...]:
    """The action space's block starts, as the core reads them."""
    s = action_space()
    return (s.size, s.face_up, s.blind, s.tickets, s.keep, s.decline, s.pass_, s.extra, s.claim)


@cache
def core_space() -> CoreSpace:
    """The core's copy of the action ids and the observation layout (made once)."""
    # The dtypes of observation()'s arrays, and numpy.empty for a core built without numpy's headers.
    arrays = (np.empty, np.dtype(np.float32), np.dtype(np.int8))
    space: CoreSpace = fast.core_module().CoreSpace(
        fast.core_board(), space_numbers(), claim_table(), sorted(action_space().slotted_routes), layout(), arrays
    )
    return space


def use_core(compiled: bool | None) -> bool:
    """Whether an environment steps the core: ``compiled`` True (RuntimeError where it is not
    available), False, or None for the core where it is built."""
    if compiled and not fast.AVAILABLE:
        raise RuntimeError("the compiled core is not available (build it: python hatch_build.py)")
    return fast.AVAILABLE if compiled is None else compiled


class CoreEnvGame:
    """``GameState.new(players, seed, first_player)`` in the core, stepped by action id.

    ``codes`` are the actions applied, as core codes; :meth:`engine_state` is the same game as an
    engine state (replayed from the seed, kept and brought up to date on each call: the engine's
    own history, log and views).
    """

    __slots__ = ("_state", "codes", "first_player", "game", "players", "seed", "space")

    def __init__(self, players: int, seed: int, first_player: int) -> None:
        self.players, self.seed, self.first_player = players, seed, first_player
        self.game: CoreGame = fast.core_module().CoreGame(fast.core_board(), players, seed, first_player)
        self.space = core_space()
        self.codes: list[int] = []
        self._state: GameState | None = None

    @classmethod
    def replayed(cls, players: int, seed: int, first_player: int, codes: list[int]) -> CoreEnvGame:
        """The game of this deal after ``codes`` (each checked to be legal in turn)."""
        made = cls(players, seed, first_player)
        for code in codes:
            made.game.apply(code)
        made.codes = list(codes)
        return made

    def __reduce__(self) -> tuple[object, tuple[int, int, int, list[int]]]:
        """Pickled as its deal and actions, replayed in the core when loaded."""
        return (CoreEnvGame.replayed, (self.players, self.seed, self.first_player, self.codes))

    def __deepcopy__(self, memo: dict[int, object]) -> CoreEnvGame:
        """An independent copy (the core's clone; the engine's state is made again when asked)."""
        made = CoreEnvGame.__new__(CoreEnvGame)
        made.players, made.seed, made.first_player = self.players, self.seed, self.first_player
        made.game, made.space, made.codes, made._state = self.game.clone(), self.space, list(self.codes), None
        return made

    def legal_ids(self) -> list[int]:
        """The legal ids in the engine's order (empty once the game is over)."""
        return self.game.legal_ids(self.space)

    def apply_id(self, action_id: int) -> None:
        """Apply the legal action with this id (ValueError, and no change, if none has it)."""
        self.codes.append(self.game.apply_id(self.space, action_id))

    def observe(self, seat: int) -> NDArray[np.float32]:
        """``encode_view`` of ``seat``'s view, an array no one else holds (the environments take
        ``game.observation(space, seat)`` for the observation and the mask together)."""
        vector: NDArray[np.float32] = self.game.observation(self.space, seat, True)
        return vector

    def mask(self) -> NDArray[np.int8]:
        """The int8 mask of the legal ids of the player to decide, a fresh array."""
        out = np.empty(action_space().size, dtype=np.int8)
        self.game.mask(self.space, out)
        return out

    def end_rewards(self, kind: str) -> list[float]:
        """Each seat's reward for the finished game (:func:`~ttr_nordic.rl.pettingzoo_env.end_rewards`)."""
        return self.game.end_rewards(kind == "win")

    def engine_state(self) -> GameState:
        """The game as an engine state (the same object from call to call while nobody changes
        it; changing it does not change this game)."""
        state = self._state
        if state is None or len(state.history) > len(self.codes):
            state = self._state = GameState.new(self.players, seed=self.seed, first_player=self.first_player)
        decode = fast.decode_action
        for code in self.codes[len(state.history) :]:
            state.apply_unchecked(decode(code))
        return state


__all__ = ["CoreEnvGame", "claim_table", "core_space", "layout", "use_core"]
