"""The action-id and observation layouts as Markdown tables, built from the code's own constants.

``docs/rl.md`` holds these tables between ``<!-- layout:NAME -->`` and ``<!-- /layout:NAME -->``
markers; a test checks that they are what this module makes, so the documentation cannot drift
from the code. ``python -m ttr_nordic.rl.layout docs/rl.md`` rewrites them in place.

>>> print(observation_table().splitlines()[2])
| 0–242 | 243 | route owner | one-hot owner of each of the 81 routes by relative seat (route r: r×3 + seat) |
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .actions import _EXTRA_KEYS, NUM_KEEP, OVERFLOW, action_space
from .observation import (
    DISPLAY_START,
    FINAL_START,
    HAND_START,
    KNOWN_START,
    NUM_KINDS,
    NUM_ROUTES,
    NUM_TICKETS,
    OFFER_START,
    PHASE_START,
    PHASES,
    PILES_START,
    ROUTES_END,
    SEATS,
    SEATS_START,
    SIZE,
    TICKETS_START,
    TUNNEL_START,
    TURN_START,
)
from .openspiel_observer import (
    ACTION_TYPES,
    INFO_STATE_SIZE,
    PRIVATE_HISTORY_SIZE,
    PRIVATE_INDEX,
    PUBLIC_HISTORY_SIZE,
    PUBLIC_INDEX,
    SEAT_HISTORY,
)


def _row(start: int, length: int, *cells: str) -> str:
    ids = str(start) if length == 1 else f"{start}–{start + length - 1}"
    return "| " + " | ".join((ids, f"{length:,}", *cells)) + " |"


def action_table() -> str:
    """The action ids, block by block."""
    space = action_space()
    overflow = next(i for i, key in enumerate(space.claim_keys) if key[1] == OVERFLOW)
    rows = [
        "| ids | count | block | one id means |",
        "|---|---|---|---|",
        _row(space.face_up, space.blind - space.face_up, "face-up draw", "take the card in face-up slot 0–4"),
        _row(space.blind, 1, "blind draw", "take the top card of the draw pile"),
        _row(space.tickets, 1, "ticket draw", "draw destination tickets"),
        _row(
            space.keep,
            NUM_KEEP,
            "keep tickets",
            "keep a non-empty subset of the offer: bit i of (id − keep start + 1) is the i-th offered ticket by id",
        ),
        _row(space.decline, 1, "decline tunnel", "give up the tunnel claim"),
        _row(space.pass_, 1, "pass", "legal only when nothing else is"),
        _row(
            space.extra,
            space.claim - space.extra,
            "tunnel extra",
            "pay (total, of them locomotives) extra cards, in this order: "
            + " ".join(f"({total},{locos})" for total, locos in _EXTRA_KEYS),
        ),
        _row(
            space.claim,
            overflow,
            "claim",
            "a route with a payment structure (main color, locomotives, total); `action_space().describe(id)` names it",
        ),
        _row(
            space.claim + overflow,
            len(space.claim_keys) - overflow,
            "claim overflow",
            "a gray ferry or Murmansk–Lieksa payment whose main color's id another legal payment holds",
        ),
    ]
    return "\n".join(rows) + f"\n\n{space.size:,} ids in all (`action_space().size`)."


def observation_table() -> str:
    """The observation vector's offsets."""
    k = NUM_KINDS
    phases = ", ".join(p.name.lower() for p in PHASES)
    rows = [
        "| offsets | length | part | contents (scale) |",
        "|---|---|---|---|",
        _row(
            0,
            ROUTES_END,
            "route owner",
            f"one-hot owner of each of the {NUM_ROUTES} routes by relative seat (route r: r×{SEATS} + seat)",
        ),
        _row(HAND_START, k, "own hand", "own cards by kind P W U Y O K R G L (/12) — private"),
        _row(KNOWN_START, DISPLAY_START - KNOWN_START, "known cards", "cards seats 1 and 2 are known to hold (/12)"),
        _row(DISPLAY_START, PILES_START - DISPLAY_START, "display", "one-hot kind per face-up slot (slot×9 + kind)"),
        _row(PILES_START, 1, "draw pile", "cards in the draw pile (/157)"),
        _row(PILES_START + 1, k, "discard", "discard pile by kind (/12)"),
        _row(PILES_START + 1 + k, 1, "ticket pile", f"tickets in the pile (/{NUM_TICKETS})"),
        _row(
            TICKETS_START,
            OFFER_START - TICKETS_START,
            "own tickets",
            "per ticket t: held at 2t, completed by own routes now at 2t+1 — private",
        ),
        _row(OFFER_START, NUM_TICKETS, "offer", "tickets offered to this player now — private"),
        _row(
            SEATS_START,
            PHASE_START - SEATS_START,
            "per seat",
            "relative seat s at +5s: trains (/40), score (/100), hand size (/40),"
            f" tickets (/{NUM_TICKETS}), offered (/5)",
        ),
        _row(PHASE_START, len(PHASES), "phase", f"one-hot: {phases}"),
        _row(TURN_START, SEATS, "to decide", "one-hot relative seat to decide"),
        _row(FINAL_START, 2, "final round", "started; turns left (/3)"),
        _row(TUNNEL_START, k, "tunnel base", "pending tunnel's base payment by kind (/12)"),
        _row(TUNNEL_START + k, k, "tunnel revealed", "revealed cards by kind (/3)"),
        _row(TUNNEL_START + 2 * k, 2, "tunnel need", "extra cards needed (/3); locomotives only"),
    ]
    return "\n".join(rows) + f"\n\n{SIZE} float32 values (`ttr_nordic.rl.observation.SIZE`)."


