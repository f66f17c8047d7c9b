"""The playtest's ``report.html``: one self-contained page, with inline CSS and the figures as inline
PNG images (``data:`` URLs). It loads nothing from anywhere and runs no script; links to the kept
game records are relative, so the folder can be moved as a whole.

>>> cell(0.51234), cell(float("nan")), cell(3)
('0.512', '–', '3')
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine import Board
from . import playtest_figures as figs
from .playtest_facts import GameFacts
from .playtest_stats import Row, player_counts

if TYPE_CHECKING:
    from .playtest import PlaytestTables

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2329; background: #f6f4ef;
       margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 12px 20px 48px; }
header { background: #23395b; color: #fff; padding: 18px 20px; }
header h1 { margin: 0 auto; max-width: 1180px; font-size: 24px; }
header p { margin: 4px auto 0; max-width: 1180px; opacity: .85; }
h2 { margin: 32px 0 8px; font-size: 20px; border-bottom: 2px solid #c9b88f; padding-bottom: 4px; }
h3 { margin: 18px 0 6px; font-size: 16px; }
nav { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 10px 0 0; font-size: 14px; }
nav a { color: #23395b; }
section { background: #fff; border-radius: 8px; padding: 4px 18px 14px; margin: 14px 0; box-shadow: 0 1px 3px #0002; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e3e0d8; text-align: right; white-space: nowrap; }
th { background: #efece4; position: sticky; top: 0; }
td:first-child, th:first-child, td.text { text-align: left; }
.scroll { max-height: 420px; overflow: auto; max-width: 100%; }
.wide { overflow-x: auto; max-width: 100%; }
img { max-width: 100%; height: auto; display: block; margin: 8px 0; }
.note { color: #555; font-size: 13px; }
.good { color: #1a6b2f; } .bad { color: #a02020; }
code { background: #efece4; padding: 0 3px; border-radius: 3px; }
@media (max-width: 600px) {
  main { padding: 6px 8px 32px; } section { padding: 2px 10px 10px; } header h1 { font-size: 20px; }
}
"""


def cell(value: Any) -> str:
    """A table cell's text: floats to 3 places, NaN as a dash."""
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.3f}"
    return html.escape(str(value))


def table(rows: Sequence[Row], columns: Sequence[str] | None = None, scroll: bool = False) -> str:
    """``rows`` as an HTML table of ``columns`` (default: every key of the first row)."""
    if not rows:
        return '<p class="note">nothing to show</p>'
    keys = list(columns or rows[0])
    head = "".join(f"<th>{html.escape(k.replace('_', ' '))}</th>" for k in keys)
    body = "".join("<tr>" + "".join(f"<td{_cls(row[k])}>{cell(row[k])}</td>" for k in keys) + "</tr>" for row in rows)
    wrapper = "scroll" if scroll else "wide"
    return f'<div class="{wrapper}"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cls(value: Any) -> str:
    return ' class="text"' if isinstance(value, str) else ""


def image(data: bytes, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}">'


