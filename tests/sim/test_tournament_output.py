"""What the tournament command prints and where it writes: the ladder's LABEL=SPEC form, the data
folder by default, and tables that fit an 80-column terminal."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ttr_nordic.sim.cli import main as tournament_main
from ttr_nordic.sim.results import load_rows


def test_label_equals_spec_names_a_participant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "my_agents.py"
    source.write_text(
        textwrap.dedent(
            """
            from ttr_nordic.ai.registry import make_agent

            def make_v2(seed):
                return make_agent("route_focus", seed)
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    argv = ["--agents", "v2=my_agents.py:make_v2,rf=route_focus,random", "--players", "3", "--games", "3"]
    assert tournament_main([*argv, "--out", str(tmp_path / "out"), "--no-plots", "-q"]) == 0
    out = capsys.readouterr().out
    rows = load_rows(tmp_path / "out" / "results.sqlite")
    assert {frozenset(row.labels) for row in rows} == {frozenset({"v2", "rf", "random"})}
    assert {frozenset(row.agents) for row in rows} == {frozenset({"my_agents.py:make_v2", "route_focus", "random"})}
    table = out.split("\n\n")[0].splitlines()
    assert sorted(line.split()[0] for line in table[2:]) == ["random", "rf", "v2"]


@pytest.mark.parametrize(
    ("agents", "message"),
    [("bad label=random", "a label is 1-60 letters"), ("x=nobody", "unknown agent 'nobody'")],
)
def test_a_bad_label_or_spec_exits_2(
    agents: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tournament_main(["--agents", agents, "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_outputs_go_to_the_data_folder_and_tables_fit_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    argv = ["--agents", "route_focus,route_focus,one_step", "--players", "3", "--games", "3", "--seed", "4"]
    assert tournament_main([*argv, "--no-plots", "-q"]) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "data" / "ttr-nordic" / "tournaments" / "tournament-4"
    assert (folder / "results.sqlite").is_file() and len(list((folder / "records").iterdir())) == 3
    assert f"results: {folder / 'results.sqlite'}" in out  # says where they went
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
    summary = out.split("\nthroughput:")[0]
    too_wide = [line for line in summary.splitlines() if len(line) > 80]
    assert too_wide == []
    # Per-game figures are not repeated per agent row; times say their unit.
    header = summary.splitlines()[0].split()
    assert "turns" not in header and "route_focus#1" in summary
    assert "mean ms" in summary and "median ms" in summary and "max ms" in summary
    assert "per game: mean " in summary and " turns, " in summary  # once, for all games
