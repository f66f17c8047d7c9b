"""How much of the search agent's weakness comes from not knowing the opponent's tickets.

Plays a ``rollout_search`` agent against one ``route_focus`` (``--players 2``, seats alternated)
or two (``--players 3``, the agent's seat rotated), with three ways of sampling the hidden
information for its searches:

* ``view``: the agent's own view, unseen cards and tickets dealt at random (the real agent);
* ``inferred``: as ``view``, but the opponent's tickets guessed from the routes it claimed
  (``TicketInference``);
* ``revealed``: an experiment only, not a fair agent: the samples hold the opponents' real
  tickets and hands (the draw pile and the ticket pile are reshuffled, so the future stays
  unknown). It bounds what better ticket inference could give this search.

    .venv/bin/python benchmarks/search_ceiling.py --games 20 --modes view,inferred,revealed
    .venv/bin/python benchmarks/search_ceiling.py --agent registered --games 200 --modes revealed

The agent is either ``claims`` (``--rollouts`` per search, claims searched too: the agent of the
first measurements) or ``registered`` (the *expert* level's settings, ``EXPERT_SETTINGS``, with its
time cap). Prints one line per mode: wins (a tie that survives the tie-breaks counts as a loss),
win rate with its 95% Wilson interval, mean scores (the agent's and the Route Focus seats') and
seconds per game. Slow: each game takes 15–30 s on one core.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from ttr_nordic.ai.baselines import RouteFocusAgent
from ttr_nordic.ai.expert import RolloutSearchAgent
from ttr_nordic.ai.registry import EXPERT_SETTINGS
from ttr_nordic.engine import GameState, PlayerView
from ttr_nordic.sim.summary import wilson_interval


class RevealedSearch(RolloutSearchAgent):
    """Experiment only: searches on the real state with the card and ticket piles reshuffled."""

    true_state: GameState | None = None

    def sample(self, view: PlayerView) -> GameState:
        assert self.true_state is not None
        state = self.true_state.clone()
        state.rng = random.Random(self.rng.getrandbits(32))
        self.rng.shuffle(state.deck)
        self.rng.shuffle(state.ticket_deck)
        return state


def play(job: tuple[str, int, int, str, int]) -> dict[str, Any]:
    mode, index, rollouts, kind, players = job
    me = index % players
    kwargs: dict[str, Any]
    if kind == "registered":
        kwargs = dict(EXPERT_SETTINGS, seed=index)
    else:
        kwargs = dict(
            ticket_rollouts=rollouts, action_rollouts=rollouts, search_actions=True, seed=index, light_rollouts=True
        )
    agent: RolloutSearchAgent
    if mode == "revealed":
        agent = RevealedSearch(**kwargs)
    else:
        agent = RolloutSearchAgent(ticket_inference=mode == "inferred", **kwargs)
    others = [q for q in range(players) if q != me]
    opponents = {q: RouteFocusAgent(seed=1000 + index + 100_000 * k) for k, q in enumerate(others)}
    state = GameState.new(players=players, seed=50_000 + index)
    start = time.perf_counter()
    while not state.is_over:
        player = state.decision.player
        legal = state.legal_action_list()
        if player == me:
            if isinstance(agent, RevealedSearch):
                agent.true_state = state
            action = agent.choose(state.view(player), legal)
        else:
            action = opponents[player].choose(state.view(player), legal)
        state.apply(action, player)
    result = state.result()
    return {
        "mode": mode,
        "index": index,
        "seat": me,
        "won": result.winners == (me,),
        "score": result.totals[me],
        "opponent": statistics.mean(result.totals[q] for q in others),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--modes", default="view,inferred,revealed")
    parser.add_argument("--rollouts", type=int, default=24, help="rollouts per search of the claims agent")
    parser.add_argument("--agent", choices=("claims", "registered"), default="claims")
    parser.add_argument("--players", type=int, choices=(2, 3), default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rows", type=Path, help="append each game's result to this JSON-lines file")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        if mode not in ("view", "inferred", "revealed"):
            parser.error(f"unknown mode {mode!r}")
    jobs = [(mode, i, args.rollouts, args.agent, args.players) for mode in modes for i in range(args.games)]
    rows = []
    with multiprocessing.Pool(args.workers) as pool:
        for row in pool.imap(play, jobs, chunksize=1):
            rows.append(row)
            if args.rows is not None:
                with args.rows.open("a") as out:
                    out.write(json.dumps(row) + "\n")
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        wins = sum(r["won"] for r in mine)
        low, high = wilson_interval(wins, len(mine))
        print(
            f"{mode:9s} games {len(mine)} wins {wins} win_rate {wins / len(mine):.3f} [{low:.3f}, {high:.3f}] "
            f"score {statistics.mean(r['score'] for r in mine):.1f} "
            f"route_focus {statistics.mean(r['opponent'] for r in mine):.1f} "
            f"s/game {statistics.median(r['seconds'] for r in mine):.1f}"
        )


if __name__ == "__main__":
    main()
