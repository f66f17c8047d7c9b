"""A game's WebSocket: one session per connection, from the handshake to the close.

:func:`session` checks the token and the seat asked for, joins the client to the live game,
then reads its messages (rate-limited, size-checked, see :mod:`.limits`) and answers each
(see :mod:`.protocol` for the messages); a task of its own writes what the client is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from ..ai.hints import explain
from ..ai.registry import LEVELS
from ..engine import IllegalActionError, NotationError, RecordError
from . import account_routes
from .games import Client, GameService, LiveGame, SeatPresent, StorageError
from .limits import (
    CLOSE_FLOODING,
    CLOSE_NOT_READING,
    MAX_MESSAGE_BYTES,
    MAX_REFUSED,
    MessageRate,
    echo,
    echo_safe,
)
from .serialize import JSON

log = logging.getLogger(__name__)

#: Seconds a dropped client's close frame may take to leave.
CLOSE_FRAME_WAIT_S = 2.0


def _error_message(code: str, message: str, **extra: Any) -> JSON:
    return {"type": "error", "code": code, "message": message, **extra}


async def _refuse(ws: WebSocket, code: str, message: str, close_code: int) -> None:
    await ws.send_json(_error_message(code, message))
    await ws.close(code=close_code)


async def _writer(ws: WebSocket, client: Client) -> None:
    queue = client.queue
    while True:
        message = await queue.get()
        if message is None:
            with contextlib.suppress(Exception):
                if client.dropped:
                    await ws.close(code=CLOSE_NOT_READING, reason="not reading its messages")
                else:
                    await ws.close()
            return
        await ws.send_text(message)
        client.written(message)


async def session(ws: WebSocket, service: GameService, game_id: str) -> None:
    """Serve the accepted WebSocket ``ws`` of game ``game_id`` until it closes."""
    try:
        game = await service.get(game_id)
    except RecordError as exc:
        await _refuse(ws, "CORRUPT_GAME", str(exc), 1011)
        return
    if game is None:
        await _refuse(ws, "GAME_NOT_FOUND", f"no game {game_id!r}", 4404)
        return
    token = ws.query_params.get("token", "")
    seats = game.seats_for(token) if token else frozenset()
    if not seats:  # the seats a signed-in account holds
        seats = await account_routes.account_seats(ws, game)
    if not seats:
        await _refuse(ws, "BAD_TOKEN", "this token does not open a seat in this game", 4401)
        return
    decision = game.state.decision.player
    shown = decision if decision in seats else min(seats)
    wanted = ws.query_params.get("seat")
    if wanted is not None:
        if not (wanted.isascii() and wanted.isdigit()) or int(wanted) not in seats:
            await _refuse(ws, "NOT_YOUR_SEAT", f"this token does not control seat {echo(wanted)!r}", 4403)
            return
        shown = int(wanted)
    address = ws.client.host if ws.client else None
    client = Client(seats, shown, presence=ws.query_params.get("presence") == "1", address=address)
    async with game.lock:
        game.clients.add(client)
        service.joined(game, client)
        game.show(client)
        game.announce_presence()
    writer = asyncio.get_running_loop().create_task(_writer(ws, client))
    rate = MessageRate()
    try:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            if client.dropped:
                break
            if not rate.allow():
                if rate.refused_in_a_row >= MAX_REFUSED:
                    await ws.close(code=CLOSE_FLOODING, reason="too many messages")
                    break
                if rate.refused_in_a_row == 1:
                    client.send(_error_message("RATE_LIMITED", "too many messages: slow down"))
                continue
            text = frame.get("text")
            if text is None:
                client.send(_error_message("BAD_MESSAGE", "messages are JSON text frames"))
                continue
            if len(text) > MAX_MESSAGE_BYTES:  # uvicorn refuses larger frames before this; checked again here
                client.send(_error_message("TOO_LARGE", f"a message is at most {MAX_MESSAGE_BYTES} bytes"))
                continue
            await _handle(service, game, client, text)
    except WebSocketDisconnect:
        pass
    finally:
        service.release(game, client)
        if client.dropped and not writer.done():
            # Its close frame (4008, queued after the dropped messages) says why: let it go out.
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(writer), CLOSE_FRAME_WAIT_S)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


def _seat_field(data: dict[str, Any], client: Client) -> int | str:
    """The seat a message names (default: the one the client is shown), or an error code."""
    if "seat" not in data:
        return client.shown
    seat = data["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool):
        return "BAD_MESSAGE"
    if seat not in client.seats:
        return "NOT_YOUR_SEAT"
    return seat


async def _handle(service: GameService, game: LiveGame, client: Client, text: str) -> None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        client.send(_error_message("BAD_MESSAGE", "not valid JSON"))
        return
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        client.send(_error_message("BAD_MESSAGE", 'a message is a JSON object with a string "type"'))
        return
    kind = data["type"]
    if kind == "ping":
        client.send({"type": "pong"})
        return
    if kind in ("hand_over", "hand_back"):
        await _hand_over(service, game, client, data)
        return
    if kind not in ("act", "view", "hint"):
        client.send(
            _error_message(
                "UNKNOWN_TYPE", f"unknown message type {echo(kind)!r} (act, view, hint, hand_over, hand_back or ping)"
            )
        )
        return
    seat = _seat_field(data, client)
    if seat == "BAD_MESSAGE":
        client.send(_error_message("BAD_MESSAGE", '"seat" must be a seat number'))
        return
    if seat == "NOT_YOUR_SEAT":
        client.send(_error_message("NOT_YOUR_SEAT", f"you do not control seat {echo(str(data['seat']))}"))
        return
    assert isinstance(seat, int)
    if kind == "hint":
        # Searched in a task: the socket keeps reading (and acting) while the expert thinks.
        if game.mode != "ai":
            client.send(_error_message("HINTS_OFF", "hints are offered in games against the computer"))
        elif client.hinting:
            client.send(_error_message("HINT_BUSY", "a hint is on its way already"))
        elif game.state.is_over or game.state.decision.player != seat or game.seats[seat].kind != "human":
            client.send(_error_message("NO_DECISION", f"seat {seat} has no decision to make now"))
        else:
            client.hinting = True
            task = asyncio.get_running_loop().create_task(_hint(service, game, client, seat))
            _hint_tasks.add(task)
            task.add_done_callback(_hint_tasks.discard)
        return
    if kind == "view":
        async with game.lock:
            client.shown = seat
            client.log_seat = -1  # the whole log: the client may have asked because its own is off
            client.send(game.state_text(client))
        return
    if game.seats[seat].kind != "human":
        client.send(_error_message("SEAT_HANDED_OVER", f"seat {seat} is played by the computer now"))
        return
    if not game.state.history and not await account_routes.may_start(service, game):
        client.send(_error_message("WAITING_FOR_ACCOUNTS", account_routes.WAITING_FOR_ACCOUNTS))
        return
    notation = data.get("action")
    if not isinstance(notation, str):
        client.send(_error_message("BAD_MESSAGE", '"act" needs an "action" string in notation, e.g. "B"'))
        return
    expected = data.get("expected")
    if expected is None:
        # Without "expected" an action refers to the last state written to this socket: a second
        # tab's click on the same state (sent before the first tab's move reached it) is STALE,
        # not a second move.
        expected = client.seen_actions
    elif not isinstance(expected, int) or isinstance(expected, bool):
        client.send(_error_message("BAD_MESSAGE", '"expected" must be the number of actions the client saw'))
        return
    shown = echo(notation)
    try:
        action = game.parse(notation)
    except NotationError as exc:
        # The parser's reason quotes the input: only when that is short (a move is a few characters).
        reason = str(exc) if len(notation) <= 64 else "an action is a few characters of notation, such as 'B'"
        client.send(_error_message("BAD_ACTION", echo_safe(reason), action=shown))
        return
    try:
        if not await service.act(game, seat, action, expected):
            if game.seats[seat].kind != "human":  # handed to the computer meanwhile (maybe on another process)
                client.send(
                    _error_message("SEAT_HANDED_OVER", f"seat {seat} is played by the computer now", action=shown)
                )
            else:
                # A stale click (another tab of this seat acted first): refuse, and show the game as it is.
                client.send(_error_message("STALE", "the game moved on since you chose; here it is now", action=shown))
            async with game.lock:
                client.send(game.state_text(client))
    except IllegalActionError as exc:
        client.send(_error_message(exc.reason.name, exc.detail, action=shown))
    except StorageError as exc:
        client.send(_error_message("STORAGE_ERROR", str(exc), action=shown))
        for other in list(game.clients):
            other.send(None)  # close: clients reconnect to the game as stored


#: Hints being searched (a reference, so that a running task is not collected).
_hint_tasks: set[asyncio.Task[None]] = set()
#: The agent a hint asks.
HINT_LEVEL = "expert"


async def _hint(service: GameService, game: LiveGame, client: Client, seat: int) -> None:
    """What the expert would do in ``seat``'s place now: searched in an AI worker on that
    seat's view only, like a computer seat's move; and why, from that view and the ticket plan
    (:func:`~ttr_nordic.ai.hints.explain`, a few milliseconds)."""
    try:
        asked = len(game.state.history)
        view = game.state.view(seat)  # with its log: the opponents' claims tell what they need
        legal = [action.notation() for action in game.state.legal_action_list()]
        # A hint uses its asker's share of the AI workers and waits while games' moves can go.
        owner = client.address or game.id
        notation = await service.ai.decide(
            game.decision_job(seat, HINT_LEVEL), legal, fallback=False, owner=owner, hint=True
        )
        hint: dict[str, Any] = {"type": "hint", "seat": seat, "actions": asked, "action": notation}
        try:
            hint["why"] = explain(view, game.parse(notation)).as_json()
        except Exception as exc:  # the move is still worth showing without its reasons
            log.warning("no reasons for the hint %s in game %s: %s", notation, game.id, exc)
        client.send(hint)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("hint for seat %d of game %s failed: %s", seat, game.id, exc)
        client.send(_error_message("HINT_FAILED", "no hint this time: try again"))
    finally:
        client.hinting = False


async def _hand_over(service: GameService, game: LiveGame, client: Client, data: dict[str, Any]) -> None:
    """``{"type": "hand_over", "seat": n, "level": "medium"}``: the game's creator (the
    holder of seat 0's token, in an online game) gives a seat whose player has gone away
    (no connection now) to the computer. ``{"type": "hand_back", "seat": n}``: the creator
    gives such a seat back to its player, once that player is connected again."""
    back = data["type"] == "hand_back"
    seat, level = data.get("seat"), data.get("level")
    if not isinstance(seat, int) or isinstance(seat, bool) or (not back and not isinstance(level, str)):
        client.send(
            _error_message("BAD_MESSAGE", f'"{data["type"]}" needs a seat number' + ("" if back else " and a level"))
        )
        return
    if not back and level not in LEVELS:
        client.send(_error_message("BAD_MESSAGE", f"level must be one of {', '.join(LEVELS)}"))
        return
    if game.mode != "online" or 0 not in client.seats:
        client.send(_error_message("NOT_CREATOR", "only the game's creator can hand a seat over or back"))
        return
    if not 0 <= seat < len(game.seats) or seat in client.seats:
        client.send(_error_message("BAD_SEAT", f"seat {seat} is not another player's seat"))
        return
    present = await service.seat_present(game, seat)  # connected here or to another server process
    if not back and present:
        client.send(_error_message("SEAT_PRESENT", f"{game.seats[seat].name} is connected: only an absent seat"))
        return
    if back and not present:
        client.send(_error_message("SEAT_ABSENT", f"{game.seats[seat].name} is not connected: nobody to give it to"))
        return
    try:
        if back:
            await service.hand_back(game, seat)
        else:
            assert isinstance(level, str)
            await service.hand_over(game, seat, level)
    except SeatPresent:  # its player connected meanwhile (maybe to another server process)
        client.send(_error_message("SEAT_PRESENT", f"{game.seats[seat].name} is connected: only an absent seat"))
    except ValueError as exc:
        client.send(_error_message("BAD_SEAT", str(exc)))
    except StorageError as exc:
        client.send(_error_message("STORAGE_ERROR", str(exc)))
