"""The game WebSocket protocol, ``/ws/games/{game_id}?token=SECRET[&seat=N]``.

The server is authoritative: clients send intentions, the server checks them with the
engine, stores them, and sends every connected client its own seat's new state.

Client → server (JSON text frames)::

    {"type": "act", "action": "C R45 OOL"}         # action notation (see engine.actions)
    {"type": "act", "action": "B", "seat": 1}      # hotseat: the seat acting (default: the one shown)
    {"type": "act", "action": "B", "expected": 12} # refused (STALE) unless the game has 12 actions
                                                   # (without "expected": the count of the last state
                                                   # the server wrote to this socket, see below)
    {"type": "view", "seat": 2}                    # hotseat: show another seat's view
    {"type": "view"}                               # the seat shown again, with the whole log
    {"type": "ping"}
    {"type": "hand_over", "seat": 1, "level": "medium"}   # online, seat 0's token: an absent seat to the AI
    {"type": "hand_back", "seat": 1}                      # ... and back to its player, once connected
    {"type": "hint"}                               # games against the computer: what the expert would do

Server → client::

    {"type": "state", "game_id": ..., "seat": n, "seats": [{"seat", "name", "kind", "level"}],
     "actions": <actions so far>, "log_start": k,
     "view": <serialize_view(view of seat n, log_start=k)>,   # view.log: entries k, k+1, ...
     "legal": [{"action": "<notation>", "label": "<readable>"}]}   # empty unless seat n decides
    {"type": "game_over", "game_id": ..., "winners": [names], "result": <scoring breakdown>}
    {"type": "error", "code": "<code>", "message": "<readable>", "action"?: "<notation>"}
    {"type": "presence", "game_id": ..., "present": [seats with a connection now]}
    {"type": "pong"}
    {"type": "hint", "seat": n, "actions": <actions when asked>, "action": "<notation>",
     "why": {"move": {"kind": ..., ...}, "reasons": [{"code": ..., ...}, ...]}}

A ``hint`` is the expert's choice for the seat's decision, searched in an AI worker (never in
the event loop) on that seat's view only, as for a computer seat; it is offered in games
against the computer (``mode`` ``ai``), one at a time per connection. A client drops a hint
whose ``actions`` is not its current count (the game moved on meanwhile). ``why`` (absent if it
could not be worked out) says why, as data the page words (``ai/hints.py`` lists the reason
codes and their parameters).

A ``presence`` message goes to every client of the game that connected with ``presence=1``
when a client connects or leaves (a client tells "left" and "is back" apart by comparing it
with the one before); other clients get none.

A ``state`` message is sent on connect and after every change, to every client of the
game; a hotseat client follows the seat that must act. ``game_over`` follows the last
state (and the first one when joining a finished game). Error codes are an engine
:class:`~ttr_nordic.engine.Reason` name for an illegal action (``NOT_YOUR_TURN``,
``WRONG_COLOR``, …) or one of :data:`PROTOCOL_ERRORS`. An error changes nothing. After
``BAD_TOKEN``, ``GAME_NOT_FOUND`` or ``NOT_YOUR_SEAT`` at connect time the server closes
the socket (codes 4401, 4404, 4403).

An ``act`` refers to a state: the one with ``expected`` actions, or without ``expected`` the last
state the server wrote to this socket before reading the ``act``. It is refused (``STALE``, and
the current state follows) when the game has moved on from that state, so the same click sent
from two tabs, or twice before its answer came, makes one move. A client that sends a move
before the state of its previous move reached it must send ``expected``.

Limits (:mod:`ttr_nordic.server.limits`): a message is at most 4 KiB; a socket may send 60
messages a second (300 at once); a client that lets 500 messages or 4 MiB wait unread is closed
with 4008, and one that keeps flooding with 4029. A browser's socket must come from the server's
own origin, ``--public-url`` or an ``--allowed-origin``.

The log comes in pieces: ``view.log`` holds the entries of seat n's log from index
``log_start`` on, and the client keeps the first ``log_start`` entries it already holds
(dropping any beyond them). ``log_start`` is 0 (the whole log) in the first state after
connecting, in the answer to ``view``, when the seat shown changes, and in the state that
ends the game (the end reveals every hidden entry); otherwise it is the length of the log
the client was last sent, so a state carries only the new entries. Every other field is
whole in every state. A client that gets a ``log_start`` beyond the entries it holds sends
``view`` to get the whole log again.
"""

from __future__ import annotations

from typing import Final

#: Error codes that are not engine reasons, with their meaning.
PROTOCOL_ERRORS: Final = {
    "BAD_MESSAGE": "not a JSON object with a string type, or a field of the wrong type",
    "UNKNOWN_TYPE": "a message type the server does not know",
    "BAD_ACTION": "the action notation cannot be read",
    "BAD_TOKEN": "the token opens no seat of this game",
    "NOT_YOUR_SEAT": "the token does not control that seat",
    "GAME_NOT_FOUND": "no game with that id",
    "STORAGE_ERROR": "the action could not be stored (nothing changed; reconnect)",
    "STALE": "the game moved on since the state the action refers to ('expected', or the last state sent); "
    "the current state follows",
    "RATE_LIMITED": "too many messages from this socket; the message was dropped (a flood is closed with 4029)",
    "TOO_LARGE": "a message over 4 KiB (uvicorn closes such a socket with 1009 before reading it)",
    "CORRUPT_GAME": "the stored game does not replay",
    "SEAT_HANDED_OVER": "the seat was handed to the computer: its token may watch, not act",
    "NOT_CREATOR": "only the game's creator (seat 0's token, online games) may hand a seat over",
    "BAD_SEAT": "that seat cannot be handed over or back (not another player's seat, or the game is over)",
    "SEAT_PRESENT": "that seat's player is connected: only an absent seat can be handed over",
    "SEAT_ABSENT": "that seat's player is not connected: a seat is handed back to a player who is there",
    "HINTS_OFF": "hints are offered in games against the computer only",
    "NO_DECISION": "a hint needs the seat to have a decision to make now",
    "HINT_BUSY": "a hint is being searched for this connection already",
    "HINT_FAILED": "the search for a hint failed (try again)",
}
