"""The compiled core: the official rules of Nordic Countries in C, for simulations, rollouts and
the batched RL environment, with the Python engine as its reference and fallback.

The core (``_core``, compiled by the package's build hook from ``_core.c``) deals, lists, applies
and scores exactly as :class:`~ttr_nordic.engine.GameState` does, with the same random numbers: a
game is its players, seed and actions in both, and ``tests/fast/`` compares them decision by
decision. It supports the official rules only; anything else runs on the Python engine.
``AVAILABLE`` is False where it is not built or ``TTR_NORDIC_PURE_PYTHON`` is set.

>>> from ttr_nordic import fast
>>> if fast.AVAILABLE:
...     game = fast.FastGame.new(players=2, seed=7, first_player=0)
...     first = game.legal_actions()[0]
...     game.apply(first)
...     assert game.current == 1
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..engine import (
    Action,
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameState,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    Phase,
    load_board,
)
from ..engine.actions import DECLINE_TUNNEL, DRAW_BLIND, DRAW_FACE_UP, DRAW_TICKETS, PASS
from ..engine.board import GRAY
from ..engine.cards import to_counts
from ..engine.claims import claim_action, keep_action
from ..engine.core import KIND_CODE, TunnelAttempt
from ..engine.variant import OFFICIAL

if TYPE_CHECKING:
    from ._core import CoreAgent, CoreBoard, CoreGame


def _load() -> ModuleType | None:
    if os.environ.get("TTR_NORDIC_PURE_PYTHON"):
        return None
    try:
        from ttr_nordic.fast import _core
    except ImportError:
        return None
    return _core


_CORE = _load()
#: Whether the compiled core is built and enabled.
AVAILABLE = _CORE is not None

PHASES = tuple(Phase)
# Action types in a code's low three bits (see _core.c).
FACE_UP, BLIND, TICKETS, KEEP, CLAIM, EXTRA, DECLINE, PASS_TYPE = range(8)
_COUNT_SHIFT = 11


def core_module() -> ModuleType:
    """The compiled module; RuntimeError where it is not available."""
    if _CORE is None:
        reason = "TTR_NORDIC_PURE_PYTHON is set" if os.environ.get("TTR_NORDIC_PURE_PYTHON") else "it is not built"
        raise RuntimeError(f"the compiled core is not available ({reason}; build it with: python hatch_build.py)")
    return _CORE


_BOARDS: dict[int, tuple[Board, CoreBoard]] = {}


def core_board(board: Board | None = None) -> CoreBoard:
    """The core's copy of ``board``'s numbers (default: the engine's loaded board), made once per
    board (remembered by identity: hashing a board costs more than a rollout)."""
    board = board or load_board()
    entry = _BOARDS.get(id(board))
    if entry is not None and entry[0] is board:
        return entry[1]
    routes = [
        (
            r.a,
            r.b,
            r.length,
            GRAY if r.color == GRAY else r.color,
            KIND_CODE[r.kind],
            r.ferry_locomotives,
            -1 if r.twin is None else r.twin,
            r.points,
        )
        for r in board.routes
    ]
    tickets = [(t.a, t.b, t.points) for t in board.tickets]
    result: CoreBoard = core_module().CoreBoard(routes, tickets, len(board.cities))
    _BOARDS[id(board)] = (board, result)
    return result


def supports(state: GameState) -> bool:
    """Whether the core plays ``state``'s rules: the official rules (a config of players, seed and
    first player only) on a board within its limits; anything else stays on the engine."""
    if not AVAILABLE or state.num_players not in (2, 3):
        return False
    variant = state.variant
    return variant is OFFICIAL or variant == OFFICIAL  # identity first: samples share their game's variant


def _pack(counts: Sequence[int]) -> int:
    code = 0
    for kind, count in enumerate(counts):
        code |= count << (_COUNT_SHIFT + 4 * kind)
    return code


def _unpack(code: int) -> tuple[int, ...]:
    return tuple((code >> (_COUNT_SHIFT + 4 * kind)) & 15 for kind in range(9))


def encode_action(action: Action) -> int:
    """The core's code of an engine action.

    >>> encode_action(DRAW_BLIND), encode_action(DrawFaceUp(2))
    (1, 16)
    """
    kind = type(action)
    if kind is DrawFaceUp:
        assert isinstance(action, DrawFaceUp)
        return FACE_UP | action.slot << 3
    if kind is DrawBlind:
        return BLIND
    if kind is DrawTickets:
        return TICKETS
    if kind is KeepTickets:
        assert isinstance(action, KeepTickets)
        mask = 0
        for ticket in action.tickets:
            mask |= 1 << ticket
        return KEEP | mask << _COUNT_SHIFT
    if kind is Claim:
        assert isinstance(action, Claim)
        return CLAIM | action.route << 3 | _pack(action.payment)
    if kind is PayTunnelExtra:
        assert isinstance(action, PayTunnelExtra)
        return EXTRA | _pack(action.cards)
    if kind is DeclineTunnel:
        return DECLINE
    if kind is Pass:
        return PASS_TYPE
    raise ValueError(f"not an action: {action!r:.60}")


def decode_action(code: int) -> Action:
    """The engine action of a core code (the engine's shared instances where it has them).

    >>> from ttr_nordic.engine import parse_action
    >>> decode_action(encode_action(parse_action("C R45 OOL"))).notation()
    'C R45 OOL'
    """
    kind = code & 7
    if kind == FACE_UP:
        return DRAW_FACE_UP[(code >> 3) & 255]
    if kind == BLIND:
        return DRAW_BLIND
    if kind == TICKETS:
        return DRAW_TICKETS
    if kind == KEEP:
        mask = code >> _COUNT_SHIFT
        return keep_action(tuple(t for t in range(mask.bit_length()) if mask >> t & 1))
    if kind == CLAIM:
        return claim_action((code >> 3) & 255, to_counts(_unpack(code)))
    if kind == EXTRA:
        return PayTunnelExtra(to_counts(_unpack(code)))
    if kind == DECLINE:
        return DECLINE_TUNNEL
    return PASS


def state_fields(game: GameState) -> dict[str, object]:
    """An engine game's fields in the form of ``CoreGame.state()`` (for comparing the two)."""
    tunnel = game.tunnel
    return {
        "deck": list(game.deck),
        "discard": list(game.discard),
        "display": list(game.display),
        "hands": [list(h) for h in game.hands],
        "known": [list(k) for k in game.known],
        "tickets": [list(t) for t in game.tickets],
        "returned_tickets": [list(t) for t in game.returned_tickets],
        "ticket_deck": list(game.ticket_deck),
        "offers": [list(o) for o in game.offers],
        "route_owner": list(game.route_owner),
        "trains": list(game.trains),
        "scores": list(game.scores),
        "current": game.current,
        "phase": PHASES.index(game.phase),
        "first_player": game.first_player,
        "tunnel": None
        if tunnel is None
        else (
            tunnel.route,
            list(tunnel.base),
            list(tunnel.revealed),
            tunnel.needed,
            tunnel.color,
            int(tunnel.locomotive_only),
        ),
        "final_turns_left": game.final_turns_left,
        "final_round_trigger": game.final_round_trigger,
        "consecutive_passes": game.consecutive_passes,
        "turn": game.turn,
    }


class FastGame:
    """A game in the compiled core, with engine actions at its edges (one thread at a time:
    its play-outs run without the interpreter lock).

    >>> if AVAILABLE:
    ...     game = FastGame.new(players=3, seed=1)
    ...     assert len(game.state()["deck"]) == GameState.new(players=3, seed=1).deck_count
    """

    __slots__ = ("core",)

    def __init__(self, core: CoreGame) -> None:
        self.core = core

    @classmethod
    def new(cls, players: int = 2, seed: int = 0, first_player: int | None = None) -> FastGame:
        """The game ``GameState.new(players, seed, first_player)`` deals, in the core."""
        module = core_module()
        first = -1 if first_player is None else first_player
        return cls(module.CoreGame(core_board(), players, seed, first))

    @property
    def current(self) -> int:
        return self.core.current

    @property
    def phase(self) -> Phase:
        return PHASES[self.core.phase]

    @property
    def is_over(self) -> bool:
        return self.core.is_over

    def clone(self) -> FastGame:
        return FastGame(self.core.clone())

    @classmethod
    def from_state(cls, state: GameState) -> FastGame:
        """The engine ``state`` (a determinized sample too) moved into the core, its random
        generator's state included: both go on with the same cards."""
        words = state.rng.getstate()[1]
        return cls(core_module().from_fields(core_board(state.board), state_fields(state), words))

    def to_state(self, template: GameState) -> GameState:
        """This game as an engine state, with ``template``'s board, config and ``determinized``
        flag (the state it came from); the history and log start empty."""
        fields: dict[str, Any] = self.core.state()
        state = type(template)._blank(template.board, template.config)
        for name in ("deck", "discard", "display", "ticket_deck", "route_owner", "trains", "scores"):
            setattr(state, name, list(fields[name]))
        for name in ("hands", "known", "tickets", "returned_tickets", "offers"):
            setattr(state, name, [list(row) for row in fields[name]])
        for name in ("current", "first_player", "final_turns_left", "final_round_trigger", "consecutive_passes"):
            setattr(state, name, fields[name])
        state.turn = fields["turn"]
        state.phase = PHASES[fields["phase"]]
        tunnel = fields["tunnel"]
        if tunnel is not None:
            route, base, revealed, needed, color, locomotive_only = tunnel
            state.tunnel = TunnelAttempt(route, to_counts(base), tuple(revealed), needed, color, bool(locomotive_only))
        state.rng.setstate((3, self.core.rng_state(), None))
        state.determinized = template.determinized
        return state

    def play_out(self, seed: int, horizon: int, policies: Sequence[tuple[bool, bool]], max_actions: int = 3000) -> bool:
        """``ai.expert.play_out`` in the core: every seat plays Route Focus, ``policies[q]`` saying
        (light, long-route weights) for seat ``q``, whose agent is seeded ``seed + q``; stop at the
        end or after ``horizon`` actions (0: none). False if the game was still going after
        ``max_actions`` (the policies going round in circles): it is left as it stands."""
        if type(seed) is not int or not 0 <= seed < 2**62:
            raise ValueError(f"a play-out seed is a whole number from 0 to 2**62 - 1, got {seed!r:.40}")
        try:
            self.core.play_out(seed, horizon, list(policies), max_actions)
        except RuntimeError:  # "rollout did not finish": the only RuntimeError it raises
            return False
        return True

    def rollout_result(self) -> tuple[list[int], list[int]]:
        """The totals and the winners of the game as it stands."""
        result = self.core.result()
        return result[5], result[6]

    def legal_codes(self) -> list[int]:
        """The legal actions as core codes, in the engine's order."""
        return self.core.legal()

    def legal_actions(self) -> list[Action]:
        """The legal actions, as ``GameState.legal_action_list()`` lists them."""
        return [decode_action(code) for code in self.core.legal()]

    def apply(self, action: Action) -> None:
        """Apply a legal action (ValueError, and no change, if it is not legal now).

        >>> if AVAILABLE:
        ...     try:
        ...         FastGame.new(2, 1).apply(DRAW_TICKETS)
        ...     except ValueError as err:
        ...         assert str(err) == "T is not legal now"
        """
        try:
            self.core.apply(encode_action(action))
        except ValueError:
            raise ValueError(f"{action.notation()} is not legal now") from None

    def state(self) -> dict[str, object]:
        """Every field, as :func:`state_fields` gives an engine game's."""
        return self.core.state()

    def totals(self) -> list[int]:
        """The final scores (R9) of the game as it stands."""
        return self.core.result()[5]


def core_agent(seed: int, light: bool = False, long_weights: bool = False) -> CoreAgent:
    """Route Focus in the core, choosing what ``RouteFocusAgent(seed=seed)`` chooses (with ``light``
    what ``LightRouteFocus`` chooses, the expert's rollout policy; with ``long_weights`` their
    long-route variants): ``agent.choose(game.core)`` is the code of its action.

    >>> if AVAILABLE:
    ...     game = FastGame.new(players=2, seed=4)
    ...     code = core_agent(seed=8).choose(game.core)
    ...     assert decode_action(code) in game.legal_actions()
    """
    agent: CoreAgent = core_module().CoreAgent(seed, light, long_weights)
    return agent


def play_route_focus_games(players: int, first_seed: int, games: int, light: bool = False) -> tuple[int, list[int]]:
    """Play ``games`` Route Focus games in the core as ``benchmarks/engine_speed.py --policy
    route_focus`` plays them on the engine (``play_game`` with ``RouteFocusAgent(seed=s * players +
    q)`` at seat ``q``, seeds from ``first_seed``; ``LightRouteFocus`` with ``light``): (actions in
    all, every game's totals one after the other)."""
    return core_module().play_route_focus(core_board(), players, first_seed, games, light)  # type: ignore[no-any-return]


def play_random_games(players: int, first_seed: int, games: int) -> tuple[int, list[int]]:
    """Play ``games`` random games in the core, the games ``benchmarks/engine_speed.py`` plays on
    the engine (``GameState.new(players, seed=s)``, ``random.Random(s).choice`` over the legal list,
    seeds from ``first_seed``): (actions in all, every game's totals one after the other)."""
    return core_module().play_random(core_board(), players, first_seed, games)  # type: ignore[no-any-return]


__all__ = [
    "AVAILABLE",
    "FastGame",
    "core_agent",
    "core_board",
    "decode_action",
    "encode_action",
    "play_random_games",
    "play_route_focus_games",
    "state_fields",
    "supports",
]
