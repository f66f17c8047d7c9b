"""Nordic Countries for reinforcement learning: PettingZoo, Gymnasium and OpenSpiel.

Needs the ``rl`` extra (``pip install -e '.[rl]'``); the engine does not import this package.
Importing it registers ``gymnasium.make("TTRNordic-v0")``. See ``docs/rl.md``.

- :func:`aec_env` — the PettingZoo AEC environment (2 or 3 players);
- :func:`parallel_env` — the PettingZoo parallel environment (:mod:`ttr_nordic.rl.parallel`);
- ``TTRNordic-v0`` — one seat against opponents: registry names, agents or policies
  (:class:`~ttr_nordic.rl.gym_env.TTRNordicGym`);
- :mod:`ttr_nordic.rl.openspiel` — registers ``pyspiel.load_game("ttr_nordic")`` (chance nodes for
  the deal and every draw; observers in :mod:`ttr_nordic.rl.openspiel_observer`);
- :mod:`ttr_nordic.rl.core_game` — one environment game in the compiled core (ids, observations
  and masks from its state), which the PettingZoo, parallel and Gymnasium environments step where
  the core is built (the Python engine otherwise, with the same results);
- :mod:`ttr_nordic.rl.layout` — the action and observation layouts as the tables of ``docs/rl.md``;
- :mod:`ttr_nordic.rl.actions` — the fixed action enumeration; :mod:`ttr_nordic.rl.observation`
  — the observation vector (:func:`encode_view`, and :class:`ObservationEncoder`, which keeps it
  up to date view by view).
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401  (checked here for the hint below)
    import pettingzoo  # noqa: F401  (likewise)
except ModuleNotFoundError as missing:  # pragma: no cover - exercised in a subprocess by the tests
    raise ModuleNotFoundError(
        f"ttr_nordic.rl needs the 'rl' extra ({missing.name} is missing): pip install 'ttr-nordic[rl]'",
        name=missing.name,
    ) from None

from .actions import ActionSpace, action_space
from .gym_env import IdPolicy, TTRNordicGym
from .observation import ObservationEncoder, encode_view
from .parallel import TTRNordicParallel, parallel_env
from .pettingzoo_env import TTRNordicAEC, aec_env

if "TTRNordic-v0" not in gymnasium.registry:
    # Without gymnasium.make's OrderEnforcing and PassiveEnvChecker wrappers: the environment
    # refuses step() before reset() itself, and passes gymnasium's full check_env (its tests);
    # the two wrappers' forwarding cost a tenth of a step. make(..., disable_env_checker=False)
    # puts the checker back.
    gymnasium.register(
        id="TTRNordic-v0",
        entry_point="ttr_nordic.rl.gym_env:TTRNordicGym",
        order_enforce=False,
        disable_env_checker=True,
    )

__all__ = [
    "ActionSpace",
    "IdPolicy",
    "ObservationEncoder",
    "TTRNordicAEC",
    "TTRNordicGym",
    "TTRNordicParallel",
    "action_space",
    "aec_env",
    "encode_view",
    "parallel_env",
]
