"""OpenSpiel game ``ttr_nordic_native``: :mod:`ttr_nordic.rl.openspiel`'s game compiled in C++,
for OpenSpiel's C++ algorithms and bots (``pyspiel.evaluate_bots``, ``pyspiel.random_sim_test``,
``pyspiel.MCTSBot``: it searches the true state, hidden hands included, so it is a
perfect-information baseline), which then play it without one call into Python.

The same game node for node (differentially tested against ``ttr_nordic``): the first player's
chance node, a chance node for every card and ticket drawn with its real probabilities, the
action ids of :mod:`ttr_nordic.rl.actions`, the observation tensor, the returns (parameter
``reward``: ``win`` or ``margin``) and the state string. What it leaves to ``ttr_nordic``:
information-state and observation strings and tensors beyond the default observation,
``IIGObservationType`` observers and ``resample`` (ISMCTS). Player actions are named by the
action space's descriptions. States serialize as their action history (OpenSpiel's default).

The game is built on demand, not by ``pip install``: it compiles against the headers of the
installed OpenSpiel's own source release (downloaded once from PyPI into
``$XDG_CACHE_HOME/ttr-nordic``, or ``TTR_OPENSPIEL_SOURCE``: an unpacked release) and links to
the installed ``pyspiel``, so it needs a C++20 compiler and the compiled core
(:data:`ttr_nordic.fast.AVAILABLE`)::

    python -m ttr_nordic.rl.openspiel_native build

>>> import pyspiel
>>> from ttr_nordic.rl import openspiel_native
>>> if openspiel_native.load():  # registers the game where it is built
...     game = pyspiel.load_game("ttr_nordic_native", {"players": 2})
...     returns = pyspiel.evaluate_bots(
...         game.new_initial_state(), [pyspiel.make_uniform_random_bot(p, 1) for p in range(2)], 1
...     )
...     assert len(returns) == 2
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import urllib.request
from pathlib import Path

GAME = "ttr_nordic_native"
_HERE = Path(__file__).parent
SOURCE = _HERE / "spiel_native" / "game.cc"
CORE_HEADERS = _HERE.parent / "fast"
TARGET = _HERE / ("_spiel_game" + str(sysconfig.get_config_var("EXT_SUFFIX")))
#: Beside the module: the OpenSpiel version and the source's hash it was built for.
STAMP = _HERE / "_spiel_game.stamp"
_INDEX = "https://pypi.org/simple/open-spiel/"


class BuildError(RuntimeError):
    """The game could not be built (the reason in one line)."""


def openspiel_version() -> str:
    """The installed OpenSpiel's version (the release whose headers the game needs)."""
    return importlib.metadata.version("open_spiel")


def _stamp() -> str:
    digest = hashlib.sha256(SOURCE.read_bytes() + (CORE_HEADERS / "_spiel_api.h").read_bytes()).hexdigest()
    return f"open_spiel {openspiel_version()} source {digest[:16]}"


def is_built() -> bool:
    """Whether the game is built for the installed OpenSpiel and the current source."""
    return TARGET.exists() and STAMP.exists() and STAMP.read_text().strip() == _stamp()


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ttr-nordic"


