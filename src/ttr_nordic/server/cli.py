"""``ttr-nordic serve``: run the server with uvicorn."""

from __future__ import annotations

import argparse


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db "
        "(default: a SQLite file in $XDG_DATA_HOME/ttr-nordic or ~/.local/share/ttr-nordic)",
    )
    parser.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from . import create_app
    except ImportError as exc:
        print(f"the server needs the web extra (pip install 'ttr-nordic[web]'): {exc}")
        return 1
    app = create_app(args.database_url, tune_gc=True)
    print(f"Serving on http://{args.host}:{args.port}/ (database: {app.state.database_url})")
    # No per-message deflate (uvicorn offers it by default, browsers accept it): a state is a
    # few KB now that the log comes in pieces (see protocol.py), and deflating one took about
    # 40 us, some 15% of the server's CPU for a move that sends two.
    uvicorn.run(app, host=args.host, port=args.port, ws_per_message_deflate=False)
    return 0
