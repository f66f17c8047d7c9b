"""Tournaments between AI agents: seeded scheduling with fair seat rotation, parallel play
(process pool or Ray), SQLite/CSV/JSON results, replayable records, statistics and plots.

The engine never imports this package; this package imports the engine and the agents.

>>> from ttr_nordic.sim import TournamentConfig, run_tournament
>>> result = run_tournament(TournamentConfig(agents=("random", "random"), games=4, seed=1))
>>> result.summary.agents[0].games, sum(a.wins for a in result.summary.agents)
(4, 4.0)
"""

from .play import TournamentError, play_batch, play_spec
from .results import GameRow, ResultStore, load_rows, write_csv
from .schedule import Entry, GameSpec, derive_seed, make_entries, schedule, seatings
from .summary import AgentSummary, SeatSummary, Summary, summarize, wilson_interval
from .tournament import TournamentConfig, TournamentResult, run_tournament

__all__ = [
    "AgentSummary",
    "Entry",
    "GameRow",
    "GameSpec",
    "ResultStore",
    "SeatSummary",
    "Summary",
    "TournamentConfig",
    "TournamentError",
    "TournamentResult",
    "derive_seed",
    "load_rows",
    "make_entries",
    "play_batch",
    "play_spec",
    "run_tournament",
    "schedule",
    "seatings",
    "summarize",
    "wilson_interval",
    "write_csv",
]