def openspiel_source(version: str | None = None) -> Path:
    """An unpacked OpenSpiel source release of ``version`` (default: the installed one):
    ``TTR_OPENSPIEL_SOURCE``, else the cache's copy, else downloaded from PyPI (its hash checked)."""
    given = os.environ.get("TTR_OPENSPIEL_SOURCE")
    if given:
        root = Path(given)
        if not (root / "open_spiel" / "spiel.h").exists():
            raise BuildError(f"TTR_OPENSPIEL_SOURCE={given} holds no open_spiel/spiel.h")
        return root
    version = version or openspiel_version()
    root = cache_dir() / f"open_spiel-{version}"
    if (root / "open_spiel" / "spiel.h").exists():
        return root
    name = f"open_spiel-{version}.tar.gz"
    request = urllib.request.Request(_INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            files = json.load(answer)["files"]
        entry = next(f for f in files if f["filename"] == name)
        with urllib.request.urlopen(entry["url"], timeout=300) as answer:
            data = answer.read()
    except StopIteration:
        raise BuildError(f"PyPI has no source release {name}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise BuildError(f"PyPI's index of open-spiel was not as expected ({error!r})") from None
    except OSError as error:
        raise BuildError(f"could not download {name} from PyPI: {error}") from None
    if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
        raise BuildError(f"{name} from PyPI does not match its published sha256")
    cache_dir().mkdir(parents=True, exist_ok=True)
    archive = cache_dir() / name
    archive.write_bytes(data)
    with tarfile.open(archive) as tar:
        tar.extractall(cache_dir(), filter="data")
    archive.unlink()
    if not (root / "open_spiel" / "spiel.h").exists():
        raise BuildError(f"{name} unpacked without open_spiel/spiel.h")
    return root


def build(verbose: bool = False) -> Path:
    """Compile the game beside this module for the installed OpenSpiel; its path.

    Raises :class:`BuildError` (one line) when it cannot: no compiled core, no OpenSpiel source,
    no C++ compiler, or a compiler error (``verbose`` prints the compiler's output)."""
    from ttr_nordic import fast

    if not fast.AVAILABLE:
        raise BuildError("the compiled core is not built (python hatch_build.py), and the game steps it")
    import pyspiel

    root = openspiel_source()
    compiler = shlex.split(os.environ.get("CXX") or "g++")
    library = Path(pyspiel.__file__).resolve()
    command = [
        *compiler,
        "-std=c++20",
        "-O2",
        "-shared",
        "-fPIC",
        "-DNDEBUG",
        f"-I{root}",
        f"-I{root / 'open_spiel' / 'abseil-cpp'}",
        f"-I{root / 'open_spiel' / 'json' / 'include'}",
        f"-I{CORE_HEADERS}",
        f"-I{sysconfig.get_paths()['include']}",
        str(SOURCE),
        "-o",
        str(TARGET),
        f"-L{library.parent}",
        f"-l:{library.name}",
        f"-Wl,-rpath,{library.parent}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise BuildError(f"no C++ compiler ({compiler[0]}): {error}") from None
    if done.returncode != 0:
        if verbose:
            print(done.stderr, file=sys.stderr)
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip()[:200])
        raise BuildError(f"the compiler failed: {first}")
    STAMP.write_text(_stamp() + "\n")
    return TARGET


def load() -> bool:
    """Register ``ttr_nordic_native`` with OpenSpiel where it is built for the installed
    OpenSpiel (True), else False: ``python -m ttr_nordic.rl.openspiel_native build`` builds it."""
    from ttr_nordic import fast

    if not fast.AVAILABLE or not is_built():
        return False
    import pyspiel

    if GAME in pyspiel.registered_names():
        return True
    from .actions import action_space
    from .core_game import core_space
    from .observation import NUM_KINDS, NUM_TICKETS, SIZE

    space = action_space()
    try:
        module = importlib.import_module("ttr_nordic.rl._spiel_game")
    except ImportError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ImportError(f"{GAME} is built but does not load ({message}); build it again with --force") from None
    descriptions = [space.describe(i) for i in range(space.size)]
    module._setup(fast.core_board(), core_space(), descriptions, SIZE, max(NUM_TICKETS, NUM_KINDS))
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the OpenSpiel game ttr_nordic_native (C++).")
    parser.add_argument("command", choices=("build", "status"))
    parser.add_argument("--force", action="store_true", help="build again even if it is up to date")
    parser.add_argument("--verbose", "-v", action="store_true", help="print the compiler's output on failure")
    args = parser.parse_args(argv)
    if args.command == "status":
        print(f"{GAME}: {'built' if is_built() else 'not built'} ({TARGET})")
        return 0
    if is_built() and not args.force:
        print(f"{GAME}: up to date ({TARGET})")
        return 0
    try:
        path = build(verbose=args.verbose)
    except BuildError as error:
        print(f"ttr-nordic: {error}", file=sys.stderr)
        return 1
    print(f"{GAME}: built {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
