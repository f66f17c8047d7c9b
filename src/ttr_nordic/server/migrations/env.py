"""Alembic environment: run on the connection handed over by :func:`ttr_nordic.server.db.migrate`,
or on ``sqlalchemy.url`` from an Alembic config."""

from __future__ import annotations

from typing import Any

from alembic import context

from ttr_nordic.server.db import Base, make_engine


def _run(connection: Any) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set sqlalchemy.url or call ttr_nordic.server.db.migrate()")
    with make_engine(url).begin() as conn:
        _run(conn)


try:
    context.config  # noqa: B018 - only there when Alembic runs this file
except (AttributeError, NameError):  # imported by something else (pytest collecting doctests)
    pass
else:
    main()
