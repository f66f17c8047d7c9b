"""``ttr-nordic serve``: run the server with uvicorn."""

from __future__ import annotations

import argparse
import faulthandler
import os


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db "
        "(default: a SQLite file in $XDG_DATA_HOME/ttr-nordic or ~/.local/share/ttr-nordic)",
    )
    parser.add_argument(
        "--ai-workers",
        type=int,
        default=None,
        metavar="N",
        help="processes that run AI decisions (default: one per core but one)",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="run AI decisions as Ray tasks on this cluster (host:port, 'auto', or 'local' to start one here; "
        "needs the cluster extra)",
    )
    parser.add_argument(
        "--idle-unload",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="games nobody is connected to leave memory after this long (default 600; they stay stored)",
    )
    parser.add_argument(
        "--games-per-minute",
        type=float,
        default=20.0,
        metavar="N",
        help="new games each client address may create per minute, 10 at once (default 20)",
    )
    parser.add_argument(
        "--public-url",
        default=None,
        help="the address friends use to reach this server, for invite links (default: the address "
        "the creator's browser used), e.g. http://192.168.1.20:8000",
    )
    parser.add_argument(
        "--public-games",
        action="store_true",
        help="let anyone list finished games and read their records (default: only each game's players, "
        "and the owner: requests with the header X-Owner-Key set to the environment variable TTR_OWNER_KEY)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="another origin whose pages may open game sockets (e.g. https://games.example behind a proxy); "
        "repeatable. The server's own address and --public-url are always allowed",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a client must send a request's headers within this time, or is disconnected (default 10)",
    )
    parser.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from . import create_app
    except ImportError as exc:
        print(f"the server needs the web extra (pip install 'ttr-nordic[web]'): {exc}")
        return 1
    if args.ai_workers is not None and args.ai_workers < 1:
        print("--ai-workers must be at least 1")
        return 2
    public_url = args.public_url
    if public_url is not None and not public_url.startswith(("http://", "https://")):
        print(f"--public-url must start with http:// or https:// (got {public_url!r})")
        return 2
    app = create_app(
        args.database_url,
        tune_gc=True,
        ai_workers=args.ai_workers,
        ray_address=args.ray_address,
        idle_unload_s=args.idle_unload,
        games_per_minute=args.games_per_minute,
        warm_ai=True,
        public_games=args.public_games,
        public_url=public_url,
        owner_key=os.environ.get("TTR_OWNER_KEY") or None,
        allowed_origins=args.allowed_origin,
    )
    print(f"Serving on http://{args.host}:{args.port}/ (database: {app.state.database_url})")
    if args.host in ("0.0.0.0", "::"):
        print("Friends on your network open http://<this computer's address>:" + str(args.port) + "/")
    # No per-message deflate (uvicorn offers it by default, browsers accept it): a state is a
    # few KB now that the log comes in pieces (see protocol.py), and deflating one took about
    # 40 us, some 15% of the server's CPU for a move that sends two.
    from .limits import HEADER_TIMEOUT_S, MAX_MESSAGE_BYTES, HeaderTimeoutProtocol, install_log_redaction

    # A fatal signal (SIGBUS from a database file mapped and then made unreadable, say) leaves a
    # traceback in the log rather than a silent exit.
    faulthandler.enable()
    header_timeout = args.header_timeout or HEADER_TIMEOUT_S
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        ws_per_message_deflate=False,
        ws_max_size=MAX_MESSAGE_BYTES,  # larger frames are refused before they are read whole
        ws_max_queue=8,
        # Headers within the timeout, or the connection closes (a slowloris holds nothing for long).
        http=type("Protocol", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout}),
        timeout_keep_alive=max(1, int(header_timeout / 2)),
        server_header=False,
    )
    install_log_redaction()  # after uvicorn configured its loggers: seat tokens never reach the log
    uvicorn.Server(config).run()
    return 0
