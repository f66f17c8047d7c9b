"""How much one better decision could win: the headroom of one-step search over Route Focus.

Takes the search agent's decisions from a tournament's stored games (``ttr-nordic tournament
... --out DIR`` writes ``DIR/records``) and, at a random sample of them, plays every candidate
the search could pick against the Route Focus choice, on two kinds of samples:

* **truth**: the real game with its real hands and tickets, the card and ticket piles
  reshuffled (the future stays unknown). Every player then plays Route Focus (light) to the
  end. This is as much as any one-step search over Route Focus could know.
* **view**: the agent's own view, unseen cards and tickets dealt at
  random; the candidate the search would pick from these samples (margin plus a win bonus,
  one standard error of confidence, as ``rollout_search``) is then valued on the truth samples.

Candidates are ranked by the two-player objective (the margin plus a win bonus), so the figures
are meant for two-player games.

Decision kinds: ``setup`` (the first ticket choice), ``keep`` (tickets drawn later), ``draw``
(turns on which ``rollout_search`` weighs drawing tickets against the Route Focus move) and
``turn`` (other turns: the Route Focus move against the three highest-scoring claims, a blind
draw and a ticket draw).

    ttr-nordic tournament --agents rollout_search,route_focus --players 2 --games 100 --out runs/t
    .venv/bin/python benchmarks/decision_headroom.py runs/t/records --positions 30 --samples 100
    .venv/bin/python benchmarks/decision_headroom.py runs/t/records --kinds turn --trains 0-14

``--trains LO-HI`` keeps only positions where the player with the fewest trains holds between LO
and HI of them (the stage of the game: 40 at the start, the last round begins at 2 or fewer).

Per kind it prints the truth win rate of the Route Focus choice, the gain of the candidate
that half of the truth samples rank best when valued on the other half (an unbiased
"ceiling" for a search with perfect information and that many samples), the gain of the best
candidate on all truth samples (biased upwards) and the gain of the view-based pick (for
``turn`` decisions, what a search of every turn, like ``search_actions``, could take). Gains are
in win probability, with standard errors over positions. Slow: about 10–60 s per position on one
core.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from ttr_nordic.ai.expert import WIN_BONUS, LightRouteFocus, RolloutSearchAgent, play_out, top_claims
from ttr_nordic.ai.registry import TURN_SEARCH_SETTINGS
from ttr_nordic.engine import Action, Claim, DrawBlind, DrawTickets, GameRecord, GameState, PlayerView

KINDS = ("setup", "keep", "draw", "turn")
#: The kinds a decision of each phase may be; a turn is a "draw" or a "turn", and measure() tells them apart.
PHASE_KINDS = {"INITIAL_TICKETS": ("setup",), "KEEP_TICKETS": ("keep",), "CHOOSE_ACTION": ("draw", "turn")}
#: (own score, best other score, share of the win) of a finished rollout.
Outcome = tuple[int, int, float]


def outcome(state: GameState, player: int) -> Outcome:
    result = state.result()
    best_other = max(t for q, t in enumerate(result.totals) if q != player)
    win = 1.0 / len(result.winners) if player in result.winners else 0.0
    return (result.totals[player], best_other, win)


def value(row: Outcome, bonus: float = WIN_BONUS) -> float:
    """What ``rollout_search`` maximizes: the margin plus a win bonus (``bonus`` points a win)."""
    return row[0] - row[1] + bonus * row[2]


def candidates(state: GameState, player: int, keep_candidates: int = 6) -> tuple[str, list[Action]]:
    """The decision's kind and its candidates, the Route Focus choice first (at most
    ``keep_candidates`` ticket choices, the best by Route Focus's estimate)."""
    agent = RolloutSearchAgent(seed=1, keep_candidates=keep_candidates)
    view = state.view(player)
    legal = state.legal_action_list()
    default = agent.base.choose(view, legal)
    phase = view.phase.name
    if phase in ("INITIAL_TICKETS", "KEEP_TICKETS"):
        return ("setup" if phase == "INITIAL_TICKETS" else "keep"), agent._keep_candidates(view, legal, default)
    searched = agent._action_candidates(view, legal, default)
    if len(searched) > 1:
        return "draw", searched
    out: list[Action] = [default]
    taken = default.route if isinstance(default, Claim) else None
    for claim in top_claims(view, legal)[:3]:
        if claim.route != taken:
            out.append(claim)
    for action in legal:
        if isinstance(action, (DrawBlind, DrawTickets)) and type(action) is not type(default):
            out.append(action)
    return "turn", out