def information_state_table() -> str:
    """OpenSpiel's observer pieces and the information-state tensor's history offsets."""
    types = ", ".join(t.__name__ for t in ACTION_TYPES)
    rows = [
        "| offsets | length | piece | contents (scale) |",
        "|---|---|---|---|",
        _row(0, SIZE, "observation", "the observation vector above"),
        _row(
            SIZE,
            PUBLIC_HISTORY_SIZE - 1,
            "public history",
            f"relative seat s at +{SEAT_HISTORY}s: actions taken by type ({types}; /50),"
            " face-up cards taken by kind (/12)",
        ),
        _row(SIZE + PUBLIC_HISTORY_SIZE - 1, 1, "turns", "turns played (/100)"),
        _row(SIZE + PUBLIC_HISTORY_SIZE, NUM_KINDS, "own blind draws", "cards drawn blind by kind (/12) — private"),
        _row(
            SIZE + PUBLIC_HISTORY_SIZE + NUM_KINDS,
            PRIVATE_HISTORY_SIZE - NUM_KINDS,
            "returned tickets",
            "tickets this player was offered and returned — private",
        ),
    ]
    return (
        "\n".join(rows)
        + f"\n\n{INFO_STATE_SIZE} values. Public-only observers: the {len(PUBLIC_INDEX)} public values of the"
        f" observation (in order), then the public history ({PUBLIC_HISTORY_SIZE}) with perfect recall; private-only:"
        f" the {len(PRIVATE_INDEX)} private values, then the private history ({PRIVATE_HISTORY_SIZE})."
    )


TABLES = {"actions": action_table, "observation": observation_table, "information-state": information_state_table}


def rewrite(text: str) -> str:
    """``text`` with every marked table replaced by the current one."""
    for name, make in TABLES.items():
        pattern = re.compile(rf"(<!-- layout:{name} -->\n).*?(\n<!-- /layout:{name} -->)", re.S)
        if not pattern.search(text):
            raise ValueError(f"no <!-- layout:{name} --> block")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(2), text)  # type: ignore[misc]
    return text


def main(argv: list[str]) -> int:
    """Rewrite the tables of the Markdown files named in ``argv``."""
    if not argv:
        print("usage: python -m ttr_nordic.rl.layout FILE.md ...", file=sys.stderr)
        return 2
    for name in argv:
        path = Path(name)
        path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
