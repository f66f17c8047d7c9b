"""Line-based input and output for the terminal game, with optional ANSI colors.

Everything the game prints or reads goes through a :class:`TerminalIO`, so a
test can drive a whole game with a function that answers prompts and a
``StringIO`` that collects the output.

>>> import io
>>> typed = io.StringIO("3")
>>> def read(prompt):
...     line = typed.readline()
...     if not line:
...         raise EOFError
...     return line
>>> term = TerminalIO(input_fn=read, out=io.StringIO())
>>> term.ask("pick> ")
'3'
>>> term.ask("again> ")
Traceback (most recent call last):
...
ttr_nordic.terminal.console.QuitGame: eof
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Final, TextIO

#: ANSI styles by name (SGR parameters).
STYLES: Final = {
    "bold": "1",
    "dim": "2",
    "heading": "1;36",
    "error": "1;31",
    "ok": "32",
    "warn": "33",
    "purple": "35",
    "white": "1;97",
    "blue": "1;34",
    "yellow": "1;33",
    "orange": "38;5;208",
    "black": "30;47",
    "red": "1;31",
    "green": "1;32",
    "locomotive": "1;96",
    "gray": "37",
    "seat0": "1;36",
    "seat1": "1;33",
    "seat2": "1;35",
}

# Home, clear the screen, then clear the scrollback (3J): in hot-seat games the previous player's
# hand and tickets must not be one scroll away.
CLEAR_SCREEN: Final = "\033[H\033[2J\033[3J"


class QuitGame(Exception):
    """The user left: ``how`` is ``"quit"`` (typed q), ``"eof"`` (Ctrl-D) or ``"interrupt"`` (Ctrl-C)."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


class TerminalIO:
    """Where the game reads answers and writes text.

    ``input_fn(prompt)`` returns one line (like :func:`input`, which is the
    default and prints the prompt itself); ``out`` receives the game's text and
    ``err`` error messages. ``color`` turns ANSI colors on; ``clear`` lets the
    game clear the screen (otherwise a separator is printed). ``echo`` writes
    each answer after its prompt, which keeps transcripts readable when the
    answers come from a pipe.
    """

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        out: TextIO | None = None,
        err: TextIO | None = None,
        *,
        color: bool = False,
        clear: bool = False,
        echo: bool = False,
    ) -> None:
        self.input_fn: Callable[[str], str] = input_fn if input_fn is not None else input
        self.out: TextIO = out if out is not None else sys.stdout
        self.err: TextIO = err if err is not None else sys.stderr
        self.color = color
        self.clear = clear
        self.echo = echo

    @classmethod
    def for_terminal(cls, no_color: bool = False) -> TerminalIO:
        """Standard input and output; colors and screen clearing only on a TTY (and not with ``NO_COLOR``)."""
        tty = sys.stdout.isatty()
        color = tty and not no_color and not os.environ.get("NO_COLOR")
        return cls(color=color, clear=tty, echo=not sys.stdin.isatty())

    # ---------------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        """Write one line (or several, if ``text`` contains newlines)."""
        self.out.write(text + "\n")
        self.out.flush()

    def lines(self, lines: list[str]) -> None:
        for line in lines:
            self.say(line)

    def error(self, text: str) -> None:
        """Write an error message to ``err``."""
        self.err.write(text + "\n")
        self.err.flush()

    def paint(self, text: str, style: str) -> str:
        """``text`` in the named style when colors are on, else unchanged."""
        if not self.color or not text:
            return text
        code = STYLES.get(style, style)
        return f"\033[{code}m{text}\033[0m"

    def clear_screen(self) -> None:
        """Clear the screen and its scrollback on a terminal; elsewhere print a separator."""
        if self.clear:
            self.out.write(CLEAR_SCREEN)
            self.out.flush()
        else:
            self.say("\n" + "~" * 72 + "\n")

    # ----------------------------------------------------------------- input

    def ask(self, prompt: str) -> str:
        """One answer, stripped. End of input and Ctrl-C raise :class:`QuitGame`."""
        try:
            line = self.input_fn(prompt)
        except EOFError:
            raise QuitGame("eof") from None
        except KeyboardInterrupt:
            raise QuitGame("interrupt") from None
        if self.echo:
            self.say(line.rstrip("\n"))
        return line.strip()
