"""The value data set: positions from simulated games with their final outcome.

A run is cut into shards of ``shard_games`` games; shard ``k`` depends only on
``(seed, players, k, shard_games, sample_every, noise)``, so the same seed gives the same
bytes and an interrupted run resumes by playing only the shards that are missing (each
shard is written to a temporary file and renamed, so a shard on disk is complete).
``manifest.json`` records the settings and refuses a resume with different ones.

Each row is one position from one seat: the :data:`~.features.FEATURE_NAMES`, then
``game``, ``seat``, ``turn``, ``margin`` (own final total minus the best other total) and
``win`` (1 if the seat is among the winners).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from ...engine import Action, GameState, PlayerView
from ..base import Agent
from ..registry import make_agent
from .features import FEATURE_NAMES, features

#: Agents sampled per seat: the strongest baseline most often, the others for variety.
AGENT_MIX: Final = ("route_focus", "route_focus", "destination_hungry", "one_step", "long_route")
#: Agent mixes by name. ``site`` is closer to the players the site's win-chance chart sees: the
#: computer levels (easy, medium, hard), the blocking variant, and now and then a seat that plays
#: at random (a beginner's rout: the chart must read a lost game as lost).
AGENT_MIXES: Final[dict[str, tuple[str, ...]]] = {
    "baselines": AGENT_MIX,
    "site": (
        "route_focus",
        "route_focus",
        "route_focus",
        "route_focus_blocking",
        "one_step",
        "long_route",
        "destination_hungry",
        "random",
    ),
}
COLUMNS: Final = (*FEATURE_NAMES, "game", "seat", "turn", "margin", "win")
MANIFEST: Final = "manifest.json"


@dataclass(frozen=True, slots=True)
class DataConfig:
    """What fixes the data of a run (recorded in the manifest)."""

    players: int
    seed: int
    shard_games: int = 50
    sample_every: int = 4  # a position every ~4 decisions of a game, from every seat
    noise: float = 0.03  # chance that a decision is a uniformly random legal action
    mix: str = "baselines"  # a key of AGENT_MIXES


class NoisyAgent:
    """Plays ``inner`` but picks a random legal action with probability ``noise`` (coverage)."""

    def __init__(self, inner: Agent, noise: float, rng: random.Random) -> None:
        self.inner, self.noise, self.rng, self.name = inner, noise, rng, inner.name

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if self.rng.random() < self.noise:
            return legal[self.rng.randrange(len(legal))]
        return self.inner.choose(view, legal)


def play_and_sample(config: DataConfig, game: int) -> list[list[float]]:
    """Play game number ``game`` of a run and return its sampled rows."""
    rng = random.Random(f"{config.seed}/{config.players}/{game}")
    mix = AGENT_MIXES[config.mix]
    agents = [
        NoisyAgent(make_agent(rng.choice(mix), rng.getrandbits(32)), config.noise, random.Random(rng.getrandbits(32)))
        for _ in range(config.players)
    ]
    state = GameState.new(players=config.players, seed=rng.getrandbits(32))
    sampled: list[tuple[int, list[list[float]]]] = []
    while not state.is_over:
        if rng.randrange(config.sample_every) == 0:
            sampled.append((state.turn, [features(state.view(p, log=False)) for p in range(config.players)]))
        player = state.decision.player
        legal = state.legal_action_list()
        state.apply(agents[player].choose(state.view(player), legal), player)
    result = state.result()
    totals = [p.total for p in result.players]
    rows = []
    for turn, per_seat in sampled:
        for seat, x in enumerate(per_seat):
            best_other = max(t for q, t in enumerate(totals) if q != seat)
            win = 1.0 if seat in result.winners else 0.0
            rows.append([*x, float(game), float(seat), float(turn), float(totals[seat] - best_other), win])
    return rows


def shard_name(index: int) -> str:
    return f"shard-{index:05d}.csv.gz"


def make_shard(config: DataConfig, index: int, out: Path) -> int:
    """Write shard ``index`` (games ``index*shard_games ...``) to ``out``; return its row count."""
    rows: list[list[float]] = []
    for game in range(index * config.shard_games, (index + 1) * config.shard_games):
        rows.extend(play_and_sample(config, game))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([f"{v:.6g}" for v in row] for row in rows)
    target = out / shard_name(index)
    tmp = target.with_suffix(".tmp")
    # mtime=0: the same rows give the same bytes.
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(text.getvalue().encode())
    os.replace(tmp, target)
    return len(rows)


def check_manifest(config: DataConfig, out: Path) -> None:
    """Write the manifest, or check that an existing one has the same settings."""
    path = out / MANIFEST
    if config.mix not in AGENT_MIXES:
        raise ValueError(f"unknown agent mix {config.mix!r}; choose from {', '.join(AGENT_MIXES)}")
    wanted = {"format": 1, "columns": list(COLUMNS), **asdict(config)}
    if config.mix == "baselines":
        del wanted["mix"]  # manifests written before mixes had names stay valid
    if path.exists():
        have = json.loads(path.read_text(encoding="utf-8"))
        if have != wanted:
            raise ValueError(f"{path} was written with other settings ({have}); use another directory")
    else:
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(wanted, indent=1) + "\n", encoding="utf-8")


def missing_shards(out: Path, shards: int) -> list[int]:
    return [k for k in range(shards) if not (out / shard_name(k)).exists()]


def generate(
    config: DataConfig, out: Path, shards: int, workers: int = 1, backend: str = "process"
) -> Iterator[tuple[int, int]]:
    """Write every missing shard of ``0..shards-1``; yield ``(shard, rows)`` as each finishes."""
    check_manifest(config, out)
    todo = missing_shards(out, shards)
    if backend == "ray":
        import ray  # optional: the "cluster" extra

        if not ray.is_initialized():
            ray.init()
        remote = ray.remote(make_shard)
        pending = {remote.remote(config, k, out): k for k in todo}
        while pending:
            done, _ = ray.wait(list(pending))
            for ref in done:
                yield pending.pop(ref), ray.get(ref)
    elif backend != "process":
        raise ValueError(f"unknown backend {backend!r}; choose process or ray")
    elif workers <= 1:
        for k in todo:
            yield k, make_shard(config, k, out)
    else:
        with ProcessPoolExecutor(workers) as pool:
            futures = {k: pool.submit(make_shard, config, k, out) for k in todo}
            for k, future in futures.items():
                yield k, future.result()


def read_shards(out: Path) -> tuple[list[str], list[list[float]]]:
    """All rows of a data directory (header, rows), in shard order."""
    header: list[str] = []
    rows: list[list[float]] = []
    for path in sorted(out.glob("shard-*.csv.gz")):
        with gzip.open(path, "rt") as f:
            reader = csv.reader(f)
            header = next(reader)
            rows.extend([float(v) for v in row] for row in reader)
    return header, rows
