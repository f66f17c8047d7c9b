"""What keeps one client from slowing or breaking the others: limits, timeouts, headers, redaction.

* :class:`MessageRate`: a token bucket per WebSocket (messages over the rate are refused, a
  client that keeps flooding is dropped).
* :class:`ClientLimits`: per client address, a rate of HTTP requests (429 over it) and a cap
  on open WebSockets.
* :class:`HeaderTimeoutProtocol`: uvicorn's HTTP protocol with a deadline for a request's
  headers (a slowloris client is cut off) and an answer to an over-long request line.
* :class:`SecurityHeaders`: CSP with no inline script, ``nosniff``, ``frame-ancestors``,
  ``Referrer-Policy`` on every HTTP answer.
* :func:`origin_allowed`: the WebSocket's Origin check.
* :class:`RedactSecrets`: a logging filter that keeps seat tokens out of the logs.
* :class:`OneLineClientFaults`: a client's bad input is logged in one line, not a traceback.
* :func:`echo`: the short, always encodable prefix of client input that an error may quote.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: The largest WebSocket message the server reads (a move is a few bytes; checked before parsing).
MAX_MESSAGE_BYTES = 4096
#: Messages a socket may send per second, and at once (a program playing a whole pass-and-play
#: game as fast as it can sends about 180 moves, so the burst lets it; a flood is held to the rate).
MESSAGES_PER_SECOND = 60.0
MESSAGE_BURST = 300
#: Refused messages in a row after which a flooding socket is dropped.
MAX_REFUSED = 500
#: What may wait to be sent to one client before it counts as not reading and is dropped: more
#: than a burst's answers (each message the rate lets through may be answered) and the states of
#: the moves made meanwhile, so a client that reads is never dropped for a burst it was allowed.
MAX_QUEUED_MESSAGES = MESSAGE_BURST + 200
MAX_QUEUED_BYTES = 4 * 1024 * 1024
#: Close codes of this server's own (4000-4999 are the application's).
CLOSE_NOT_READING = 4008
CLOSE_FLOODING = 4029
#: Seconds a client has to send a request's headers.
HEADER_TIMEOUT_S = 10.0
#: The longest request line (method, path and query) answered normally.
MAX_URL_BYTES = 4096
#: The most characters of client input an error message quotes.
ECHO_CHARS = 40

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def echo(text: str) -> str:
    """At most :data:`ECHO_CHARS` characters of ``text``, safe to encode as UTF-8 (a lone
    surrogate, which JSON allows in a string but UTF-8 does not, is written as an escape).

    >>> echo("C R45 OOL")
    'C R45 OOL'
    >>> echo("x" * 100)[-3:], len(echo("x" * 100))
    ('xx…', 41)
    >>> echo(chr(0xD800)).encode()
    b'\\\\ud800'
    """
    short = text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…"
    return short.encode("utf-8", "backslashreplace").decode("utf-8")


def echo_safe(text: str) -> str:
    """``text`` with anything UTF-8 cannot encode (a lone surrogate) written as an escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class MessageRate:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float = MESSAGES_PER_SECOND, burst: int = MESSAGE_BURST) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = time.monotonic()
        self.refused_in_a_row = 0

    def allow(self, now: float | None = None, cost: float = 1.0) -> bool:
        moment = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (moment - self.last) * self.rate)
        self.last = moment
        if self.tokens >= cost:
            self.tokens -= cost
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False


#: HTTP requests one client address may make: to the API (``/api/``, each may replay a game),
#: and to pages and static files (a page load fetches some thirty files at once).
API_REQUESTS_PER_SECOND = 20.0
API_REQUEST_BURST = 100
PAGE_REQUESTS_PER_SECOND = 100.0
PAGE_REQUEST_BURST = 600
#: What a request that replays a whole game (a replay step, the chances) costs, in requests.
REPLAY_COST = 5.0
_REPLAYING = re.compile(r"^/api/games/[^/]+/(replay/[^/]+|chances)$")
#: WebSockets one client address may hold open at once (a browser holds one a tab).
MAX_SOCKETS_PER_ADDRESS = 256
#: Client addresses whose buckets are kept (the longest unseen are forgotten first).
MAX_TRACKED_ADDRESSES = 10_000


class AddressBuckets:
    """A :class:`MessageRate` bucket per client address, the longest unseen forgotten first."""

    def __init__(self, rate: float, burst: int, addresses: int = MAX_TRACKED_ADDRESSES) -> None:
        self.rate = rate
        self.burst = burst
        self.addresses = addresses
        self.buckets: dict[str, MessageRate] = {}

    def allow(self, address: str, now: float | None = None, cost: float = 1.0) -> bool:
        """Whether ``address`` may make one more request (of ``cost`` tokens) now.

        >>> buckets = AddressBuckets(rate=1.0, burst=2)
        >>> [buckets.allow("10.0.0.1", now=0.0) for _ in range(3)], buckets.allow("10.0.0.2", now=0.0)
        ([True, True, False], True)
        >>> buckets.allow("10.0.0.3", now=0.0, cost=5.0)  # more than the burst at once: never
        False
        """
        bucket = self.buckets.pop(address, None)
        if bucket is None:
            bucket = MessageRate(self.rate, self.burst)
            if now is not None:
                bucket.last = now
        self.buckets[address] = bucket  # most recently seen last
        if len(self.buckets) > self.addresses:
            del self.buckets[next(iter(self.buckets))]
        return bucket.allow(now, cost)


