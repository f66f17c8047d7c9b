"""The OpenSpiel state on the compiled core: the same game as :class:`~ttr_nordic.rl.openspiel.TTRNordicState`,
its hot path (player to act, chance outcomes, legal ids, applying actions, observation tensors,
returns) answered by the core.

The chance model is unchanged: each chance node chooses one draw, and the core runs the deal or
the pending action with the draws chosen so far (``CoreGame.apply_drawn``, ``dealt``: the
engine's draw hook semantics, see ``src/ttr_nordic/fast/_chance.h``). Everything else (the
information state, strings, observers, ``view``, history lines, ``resample``) reads the Python
position of :mod:`ttr_nordic.rl.openspiel`, brought up to date only when asked: the OpenSpiel
actions since it was last read are replayed through the Python path then. A clone shares that
position with its original until one of them needs it (then it copies it).

``pyspiel.load_game("ttr_nordic")`` makes these states where the core is built
(``TTR_NORDIC_PURE_PYTHON`` unset); ``{"engine": "python"}`` keeps the Python engine throughout.

>>> import random, pyspiel
>>> from ttr_nordic import fast
>>> from ttr_nordic.rl.openspiel import play_chance
>>> if fast.AVAILABLE:
...     state = pyspiel.load_game("ttr_nordic", {"engine": "core"}).new_initial_state()
...     play_chance(state, random.Random(1))
...     assert type(state).__name__ == "CoreState" and len(state.observation_tensor()) == 510
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyspiel

from ttr_nordic import fast
from ttr_nordic.engine.actions import Action

from .actions import action_space
from .core_game import core_space
from .observation import SIZE
from .openspiel import TTRNordicState, _Position, position_from_data

_SPACE = action_space()
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_SPACE_CORE: Any = core_space() if fast.AVAILABLE else None

if TYPE_CHECKING:
    from ttr_nordic.fast._core import ChanceNode as _NodeBase

    from .openspiel import TTRNordicGame
elif fast.AVAILABLE:
    _NodeBase = fast.core_module().ChanceNode
    fast.core_module().chance_setup(fast.core_board(), _SPACE_CORE, _CHANCE, _TERMINAL)
else:  # imported where the core is not built: CoreState is not used there
    _NodeBase = object


class _CoreNode(_NodeBase):
    """The position on the core, and the Python position it was last in step with.

    The core's part (``ChanceNode``, ``src/ttr_nordic/fast/_chance.h``): ``game`` (None before
    the deal is done; at a draw's chance node, the game before the pending action), ``first``,
    ``pending`` (the pending action's id), ``chosen`` (the draws chosen for the deal or that
    action), ``chance`` (the chance node's pile and outcomes), ``player``, ``ids`` (the legal ids
    ascending) and ``behind`` (the actions applied since ``base``); ``apply`` applies one.
    ``base`` is the Python position after all but the ``behind`` actions (None: the initial
    position), ``owned`` whether no clone shares it."""

    __slots__ = ("base", "owned", "reward", "win")

    def __init__(self, players: int, reward: str) -> None:
        self.reward = reward
        self.win = reward == "win"
        self.base: _Position | None = None
        self.owned = True

    def error(self, action: int) -> ValueError:
        """The Python position's error for an action ``apply`` refused."""
        chance = self.chance
        if chance is None:
            return ValueError(f"action {action} ({_SPACE.describe(action)}) is not legal now")
        return ValueError(f"{action} is not a possible outcome of this {chance[0]} chance node")

    def synced(self) -> _Position:
        """The Python position, brought up to date (the actions behind replayed through it)."""
        base = self.base
        if base is None:
            base = self.base = _Position(self.players, self.reward)
            self.owned = True
        if self.behind:
            if not self.owned:
                base = self.base = base.__deepcopy__({})
                self.owned = True
            for action in self.behind:
                base.apply(action)
            self.behind = []
        return base

    @classmethod
    def from_position(cls, position: _Position) -> _CoreNode:
        """The node of a Python position (unpickled, or a copy no one else holds): the engine
        state moved into the core, the pending action's id found among the legal ones."""
        node = cls(position.players, position.reward)
        node.base = position
        engine = position.engine
        game = None if engine is None else fast.FastGame.from_state(engine).core
        pending = -1 if engine is None or position.pending is None else _pending_id(engine, position.pending)
        node.restore(game, position.first, pending, list(position.chosen), position.chance, position.player)
        return node

    def __deepcopy__(self, memo: dict[int, Any]) -> _CoreNode:
        other: _CoreNode = self.copy()
        other.reward, other.win = self.reward, self.win
        other.base = self.base
        other.owned = self.owned = self.base is None
        return other

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as the Python position (OpenSpiel serializes a state by pickling its
        attributes): a state on the core takes it back into the core, one on the engine as it is."""
        return (position_from_data, (self.synced().__getstate__(),))


def _pending_id(engine: Any, pending: Action) -> int:
    ids, actions = _SPACE.legal_id_list(engine)
    return ids[actions.index(pending)]


class CoreState(TTRNordicState):
    """A :class:`~ttr_nordic.rl.openspiel.TTRNordicState` whose hot path runs on the core.

    ``position`` (the Python position, what the observers, strings and ``resample`` read) is
    brought up to date when read; assigning a Python position to it moves that into the core."""

    # The node is in the state's __dict__ (what OpenSpiel copies and serializes), and in a slot
    # that mirrors it for the hot path (a slot is read about 30 ns sooner).
    __slots__ = ("_node",)

    def __init__(self, game: TTRNordicGame) -> None:
        pyspiel.State.__init__(self, game)
        self.__dict__["position"] = self._node = _CoreNode(game.players, game.reward)

    @property
    def position(self) -> _Position:
        return self._node.synced()

    @position.setter
    def position(self, value: _Position | _CoreNode) -> None:
        # OpenSpiel's clone assigns a deep copy of the node; its deserialization (and pickle)
        # the unpickled Python position.
        node = value if isinstance(value, _CoreNode) else _CoreNode.from_position(value)
        self.__dict__["position"] = self._node = node

    def current_player(self) -> int:
        return self._node.player

    def is_chance_node(self) -> bool:
        return self._node.player == _CHANCE

    def is_terminal(self) -> bool:
        return self._node.player == _TERMINAL

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the player to act), ascending."""
        node = self._node
        if node.player >= 0 and (player is None or player == node.player):
            return node.ids[:]
        if player is None:
            return pyspiel.State.legal_actions(self)  # type: ignore[no-any-return]  # chance and terminal
        return pyspiel.State.legal_actions(self, player)  # type: ignore[no-any-return]

    def _legal_actions(self, player: int) -> list[int]:
        node = self._node
        assert player == node.player
        return node.ids[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        chance = self._node.chance
        assert chance is not None, "not a chance node"
        return list(chance[1])

    def chance_kind(self) -> str:
        chance = self._node.chance
        assert chance is not None, "not a chance node"
        return str(chance[0])

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation vector (default: the player to act) as a list."""
        node = self._node
        target = node.player if player is None else player
        if not 0 <= target < node.players:
            if player is None:
                return pyspiel.State.observation_tensor(self)  # type: ignore[no-any-return]
            return pyspiel.State.observation_tensor(self, player)  # type: ignore[no-any-return]
        game = node.game
        if game is None:
            return [0.0] * SIZE
        return game.observation_values(_SPACE_CORE, target)

    def _apply_action(self, action: int) -> None:
        node = self._node
        try:
            node.apply(action)
        except (ValueError, TypeError):
            raise node.error(action) from None

    def returns(self) -> list[float]:
        node = self._node
        game = node.game
        if node.player != _TERMINAL or game is None:
            return [0.0] * node.players
        return game.end_rewards(node.win)


__all__ = ["CoreState"]
