"""``ttr-nordic serve`` (run the server with uvicorn) and ``ttr-nordic db`` (its database's schema).

Every ``serve`` option can also be set from the environment, as ``TTR_NORDIC_`` and the option's
name in capitals with underscores (``--database-url`` is ``TTR_NORDIC_DATABASE_URL``); a flag on
the command line wins over the environment, which wins over the default. A bad setting, a
database that cannot be reached or a port in use ends the command with one line saying so.

>>> resolve(Setting("port", "--port", _port, 8000), None, {"TTR_NORDIC_PORT": "8080"})
8080
>>> resolve(Setting("port", "--port", _port, 8000), 9000, {"TTR_NORDIC_PORT": "8080"})
9000
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import logging
import logging.config
import os
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .logs import LOG_FORMATS, LOG_LEVELS, log_config

log = logging.getLogger("ttr_nordic.server")

ENV_PREFIX = "TTR_NORDIC_"


class SettingError(ValueError):
    """A setting (flag or environment variable) this server cannot use; the message is one line."""


class CommandFailed(RuntimeError):
    """The command cannot go on (database unreachable, port in use…): one line, and an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise SettingError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            raise SettingError(f"{value} is not between {low} and {high}" if high else f"{value} is below {low}")
        return value

    return convert


def _seconds(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise SettingError(f"{text!r} is not a number") from None
    if not value > 0:
        raise SettingError(f"{text!r} is not above 0")
    return value


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise SettingError(f"{text!r} is not a yes or no (1/0, true/false, yes/no, on/off)")


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def convert(text: str) -> str:
        value = text.strip().lower()
        if value not in options:
            raise SettingError(f"{text!r} is not one of {', '.join(options)}")
        return value

    return convert


def _public_url(text: str) -> str:
    if not text.startswith(("http://", "https://")):
        raise SettingError(f"{text!r} does not start with http:// or https://")
    return text


def _words(text: str) -> list[str]:
    return [part for part in text.replace(",", " ").split() if part]


def _text(text: str) -> str:
    return text


_port = _whole(1, 65535)


@dataclass(frozen=True, slots=True)
class Setting:
    """A ``serve`` option: its ``argparse`` destination, its flag, how its environment variable's
    text is read, and its default."""

    dest: str
    flag: str
    convert: Callable[[str], Any]
    default: Any

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.dest.upper()


def resolve(setting: Setting, given: Any, environ: Mapping[str, str]) -> Any:
    """The value of ``setting``: the flag's (``given``, None when absent), else its environment
    variable's, else the default; a bad environment value raises :class:`SettingError`."""
    if given is not None:
        return given
    text = environ.get(setting.env)
    if text is None:
        return setting.default
    try:
        return setting.convert(text)
    except SettingError as exc:
        raise SettingError(f"{setting.env}: {exc}") from None


SERVE_SETTINGS = (
    Setting("host", "--host", _text, "127.0.0.1"),
    Setting("port", "--port", _port, 8000),
    Setting("database_url", "--database-url", _text, None),
    Setting("ai_workers", "--ai-workers", _whole(1), None),
    Setting("ray_address", "--ray-address", _text, None),
    Setting("idle_unload", "--idle-unload", _seconds, 600.0),
    Setting("games_per_minute", "--games-per-minute", _seconds, 20.0),
    Setting("public_url", "--public-url", _public_url, None),
    Setting("public_games", "--public-games", _switch, False),
    Setting("allowed_origins", "--allowed-origin", _words, []),
    Setting("header_timeout", "--header-timeout", _seconds, None),
    Setting("log_format", "--log-format", _choice(LOG_FORMATS), "text"),
    Setting("log_level", "--log-level", _choice(LOG_LEVELS), "info"),
    Setting("forwarded_allow_ips", "--forwarded-allow-ips", _text, "127.0.0.1"),
    Setting("smtp_url", "--smtp-url", _text, None),
    Setting("mail_from", "--mail-from", _text, "reminders@localhost"),
    Setting("remind_after", "--remind-after", _seconds, 60.0),
)
_BY_DEST = {setting.dest: setting for setting in SERVE_SETTINGS}


def _env_help(dest: str) -> str:
    return f"; env {_BY_DEST[dest].env}"


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    # Defaults are None here so that an absent flag can be told from a given one (see resolve).
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1" + _env_help("host") + ")")
    parser.add_argument("--port", type=int, help="port to listen on (default 8000" + _env_help("port") + ")")
    parser.add_argument(
        "--database-url",
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db "
        "(default: a SQLite file in $XDG_DATA_HOME/ttr-nordic or ~/.local/share/ttr-nordic"
        + _env_help("database_url")
        + ")",
    )
    parser.add_argument(
        "--ai-workers",
        type=int,
        metavar="N",
        help="processes that run AI decisions (default: one per core but one" + _env_help("ai_workers") + ")",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="run AI decisions as Ray tasks on this cluster (host:port, 'auto', or 'local' to start one here; "
        "needs the cluster extra" + _env_help("ray_address") + ")",
    )
    parser.add_argument(
        "--idle-unload",
        type=float,
        metavar="SECONDS",
        help="games nobody is connected to leave memory after this long (default 600; they stay stored"
        + _env_help("idle_unload")
        + ")",
    )
    parser.add_argument(
        "--games-per-minute",
        type=float,
        metavar="N",
        help="new games each client address may create per minute, 10 at once (default 20"
        + _env_help("games_per_minute")
        + ")",
    )
    parser.add_argument(
        "--public-url",
        help="the address friends use to reach this server, for invite links (default: the address "
        "the creator's browser used), e.g. http://192.168.1.20:8000" + _env_help("public_url"),
    )
    parser.add_argument(
        "--public-games",
        action="store_true",
        default=None,
        help="let anyone list finished games and read their records (default: only each game's players, "
        "and the owner: requests with the header X-Owner-Key set to the environment variable "
        "TTR_NORDIC_OWNER_KEY or TTR_OWNER_KEY" + _env_help("public_games") + "=1)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        dest="allowed_origins",
        metavar="ORIGIN",
        help="another origin whose pages may open game sockets (e.g. https://games.example behind a proxy); "
        "repeatable. The server's own address and --public-url are always allowed"
        + _env_help("allowed_origins")
        + ", separated by commas",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="a client must send a request's headers within this time, or is disconnected (default 10"
        + _env_help("header_timeout")
        + ")",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        help="text, or json: one JSON object per line (default text" + _env_help("log_format") + ")",
    )
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, help="the least level logged (default info" + _env_help("log_level") + ")"
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRS",
        help="proxies trusted to set X-Forwarded-For and X-Forwarded-Proto, comma-separated, or '*' "
        "(default 127.0.0.1: a proxy on this host" + _env_help("forwarded_allow_ips") + ")",
    )
    parser.add_argument(
        "--smtp-url",
        metavar="URL",
        help="where reminder e-mails go: smtp://[user:password@]host[:port], smtps://… or smtp+starttls://… "
        "(default: no e-mail" + _env_help("smtp_url") + ")",
    )
    parser.add_argument(
        "--mail-from",
        metavar="ADDRESS",
        help="the reminders' from-address (default reminders@localhost" + _env_help("mail_from") + ")",
    )
    parser.add_argument(
        "--remind-after",
        type=float,
        metavar="SECONDS",
        help="how long after a turn begins in a turn-based game its absent player is reminded "
        "(default 60" + _env_help("remind_after") + ")",
    )
    parser.set_defaults(func=run_serve)


