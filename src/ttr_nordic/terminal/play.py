"""One game in the terminal: humans (hot-seat) and AI agents around a :class:`GameState`.

A human decision is shown from that player's :class:`PlayerView` only; every
option comes from ``state.legal_action_list()`` and every pick goes through
``state.apply(action, player)``, so the engine alone decides what is legal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from ..ai import Agent
from ..engine import (
    Action,
    Claim,
    GameRecord,
    GameState,
    IllegalActionError,
    KeepTickets,
    NotationError,
    Phase,
    PlayerView,
    RouteKind,
    parse_action,
)
from ..engine.scoring import ticket_completed
from .console import QuitGame, TerminalIO
from .render import COUNTRY_NAMES, Renderer, kind_text, region_key, region_label, region_of

HELP: Final = """\
How a turn works: either take two train cards (face-up or blind from the draw pile),
or claim one route by paying cards, or draw destination tickets. Every choice shown
is legal right now; type its number and press Enter.

Commands (at any prompt):
  r [words]  list the free routes, e.g. "r", "r oslo", "r NO", "r ferry", "r red"
             (* marks the routes you can pay for right now)
  s          show the whole board again
  m          a map of the board drawn from its city positions (owned routes by seat number)
  h          this help
  q          save the game and quit (Ctrl-D does the same)
In a sub-menu, 0 or b goes back.

Ticket choices: type the numbers of the tickets to keep (as listed); several numbers
("1 3") or "keep 2" keep those tickets by their number; "all" keeps every ticket.

Expert notation, typed directly at the main prompt:
  F3          take face-up card 3          B        draw blind
  T           draw destination tickets     K 4 17   keep tickets by id
  C R45 OOL   claim route R45 with 2 orange + 1 locomotive
  X RL        pay a tunnel's extra cards   decline  give up the tunnel
  pass        pass (only when nothing else is possible)
