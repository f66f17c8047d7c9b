"""Fixtures for the server tests: an app on each storage backend.

``database_url`` is parametrized: a SQLite file in a temporary directory, and a fresh
PostgreSQL database (created for the test on the server named by ``TTR_TEST_POSTGRES_URL``,
dropped afterwards). ``make test`` starts a throwaway PostgreSQL and sets that variable
(``scripts/with-postgres.sh``). Without it the PostgreSQL cases fail when ``CI`` is set,
and are skipped otherwise (with a note on how to run them).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from starlette.testclient import TestClient

from ttr_nordic.server import create_app

POSTGRES_ENV = "TTR_TEST_POSTGRES_URL"
HOW_TO_RUN = (
    f"set {POSTGRES_ENV}=postgresql+psycopg://USER@HOST:PORT/postgres (a server where USER may CREATE DATABASE), "
    "or run them under a throwaway server: scripts/with-postgres.sh .venv/bin/python -m pytest tests/server"
)
BACKENDS = ["sqlite", "postgresql"]


def postgres_admin_url() -> str:
    """The URL of the test PostgreSQL server, or fail (in CI) / skip (locally) without one."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        return url
    message = f"{POSTGRES_ENV} is not set, so the PostgreSQL storage tests cannot run: {HOW_TO_RUN}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test (dropped afterwards); yields its URL."""
    import psycopg
    from psycopg import sql

    admin = make_url(postgres_admin_url())
    name = f"ttr_test_{uuid.uuid4().hex[:16]}"
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL to an empty database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.sqlite'}"
    url: str = request.getfixturevalue("postgres_database")
    return url


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(database_url)) as test_client:
        yield test_client


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    if any(POSTGRES_ENV in str(getattr(report, "longrepr", "")) for report in skipped):
        terminalreporter.write_line(f"PostgreSQL storage tests were skipped ({POSTGRES_ENV} unset). {HOW_TO_RUN}")
