"""``ttr-nordic db upgrade`` / ``db current``, ``serve``'s settings from the environment, and the
one-line errors of ``serve`` (a bad URL, a missing folder, an unreachable database, a port in use),
run as real commands."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from ttr_nordic.cli import main
from ttr_nordic.server.cli import SettingError, serve_settings
from ttr_nordic.server.db import head_revision, make_engine

ROOT = Path(__file__).resolve().parents[2]


def _command(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TTR_NORDIC_")}
    return subprocess.run(
        [sys.executable, "-m", "ttr_nordic.cli", *args],
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_db_current_then_upgrade_then_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    head = head_revision()
    assert main(["db", "current", "--database-url", url]) == 3
    assert f"no schema yet (this version's is migration {head}): run ttr-nordic db upgrade" in capsys.readouterr().out
    assert main(["db", "upgrade", "--database-url", url]) == 0
    assert f"at migration {head} (head)" in capsys.readouterr().out
    assert main(["db", "current", "--database-url", url]) == 0
    assert f"at migration {head} (head)" in capsys.readouterr().out
    assert main(["db", "upgrade", "--database-url", url]) == 0  # again: nothing to do, still fine


def test_db_commands_read_the_url_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'env.sqlite'}"
    monkeypatch.setenv("TTR_NORDIC_DATABASE_URL", url)
    assert main(["db", "upgrade"]) == 0
    assert str(tmp_path / "env.sqlite") in capsys.readouterr().out
    assert (tmp_path / "env.sqlite").exists()


def test_db_upgrade_of_a_postgresql_database(postgres_database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "current", "--database-url", postgres_database]) == 3
    assert main(["db", "upgrade", "--database-url", postgres_database]) == 0
    assert main(["db", "current", "--database-url", postgres_database]) == 0
    assert f"at migration {head_revision()} (head)" in capsys.readouterr().out


def _serve_args(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**given)


def test_settings_come_from_flags_then_environment_then_defaults() -> None:
    environ = {
        "TTR_NORDIC_PORT": "8081",
        "TTR_NORDIC_HOST": "0.0.0.0",
        "TTR_NORDIC_DATABASE_URL": "postgresql+psycopg://ttr@db/ttr",
        "TTR_NORDIC_AI_WORKERS": "3",
        "TTR_NORDIC_PUBLIC_GAMES": "yes",
        "TTR_NORDIC_ALLOWED_ORIGINS": "https://a.example, https://b.example",
        "TTR_NORDIC_LOG_FORMAT": "JSON",
        "TTR_NORDIC_PUBLIC_URL": "https://games.example",
        "TTR_NORDIC_OWNER_KEY": "k",
    }
    settings = serve_settings(_serve_args(port=9000, log_format=None), environ)
    assert settings["port"] == 9000  # the flag wins
    assert settings["host"] == "0.0.0.0"
    assert settings["database_url"] == "postgresql+psycopg://ttr@db/ttr"
    assert settings["ai_workers"] == 3
    assert settings["public_games"] is True
    assert settings["allowed_origins"] == ["https://a.example", "https://b.example"]
    assert settings["log_format"] == "json"
    assert settings["public_url"] == "https://games.example"
    assert settings["owner_key"] == "k"
    defaults = serve_settings(_serve_args(), {})
    assert (defaults["host"], defaults["port"], defaults["log_format"], defaults["public_games"]) == (
        "127.0.0.1",
        8000,
        "text",
        False,
    )
    assert defaults["owner_key"] is None


@pytest.mark.parametrize(
    ("environ", "given", "message"),
    [
        ({"TTR_NORDIC_PORT": "eighty"}, {}, "TTR_NORDIC_PORT: 'eighty' is not a whole number"),
        ({"TTR_NORDIC_PORT": "70000"}, {}, "TTR_NORDIC_PORT: 70000 is not between 1 and 65535"),
        ({"TTR_NORDIC_AI_WORKERS": "0"}, {}, "TTR_NORDIC_AI_WORKERS: 0 is below 1"),
        ({"TTR_NORDIC_PUBLIC_GAMES": "maybe"}, {}, "TTR_NORDIC_PUBLIC_GAMES: 'maybe' is not a yes or no"),
        ({"TTR_NORDIC_LOG_FORMAT": "xml"}, {}, "TTR_NORDIC_LOG_FORMAT: 'xml' is not one of text, json"),
        ({"TTR_NORDIC_PUBLIC_URL": "games.example"}, {}, "does not start with http:// or https://"),
        ({}, {"ai_workers": 0}, "--ai-workers: 0 is below 1"),
        ({}, {"port": 0}, "--port: 0 is not between 1 and 65535"),
    ],
)
def test_bad_settings_are_refused_with_their_name(
    environ: dict[str, str], given: dict[str, object], message: str
) -> None:
    with pytest.raises(SettingError) as caught:
        serve_settings(_serve_args(**given), environ)
    assert message in str(caught.value)


def test_serve_refuses_a_bad_setting_from_the_environment() -> None:
    result = _command("serve", env={"TTR_NORDIC_PORT": "eighty"})
    assert result.returncode == 2
    assert _one_line_error(result) == "ttr-nordic serve: error: TTR_NORDIC_PORT: 'eighty' is not a whole number"


def test_serve_refuses_an_unsupported_database_scheme(tmp_path: Path) -> None:
    result = _command("serve", "--port", str(_free_port()), "--database-url", "mysql://ttr:pw@db/games")
    assert result.returncode == 2
    assert "unsupported database URL scheme 'mysql'" in _one_line_error(result)


def test_serve_refuses_a_sqlite_file_in_a_missing_folder(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "games.sqlite"
    result = _command("serve", "--port", str(_free_port()), "--database-url", f"sqlite:///{missing}")
    assert result.returncode == 2
    assert f"does not exist: {missing.parent}" in _one_line_error(result)
    assert not missing.parent.exists()


def test_serve_says_in_one_line_that_the_database_is_unreachable() -> None:
    # Nothing listens on a port just freed: PostgreSQL refuses the connection at once.
    url = f"postgresql+psycopg://ttr:hunter2@127.0.0.1:{_free_port()}/ttr"
    result = _command("serve", "--port", str(_free_port()), env={"TTR_NORDIC_DATABASE_URL": url})
    assert result.returncode == 1
    line = _one_line_error(result)
    assert line.startswith("ttr-nordic serve: error: cannot use the database postgresql+psycopg://ttr:***@127.0.0.1:")
    assert "hunter2" not in result.stderr + result.stdout  # the password never shows


def test_serve_says_in_one_line_that_the_port_is_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _command("serve", "--port", str(port), "--database-url", f"sqlite:///{tmp_path / 'g.sqlite'}")
    assert result.returncode == 1
    line = _one_line_error(result)
    assert line == f"ttr-nordic serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"


def test_serve_says_in_one_line_that_the_database_is_read_only(tmp_path: Path) -> None:
    path = tmp_path / "ro.sqlite"
    assert _command("db", "upgrade", "--database-url", f"sqlite:///{path}").returncode == 0
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    result = _command("serve", "--port", str(_free_port()), "--database-url", read_only)
    assert result.returncode == 1
    assert _one_line_error(result).endswith("cannot store moves: attempt to write a readonly database")


def test_three_upgrades_at_once_of_one_empty_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.sqlite'}"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TTR_NORDIC_")}
    command = [sys.executable, "-m", "ttr_nordic.cli", "db", "upgrade", "--database-url", url]
    processes = [
        subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        for _ in range(3)
    ]
    outputs = [process.communicate(timeout=120)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], outputs
    assert sum("Running upgrade  -> 0001" in output for output in outputs) == 1  # one migrated, two found it done


def test_a_schema_from_a_newer_version_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    url = f"sqlite:///{path}"
    assert _command("db", "upgrade", "--database-url", url).returncode == 0
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    current = _command("db", "current", "--database-url", url)
    assert current.returncode == 3
    assert "at migration 9999, which this version does not know" in current.stdout
    for command in (["db", "upgrade"], ["serve", "--port", str(_free_port())]):
        result = _command(*command, "--database-url", url)
        assert result.returncode == 1
        assert "at migration 9999, which this version does not know" in _one_line_error(result)
