"""The core built without numpy's headers (``python hatch_build.py`` where numpy is not installed)
makes its RL arrays with ``numpy.empty`` instead of numpy's C API: the environments play the same
games on that build as on the Python engine. Compiled here at -O0 (under a second), played in a
subprocess that loads that build as ``ttr_nordic.fast._core``. The build also goes without dict
version tags (``TTR_NO_DICT_TAGS``, as on CPython 3.14): its pools read their dicts back."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from ttr_nordic import fast

CORE_SOURCE = Path(fast.__file__).with_name("_core.c")
COMPILER = shlex.split(sysconfig.get_config_var("CC") or "cc")

pytestmark = pytest.mark.skipif(
    not fast.AVAILABLE or not CORE_SOURCE.exists() or shutil.which(COMPILER[0]) is None,
    reason="needs the core's sources, a C compiler and the core on",
)

# Plays seeded parallel (3 players) and AEC (2 players) games on the build given and on the
# engine; prints how many steps matched. Every observation, mask, reward and info must match.
PLAY = """
import importlib.util, random, sys
spec = importlib.util.spec_from_file_location("ttr_nordic.fast._core", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["ttr_nordic.fast._core"] = module
spec.loader.exec_module(module)
import numpy as np
from ttr_nordic.fast import core_module
from ttr_nordic.rl import aec_env, parallel_env
assert core_module() is module and module.NUMPY_API == 0

def flat(value):
    if isinstance(value, dict):
        return [(key, flat(item)) for key, item in value.items()]
    if isinstance(value, tuple):
        return [flat(item) for item in value]
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.shape, value.tobytes())
    return value

def parallel(compiled):
    env = parallel_env(players=3, compiled=compiled)
    obs, infos = env.reset(seed=4)
    rng, record, kept = random.Random(4), [flat(obs)], []
    while env.agents:
        result = env.step(dict.fromkeys(env.agents, rng.choice(infos[env.agent_to_move]["legal_ids"])))
        infos = result[4]
        record.append(flat(result))
        if len(record) % 3 == 0:  # held: never written again (the others are let go, and recycled)
            kept.append((result[0], flat(result[0])))
        elif len(record) % 3 == 1:  # changed before being let go: never comes back changed
            agent = rng.choice(env.possible_agents)
            result[1]["extra"] = 1.0
            result[4][agent]["legal_ids"].append(-1)
            result[4][agent]["active_agent"] = "nobody"
            result[0][agent]["observation"][:] = 7.0
    assert all(flat(held) == before for held, before in kept)
    return record

def aec(compiled):
    env = aec_env(players=2, compiled=compiled)
    env.reset(seed=5)
    rng, record = random.Random(5), []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        record.append((agent, flat(obs), reward, term, trunc, info))
        env.step(None if term or trunc else rng.choice(info["legal_ids"]))
    return record

core, engine = parallel(True), parallel(False)
assert core == engine, "the parallel games differ"
core_aec, engine_aec = aec(True), aec(False)
assert core_aec == engine_aec, "the AEC games differ"
print(len(core) + len(core_aec))
"""


def test_the_build_without_numpy_headers_plays_the_engine_games(tmp_path: Path) -> None:
    built = tmp_path / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    command = [*COMPILER, "-O0", "-shared", "-fPIC", "-DTTR_NO_DICT_TAGS", f"-I{sysconfig.get_paths()['include']}"]
    subprocess.run([*command, str(CORE_SOURCE), "-o", str(built)], check=True, capture_output=True)
    played = subprocess.run(
        [sys.executable, "-c", PLAY, str(built)], capture_output=True, text=True, timeout=300, check=False
    )
    assert played.returncode == 0, played.stderr[-2000:]
    assert int(played.stdout.split()[-1]) > 300