def serve_settings(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every ``serve`` setting, from ``args`` (flags), else ``environ`` (default ``os.environ``),
    else the default; raises :class:`SettingError` for a value the server cannot use."""
    env = os.environ if environ is None else environ
    values = {s.dest: resolve(s, getattr(args, s.dest, None), env) for s in SERVE_SETTINGS}
    # Flags are checked here too (argparse only made them numbers), with the flag's name.
    for dest in ("port", "ai_workers", "idle_unload", "games_per_minute", "header_timeout", "public_url"):
        given = getattr(args, dest, None)
        if given is not None:
            setting = _BY_DEST[dest]
            try:
                setting.convert(str(given))
            except SettingError as exc:
                raise SettingError(f"{setting.flag}: {exc}") from None
    values["owner_key"] = env.get(ENV_PREFIX + "OWNER_KEY") or env.get("TTR_OWNER_KEY") or None
    return values


def check_port_free(host: str, port: int) -> None:
    """Raise :class:`CommandFailed` when ``host:port`` cannot be listened on (in use, or not an
    address of this machine), before the server starts and fails with a traceback."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CommandFailed(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind(address)
        except OSError as exc:
            raise CommandFailed(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def upgrade_database(url: str, *, check_writes: bool = False) -> str:
    """Check ``url``, reach the database and migrate it to the head (under the migration lock, see
    :func:`ttr_nordic.server.db.migrate`); answers the revision. With ``check_writes``, also refuse
    a database that cannot store moves (read-only). Every failure is a :class:`CommandFailed` with
    one line."""
    from sqlalchemy.exc import SQLAlchemyError

    from .db import (
        DatabaseConfigError,
        DatabaseNotWritable,
        DatabaseTooNew,
        check_database_url,
        check_writable,
        database_error_reason,
        hide_password,
        make_engine,
        migrate,
    )

    try:
        check_database_url(url)
    except DatabaseConfigError as exc:
        raise CommandFailed(str(exc), 2) from None
    engine = make_engine(url)
    try:
        revision = migrate(engine)
        if check_writes:
            check_writable(engine)
        return revision
    except (DatabaseNotWritable, DatabaseTooNew) as exc:
        raise CommandFailed(str(exc)) from None
    except SQLAlchemyError as exc:
        raise CommandFailed(f"cannot use the database {hide_password(url)}: {database_error_reason(exc)}") from None
    finally:
        engine.dispose()


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from . import create_app
        from .db import default_database_url, hide_password
    except ImportError as exc:
        print(f"the server needs the web extra (pip install 'ttr-nordic[web]'): {exc}", file=sys.stderr)
        return 1
    try:
        settings = serve_settings(args)
        logging.config.dictConfig(log_config(settings["log_format"], settings["log_level"]))
        check_port_free(settings["host"], settings["port"])
        url = settings["database_url"] or default_database_url()
        revision = upgrade_database(url, check_writes=True)
    except SettingError as exc:
        print(f"ttr-nordic serve: error: {exc}", file=sys.stderr)
        return 2
    except CommandFailed as exc:
        print(f"ttr-nordic serve: error: {exc}", file=sys.stderr)
        return exc.status
    try:
        app = create_app(
            url,
            tune_gc=True,
            ai_workers=settings["ai_workers"],
            ray_address=settings["ray_address"],
            idle_unload_s=settings["idle_unload"],
            games_per_minute=settings["games_per_minute"],
            warm_ai=True,
            public_games=settings["public_games"],
            public_url=settings["public_url"],
            owner_key=settings["owner_key"],
            allowed_origins=settings["allowed_origins"],
            smtp_url=settings["smtp_url"],
            mail_from=settings["mail_from"],
            remind_after_s=settings["remind_after"],
        )
    except ValueError as exc:  # e.g. an SMTP URL that is not one (SettingsError)
        print(f"ttr-nordic serve: error: {exc}", file=sys.stderr)
        return 2
    host, port = settings["host"], settings["port"]
    log.info("serving on http://%s:%d/ (database: %s at migration %s)", host, port, hide_password(url), revision)
    if host in ("0.0.0.0", "::"):
        log.info("friends on your network open http://<this computer's address>:%d/", port)
    # No per-message deflate (uvicorn offers it by default, browsers accept it): a state is a
    # few KB now that the log comes in pieces (see protocol.py), and deflating one took about
    # 40 us, some 15% of the server's CPU for a move that sends two.
    from .limits import HEADER_TIMEOUT_S, MAX_MESSAGE_BYTES, HeaderTimeoutProtocol, install_log_redaction

    # A fatal signal (SIGBUS from a database file mapped and then made unreadable, say) leaves a
    # traceback in the log rather than a silent exit.
    faulthandler.enable()
    header_timeout = settings["header_timeout"] or HEADER_TIMEOUT_S
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_per_message_deflate=False,
        ws_max_size=MAX_MESSAGE_BYTES,  # larger frames are refused before they are read whole
        ws_max_queue=8,
        # Headers within the timeout, or the connection closes (a slowloris holds nothing for long).
        http=type("Protocol", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout}),
        timeout_keep_alive=max(1, int(header_timeout / 2)),
        server_header=False,
        log_config=None,  # configured above (text or JSON)
        forwarded_allow_ips=settings["forwarded_allow_ips"],
    )
    install_log_redaction()  # after uvicorn configured its loggers: seat tokens never reach the log
    _graceful_server_class()(config).run()
    return 0