class _Page:
    """The report being built: sections in order, and the figures (saved as PNG files when asked)."""

    def __init__(self, figures: Path | None) -> None:
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.figures = figures

    def section(self, anchor: str, title: str, *body: str) -> None:
        self.toc.append((anchor, title))
        self.parts.append(f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{"".join(body)}</section>')

    def figure(self, name: str, alt: str, draw: Callable[..., bytes], *args: Any) -> str:
        """``draw(*args)`` as an inline image (and as ``<figures>/<name>.png`` when asked)."""
        data = draw(*args)
        if self.figures is not None:
            self.figures.mkdir(parents=True, exist_ok=True)
            (self.figures / f"{name}.png").write_bytes(data)
        return image(data, alt)


def _pivot_special(rows: Sequence[Row]) -> list[Row]:
    """The tunnel, ferry and locomotive counts with one pair of columns per player count."""
    out: dict[str, Row] = {}
    for r in rows:
        line = out.setdefault(r["statistic"], {"statistic": r["statistic"].replace("_", " ")})
        line[f"{r['players']}p total"] = r["total"]
        line[f"{r['players']}p per game"] = r["per_game"]
    return list(out.values())


def _interval(row: Row, key: str = "win_rate", low: str = "low", high: str = "high") -> str:
    return f"{row[key]:.3f} [{row[low]:.3f}, {row[high]:.3f}]"


def render_report(
    settings: dict[str, Any], tables: PlaytestTables, facts: Sequence[GameFacts], board: Board, figures: Path | None
) -> str:
    """The whole page as text."""
    counts = player_counts(facts)
    page = _Page(figures)
    lineup = ", ".join(settings["agents"])
    variant = settings.get("variant", "official")
    games_line = ", ".join(f"{sum(1 for f in facts if f.players == p)} games of {p} players" for p in counts)

    win_rows = [r | {"win rate [95% CI]": _interval(r)} for r in tables.win_rates]
    seat_rows = [
        r
        | {"win rate [95% CI]": _interval(r)}
        | {"advantage over even share": _interval(r, "advantage", "advantage_low", "advantage_high")}
        for r in tables.seats
    ]
    first = [r for r in tables.seats if r["seat"] == 0]
    verdicts = []
    for r in first:
        if r["advantage_low"] > 0:
            word = '<b class="bad">favoured</b>'
        elif r["advantage_high"] < 0:
            word = '<b class="bad">disadvantaged</b>'
        else:
            word = '<b class="good">neither favoured nor disadvantaged</b> (the interval holds the even share)'
        verdicts.append(f"<li>{r['players']} players: the first player wins {_interval(r)}: {word}</li>")
    page.section(
        "wins",
        "Win rates and the first player",
        f"<ul>{''.join(verdicts)}</ul>",
        table(win_rows, ["players", "label", "agent", "games", "wins", "win rate [95% CI]"]),
        table(seat_rows, ["players", "seat", "games", "wins", "win rate [95% CI]", "advantage over even share"]),
        page.figure("win_rates", "win rates", figs.win_rates_figure, tables.win_rates, tables.seats, counts),
        '<p class="note">Wins are win shares: a tie the tie-breaks leave standing splits the win. Seat 0 plays '
        "first; participants rotate through the seats.</p>",
    )
    page.section(
        "scores",
        "Where the points come from",
        table(tables.score_sources),
        page.figure("score_sources", "score sources", figs.score_sources_figure, tables.score_sources, counts),
        '<p class="note">Means per seat played. Tickets lost are the points of kept tickets left incomplete.</p>',
    )
    page.section(
        "length",
        "Game length",
        table(tables.game_lengths),
        page.figure("game_length", "game length", figs.lengths_figure, facts, counts),
    )
    ticket_parts = []
    for p in counts:
        rows = [r for r in tables.tickets if r["players"] == p]
        never = [r["name"] for r in rows if r["offered"] and not r["kept"]]
        ticket_parts.append(f"<h3>{p} players</h3>")
        ticket_parts.append(
            f"<p>Offered but never kept: {html.escape(', '.join(never)) or 'none'}.</p>"
            + page.figure(f"tickets_{p}p", f"tickets at {p} players", figs.tickets_figure, tables.tickets, p)
        )
        ticket_parts.append(table(sorted(rows, key=lambda r: -r["points"]), scroll=True))
    page.section("tickets", "Tickets: dealt, kept, completed, value to the holder", *ticket_parts)

    route_parts = []
    for p in counts:
        rows = [r for r in tables.routes if r["players"] == p]
        games = rows[0]["games"] if rows else 0
        never = [f"{r['route']} {r['name']}" for r in rows if not r["claimed"]]
        contested = sorted(rows, key=lambda r: -(r["decides_ticket"] + r["blocking"]))[:15]
        route_parts += [
            f"<h3>{p} players ({games} games)</h3>",
            page.figure(
                f"routes_{p}p",
                f"routes claimed at {p} players",
                figs.route_maps_figure,
                board,
                [(f"{p} players: share of games with the lane claimed", [r["claim_rate"] for r in rows])],
                "share of games",
            ),
            page.figure(
                f"contention_{p}p",
                f"contention at {p} players",
                figs.route_maps_figure,
                board,
                [
                    ("decides its owner's ticket", [r["decides_ticket"] / r["games"] for r in rows]),
                    ("taken to block", [r["blocking"] / r["games"] for r in rows]),
                ],
                "times per game",
                False,
            ),
            page.figure(
                f"phases_{p}p",
                f"claims by third of the game at {p} players",
                figs.route_maps_figure,
                board,
                figs.phase_panels(tables.routes, p),
                "claims per game",
            ),
            f"<p><b>Never claimed</b> ({len(never)}): {html.escape(', '.join(never)) or 'none'}.</p>",
            "<p>Most contested (deciding a ticket, or taken to block):</p>",
            table(
                contested,
                ["route", "name", "length", "color", "kind", "twin", "claimed", "decides_ticket", "blocking"],
            ),
            "<p>Every lane (each lane of a double route on its own row):</p>",
            table(rows, scroll=True),
        ]
    page.section(
        "routes",
        "Routes: usage by phase and contention",
        '<p class="note">A claimed route <i>decides a ticket</i> when its owner completed a ticket that would fail '
        "without it. A claim <i>blocks</i> when the route lies on a shortest completion of an opponent's incomplete "
        "ticket and on none of the claimer's (true hands and tickets, as a designer sees them). Early, mid and "
        "late are thirds of the game's turns.</p>",
        *route_parts,
    )
    city_parts = []
    for p in counts:
        city_parts.append(
            page.figure(f"cities_{p}p", f"city heat map at {p} players", figs.city_map_figure, board, tables.cities, p)
        )
    city_parts.append(table(sorted(tables.cities, key=lambda r: (r["players"], -r["claims_per_game"])), scroll=True))
    page.section("cities", "Cities", *city_parts)
    page.section(
        "special",
        "Tunnels, ferries and locomotives",
        table(_pivot_special(tables.special_routes)),
        '<p class="note">Tunnel attempts = free (no extra card asked) + paid + declined. Ferry substitutes: groups '
        "of 3 cards standing in for a locomotive or a space. Locomotives spent include tunnel extras.</p>",
    )
    edge_rows = []
    for r in tables.edge_cases:
        links = " ".join(f'<a href="{html.escape(name)}">{html.escape(name)}</a>' for name in r["records"].split())
        edge_rows.append(
            f"<tr><td class='text'>{html.escape(r['description'])}</td><td>{r['games']}</td>"
            f"<td>{r['occurrences']}</td><td class='text'>{links or '–'}</td></tr>"
        )
    page.section(
        "edges",
        "States the rules settle by a convention",
        "<div class='wide'><table><thead><tr><th>state</th><th>games</th><th>times</th><th>records to replay</th>"
        f"</tr></thead><tbody>{''.join(edge_rows)}</tbody></table></div>",
        '<p class="note">Replay a record with <code>ttr-nordic replay FILE</code>.</p>',
    )
    toc = "".join(f'<a href="#{a}">{html.escape(t)}</a>' for a, t in page.toc)
    title = f"Playtest: {html.escape(lineup)}"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{title}</h1><p>{html.escape(games_line)}; rules: {html.escape(str(variant))}; "
        f"seed {settings['seed']}; ttr-nordic {html.escape(str(settings['version']))}</p></header>"
        f"<main><nav>{toc}</nav>{''.join(page.parts)}</main></body></html>\n"
    )


def write_report(
    path: Path,
    settings: dict[str, Any],
    tables: PlaytestTables,
    facts: Sequence[GameFacts],
    board: Board,
    figures: Path | None = None,
) -> None:
    """Write ``report.html`` (and, with ``figures``, each figure as a PNG file there)."""
    path.write_text(render_report(settings, tables, facts, board, figures), encoding="utf-8")
