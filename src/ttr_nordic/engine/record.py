"""Game records: config + seed + actions, as JSON, and replay.

A game played under a variant other than the official rules carries it whole under
``"variant"`` (its board included when custom), and replays under it; a record without
``"variant"`` is a game of the official rules.

>>> from ttr_nordic.engine import GameState, GameRecord
>>> game = GameState.new(players=2, seed=11)
>>> game.apply(next(iter(game.legal_actions())))
>>> record = game.record()
>>> text = record.to_json()
>>> GameRecord.from_json(text).replay().history == game.history
True
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .actions import parse_action
from .core import GameConfig
from .errors import IllegalActionError, NotationError, RecordError
from .transitions import game_class
from .variant import OFFICIAL, Variant, VariantError

if TYPE_CHECKING:
    # For the annotations only: replays build GameState through game_class(), so this module
    # never imports the state module (which imports this one).
    from .state import GameState

FORMAT = "ttr-nordic-record"
VERSION = 1


@dataclass(frozen=True)
class GameRecord:
    """A replayable game: ``config`` and the actions in notation. ``meta`` is free-form
    (player names, agents, dates) and plays no part in the rules."""

    config: GameConfig
    actions: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "format": FORMAT,
            "version": VERSION,
            "players": self.config.players,
            "seed": self.config.seed,
            "first_player": self.config.first_player,
            "actions": list(self.actions),
            "meta": self.meta,
        }
        if self.config.variant != OFFICIAL:
            data["variant"] = self.config.variant.to_dict()
        return data

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError("a game record is a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a game record: 'format' must be {FORMAT!r}")
        if data.get("version") != VERSION:
            raise RecordError(f"unsupported record version {data.get('version')!r}")
        try:
            players, seed, first = data["players"], data["seed"], data.get("first_player")
            actions = data["actions"]
        except KeyError as exc:
            raise RecordError(f"a game record needs {exc.args[0]!r}") from exc
        if not isinstance(players, int) or not isinstance(seed, int) or not (first is None or isinstance(first, int)):
            raise RecordError("'players', 'seed' and 'first_player' must be integers")
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("'actions' must be a list of action strings")
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise RecordError("'meta' must be an object")
        variant = OFFICIAL
        if data.get("variant") is not None:
            try:
                variant = Variant.from_dict(data["variant"], source="the record's variant")
            except VariantError as exc:
                raise RecordError(str(exc)) from exc
        try:
            config = GameConfig(players, seed, first, variant)
        except ValueError as exc:
            raise RecordError(str(exc)) from exc
        return cls(config, tuple(actions), meta)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not valid JSON: {exc}") from exc
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"cannot read {path}: {exc}") from exc
        return cls.from_json(text)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(indent=1), encoding="utf-8")

    def states(self) -> Iterator[GameState]:
        """The state before the first action, then after each action (each a fresh copy)."""
        state = cast("GameState", game_class().from_config(self.config))
        yield state.clone()
        board, slots = state.board, self.config.variant.face_up_cards
        for index, text in enumerate(self.actions):
            try:
                state.apply(parse_action(text, board, slots))
            except (NotationError, IllegalActionError) as exc:
                raise RecordError(f"action {index + 1} ({text!r}) does not replay: {exc}") from exc
            yield state.clone()

    def replay(self) -> GameState:
        """The state after every action, each one checked."""
        state = cast("GameState", game_class().from_config(self.config))
        board, slots = state.board, self.config.variant.face_up_cards
        for index, text in enumerate(self.actions):
            try:
                state.apply(parse_action(text, board, slots))
            except (NotationError, IllegalActionError) as exc:
                raise RecordError(f"action {index + 1} ({text!r}) does not replay: {exc}") from exc
        return state