def _graceful_server_class() -> type[Any]:
    import uvicorn

    class GracefulServer(uvicorn.Server):
        """uvicorn's server, ending with status 0 after a stop by SIGTERM or SIGINT (uvicorn raises
        the signal again once it has shut down, which kills the process before its exit handlers
        run: the AI pool's queues were then reported leaked, a stray line in a JSON log)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                self._captured_signals.clear()

    return GracefulServer


# ---- ttr-nordic db ---------------------------------------------------------------------------


def add_db_arguments(parser: argparse.ArgumentParser) -> None:
    """``ttr-nordic db upgrade`` and ``ttr-nordic db current``."""
    sub = parser.add_subparsers(dest="db_command", required=True)
    for name, text in (
        ("upgrade", "migrate the database to this version's schema (safe while servers start: one migrates)"),
        ("current", "print the database's migration and this version's head (exit 3 when behind)"),
    ):
        command = sub.add_parser(name, help=text, description=text)
        command.add_argument(
            "--database-url",
            help="SQLAlchemy URL (default: TTR_NORDIC_DATABASE_URL, else the SQLite file serve uses)",
        )
        command.set_defaults(func=run_db)


def _database_url(args: argparse.Namespace) -> str:
    from .db import default_database_url

    given: str | None = args.database_url or os.environ.get(ENV_PREFIX + "DATABASE_URL")
    return given or default_database_url()


def database_status(url: str) -> tuple[str | None, str]:
    """(the database's migration or None when it has no schema, the head of this version); one
    line :class:`CommandFailed` when the database cannot be reached."""
    from sqlalchemy.exc import SQLAlchemyError

    from .db import (
        DatabaseConfigError,
        check_database_url,
        current_revision,
        database_error_reason,
        head_revision,
        hide_password,
        make_engine,
    )

    try:
        check_database_url(url)
    except DatabaseConfigError as exc:
        raise CommandFailed(str(exc), 2) from None
    engine = make_engine(url)
    try:
        return current_revision(engine), head_revision()
    except SQLAlchemyError as exc:
        raise CommandFailed(f"cannot use the database {hide_password(url)}: {database_error_reason(exc)}") from None
    finally:
        engine.dispose()


def run_db(args: argparse.Namespace) -> int:
    try:
        from .db import hide_password, revision_gap
    except ImportError as exc:
        print(f"the database commands need the web extra (pip install 'ttr-nordic[web]'): {exc}", file=sys.stderr)
        return 1
    url = _database_url(args)
    try:
        if args.db_command == "upgrade":
            if not logging.getLogger().handlers:  # Alembic says what it runs (unless a host configured logging)
                logging.config.dictConfig(log_config())
            revision = upgrade_database(url)
            print(f"{hide_password(url)}: at migration {revision} (head)")
            return 0
        current, head = database_status(url)
    except CommandFailed as exc:
        print(f"ttr-nordic db {args.db_command}: error: {exc}", file=sys.stderr)
        return exc.status
    gap = revision_gap(current, head)
    if gap is None:
        print(f"{hide_password(url)}: at migration {current} (head)")
        return 0
    print(f"{hide_password(url)}: {gap}")
    return 3