def outcomes(
    samples: Sequence[GameState], actions: Sequence[Action], player: int, rng: random.Random
) -> list[list[Outcome]]:
    rows = []
    for sample in samples:
        seed = rng.getrandbits(31)
        row = []
        for action in actions:
            state = sample.clone()
            state.apply_unchecked(action)
            play_out(state, seed, policy=LightRouteFocus)
            row.append(outcome(state, player))
        rows.append(row)
    return rows


Job = tuple[str, int, str, int, int, str, int, tuple[str, ...]]


def expert_spec(text: str) -> tuple[int, int | None]:
    """``"H"`` or ``"H:N"``: a horizon and, optionally, a ticket-rollout budget."""
    horizon, _, budget = text.partition(":")
    if not horizon.strip().isdigit() or (budget and not budget.strip().isdigit()):
        raise ValueError(text)
    return int(horizon), (int(budget) if budget else None)


def expert_pick(view: PlayerView, legal: Sequence[Action], actions: Sequence[Action], spec: str, seed: int) -> int:
    """The candidate the registered ``turn_search`` agent picks with rollouts cut at the spec's
    horizon (0: played to the end) and its rollout budget (by default the agent's), with no clock,
    so the load does not change it; -1 if its pick is not among ``actions``."""
    horizon, budget = expert_spec(spec)
    settings = {**TURN_SEARCH_SETTINGS, "time_limit": None, "turn_time": None, "horizon": horizon}
    settings["three_player_ticket_horizon"] = None  # the spec's horizon, at every table size
    if budget is not None:
        settings["ticket_rollouts"] = budget
        settings["action_rollouts"] = budget
    choice = RolloutSearchAgent(**settings, seed=seed).choose(view, legal)
    return actions.index(choice) if choice in actions else -1


def measure(job: Job) -> dict[str, Any] | None:
    """Outcomes of the candidates at one position, or None if it is not a ``wanted`` decision."""
    path, index, wanted, samples, seed, agent_name, keep_candidates, horizons = job
    record = GameRecord.load(path)
    player = json.loads(Path(path).read_text())["meta"]["names"].index(agent_name)
    state = next(s for i, s in enumerate(record.states()) if i == index).clone()
    kind, actions = candidates(state, player, keep_candidates)
    if kind != wanted or len(actions) < 2:
        return None
    rng = random.Random(seed)
    truth_samples = []
    for _ in range(samples):
        sample = state.clone()
        rng.shuffle(sample.deck)
        rng.shuffle(sample.ticket_deck)
        sample.rng = random.Random(rng.getrandbits(63))
        truth_samples.append(sample)
    truth = outcomes(truth_samples, actions, player, rng)
    view = state.view(player)
    view_rows = outcomes([view.determinize(rng) for _ in range(samples)], actions, player, rng)
    legal = state.legal_action_list()
    experts = {spec: expert_pick(view, legal, actions, spec, seed) for spec in horizons}
    return {"kind": kind, "truth": truth, "view": view_rows, "expert": experts}


def pick(rows: Sequence[Sequence[Outcome]], confidence: float, bonus: float = WIN_BONUS) -> int:
    """The candidate ``rollout_search``'s rule picks: the best paired gain over the first
    candidate if it exceeds ``confidence`` standard errors, else the first."""
    best, best_gain = 0, 0.0
    for c in range(1, len(rows[0])):
        diffs = [value(r[c], bonus) - value(r[0], bonus) for r in rows]
        mean = statistics.fmean(diffs)
        error = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
        if mean > confidence * error and mean > best_gain:
            best, best_gain = c, mean
    return best


def win_rate(rows: Sequence[Sequence[Outcome]], c: int) -> float:
    return statistics.fmean(r[c][2] for r in rows)


def report(kind: str, found: Sequence[dict[str, Any]], bonus: float = WIN_BONUS) -> None:
    def line(name: str, gain: Callable[[dict[str, Any]], float]) -> str:
        gains = [gain(f) for f in found]
        error = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else math.nan
        return f"{name} {statistics.fmean(gains):+.4f} ± {error:.4f}"

    def ceiling(f: dict[str, Any]) -> float:
        truth = f["truth"]
        half = len(truth) // 2
        c = pick(truth[:half], 0.0, bonus)
        return win_rate(truth[half:], c) - win_rate(truth[half:], 0)

    parts = [
        f"{kind:5s} bonus {bonus:g} positions {len(found):3d}",
        f"candidates {statistics.fmean(len(f['truth'][0]) for f in found):.1f}",
        f"route_focus_win {statistics.fmean(win_rate(f['truth'], 0) for f in found):.3f}",
        line("ceiling", ceiling),
        line(
            "best_biased",
            lambda f: max(win_rate(f["truth"], c) for c in range(len(f["truth"][0]))) - win_rate(f["truth"], 0),
        ),
    ]
    parts.append(line("search", lambda f: win_rate(f["truth"], pick(f["view"], 1.0, bonus)) - win_rate(f["truth"], 0)))
    for horizon in found[0].get("expert", {}):
        picked = [f for f in found if f["expert"][horizon] >= 0]
        if picked:
            gains = [win_rate(f["truth"], f["expert"][horizon]) - win_rate(f["truth"], 0) for f in picked]
            error = statistics.stdev(gains) / math.sqrt(len(gains)) if len(gains) > 1 else math.nan
            parts.append(f"expert_h{horizon} {statistics.fmean(gains):+.4f} ± {error:.4f} ({len(picked)})")
    print("  ".join(parts), flush=True)


