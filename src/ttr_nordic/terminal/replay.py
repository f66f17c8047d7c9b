"""Step through a saved game record: Enter = next, b = back, a number = jump, q = quit.

A finished game is reviewed with everything open (every hand and ticket); an
unfinished record, or any record with ``--player N``, is shown as player N saw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from ..ai.value.curve import Moment, key_moments, replay_curve
from ..engine import GameRecord, GameState, RecordError, parse_action
from .console import QuitGame, TerminalIO
from .render import Renderer

REPLAY_HELP: Final = """\
Enter      next move            b      previous move
N          go to move N (0 = the setup, before the first move)
e          go to the end        q      quit
k          key moments (a finished game: the largest swings of the win chances)
m          a map of the board at this move, drawn from the city positions"""

#: Blocks of a text sparkline, lowest to highest.
SPARKS: Final = "▁▂▃▄▅▆▇█"
CHART_WIDTH: Final = 60


class ReplayError(Exception):
    """The file cannot be replayed; the message says why."""


def load_states(path: str | Path) -> tuple[GameRecord, list[GameState]]:
    """The record and the state before the first move and after each move; raises :class:`ReplayError`."""
    try:
        record = GameRecord.load(path)
        states = list(record.states())
    except RecordError as exc:
        raise ReplayError(str(exc)) from exc
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A record that parses but still trips the engine: report it, never a traceback.
        raise ReplayError(f"the record does not replay: {exc!r}") from exc
    return record, states


def _seat_strings(record: GameRecord, key: str) -> list[str] | None:
    value = record.meta.get(key)
    if isinstance(value, list) and len(value) == record.config.players and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return None


class Replayer:
    """Shows the states of one record (``viewer`` None = everything open)."""

    def __init__(
        self,
        record: GameRecord,
        states: Sequence[GameState],
        io: TerminalIO,
        viewer: int | None,
        source: str = "",
    ) -> None:
        self.record = record
        self.states = list(states)
        self.io = io
        self.viewer = viewer
        self.source = source
        self.moves = len(self.states) - 1
        self.names = _seat_strings(record, "names") or [f"Player {q + 1}" for q in range(record.config.players)]
        self.agents = _seat_strings(record, "agents")
        first = self.states[0]
        self.render = Renderer(io, first.board, self.names, first.variant.longest_path_bonus)
        self._texts: dict[int, str] = {}
        # Win chances only in the open review of a finished game: each comes from that player's
        # own view, which a replay shown as one player saw it must not reveal.
        self.chances: list[tuple[float, ...]] | None = None
        self.moments: list[Moment] = []
        if viewer is None and self.finished:
            variant = record.config.variant
            actions = [parse_action(a, variant.board, variant.face_up_cards) for a in record.actions]
            curve = replay_curve(record.config, actions)
            self.chances = curve.chances
            self.moments = key_moments(curve.chances, movers=curve.movers, keeps=curve.keeps)

    @property
    def finished(self) -> bool:
        return self.states[-1].is_over

    def move_text(self, index: int) -> str:
        """What move ``index`` (0-based) did, as the replay's viewer may see it."""
        text = self._texts.get(index)
        if text is None:
            if self.viewer is None:
                log = self.states[-1].view(0).log  # a finished game: every move is open
                for i, entry in enumerate(log):
                    self._texts[i] = self.render.log_text(entry)
                return self._texts[index]
            entry = self.states[index + 1].view(self.viewer).log[index]
            text = self._texts[index] = self.render.log_text(entry)
        return text

    def chance_lines(self, position: int) -> list[str]:
        """Each player's win chance over the whole game as a sparkline, with a caret under
        ``position``, and the chances there."""
        if self.chances is None:
            return []
        last = len(self.chances) - 1
        width = min(CHART_WIDTH, last + 1)
        columns = [round(i * last / (width - 1)) if width > 1 else 0 for i in range(width)]
        pad = max(len(name) for name in self.names)
        lines = [f"Win chances after move {position}:"]
        for q, name in enumerate(self.names):
            spark = "".join(SPARKS[min(7, int(self.chances[c][q] * 8))] for c in columns)
            lines.append(f"  {name:<{pad}}  {spark}  {round(self.chances[position][q] * 100):>3}%")
        caret = min(range(width), key=lambda i: abs(columns[i] - position))
        lines.append(" " * (pad + 4 + caret) + "^")
        return lines

    def moment_lines(self) -> list[str]:
        if not self.moments:
            return ["Key moments are shown for a finished game reviewed with everything open."]
        lines = [
            "Key moments (the moves that changed their player's chance most; tickets kept are judged by later moves):"
        ]
        for m in self.moments:
            sign = "+" if m.swing >= 0 else "-"
            lines.append(
                f"  move {m.step:>3}: {self.names[m.player]} {sign}{round(abs(m.swing) * 100)}%"
                f" ({round(m.before * 100)}% -> {round(m.after * 100)}%): {self.move_text(m.step - 1)}"
                f"{f' (judged by move {m.until})' if m.until != m.step else ''}"
            )
        return lines

    def intro(self) -> None:
        config = self.record.config
        state = "finished" if self.finished else "unfinished"
        seats = [f"{name} ({self.agents[q]})" if self.agents else name for q, name in enumerate(self.names)]
        self.io.say(self.render.heading(f"Replay {self.source}".strip()))
        self.io.say(f"{config.players} players, seed {config.seed}, {self.moves} moves, {state}: {', '.join(seats)}")
        if self.viewer is None:
            self.io.say("Finished game review: every hand and ticket is shown.")
        else:
            self.io.say(f"Shown as {self.names[self.viewer]} saw it.")

    def show(self, position: int) -> None:
        state = self.states[position]
        if position == 0:
            header = f"Setup (move 0 of {self.moves}): cards dealt, tickets offered"
        else:
            header = f"Move {position}/{self.moves}: {self.move_text(position - 1)}"
        self.io.say("")
        self.io.say(self.io.paint(header, "bold"))
        if self.viewer is None:
            self.io.lines(self.render.full_status([state.view(q) for q in range(state.num_players)]))
        else:
            name = self.names[self.viewer]
            self.io.lines(self.render.status(state.view(self.viewer), recent=0, label=f"{name}'s"))
        if position == self.moves and state.is_over:
            self.io.lines(self.render.scoring(state.result()))
        self.io.lines(self.chance_lines(position))

    def auto(self) -> int:
        """Print every move, then the final board (and scoring)."""
        self.intro()
        for index in range(self.moves):
            self.io.say(f"{index + 1:>4}. {self.move_text(index)}")
        self.show(self.moves)
        if self.moments:
            self.io.lines(self.moment_lines())
        return 0

    def interactive(self) -> int:
        self.intro()
        self.io.say(REPLAY_HELP)
        position = 0
        self.show(position)
        while True:
            try:
                line = self.io.ask(f"[{position}/{self.moves}] Enter = next, b = back, number = jump, q = quit> ")
            except QuitGame as stop:
                self.io.say("")
                return 130 if stop.how == "interrupt" else 0
            low = line.lower()
            if low == "":
                if position >= self.moves:
                    self.io.say("End of the record (b = back, a number = jump, q = quit).")
                    continue
                position += 1
            elif low in ("b", "back", "p", "prev"):
                if position == 0:
                    self.io.say("Already at the start.")
                    continue
                position -= 1
            elif low in ("q", "quit", "exit"):
                return 0
            elif low in ("h", "?", "help"):
                self.io.say(REPLAY_HELP)
                continue
            elif low in ("e", "end"):
                position = self.moves
            elif low in ("k", "key", "moments"):
                self.io.lines(self.moment_lines())
                continue
            elif low in ("m", "map"):
                state = self.states[position]
                self.io.lines(self.render.board_map(state.view(self.viewer or 0)))
                continue
            elif low.isdigit():
                if int(low) > self.moves:
                    self.io.say(f"There are only {self.moves} moves (0 = the setup).")
                    continue
                position = int(low)
            else:
                self.io.say(f"Unknown command {line!r}.")
                self.io.say(REPLAY_HELP)
                continue
            self.show(position)


def replay_file(path: str, io: TerminalIO, player: int | None = None, auto: bool = False) -> int:
    """Replay the record at ``path``; ``player`` is 1-based. Returns the exit code (2 for a bad file)."""
    try:
        record, states = load_states(path)
    except ReplayError as exc:
        io.error(f"ttr-nordic replay: cannot replay {path}: {exc}")
        return 2
    players = record.config.players
    if player is not None and not 1 <= player <= players:
        io.error(f"ttr-nordic replay: --player must be between 1 and {players} for this record")
        return 2
    if player is not None:
        viewer: int | None = player - 1
    else:
        viewer = None if states[-1].is_over else 0
    replayer = Replayer(record, states, io, viewer, source=str(path))
    try:
        return replayer.auto() if auto else replayer.interactive()
    except KeyboardInterrupt:
        io.say("")
        return 130
