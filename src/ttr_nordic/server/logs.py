"""The server's logs: plain text for a terminal, or one JSON object per line for a log collector.

``ttr-nordic serve --log-format json`` writes each record as ``{"time", "level", "logger",
"message"}``, with ``"request_id"`` and ``"game_id"`` when the record was made while serving a
request (set by :class:`RequestContext`), and ``"exception"`` for a traceback. Secrets never reach
either format: the values of query parameters such as ``token``, ``seat``, ``key`` and
``password`` and the password of a database URL are replaced before a record is written.

>>> import logging
>>> record = logging.LogRecord("ttr", logging.INFO, __file__, 1, "GET /play/g1?seat=%s", ("s3cret",), None)
>>> json.loads(JsonFormatter().format(record))["message"]
'GET /play/g1?seat=…'
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import re
import uuid
from datetime import UTC, datetime
from typing import Any

#: The id of the request being served (from its ``X-Request-ID`` header, or made here).
request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("ttr_request_id", default=None)
#: The game the request is about (``/api/games/ID``, ``/ws/games/ID``, ``/play/ID``…).
game_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("ttr_game_id", default=None)

LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("debug", "info", "warning", "error")

_SECRET_PARAMETER = re.compile(r"(?i)(\b(?:token|seat|key|password|passwd|secret|code|session|csrf)[a-z_]*=)[^&\s\"']+")
_URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@\s]+@")
_GAME_PATH = re.compile(r"^/(?:api/games|ws/games|play|replay)/([A-Za-z0-9_-]{1,64})(?:/|$)")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def scrub(text: str) -> str:
    """``text`` with secrets hidden: query values of secret-looking parameters, URL passwords.

    >>> scrub("GET /x?token=abc&n=1 and postgresql://ttr:pw@db/ttr, password=hunter2")
    'GET /x?token=…&n=1 and postgresql://ttr:***@db/ttr, password=…'
    """
    return _URL_PASSWORD.sub(r"\1***@", _SECRET_PARAMETER.sub(r"\1…", text))


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        request = request_id.get()
        if request is not None:
            entry["request_id"] = request
        game = game_id.get()
        if game is not None:
            entry["game_id"] = game
        if record.exc_info:
            entry["exception"] = scrub(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``time level logger: message`` with secrets hidden, and the request's ids when known."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = scrub(super().format(record))
        ids = [f"{name}={value}" for name, value in (("request", request_id.get()), ("game", game_id.get())) if value]
        return f"{text} [{' '.join(ids)}]" if ids else text


class QuietProbes(logging.Filter):
    """Drops the access-log lines of answered health probes (``GET /healthz`` or ``/readyz``, 200):
    a proxy asks every few seconds. A probe that fails is kept.

    >>> args = ("127.0.0.1:5000", "GET", "/readyz", "1.1", 200)
    >>> record = logging.LogRecord("uvicorn.access", logging.INFO, "", 1, '%s - "%s %s HTTP/%s" %d', args, None)
    >>> QuietProbes().filter(record)
    False
    """

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            _, method, path, _, status = args
            return not (method == "GET" and path in ("/healthz", "/readyz") and status == 200)
        return True


class AlembicNews(logging.Filter):
    """Keeps Alembic's records of migrations run, drops those it makes at every start ("Context
    impl PostgresqlImpl.", "Will assume transactional DDL.")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(("Context impl", "Will assume"))


def log_config(log_format: str = "text", level: str = "info") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for the root logger and uvicorn's loggers (uvicorn takes
    it as ``log_config``), writing ``log_format`` ("text" or "json") records to standard error.

    >>> log_config("json")["formatters"]["main"]["()"].__name__
    'JsonFormatter'
    """
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format must be one of {', '.join(LOG_FORMATS)} (got {log_format!r})")
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)} (got {level!r})")
    formatter = JsonFormatter if log_format == "json" else TextFormatter
    handler = {"class": "logging.StreamHandler", "formatter": "main", "stream": "ext://sys.stderr"}
    uvicorn_logger: dict[str, Any] = {"handlers": ["main"], "level": level.upper(), "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": {"()": formatter}},
        "handlers": {"main": handler},
        "root": {"handlers": ["main"], "level": level.upper()},
        "loggers": {
            **{name: uvicorn_logger for name in ("uvicorn", "uvicorn.error")},
            "uvicorn.access": {**uvicorn_logger, "filters": ["quiet_probes"]},
            # Alembic names each of its plugins and its dialect at every start: not news.
            "alembic.runtime.plugins": {"level": "WARNING"},
            "alembic.runtime.migration": {"filters": ["alembic_news"]},
        },
        "filters": {"alembic_news": {"()": AlembicNews}, "quiet_probes": {"()": QuietProbes}},
    }


class RequestContext:
    """ASGI middleware: sets :data:`request_id` (the client's ``X-Request-ID`` if it is a short
    token, else a new one, echoed in the response) and :data:`game_id` (from the path) while a
    request or WebSocket is served, so every record made meanwhile carries them."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"x-request-id", b"").decode("latin-1")
        rid = given if _REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        match = _GAME_PATH.match(scope.get("path", ""))
        request_token = request_id.set(rid)
        game_token = game_id.set(match.group(1) if match else None)

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(request_token)
            game_id.reset(game_token)
