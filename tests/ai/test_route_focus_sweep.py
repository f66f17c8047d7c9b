"""benchmarks/route_focus_sweep.py, small: every variant plays and the table has a row each."""

from __future__ import annotations

from benchmark_script import run_benchmark


def test_sweep_prints_a_row_per_variant() -> None:
    done = run_benchmark("route_focus_sweep.py", "--games", "3", "--only", "control", "long_cost", "--players", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["variant", "games", "win", "share", "margin"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == {"control", "long_cost"}
    assert all(row[1] == "3" for row in rows.values())


def test_sweep_variants_change_route_focus() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import route_focus_sweep
    finally:
        sys.path.pop(0)
    assert route_focus_sweep.variant_class("control").weights_name == "train_cost"
    assert route_focus_sweep.variant_class("long_cost").weights_name == "long_cost"
    # Seeded: the same deal and variant give the same game.
    assert route_focus_sweep.play_one(("long_cost", 4, 3)) == route_focus_sweep.play_one(("long_cost", 4, 3))


def test_sweep_rejects_no_games() -> None:
    done = run_benchmark("route_focus_sweep.py", "--games", "0", timeout=60)
    assert done.returncode == 2
    assert "must be positive" in done.stderr
