"""Text for the terminal: board status from a player's view, routes, actions, scoring.

Everything here formats what the engine already decided; nothing re-implements
a rule. Player-facing status is built from a :class:`PlayerView` only.

>>> from ttr_nordic.engine import load_board
>>> board = load_board()
>>> region_of(board, board.route_by_code("R45"))
'NO'
>>> region_label("NO"), region_label("NO–SE")
('Norway (NO)', 'NO–SE')
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Final

from ..engine import (
    CARD_NAMES,
    Action,
    Board,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    GameResult,
    KeepTickets,
    Pass,
    PayTunnelExtra,
    PlayerView,
    PublicLogEntry,
    Route,
    RouteKind,
)
from .boardmap import board_map, map_legend
from .console import TerminalIO

COUNTRY_ORDER: Final = ("NO", "SE", "FI", "DK", "EE", "RU")
COUNTRY_NAMES: Final = {
    "NO": "Norway",
    "SE": "Sweden",
    "FI": "Finland",
    "DK": "Denmark",
    "EE": "Estonia",
    "RU": "Russia",
}
WIDTH: Final = 100


def _country_rank(code: str) -> int:
    return COUNTRY_ORDER.index(code) if code in COUNTRY_ORDER else len(COUNTRY_ORDER)


def region_of(board: Board, route: Route) -> str:
    """The route's country code, or ``"A–B"`` for a cross-border route."""
    a = board.cities[route.a].country
    b = board.cities[route.b].country
    if a == b:
        return a
    first, second = sorted((a, b), key=lambda c: (_country_rank(c), c))
    return f"{first}–{second}"


def region_key(region: str) -> tuple[int, tuple[int, ...], str]:
    parts = region.split("–")
    return (len(parts), tuple(_country_rank(p) for p in parts), region)


def region_label(region: str) -> str:
    name = COUNTRY_NAMES.get(region)
    return f"{name} ({region})" if name else region


def kind_text(route: Route) -> str:
    """The route's type in words (empty for a regular route)."""
    if route.kind is RouteKind.FERRY:
        return f"ferry ({route.ferry_locomotives} loco)"
    if route.kind is RouteKind.TUNNEL:
        return "tunnel"
    if route.kind is RouteKind.SPECIAL:
        return f"special ({route.group} cards pay 1 space)"
    return ""


