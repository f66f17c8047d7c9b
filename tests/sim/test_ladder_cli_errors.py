"""The ladder command on bad files: one line, exit status 2, and nothing left behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ttr_nordic.sim.ladder_cli import main as ladder_main


def run_ladder(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = ladder_main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(err: str, message: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ttr-nordic ladder: error:") and message in lines[0], err


@pytest.mark.parametrize("command", ["run", "show"])
def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are my notes, not a database\n" * 20, encoding="utf-8")
    extra = ["--agents", "easy,hard", "--games", "1", "-q"] if command == "run" else []
    code, _, err = run_ladder([command, "--db", str(notes), *extra], capsys)
    assert code == 2
    assert_one_line_error(err, f"{notes} is not a ladder file")
    assert notes.read_text(encoding="utf-8").startswith("these are my notes")


def test_another_sqlite_database_is_not_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "results.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE games (id INTEGER)")
    code, _, err = run_ladder(["run", "--db", str(other), "--agents", "easy,hard", "--games", "1", "-q"], capsys)
    assert code == 2
    assert_one_line_error(err, "is not a ladder file (it holds other tables: games)")
    with sqlite3.connect(other) as db:
        assert [row[0] for row in db.execute("SELECT name FROM sqlite_master")] == ["games"]


def test_show_does_not_create_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "typo.sqlite"
    code, _, err = run_ladder(["show", "--db", str(missing)], capsys)
    assert code == 2
    assert_one_line_error(err, f"no ladder at {missing}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("agents", "message"),
    [("easy,no_such_agent", "unknown agent"), ("hard", "at least 2 participants")],
)
def test_a_failed_run_leaves_no_new_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], agents: str, message: str
) -> None:
    db = tmp_path / "new.sqlite"
    code, _, err = run_ladder(["run", "--db", str(db), "--agents", agents, "--games", "1", "-q"], capsys)
    assert code == 2
    assert_one_line_error(err, message)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "no-such-folder" / "ladder.sqlite"
    code, _, err = run_ladder(["run", "--db", str(db), "--agents", "easy,hard", "--games", "1", "-q"], capsys)
    assert code == 2
    assert_one_line_error(err, f"folder {db.parent} does not exist")
    assert not db.parent.exists()


def test_default_file_is_in_the_data_folder_and_show_reports_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, _ = run_ladder(["run", "--agents", "easy,rnd=random", "--games", "2", "-q", "--bootstrap", "5"], capsys)
    expected = tmp_path / "data" / "ttr-nordic" / "ladder.sqlite"
    assert code == 0 and expected.is_file()
    assert f"ladder: {expected}" in out
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
    code, out, err = run_ladder(["show", "--bootstrap", "10"], capsys)
    assert code == 0 and "2-player ladder: 2 games" in out
    assert "10/10 resamples (100%)" in err  # the bootstrap is the slow part: progress on stderr
    assert "pair (A vs B)" in out and "A won" in out and "first won" not in out
    assert max(len(line) for line in out.splitlines() if not line.startswith(("2-player", "ladder:"))) <= 80