Card letters: P purple, W white, U blue, Y yellow, O orange, K black, R red, G green, L locomotive."""

COMMAND_HINT: Final = "(r = free routes, s = board, h = help, q = save & quit; notation like F3, B, T, C R45 OOL works)"

_NUMBERISH: Final = re.compile(r"[-+]?\d+([.,]\d*)?")
_CLAIM_MENU: Final = "claim"
_REDRAW: Final = -1

MenuTarget = Action | str


@dataclass
class Seat:
    """One player: a name and an agent, or no agent for a human at the keyboard."""

    name: str
    agent: Agent | None = None
    level: str = "human"

    @property
    def is_human(self) -> bool:
        return self.agent is None


class GameSession:
    """Runs one game to its end (or until the user leaves), then saves the record."""

    def __init__(
        self,
        state: GameState,
        seats: Sequence[Seat],
        io: TerminalIO,
        *,
        save_path: Path | None = None,
        meta: dict[str, Any] | None = None,
        recent: int = 6,
    ) -> None:
        if len(seats) != state.num_players:
            raise ValueError(f"{len(seats)} seats for a {state.num_players}-player game")
        self.state = state
        self.seats = list(seats)
        self.io = io
        self.save_path = save_path
        self.meta = dict(meta or {})
        self.recent = recent
        self.render = Renderer(io, state.board, [s.name for s in seats], state.variant.longest_path_bonus)
        self.humans = [i for i, s in enumerate(self.seats) if s.is_human]
        self.hotseat = len(self.humans) >= 2
        self._last_human: int | None = None
        self._reported = len(state.log)

    # ------------------------------------------------------------ game loop

    def run(self) -> int:
        """Play to the end; returns the exit code (0, 130 after Ctrl-C, 1 if saving failed)."""
        self.intro()
        try:
            while not self.state.is_over:
                self.step()
        except QuitGame as stop:
            return self._leave(stop.how)
        except KeyboardInterrupt:
            return self._leave("interrupt")
        self.finish()
        return 0 if self.save() else 1

    def intro(self) -> None:
        io = self.io
        io.say(self.render.heading("Ticket to Ride: Nordic Countries"))
        who = [f"{s.name} ({'human' if s.is_human else 'AI: ' + s.level})" for s in self.seats]
        io.say(f"Seed {self.state.config.seed} · {len(self.seats)} players: {', '.join(who)}")
        if not self.state.is_over:
            io.say(f"{self.seats[self.state.decision.player].name} starts. Type h at any prompt for help.")

    def step(self) -> None:
        """Make one decision: ask the human or the AI whose decision it is."""
        player = self.state.decision.player
        agent = self.seats[player].agent
        if agent is None:
            self.human_decision(player)
        else:
            self.ai_decision(player, agent)

    def ai_decision(self, player: int, agent: Agent) -> None:
        state = self.state
        action = agent.choose(state.view(player), state.legal_action_list())
        try:
            state.apply(action, player)
        except IllegalActionError as err:
            self.io.error(f"The AI {self.seats[player].name} chose an illegal move ({action.notation()}): {err.detail}")
            raise QuitGame("ai-error") from err
        others = [h for h in self.humans if h != player]
        self.report(others[0] if others else (player + 1) % state.num_players)

    def report(self, viewer: int) -> None:
        """Print the log lines added since the last report, as ``viewer`` may see them."""
        log = self.state.view(viewer).log
        for entry in log[self._reported :]:
            self.io.say(f" * {self.render.log_text(entry)}")
        self._reported = len(log)

    def pass_screen(self, player: int) -> None:
        """Hide the previous player's cards; show nothing private before Enter."""
        name = self.seats[player].name
        self.io.clear_screen()
        self.io.say(self.render.heading(f"Pass the terminal to {name}"))
        self.io.say(f"It is {name}'s turn. Everyone else, please look away.")
        if self.io.ask(f"{name}, press Enter when you are ready (q = save & quit)> ").lower() in ("q", "quit"):
            raise QuitGame("quit")
        self.io.clear_screen()

    # --------------------------------------------------------- human turns

    def human_decision(self, player: int) -> None:
        """Show ``player``'s view, ask until the engine accepts an action, apply it."""
        if self.hotseat and self._last_human != player:
            self.pass_screen(player)
        self._last_human = player
        state = self.state
        view = state.view(player)
        legal = state.legal_action_list()
        if view.phase in (Phase.CHOOSE_ACTION, Phase.INITIAL_TICKETS, Phase.KEEP_TICKETS):
            self.io.lines(self.render.status(view, self.recent))
        elif view.phase is Phase.TUNNEL_EXTRA:
            self.io.lines(self.render.compact_status(view) + self.render.tunnel_lines(view, player))
        else:
            self.io.lines(self.render.compact_status(view))
        show = True
        while True:
            action = self.ask_action(view, legal, show)
            show = False  # after a refusal, just ask again
            try:
                state.apply(action, player)
            except IllegalActionError as err:
                self.io.say(self.io.paint(f"Not allowed: {err.detail}", "error"))
                continue
            self.report(player)
            return

    def ask_action(self, view: PlayerView, legal: Sequence[Action], show: bool = True) -> Action:
        """The human's pick for the current decision (not yet checked by the engine);
        ``show`` prints the menu first."""
        if view.phase in (Phase.INITIAL_TICKETS, Phase.KEEP_TICKETS):
            return self._ask_tickets(view, legal, show)
        entries = self._main_entries(view, legal)
        claims = [a for a in legal if isinstance(a, Claim)]
        name = self.seats[view.player].name
        if show:
            self._show_menu(f"{name}: {view.phase.text(view.variant)}", entries)
        prompt = f"{name} [1-{len(entries)}]> "
        while True:
            line = self.io.ask(prompt)
            handled = self._common(line, view, legal, len(entries))
            if handled:
                if handled == "menu":
                    self._show_menu(f"{name}: {view.phase.text(view.variant)}", entries)
                continue
            target: MenuTarget | None = None
            if line.isdigit():
                number = int(line)
                if not 1 <= number <= len(entries):
                    self._out_of_range(line, len(entries))
                    continue
                target = entries[number - 1][1]
            elif line.lower() in ("c", "claim"):
                if not claims:
                    self.io.say("No route can be claimed right now.")
                    continue
                target = _CLAIM_MENU
            if target == _CLAIM_MENU:
                choice = self._claim_menu(view, claims)
                if choice is None:
                    self._show_menu(f"{name}: {view.phase.text(view.variant)}", entries)
                    continue
                return choice
            if target is not None and not isinstance(target, str):
                return target
            action = self._parse(line, len(entries))
            if action is not None:
                return action

    def _main_entries(self, view: PlayerView, legal: Sequence[Action]) -> list[tuple[str, MenuTarget]]:
        entries: list[tuple[str, MenuTarget]] = []
        claim_routes = {a.route for a in legal if isinstance(a, Claim)}
        for action in legal:
            if isinstance(action, Claim):
                if not any(target == _CLAIM_MENU for _, target in entries):
                    entries.append((f"Claim a route... ({len(claim_routes)} you can pay for)", _CLAIM_MENU))
                continue
            entries.append((self.render.action_label(action, view), action))
        return entries

    def _show_menu(self, title: str, entries: Sequence[tuple[str, MenuTarget]]) -> None:
        self.io.say(self.io.paint(title, "bold"))
        width = len(str(len(entries)))
        for number, (label, _) in enumerate(entries, 1):
            self.io.say(f"  {number:>{width}}) {label}")
        self.io.say(self.io.paint(COMMAND_HINT, "dim"))

    def _common(self, line: str, view: PlayerView, legal: Sequence[Action], count: int) -> str:
        """Input every prompt understands. Returns "" (not handled), "note" or "menu" (show the menu again)."""
        low = line.lower()
        if not line:
            self.io.say(f"Please type a number from 1 to {count} (h = help).")
            return "note"
        if low in ("h", "?", "help"):
            self.io.say(HELP)
            return "menu"
        if low in ("s", "status", "board"):
            self.io.lines(self.render.status(view, self.recent))
            return "menu"
        if low in ("m", "map"):
            self.io.lines(self.render.board_map(view))
            return "menu"
        if low in ("r", "routes") or low.startswith(("r ", "routes ")):
            words = low.split()[1:]
            self.io.lines(self.route_list(view, legal, words))
            return "menu"
        if low in ("q", "quit", "exit"):
            raise QuitGame("quit")
        return ""

    def _out_of_range(self, line: str, count: int, back: bool = False) -> None:
        extra = " or 0 to go back" if back else ""
        self.io.say(self.io.paint(f"{line} is not a choice: type a number from 1 to {count}{extra}.", "error"))

    def _parse(self, line: str, count: int) -> Action | None:
        """Raw notation typed by an expert; explains what is wrong."""
        if _NUMBERISH.fullmatch(line):
            self._out_of_range(line, count)
            return None
        try:
            return parse_action(line, self.state.board, self.state.variant.face_up_cards)
        except NotationError as exc:
            self.io.say(self.io.paint(f"Not understood: {exc}", "error"))
            self.io.say(f"Type a number from 1 to {count}, or h for help.")
            return None

    # ----------------------------------------------------------- claim menus

    def _claim_menu(self, view: PlayerView, claims: Sequence[Claim]) -> Claim | None:
        board = self.state.board
        by_route: dict[int, list[Claim]] = {}
        for claim in claims:
            by_route.setdefault(claim.route, []).append(claim)
        routes = sorted(
            by_route,
            key=lambda rid: (region_key(region_of(board, board.routes[rid])), board.routes[rid].name),
        )
        while True:
            self.io.say(self.io.paint("Claim which route? (0 = back)", "bold"))
            width = len(str(len(routes)))
            region = ""
            for number, rid in enumerate(routes, 1):
                route = board.routes[rid]
                here = region_of(board, route)
                if here != region:
                    region = here
                    self.io.say(f"  {region_label(region)}")
                options = by_route[rid]
                pay = (
                    f"pay {self.render.payment(options[0].payment)}"
                    if len(options) == 1
                    else f"{len(options)} ways to pay"
                )
                self.io.say(f"    {number:>{width}}) {self.render.route_text(route)} · {pay}")
            picked = self._pick(view, claims, len(routes), f"Route [1-{len(routes)}, 0 = back]> ")
            if picked is None:
                return None
            if picked == _REDRAW:
                continue
            options = by_route[routes[picked - 1]]
            if len(options) == 1:  # the list showed the one payment: nothing to confirm
                return options[0]
            choice = self._payment_menu(view, routes[picked - 1], options)
            if choice is not None:
                return choice

    def _payment_menu(self, view: PlayerView, rid: int, options: Sequence[Claim]) -> Claim | None:
        route = self.state.board.routes[rid]
        while True:
            self.io.say(self.io.paint(f"Claim {self.render.route_text(route)}: pay with (0 = back)", "bold"))
            if route.kind is RouteKind.TUNNEL:
                self.io.say(
                    "  (A tunnel: cards turned over from the draw pile may ask for extra cards; you may decline.)"
                )
            for number, claim in enumerate(options, 1):
                self.io.say(f"  {number}) {self.render.payment(claim.payment)}")
            picked = self._pick(view, options, len(options), f"Payment [1-{len(options)}, 0 = back]> ")
            if picked is None:
                return None
            if picked == _REDRAW:
                continue
            return options[picked - 1]

    def _pick(self, view: PlayerView, legal: Sequence[Action], count: int, prompt: str) -> int | None:
        """A number from 1 to ``count`` in a sub-menu; None to go back; ``_REDRAW`` to show the menu again."""
        while True:
            line = self.io.ask(prompt)
            if line.lower() in ("0", "b", "back"):
                return None
            handled = self._common(line, view, legal, count)
            if handled == "menu":
                return _REDRAW
            if handled:
                continue
            if line.isdigit() and 1 <= int(line) <= count:
                return int(line)
            self._out_of_range(line, count, back=True)

    # ---------------------------------------------------------- ticket menus

    def _ask_tickets(self, view: PlayerView, legal: Sequence[Action], first: bool = True) -> Action:
        board = self.state.board
        offer = list(view.offered_tickets)
        owned = [rid for rid, owner in enumerate(view.route_owner) if owner == view.player]
        name = self.seats[view.player].name
        keeps = [a for a in legal if isinstance(a, KeepTickets)]

        allowed = {a.tickets for a in keeps}
        minimum = min((len(a.tickets) for a in keeps), default=0)

        def show() -> None:
            self.io.say(self.io.paint(f"{name}: {view.phase.text(view.variant)}", "bold"))
            width = max(len(board.tickets[t].name) for t in offer) if offer else 0
            for number, ticket_id in enumerate(offer, 1):
                ticket = board.tickets[ticket_id]
                done = ticket_completed(board, owned, ticket_id)
                note = self.io.paint("  already connected by your routes", "ok") if done else ""
                self.io.say(f"  {number}) {ticket.name:<{width}} {ticket.points:>3} pts  (id {ticket_id}){note}")
            # One scheme only: numbers are always the tickets of the list above (never menu choices).
            self.io.say(
                self.io.paint(
                    f'Type the numbers of the tickets to keep, at least {minimum} (e.g. "1 3"); "all" keeps all.',
                    "dim",
                )
            )

        if first:
            show()
        prompt = f"{name} keep (ticket numbers 1-{len(offer)}, at least {minimum})> "
        while True:
            line = self.io.ask(prompt)
            handled = self._common(line, view, legal, len(offer))
            if handled:
                if handled == "menu":
                    show()
                continue
            low = line.lower()
            if low in ("a", "all", "keep all"):
                return KeepTickets(tuple(sorted(offer)))
            words = [w for w in re.split(r"[\s,]+", low) if w]
            by_number = words[1:] if words and words[0] == "keep" else words
            if by_number and all(w.isascii() and w.isdigit() for w in by_number):
                numbers = [int(w) for w in by_number]
                if not all(1 <= n <= len(offer) for n in numbers):
                    self.io.say(self.io.paint(f"Ticket numbers go from 1 to {len(offer)}.", "error"))
                    continue
                chosen = tuple(sorted({offer[n - 1] for n in numbers}))
                if chosen not in allowed:
                    self.io.say(self.io.paint(f"Keep at least {minimum} of the {len(offer)} tickets.", "error"))
                    continue
                return KeepTickets(chosen)
            action = self._parse(line, len(offer))
            if action is not None:
                return action

    # -------------------------------------------------------------- routes

    def route_list(self, view: PlayerView, legal: Sequence[Action], words: Sequence[str]) -> list[str]:
        """The free routes (optionally filtered by words), grouped by region."""
        board = self.state.board
        claimable = {a.route for a in legal if isinstance(a, Claim)}
        groups: dict[str, list[str]] = {}
        for rid, owner in enumerate(view.route_owner):
            if owner >= 0:
                continue
            route = board.routes[rid]
            region = region_of(board, route)
            a, b = board.cities[route.a], board.cities[route.b]
            countries = " ".join(COUNTRY_NAMES.get(c, c) for c in region.split("–"))
            fields = (route.code, route.name, a.english_name, b.english_name, region, countries)
            haystack = " ".join((*fields, route.color_name, route.kind.value, kind_text(route))).casefold()
            tokens = haystack.replace("–", " ").split()
            if not all(w.casefold() in haystack or w.casefold() in tokens for w in words):
                continue
            mark = "*" if rid in claimable else " "
            line = f"  {mark} {self.render.route_text(route)}"
            if route.twin is not None and view.route_owner[route.twin] >= 0:
                line += f"  (other lane: {self.render.name(view.route_owner[route.twin])})"
            groups.setdefault(region, []).append(line)
        total = sum(len(g) for g in groups.values())
        title = "Free routes" + (f" matching {' '.join(words)!r}" if words else "") + f": {total}"
        lines = [self.io.paint(title, "bold")]
        if claimable:
            lines.append("  (* = you can pay for it now)")
        for region in sorted(groups, key=region_key):
            lines.append(region_label(region))
            lines.extend(groups[region])
        return lines

    # ------------------------------------------------------------ the end

    def finish(self) -> None:
        state = self.state
        view = state.view(self.humans[0] if self.humans else 0)
        self.io.say("")
        self.io.say(self.render.heading("Game over"))
        if view.final_round_trigger >= 0:
            self.io.say(f"The final round started by {self.seats[view.final_round_trigger].name} is over.")
        else:
            self.io.say("Every player passed in a row: the game ends.")
        self.io.lines(self.render.claimed_routes(view))
        self.io.say("")
        self.io.lines(self.render.scoring(state.result()))

    def _leave(self, how: str) -> int:
        messages = {
            "eof": "End of input: saving the game and leaving.",
            "quit": "Saving the game and leaving.",
            "interrupt": "Interrupted: saving the game and leaving.",
        }
        self.io.say("")
        self.io.say(messages.get(how, "Stopping the game: saving it."))
        ok = self.save()
        if how == "interrupt":
            return 130
        return 0 if ok else 1

    def record(self) -> GameRecord:
        """The game record with the terminal's meta (names, agents)."""
        base = self.state.record()
        meta = dict(self.meta)
        meta.update(
            {
                "app": "ttr-nordic terminal",
                "names": [s.name for s in self.seats],
                "agents": [s.level for s in self.seats],
                "finished": self.state.is_over,
                "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        )
        if self.state.is_over:
            result = self.state.result()
            meta["totals"] = list(result.totals)
            meta["winners"] = [self.seats[w].name for w in result.winners]
        return GameRecord(base.config, base.actions, meta)

    def save(self) -> bool:
        """Save the record to ``save_path`` (if any); False when writing failed."""
        if self.save_path is None:
            return True
        try:
            self.record().save(self.save_path)
        except OSError as exc:
            self.io.error(f"Could not save the game to {self.save_path}: {exc}")
            return False
        self.io.say(f"Game record saved to {self.save_path}")
        self.io.say(f"Replay it with: ttr-nordic replay {self.save_path}")
        return True