class ClientLimits:
    """ASGI middleware: per client address, a rate of HTTP requests (over it: 429 with a
    one-line JSON error and ``Retry-After``) and a cap on open WebSockets (over it: the
    handshake is refused, HTTP 403). The WebSocket's own message rate is :class:`MessageRate`."""

    def __init__(
        self,
        app: Any,
        *,
        api: AddressBuckets | None = None,
        pages: AddressBuckets | None = None,
        sockets_per_address: int = MAX_SOCKETS_PER_ADDRESS,
    ) -> None:
        self.app = app
        self.api = api or AddressBuckets(API_REQUESTS_PER_SECOND, API_REQUEST_BURST)
        self.pages = pages or AddressBuckets(PAGE_REQUESTS_PER_SECOND, PAGE_REQUEST_BURST)
        self.sockets_per_address = sockets_per_address
        self.sockets: dict[str, int] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        if kind == "http":
            path = scope.get("path", "")
            buckets = self.api if path.startswith("/api/") else self.pages
            # Creating a game has a limit of its own (a few a minute): not counted twice.
            creating = path == "/api/games" and scope.get("method") == "POST"
            cost = REPLAY_COST if _REPLAYING.match(path) else 1.0
            if not creating and not buckets.allow(address, cost=cost):
                await _too_many_requests(send, buckets.rate)
                return
            await self.app(scope, receive, send)
            return
        held = self.sockets.get(address, 0)
        if held >= self.sockets_per_address:
            await receive()  # the handshake request (websocket.connect)
            await send({"type": "websocket.close", "code": 1008, "reason": "too many sockets from this address"})
            return
        self.sockets[address] = held + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.sockets[address] - 1
            if left:
                self.sockets[address] = left
            else:
                del self.sockets[address]


async def _too_many_requests(send: Any, rate: float) -> None:
    body = (
        '{"error": {"code": "RATE_LIMITED", "message": "too many requests from this address: '
        f'at most {rate:g} a second, slow down"}}}}'
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", b"1"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def origin_allowed(origin: str | None, host: str | None, allowed: Iterable[str]) -> bool:
    """Whether a WebSocket from ``origin`` may connect: no Origin (not a browser), the
    server's own host, or one of ``allowed`` (origins such as ``https://ttr.example``).

    >>> origin_allowed("http://192.168.1.5:8000", "192.168.1.5:8000", [])
    True
    >>> origin_allowed("https://evil.example", "127.0.0.1:8000", [])
    False
    >>> origin_allowed(None, "127.0.0.1:8000", [])
    True
    """
    if origin is None:
        return True
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc.lower() == (host or "").lower()


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline for each request's headers and an answer
    (400) to a request line over :data:`MAX_URL_BYTES` instead of a dropped connection."""

    header_timeout = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_deadline: asyncio.TimerHandle | None = self.loop.call_later(
            self.header_timeout, self._headers_too_slow
        )

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if getattr(self, "_header_deadline", None) is None:
            self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_URL_BYTES:
            self._cancel_deadline()
            self.send_400_response("Request line too long.")

    def on_headers_complete(self) -> None:
        self._cancel_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def _cancel_deadline(self) -> None:
        deadline = getattr(self, "_header_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


_SECRET_QUERY = re.compile(r"([?&](?:token|seat|key)=)[^&\s\"']*")


def redact(text: str) -> str:
    """``text`` with the values of ``token``, ``seat`` and ``key`` query parameters hidden.

    >>> redact('GET /play/abc?seat=s3cr3t&x=1 HTTP/1.1')
    'GET /play/abc?seat=…&x=1 HTTP/1.1'
    """
    return _SECRET_QUERY.sub(r"\1…", text)


class RedactSecrets(logging.Filter):
    """Rewrites a log record's message with :func:`redact` (uvicorn logs paths with their query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        # Each argument is redacted in place: uvicorn's access formatter unpacks the arguments
        # (client, method, path, version, status), so they must stay a tuple of that shape.
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


#: uvicorn's log messages about a client's bad input that it writes with a traceback: the
#: client is answered already (an invalid UTF-8 text frame gets close 1007), so one line is enough.
CLIENT_FAULTS = ("Invalid UTF-8 sequence received from client",)


class OneLineClientFaults(logging.Filter):
    """Drops the traceback from uvicorn's record of a client's bad input (see
    :data:`CLIENT_FAULTS`), keeping the line and the exception's one-line summary.

    >>> record = logging.LogRecord("uvicorn.error", logging.ERROR, "", 0, CLIENT_FAULTS[0] + ".", None, None)
    >>> record.exc_info = (ValueError, ValueError("bad byte 0xff"), None)
    >>> OneLineClientFaults().filter(record), record.exc_info, record.getMessage()
    (True, None, 'Invalid UTF-8 sequence received from client. (ValueError: bad byte 0xff)')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.msg, str) and record.msg.startswith(CLIENT_FAULTS):
            error = record.exc_info[1]
            if error is not None:
                record.msg = f"{record.msg} ({type(error).__name__}: {echo(str(error))})"
            record.exc_info = None
            record.exc_text = None
        return True


def install_log_redaction() -> None:
    """Keep seat tokens out of uvicorn's access and error logs, and a client's bad input to one
    line there (see :class:`OneLineClientFaults`)."""
    for name in ("uvicorn.access", "uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
        if not any(isinstance(f, OneLineClientFaults) for f in logger.filters):
            logger.addFilter(OneLineClientFaults())
