"""docs/rl.md: its layout tables are the code's, and its Python examples run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ttr_nordic.rl.layout import TABLES, rewrite

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rl.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_layout_tables_are_the_codes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert all(f"<!-- layout:{name} -->" in text for name in TABLES)
    assert rewrite(text) == text, "run: python -m ttr_nordic.rl.layout docs/rl.md"


def test_a_changed_table_is_noticed() -> None:
    text = DOC.read_text(encoding="utf-8").replace("| 5 | 1 | blind draw |", "| 6 | 1 | blind draw |", 1)
    assert rewrite(text) != text


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_python_examples_run(index: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKS[index]], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() or "print(" not in BLOCKS[index]


def test_the_doc_has_an_example_of_every_api() -> None:
    code = "\n".join(BLOCKS)
    for api in ("aec_env", "parallel_env", "TTRNordic-v0", "load_game", "ismcts", "serialize_game_and_state"):
        assert api in code, api
