"""Run the README's commands and code as written, and report each block as passed, failed or skipped.

Marking convention (for everyone who writes in README.md):

- A fenced block whose info string is ``sh`` is run with ``bash -e``; one whose info string is
  ``python`` is run with the project's Python. Every such block must work on a fresh clone after
  ``make run`` and ``make test`` (the project's venv at ``.venv`` has the ``dev`` extras).
- To show a block without running it, add ``skip:`` and the reason to the info string, e.g.
  ```` ```sh skip: starts a server ```` or ```` ```python skip: needs a GPU ````. Use it for servers,
  runs of minutes, and commands that change the checkout (installs); the reason is printed.
- Any other info string (``text``, ``nginx``, none) is never run.
- Keep runnable blocks quick (small ``--games``): the test runs every one of them.

Each block runs in one temporary folder shared by all blocks in README order (so a block may use a
file an earlier block wrote), with ``.venv``, ``benchmarks``, ``examples`` and ``scripts`` of the
checkout linked into it, ``$HOME`` and ``$XDG_DATA_HOME`` inside it (nothing is written to your home
folder), ``.venv/bin`` first on ``PATH``, and no standard input (a terminal game sees end of input,
saves and stops).

Usage::

    .venv/bin/python scripts/check_readme.py [README.md] [--timeout 300] [--keep]

Exits 0 when every runnable block passed, 1 otherwise (a failed block's output is printed). Then
it lists the files the blocks wrote in the folder they ran in (``wrote PATH``): ``.gitignore`` must
cover each, since a reader runs the same commands in a checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>```+)(?P<info>[^`\n]*)$")
LINKED = (".venv", "benchmarks", "examples", "scripts")


@dataclass(frozen=True)
class Block:
    """One fenced block of the README: its language, the skip reason if any, its text and its line."""

    language: str
    skip: str | None
    code: str
    line: int

    @property
    def runnable(self) -> bool:
        return self.language in ("sh", "python") and self.skip is None


def parse_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order.

    >>> blocks = parse_blocks("a\\n```sh\\necho hi\\n```\\n```python skip: slow\\nprint(1)\\n```\\n")
    >>> [(b.language, b.skip, b.code, b.line, b.runnable) for b in blocks]
    [('sh', None, 'echo hi\\n', 2, True), ('python', 'slow', 'print(1)\\n', 5, False)]
    """
    blocks: list[Block] = []
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index].rstrip("\n"))
        if match is None:
            index += 1
            continue
        fence, info, start = match["fence"], match["info"].strip(), index
        body: list[str] = []
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index])
            index += 1
        language, _, rest = info.partition(" ")
        rest = rest.strip()
        skip = rest.removeprefix("skip:").strip() or "no reason given" if rest.startswith("skip:") else None
        blocks.append(Block(language.lower(), skip, "".join(body), start + 1))
        index += 1
    return blocks


def prepare(folder: Path) -> dict[str, str]:
    """Link the checkout's venv and scripts into ``folder``; the environment the blocks run with."""
    for name in LINKED:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    (folder / "home").mkdir()
    env = dict(os.environ)
    env.update(
        {
            "HOME": str(folder / "home"),
            "XDG_DATA_HOME": str(folder / "home" / ".local" / "share"),
            "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "MPLBACKEND": "Agg",
            "NO_COLOR": "1",
        }
    )
    env.pop("PYTHONPATH", None)
    return env


def run_block(block: Block, folder: Path, env: dict[str, str], timeout: float) -> tuple[bool, str, float]:
    """Run one block; (passed, output, seconds)."""
    if block.language == "sh":
        command = ["bash", "-e", "-c", block.code]
    else:
        command = [str(ROOT / ".venv" / "bin" / "python"), "-c", block.code]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        return False, f"{output}\n(timed out after {timeout:.0f} s)", time.perf_counter() - start
    return done.returncode == 0, done.stdout + done.stderr, time.perf_counter() - start


def check(readme: Path, timeout: float, keep: bool = False) -> int:
    """Run every runnable block of ``readme``; print one line per block; 0 when all passed."""
    blocks = parse_blocks(readme.read_text(encoding="utf-8"))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="check-readme-") as name:
        folder = Path(name)
        env = prepare(folder)
        for block in blocks:
            where = f"{readme.name}:{block.line}"
            first = block.code.strip().splitlines()[0] if block.code.strip() else ""
            if block.language not in ("sh", "python"):
                continue
            if block.skip is not None:
                print(f"skipped  {where}  {first[:70]}  ({block.skip})")
                continue
            passed, output, seconds = run_block(block, folder, env, timeout)
            print(f"{'passed' if passed else 'FAILED'}   {where}  {first[:70]}  ({seconds:.1f} s)", flush=True)
            if not passed:
                failed += 1
                print("    " + "\n    ".join(output.strip().splitlines()[-30:]))
        written = sorted(
            str(path.relative_to(folder))
            for path in folder.rglob("*")
            if path.is_file() and path.parts[len(folder.parts)] not in (*LINKED, "home")
        )
        for path in written:  # what the blocks left in the folder they ran in (.gitignore must cover it)
            print(f"wrote    {path}")
        if keep:
            kept = Path(tempfile.mkdtemp(prefix="check-readme-kept-"))
            subprocess.run(["cp", "-a", f"{folder}/.", str(kept)], check=False)
            print(f"files kept in {kept}")
    runnable = sum(block.runnable for block in blocks)
    print(f"{runnable - failed} of {runnable} runnable blocks passed")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the README's sh and python blocks (see the module docstring).")
    parser.add_argument("readme", nargs="?", type=Path, default=ROOT / "README.md")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per block (default 300)")
    parser.add_argument("--keep", action="store_true", help="keep a copy of the folder the blocks ran in")
    args = parser.parse_args(argv)
    if not args.readme.is_file():
        print(f"check_readme: error: no file {args.readme}", file=sys.stderr)
        return 2
    return check(args.readme, args.timeout, args.keep)


if __name__ == "__main__":
    raise SystemExit(main())
