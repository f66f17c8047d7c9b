"""The README: short, self-contained, and every command in it runs as written
(``scripts/check_readme.py`` runs its ``sh`` and ``python`` blocks)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SCRIPT = ROOT / "scripts" / "check_readme.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_readme", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_readme"] = module
    spec.loader.exec_module(module)
    return module


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=900, check=False
    )


def test_every_readme_block_runs_as_written() -> None:
    done = run_script(str(README))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "FAILED" not in done.stdout
    passed = re.search(r"(\d+) of (\d+) runnable blocks passed", done.stdout)
    assert passed is not None and passed.group(1) == passed.group(2) and int(passed.group(2)) >= 4
    # Run in a checkout, the same commands leave nothing git would pick up.
    written = [line.split(maxsplit=1)[1] for line in done.stdout.splitlines() if line.startswith("wrote ")]
    assert written
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(written) + "\n",
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert sorted(set(written) - set(ignored)) == []


def test_a_failing_block_is_reported(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "# x\n\n```sh\ntrue\n```\n\n```sh\nfalse-command-that-does-not-exist\n```\n\n"
        "```sh skip: starts a server\nsleep 1000\n```\n\n```python\nraise SystemExit(3)\n```\n",
        encoding="utf-8",
    )
    done = run_script(str(readme), "--timeout", "60")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("passed   README.md:3")
    assert lines[1].startswith("FAILED   README.md:7") and "command not found" in done.stdout
    assert any(line.startswith("skipped  README.md:11") and "(starts a server)" in line for line in lines)
    assert "1 of 3 runnable blocks passed" in done.stdout


def test_blocks_are_marked_and_the_readme_is_short() -> None:
    check = load_script()
    text = README.read_text(encoding="utf-8")
    blocks = check.parse_blocks(text)
    assert len(text.splitlines()) <= 250
    assert all(block.skip for block in blocks if block.language in ("sh", "python") and "make " in block.code)
    assert "## Hosting" in text and "docs/hosting.md" in text
    # self-contained: every relative link in the README points at a file of the repository
    # (docs/hosting.md is written separately and may come later)
    for target in re.findall(r"\]\((?!https?://)([^)#]+)", text):
        assert (ROOT / target).exists() or target == "docs/hosting.md", target


def test_docs_cite_the_projects_own_rules() -> None:
    for path in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        assert "nordic-rules-spec" not in path.read_text(encoding="utf-8"), path
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for number in ("R4.6", "R5.9", "R6.9", "R6.11", "R6.12", "R9.3", "R9.7", "## 11.", "## 12."):
        assert number in rules, number