def train_range(text: str) -> tuple[int, int]:
    """``"LO-HI"`` as a pair of train counts."""
    low, sep, high = text.partition("-")
    if not sep or not low.strip().isdigit() or not high.strip().isdigit() or int(low) > int(high):
        raise argparse.ArgumentTypeError(f"expected LO-HI with LO <= HI, e.g. 0-14, not {text!r}")
    return int(low), int(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path, help="a tournament's records directory")
    parser.add_argument("--positions", type=int, default=20, help="positions per decision kind")
    parser.add_argument("--samples", type=int, default=100, help="truth (and view) samples per position")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agent", default="rollout_search", help="whose decisions to take (a name in the records)")
    parser.add_argument("--trains", type=train_range, default=(0, 99), help="LO-HI: the fewest trains any player holds")
    parser.add_argument(
        "--bonus",
        default=f"{WIN_BONUS:g}",
        help="comma-separated win bonuses: each ranks the candidates by margin + bonus × win (a line each)",
    )
    parser.add_argument(
        "--keep-candidates",
        type=int,
        default=6,
        help="ticket choices looked at (the best by Route Focus's estimate; with the same --seed, more"
        " candidates extend the same samples)",
    )
    parser.add_argument(
        "--expert-horizons",
        default="",
        help="comma-separated H or H:N: for each, the registered turn_search agent's own pick (rollouts cut"
        " after H actions, 0 = to the end; N rollouts, by default its own budget; no clock) valued on the"
        " truth samples",
    )
    parser.add_argument("--save", type=Path, help="also write every position's outcomes to this JSON file")
    args = parser.parse_args()
    try:
        bonuses = [float(b) for b in args.bonus.split(",") if b.strip()]
    except ValueError:
        parser.error(f"--bonus takes numbers separated by commas, not {args.bonus!r}")
    if not bonuses:
        parser.error("--bonus needs at least one number")
    try:
        horizons = tuple(h.strip() for h in args.expert_horizons.split(",") if h.strip())
        for spec in horizons:
            expert_spec(spec)
    except ValueError:
        parser.error(f"--expert-horizons takes H or H:N separated by commas, not {args.expert_horizons!r}")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    for kind in kinds:
        if kind not in KINDS:
            parser.error(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}")
    files = sorted(args.records.glob("*.json"))
    if not files:
        parser.error(f"no game records in {args.records}")
    rng = random.Random(args.seed)
    jobs: dict[str, list[Job]] = {k: [] for k in kinds}
    for path in files:
        meta = json.loads(path.read_text()).get("meta", {})
        if args.agent not in meta.get("names", []):
            continue
        player = meta["names"].index(args.agent)
        for index, state in enumerate(GameRecord.load(path).states()):
            if state.is_over or state.decision.player != player:
                continue
            if not args.trains[0] <= min(state.trains) <= args.trains[1]:
                continue
            for kind in PHASE_KINDS.get(state.decision.phase.name, ()):
                if kind in jobs:
                    seed = rng.getrandbits(32)
                    job = (str(path), index, kind, args.samples, seed, args.agent, args.keep_candidates, horizons)
                    jobs[kind].append(job)
    saved: dict[str, list[dict[str, Any]]] = {}
    with multiprocessing.Pool(args.workers) as pool:
        for kind in kinds:
            todo = jobs[kind]
            rng.shuffle(todo)
            found: list[dict[str, Any]] = []
            for chunk_start in range(0, len(todo), 4 * args.workers):
                chunk = todo[chunk_start : chunk_start + 4 * args.workers]
                for result in pool.map(measure, chunk, chunksize=1):
                    if result is not None and len(found) < args.positions:
                        found.append(result)
                if len(found) >= args.positions:
                    break
            saved[kind] = found
            if found:
                for bonus in bonuses:
                    report(kind, found, bonus)
            else:
                print(f"{kind:5s} no positions found")
    if args.save is not None:
        args.save.write_text(json.dumps(saved))


if __name__ == "__main__":
    main()