class Renderer:
    """Formats game objects for one terminal, with the players' names."""

    def __init__(self, io: TerminalIO, board: Board, names: Sequence[str], path_bonus: int = 0) -> None:
        self.io = io
        self.board = board
        self.names = list(names)
        self.path_bonus = path_bonus  # the variant's longest-path bonus (none in the official rules)

    def board_map(self, view: PlayerView) -> list[str]:
        """A map of the board from its city positions, owned routes drawn with the seat number."""
        owners = ", ".join(f"{q + 1} = {self.name(q)}" for q in range(view.num_players))
        return [
            self.heading("Map"),
            *board_map(self.board, view.route_owner),
            f"Routes: . free, {owners}",
            *map_legend(self.board),
        ]

    # ------------------------------------------------------------ small bits

    def name(self, player: int) -> str:
        return self.io.paint(self.names[player], f"seat{player % 3}")

    def card(self, card: int) -> str:
        if card < 0:
            return "(empty)"
        return self.io.paint(CARD_NAMES[card], CARD_NAMES[card])

    def cards(self, counts: Sequence[int], sep: str = ", ") -> str:
        """A multiset in words: ``'2 orange, 1 locomotive'`` (``'none'`` when empty)."""
        parts = [f"{counts[k]} {self.card(k)}" for k in range(len(counts)) if counts[k]]
        return sep.join(parts) if parts else "none"

    def payment(self, counts: Sequence[int]) -> str:
        """A payment in words: ``'2 orange + 1 locomotive'``."""
        return self.cards(counts, " + ").replace("none", "nothing")

    def card_list(self, cards: Sequence[int]) -> str:
        return ", ".join(self.card(c) for c in cards) if cards else "nothing"

    def heading(self, text: str) -> str:
        return self.io.paint(f"=== {text} ===", "heading")

    def route_text(self, route: Route) -> str:
        """``'R45 Kristiansand–Stavanger · 3 orange ferry (1 loco) · 4 pts'``."""
        color = self.io.paint(route.color_name, route.color_name)
        kind = kind_text(route)
        spec = f"{route.length} {color}" + (f" {kind}" if kind else "")
        return f"{route.code} {route.name} · {spec} · {_plural(route.points, 'pt')}"

    def log_text(self, entry: PublicLogEntry) -> str:
        """A log line with the player's name instead of ``Player N``."""
        prefix = f"Player {entry.player + 1}"
        text = entry.text
        if text.startswith(prefix) and 0 <= entry.player < len(self.names):
            text = self.name(entry.player) + text[len(prefix) :]
        return text

    def wrap(self, label: str, items: Sequence[str], indent: int = 4) -> list[str]:
        """``label`` then the items, comma-separated and wrapped (by visible width when colored)."""
        if not items:
            return [f"{label} none"]
        if self.io.color:  # ANSI codes would confuse textwrap: one item per chunk
            lines: list[str] = []
            current = label
            visible = len(label)
            for item in items:
                width = len(_strip_ansi(item)) + 2
                if visible + width > WIDTH and current.strip():
                    lines.append(current.rstrip(", "))
                    current, visible = " " * indent, indent
                current += item + ", "
                visible += width
            lines.append(current.rstrip(", "))
            return lines
        return textwrap.wrap(
            label + " " + ", ".join(items),
            width=WIDTH,
            subsequent_indent=" " * indent,
            break_on_hyphens=False,
        )

    # ----------------------------------------------------------------- views

    def players_table(self, view: PlayerView, you: int | None) -> list[str]:
        width = max(6, *(len(n) for n in self.names))
        lines = [f"  {'Player':<{width}}  Score  Trains  Cards  Tickets"]
        for q in range(view.num_players):
            marker = ">" if q == view.current and view.phase.name != "GAME_OVER" else " "
            padded = self.names[q].ljust(width)
            row = (
                f"{marker} {self.io.paint(padded, f'seat{q % 3}')}  {view.scores[q]:>5}  {view.trains[q]:>6}"
                f"  {view.hand_sizes[q]:>5}  {view.ticket_counts[q]:>7}"
            )
            if q == you:
                row += "  (you)"
            elif you is not None and any(view.known_cards[q]):
                row += f"  known to hold: {self.cards(view.known_cards[q])}"
            lines.append(row)
        return lines

    def claimed_routes(self, view: PlayerView) -> list[str]:
        groups: dict[str, list[str]] = {}
        for rid, owner in enumerate(view.route_owner):
            if owner >= 0:
                route = self.board.routes[rid]
                groups.setdefault(region_of(self.board, route), []).append(
                    f"{route.name} {route.length} ({self.name(owner)})"
                )
        if not groups:
            return ["Claimed routes: none yet"]
        lines = [f"Claimed routes ({sum(len(g) for g in groups.values())}):"]
        for region in sorted(groups, key=region_key):
            lines.extend(self.wrap(f"  {region_label(region) + ':':<14}", sorted(groups[region]), indent=17))
        return lines

    def display_line(self, view: PlayerView) -> str:
        slots = "  ".join(f"{slot + 1}:{self.card(card)}" for slot, card in enumerate(view.display))
        return f"Face-up cards: {slots}"

    def piles_line(self, view: PlayerView) -> str:
        return (
            f"Draw pile: {_plural(view.deck_count, 'card')} · discard pile: {_plural(sum(view.discard), 'card')}"
            f" · ticket deck: {_plural(view.ticket_deck_count, 'ticket')}"
        )

    def hand_line(self, view: PlayerView, label: str = "Your hand") -> str:
        return f"{label} ({_plural(sum(view.hand), 'card')}): {self.cards(view.hand)}"

    def ticket_lines(self, view: PlayerView, label: str = "Your tickets") -> list[str]:
        status = view.ticket_status()
        if not status:
            return [f"{label}: none yet"]
        done = sum(1 for _, ok in status if ok)
        lines = [f"{label} ({done} of {len(status)} completed):"]
        for ticket_id, ok in status:
            ticket = self.board.tickets[ticket_id]
            mark = self.io.paint("[x] completed", "ok") if ok else "[ ] open     "
            lines.append(f"  {mark}  {ticket.name} ({ticket.points} pts)")
        return lines

    def final_round_line(self, view: PlayerView) -> str | None:
        if view.final_turns_left < 0 or view.phase.name == "GAME_OVER":
            return None
        trigger = self.names[view.final_round_trigger] if view.final_round_trigger >= 0 else "someone"
        text = f"FINAL ROUND: {view.final_turns_left} turn(s) left (started by {trigger})"
        return self.io.paint(text, "warn")

    def recent_moves(self, view: PlayerView, count: int) -> list[str]:
        if count <= 0 or not view.log:
            return []
        return ["Recent moves:"] + [f"  {self.log_text(entry)}" for entry in view.log[-count:]]

    @staticmethod
    def round_of(view: PlayerView, turn: int) -> int:
        """The round (every player has one turn a round) of turn ``turn`` (0-based): a player
        sees 1, 2, 3 on their own turns, never 1, 3, 5."""
        return max(0, turn) // view.num_players + 1

    def turn_header(self, view: PlayerView) -> str:
        if view.phase.name == "GAME_OVER":
            return self.heading(f"Round {self.round_of(view, view.turn - 1)} · game over")
        who = self.names[view.current]
        return self.heading(f"Round {self.round_of(view, view.turn)} · {who}: {view.phase.text(view.variant)}")

    def status(self, view: PlayerView, recent: int = 6, label: str = "Your") -> list[str]:
        """The whole board as ``view.player`` sees it."""
        lines = [self.turn_header(view), *self.players_table(view, view.player)]
        final = self.final_round_line(view)
        if final:
            lines.append(final)
        lines += self.claimed_routes(view)
        lines += [self.display_line(view), self.piles_line(view), self.hand_line(view, f"{label} hand")]
        lines += self.ticket_lines(view, f"{label} tickets")
        lines += self.tunnel_lines(view, view.player)
        lines += self.recent_moves(view, recent)
        return lines

    def compact_status(self, view: PlayerView) -> list[str]:
        """Just the cards: for a decision in the middle of a turn."""
        return [self.display_line(view), self.piles_line(view), self.hand_line(view)]

    def full_status(self, views: Sequence[PlayerView]) -> list[str]:
        """Everything, for reviewing a game: one view per player (``views[q].player == q``)."""
        first = views[0]
        lines = [self.turn_header(first), *self.players_table(first, None)]
        final = self.final_round_line(first)
        if final:
            lines.append(final)
        lines += self.claimed_routes(first)
        lines += [self.display_line(first), self.piles_line(first)]
        for view in views:
            who = self.names[view.player]
            lines.append(self.io.paint(f"-- {who} --", f"seat{view.player % 3}"))
            lines.append("  " + self.hand_line(view, "Hand"))
            for line in self.ticket_lines(view, "Tickets"):
                lines.append("  " + line)
            if view.offered_tickets:
                offered = [
                    f"{self.board.tickets[t].name} ({self.board.tickets[t].points})" for t in view.offered_tickets
                ]
                lines.extend(self.wrap("  Choosing among:", offered, indent=4))
        if first.tunnel is not None:
            lines += self.tunnel_lines(first, None)
        return lines

    def tunnel_lines(self, view: PlayerView, you: int | None) -> list[str]:
        tunnel = view.tunnel
        if tunnel is None:
            return []
        route = self.board.routes[tunnel.route]
        who = "You" if you == view.current else self.names[view.current]
        if tunnel.locomotive_only:
            wanted = f"{tunnel.needed} locomotive(s)"
        else:
            wanted = f"{tunnel.needed} more {self.card(tunnel.color)} or locomotive card(s)"
        return [
            f"Tunnel {route.name}: {who} put down {self.payment(tunnel.base)}.",
            f"Revealed from the deck: {self.card_list(tunnel.revealed)}.",
            self.io.paint(f"To complete the claim: pay {wanted}, or decline.", "warn"),
        ]

    # --------------------------------------------------------------- actions

    def action_label(self, action: Action, view: PlayerView) -> str:
        """A menu line for one legal action."""
        if isinstance(action, DrawFaceUp):
            return f"Take face-up card {action.slot + 1}: {self.card(view.display[action.slot])}"
        if isinstance(action, DrawBlind):
            return "Draw the top card of the draw pile (blind)"
        if isinstance(action, DrawTickets):
            return f"Draw destination tickets ({view.ticket_deck_count} left in the ticket deck)"
        if isinstance(action, Claim):
            return f"Pay {self.payment(action.payment)}"
        if isinstance(action, PayTunnelExtra):
            return f"Pay {self.payment(action.cards)} extra and claim the tunnel"
        if isinstance(action, DeclineTunnel):
            if view.tunnel is not None:
                return f"Decline: take back {self.payment(view.tunnel.base)}; the route stays free"
            return "Decline the tunnel"
        if isinstance(action, KeepTickets):
            return "Keep " + ", ".join(self.board.tickets[t].name for t in action.tickets)
        if isinstance(action, Pass):
            return "Pass (nothing else is possible)"
        return action.notation()

    # --------------------------------------------------------------- scoring

    def scoring(self, result: GameResult) -> list[str]:
        lines = [self.heading("Final scoring")]
        width = 44
        for pr in result.players:
            lines.append(self.name(pr.player))
            lines.append(f"  {'Route points':<{width}}{pr.route_points:>5}")
            for ticket in pr.tickets:
                sign = "+" if ticket.completed else "-"
                what = "completed" if ticket.completed else "not completed"
                label = f"{sign} {ticket.name} ({what})"
                lines.append(f"  {label:<{width}}{ticket.value:>5}")
            label = "Globetrotter bonus" + (" (most completed tickets)" if pr.globetrotter else "")
            lines.append(f"  {label:<{width}}{pr.globetrotter:>5}")
            if pr.longest_path_bonus:
                lines.append(f"  {'Longest path bonus':<{width}}{pr.longest_path_bonus:>5}")
            lines.append(f"  {'Total':<{width}}{pr.total:>5}")
            tie_break = ", used only to break ties" if not self.path_bonus else ""
            lines.append(
                f"  (tickets completed: {pr.tickets_completed} of {len(pr.tickets)};"
                f" longest path: {pr.longest_path} trains{tie_break})"
            )
        lines.append("")
        lines.append("Standings:")
        ranked = sorted(result.players, key=lambda p: -p.total)
        for rank, pr in enumerate(ranked, 1):
            lines.append(f"  {rank}. {self.names[pr.player]:<20} {pr.total:>5}")
        lines.append(self.io.paint(self.winner_text(result), "bold"))
        return lines

    def winner_text(self, result: GameResult) -> str:
        players = result.players
        best = max(p.total for p in players)
        tied = [p for p in players if p.total == best]
        winners = [players[w] for w in result.winners]
        names = _join([self.names[w.player] for w in winners])
        tied_names = _join([self.names[p.player] for p in tied])
        if result.decided_by == "score":
            return f"Winner: {names} with {best} points."
        if result.decided_by == "tickets":
            return (
                f"{tied_names} tied on {best} points; {names} wins with the most completed tickets"
                f" ({winners[0].tickets_completed})."
            )
        if result.decided_by == "longest path":
            return (
                f"{tied_names} tied on {best} points and completed tickets; {names} wins with the longest path"
                f" ({winners[0].longest_path} trains)."
            )
        first = winners[0]
        return (
            f"{names} share the victory: tied on {best} points, {first.tickets_completed} completed tickets"
            f" and a longest path of {first.longest_path} trains."
        )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _strip_ansi(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        if text[i] == "\033":
            end = text.find("m", i)
            i = len(text) if end < 0 else end + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def columns(items: Sequence[str], width: int = WIDTH) -> list[str]:
    """Lay short items out in columns (plain text)."""
    if not items:
        return []
    cell = max(len(i) for i in items) + 3
    per_line = max(1, width // cell)
    rows = (len(items) + per_line - 1) // per_line
    lines = []
    for r in range(rows):
        row = [items[c * rows + r] for c in range(per_line) if c * rows + r < len(items)]
        lines.append("".join(item.ljust(cell) for item in row).rstrip())
    return lines
