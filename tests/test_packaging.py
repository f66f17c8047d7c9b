"""The sdist carries what its Makefile and tests use; the wheel's metadata carries the licence and the
package its ``py.typed`` marker."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Folders whose tracked files must all be in the sdist: the Makefile and the tests use each.
SHIPPED_FOLDERS = ("src/ttr_nordic", "tests", "benchmarks", "docs", "examples", "scripts", ".ci")
REQUIRED = (
    "LICENSE",
    "README.md",
    "Makefile",
    "pyproject.toml",
    "hatch_build.py",
    ".ci/run",
    "scripts/with-postgres.sh",
    "scripts/system-deps.sh",
    "src/ttr_nordic/py.typed",
    "src/ttr_nordic/rl/_fastobs.c",
    "tests/benchmark_script.py",
)


def tracked_files() -> list[str] | None:
    """The repository's tracked files, or None outside a git checkout (an unpacked sdist)."""
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run([git, "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def test_sdist_carries_what_make_test_uses(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (archive,) = tmp_path.glob("ttr_nordic-*.tar.gz")
    with tarfile.open(archive) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    missing = [path for path in REQUIRED if path not in names]
    assert missing == []
    assert not [name for name in names if "__pycache__" in name or name.endswith((".pyc", ".so"))]
    tracked = tracked_files()
    if tracked is not None:
        left_out = [path for path in tracked if path.startswith(SHIPPED_FOLDERS) and path not in names]
        assert left_out == []


def test_licence_and_type_marker_are_in_the_tree() -> None:
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "the ttr-nordic authors" in licence
    assert (ROOT / "src" / "ttr_nordic" / "py.typed").is_file()
    assert 'license-files = ["LICENSE"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
