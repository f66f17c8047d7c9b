"""The engine's modules import one another in one direction only, and only the standard library.

Imports inside ``if TYPE_CHECKING:`` blocks are for annotations only (mypy reads them, Python
never runs them), so they are not edges of the import graph; every other import is, also one
inside a function (a late import still ties two modules together at run time).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import ttr_nordic.engine
from ttr_nordic.engine import state as state_module

ENGINE = Path(ttr_nordic.engine.__file__).parent
MODULES = sorted(path.stem for path in ENGINE.glob("*.py") if path.stem != "__init__")

# What `ttr_nordic.engine` exported before the engine was split into modules: other
# packages import these names, so they stay.
PUBLIC_NAMES = {
    "CARD_LETTERS",
    "CARD_NAMES",
    "COLORS",
    "GRAY",
    "LOCOMOTIVE",
    "Action",
    "Board",
    "Card",
    "City",
    "Claim",
    "Counts",
    "Decision",
    "DeclineTunnel",
    "DrawBlind",
    "DrawFaceUp",
    "DrawTickets",
    "GameConfig",
    "GameRecord",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "KeepTickets",
    "LegalActions",
    "LogEntry",
    "NotationError",
    "Pass",
    "PayTunnelExtra",
    "Phase",
    "PlayerResult",
    "PlayerView",
    "PublicLogEntry",
    "Reason",
    "RecordError",
    "Route",
    "RouteKind",
    "Ticket",
    "TicketResult",
    "TunnelAttempt",
    "determinize",
    "load_board",
    "parse_action",
    "parse_cards",
}


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs, skipping ``if TYPE_CHECKING:`` bodies."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if _is_type_checking_block(node):
            pending.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _engine_dependencies(module: str) -> set[str]:
    """The engine modules that ``module`` imports at run time."""
    tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
    deps: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                deps.add(node.module.split(".")[0])
            else:
                deps.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level > 1:
            raise AssertionError(f"{module} imports from outside the engine: level {node.level} import")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ttr_nordic.engine"):
            deps.add((node.module or "").split(".")[2])
    return deps


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in ``graph`` as a list of modules (first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state:
                cycle = visit(dep)
                if cycle is not None:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle is not None:
                return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_type_checking_imports_are_not_edges_but_late_imports_are() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .state import GameState\n"
        "def f():\n    from .view import make_view\n"
    )
    names = {node.module for node in _imports(tree) if isinstance(node, ast.ImportFrom)}
    assert names == {"typing", "view"}


def test_engine_modules_have_no_import_cycle() -> None:
    graph = {module: _engine_dependencies(module) for module in MODULES}
    assert all(dep in MODULES for deps in graph.values() for dep in deps), graph
    assert _find_cycle(graph) is None


def test_the_state_module_sits_on_top() -> None:
    # Nothing below the state module imports it; the legal moves do not need views or records.
    graph = {module: _engine_dependencies(module) for module in MODULES}
    assert [module for module, deps in graph.items() if "state" in deps] == []
    assert not {"view", "record", "scoring", "state"} & graph["legal"]
    assert not {"legal", "view", "record", "scoring", "state"} & graph["transitions"]
    # The rules in force are data below the game: a variant knows the board and the actions only.
    assert graph["variant"] <= {"actions", "board", "cards"}


def test_the_engine_imports_only_the_standard_library() -> None:
    for module in [*MODULES, "__init__"]:
        tree = ast.parse((ENGINE / f"{module}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                tops = [(node.module or "").split(".")[0]]
            else:
                continue
            for top in tops:
                assert top in sys.stdlib_module_names or top == "__future__", f"{module} imports {top}"


@pytest.mark.parametrize("module", MODULES)
def test_each_engine_module_imports_alone(module: str) -> None:
    """In a fresh interpreter, importing one module first works (no order-dependent import)."""
    done = subprocess.run(
        [sys.executable, "-c", f"import ttr_nordic.engine.{module}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_public_names_are_unchanged() -> None:
    assert set(ttr_nordic.engine.__all__) == PUBLIC_NAMES
    for name in PUBLIC_NAMES:
        assert getattr(ttr_nordic.engine, name) is not None
    # The names other code imported from the state module still come from there.
    for name in ("Decision", "GameConfig", "GameState", "LegalActions", "LogEntry", "Phase", "TunnelAttempt"):
        assert getattr(state_module, name) is getattr(ttr_nordic.engine, name)


def test_log_entries_stay_frozen_dataclasses() -> None:
    # Other code copies log entries with dataclasses.replace (the property tests' resampling).
    import dataclasses

    from ttr_nordic.engine import DrawBlind, LogEntry

    entry = LogEntry(0, DrawBlind(), card=3)
    assert dataclasses.replace(entry, card=4) == LogEntry(0, DrawBlind(), card=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.card = 5  # type: ignore[misc]


def test_logged_draws_are_ordinary_log_entries() -> None:
    import dataclasses
    import random

    from ttr_nordic.engine import GameState, LogEntry

    state = GameState.new(players=2, seed=4)
    choose = random.Random(4).choice
    while not state.is_over:
        state.apply_unchecked(choose(state.legal_action_list()))
    for entry in state.log:
        assert type(entry) is LogEntry
        fields = {field.name: getattr(entry, field.name) for field in dataclasses.fields(LogEntry)}
        assert entry == LogEntry(**fields)
        assert hash(entry) == hash(LogEntry(**fields))
