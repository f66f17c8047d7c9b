"""Build hook: compiles the optional C accelerator of the RL observations (ttr_nordic.rl._fastobs).

Run by ``pip install`` (hatchling's custom build hook), or directly: ``python hatch_build.py``
compiles it next to its source for the Python running it. Without a C compiler or Python's
headers the package still installs and works: the observation encoder's Python path gives the
same vectors, more slowly (``ttr_nordic.rl.observation.ACCELERATED`` says which one runs).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).parent / "src" / "ttr_nordic" / "rl" / "_fastobs.c"


def target() -> Path:
    """Where the compiled module goes: beside its source, named for this Python."""
    return SOURCE.with_name("_fastobs" + sysconfig.get_config_var("EXT_SUFFIX"))


def build_accelerator() -> Path | None:
    """Compile the accelerator; its path, or None (with the reason on stderr) when it cannot be built."""
    out = target()
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    command = [
        *compiler,
        "-O2",
        "-shared",
        "-fPIC",
        "-Wall",
        f"-I{sysconfig.get_paths()['include']}",
        str(SOURCE),
        "-o",
        str(out),
    ]
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as err:
        detail = getattr(err, "stderr", "") or str(err)
        print(f"ttr-nordic: the C observation encoder was not built; the Python one runs\n{detail}", file=sys.stderr)
        return None
    return out


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
        built = build_accelerator()
        if built is None:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(built)] = f"ttr_nordic/rl/{built.name}"


if __name__ == "__main__":
    path = build_accelerator()
    print(path if path else "not built")
    sys.exit(0 if path else 1)
