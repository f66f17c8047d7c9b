"""Build hook: compiles the optional C extensions, the RL observations' accelerator
(ttr_nordic.rl._fastobs) and the compiled rules core (ttr_nordic.fast._core).

Run by ``pip install`` (hatchling's custom build hook), or directly: ``python hatch_build.py``
compiles them next to their sources for the Python running it. Without a C compiler or Python's
headers the package still installs and works: the observation encoder's Python path gives the
same vectors, more slowly (``ttr_nordic.rl.observation.ACCELERATED`` says which one runs), and
the Python engine plays where the core would (``ttr_nordic.fast.AVAILABLE``).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).parent / "src" / "ttr_nordic"
SOURCE = _PACKAGE / "rl" / "_fastobs.c"
CORE_SOURCE = _PACKAGE / "fast" / "_core.c"
#: Each extension: its source, what runs without it, and its optimization level (-O3 plays
#: random games about 5% faster in the core than -O2: benchmarks/engine_speed.py).
EXTENSIONS = (
    (SOURCE, "the C observation encoder was not built; the Python one runs", "-O2"),
    (CORE_SOURCE, "the compiled core was not built; the Python engine plays in its place", "-O3"),
)


def target(source: Path = SOURCE) -> Path:
    """Where a compiled module goes: beside its source, named for this Python."""
    return source.with_name(source.stem + sysconfig.get_config_var("EXT_SUFFIX"))


def numpy_flags() -> list[str]:
    """Compiler flags for numpy's C API (its headers and ``TTR_NUMPY_API``), or none where numpy
    is not installed: the core then makes its RL arrays by calling ``numpy.empty`` (slower)."""
    try:
        import numpy
    except ImportError:
        return []
    return [f"-I{numpy.get_include()}", "-DTTR_NUMPY_API"]


def build_extension(source: Path, fallback: str, optimization: str = "-O2") -> Path | None:
    """Compile one extension; its path, or None (with the reason on stderr) when it cannot be built."""
    out = target(source)
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    command = [
        *compiler,
        optimization,
        "-shared",
        "-fPIC",
        "-Wall",
        f"-I{sysconfig.get_paths()['include']}",
        *(numpy_flags() if source == CORE_SOURCE else []),
        str(source),
        "-o",
        str(out),
    ]
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as err:
        detail = getattr(err, "stderr", "") or str(err)
        print(f"ttr-nordic: {fallback}\n{detail}", file=sys.stderr)
        return None
    return out


def build_accelerator() -> Path | None:
    """Compile the observation accelerator (see :func:`build_extension`)."""
    return build_extension(*EXTENSIONS[0])


def build_all() -> list[Path]:
    """Compile every extension that can be built; their paths."""
    return [path for path in (build_extension(*extension) for extension in EXTENSIONS) if path]


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]


class AcceleratorBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compiles the accelerator into the source tree (an editable install imports it from
    there) and ships it in a wheel, which is then tagged for this Python and platform."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        built = build_all()
        if not built:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            for path in built:
                build_data["force_include"][str(path)] = f"ttr_nordic/{path.parent.name}/{path.name}"


if __name__ == "__main__":
    paths = build_all()
    for path in paths:
        print(path)
    sys.exit(0 if len(paths) == len(EXTENSIONS) else 1)
