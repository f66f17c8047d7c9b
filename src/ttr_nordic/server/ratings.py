"""Ratings for people: OpenSkill (Plackett-Luce) on rated games between accounts.

A game is rated when its creator asked for it, every seat is a person's seat and an account
held every seat before the first move (see :mod:`.accounts`). When it ends, each player's rank
comes from the engine's result (total, then tickets completed, then longest path: ties share
a rank); a seat handed to the computer (its player left) ranks below every other one: a loss.

The change is applied exactly once per game, whichever server process ends the game, by a
conditional update of the game's ``game_ratings`` row from "pending" (one process wins it,
in the same transaction as the new ratings).

>>> before = [(25.0, 25 / 3), (25.0, 25 / 3)]
>>> after = rate(before, [1, 2])
>>> after[0][0] > 25.0 > after[1][0]
True
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce
from sqlalchemy import select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..engine import GameResult
from .account_db import GameRatingRow, PlayerRatingRow, RatingChangeRow, SeatAccountRow, UserRow
from .db import ActionRow, utcnow

log = logging.getLogger(__name__)

MODEL = PlackettLuce()
#: A new player's rating (OpenSkill's defaults).
START_MU = MODEL.mu
START_SIGMA = MODEL.sigma
#: The shown rating: 1000 + 20 x the ordinal (mu - 3 sigma); a new player shows 1000.
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 20.0
#: Fewer rated games than this: the rating is provisional (shown with a "?").
PROVISIONAL_GAMES = 5

PENDING = "pending"
APPLIED = "applied"
UNRATED = "unrated"


def ordinal(mu: float, sigma: float) -> float:
    """A conservative estimate of skill: ``mu - 3 sigma``.

    >>> ordinal(25.0, 25 / 3)
    0.0
    """
    return mu - 3.0 * sigma


def display(mu: float, sigma: float) -> int:
    """The rating shown to people.

    >>> display(25.0, 25 / 3)
    1000
    """
    return round(DISPLAY_BASE + DISPLAY_SCALE * ordinal(mu, sigma))


@dataclass(frozen=True)
class Rating:
    """An account's rating as the API shows it.

    >>> Rating(25.0, 25 / 3, 0).public()["display"]
    1000
    """

    mu: float
    sigma: float
    games: int

    def public(self) -> dict[str, float | int | bool]:
        return {
            "display": display(self.mu, self.sigma),
            "ordinal": round(ordinal(self.mu, self.sigma), 4),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "provisional": self.games < PROVISIONAL_GAMES,
        }


def rate(ratings: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` of each player after one game with these ``ranks`` (1 is first;
    equal ranks tie), by Plackett-Luce.

    >>> [round(mu, 3) for mu, _ in rate([(25.0, 25 / 3)] * 3, [1, 2, 3])]
    [27.869, 25.717, 21.414]
    """
    if len(ratings) != len(ranks) or not 2 <= len(ratings) <= 3:
        raise ValueError("a rated game has 2 or 3 players, each with a rank")
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    new = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in new]


def ranks_of(result: GameResult, forfeited: Sequence[int] = ()) -> list[int]:
    """Each seat's rank (1 = first): by total, then tickets completed, then longest path (the
    engine's tie-breaks; a tie left shares the rank); forfeited seats share the last rank.

    >>> from ttr_nordic.engine import GameConfig, GameState
    >>> ranks_of(GameState.from_config(GameConfig(3, 1)).result(), forfeited=[2])
    [1, 1, 3]
    """
    gone = set(forfeited)
    keys = {p.player: (p.total, p.tickets_completed, p.longest_path) for p in result.players if p.player not in gone}
    ranks = [0] * len(result.players)
    for seat, key in keys.items():
        ranks[seat] = 1 + sum(1 for other in keys.values() if other > key)
    for seat in gone:
        ranks[seat] = len(keys) + 1
    return ranks


@dataclass(frozen=True)
class FinishedGame:
    """What the rating of a finished game needs: its mode, every seat's kind and whether a
    person ever held it (a token), the ranks, and the seats handed to the computer."""

    game_id: str
    mode: str
    person_seats: tuple[bool, ...]  # seat had a person's token (handed-over seats keep theirs)
    ranks: tuple[int, ...]
    forfeited: tuple[int, ...]


def mark_rated(engine: Engine, game_id: str) -> None:
    """Record that ``game_id`` was created rated (its rating is applied when it ends)."""
    with Session(engine) as session, session.begin():
        session.add(GameRatingRow(game_id=game_id, state=PENDING))


def pending_games(engine: Engine) -> list[str]:
    """Rated games still pending (for a check at start: a game that ended on a process that
    died before rating it)."""
    with Session(engine) as session:
        return list(session.scalars(select(GameRatingRow.game_id).where(GameRatingRow.state == PENDING)))


def _ensure_rows(engine: Engine, user_ids: Sequence[str]) -> None:
    """Create missing rating rows at the start values (each alone: another process may race)."""
    for user_id in user_ids:
        try:
            with Session(engine) as session, session.begin():
                if session.get(PlayerRatingRow, user_id) is None:
                    session.add(PlayerRatingRow(user_id=user_id, mu=START_MU, sigma=START_SIGMA, games=0))
        except IntegrityError:
            pass  # created meanwhile


#: Why a rated game was left unrated, by code: the sentence is stored with the game, the code
#: goes beside it to the pages (which word it in their language).
UNRATED_REASONS: dict[str, str] = {
    "COMPUTER_SEAT": "a game with a computer seat is never rated",
    "SEAT_NOT_HELD": "not every seat was held by an account when the game started",
    "TWO_SEATS": "one account held two seats",
}
_REASON_CODES = {sentence: code for code, sentence in UNRATED_REASONS.items()}


def apply_rating(engine: Engine, game: FinishedGame) -> str:
    """Apply the rating of a finished game once; returns its state ("applied", "unrated", or
    "" when it is not a rated game or was decided already, maybe by another process)."""
    with Session(engine) as session:
        pending = session.get(GameRatingRow, game.game_id)
        if pending is None or pending.state != PENDING:
            return ""
        holders = dict(
            session.execute(
                select(SeatAccountRow.seat, SeatAccountRow.user_id).where(SeatAccountRow.game_id == game.game_id)
            ).all()
        )
    seats = len(game.ranks)
    reason = None
    if game.mode != "online" or not all(game.person_seats):
        reason = UNRATED_REASONS["COMPUTER_SEAT"]
    elif sorted(holders) != list(range(seats)):
        reason = UNRATED_REASONS["SEAT_NOT_HELD"]
    elif len(set(holders.values())) != seats:
        reason = UNRATED_REASONS["TWO_SEATS"]
    users = [holders.get(seat, "") for seat in range(seats)]
    if reason is None:
        _ensure_rows(engine, users)
    with Session(engine) as session, session.begin():
        won = session.execute(
            update(GameRatingRow)
            .where(GameRatingRow.game_id == game.game_id, GameRatingRow.state == PENDING)
            .values(state=APPLIED if reason is None else UNRATED, reason=reason, decided_at=utcnow())
        )
        if won.rowcount != 1:  # type: ignore[attr-defined]
            return ""
        if reason is not None:
            return UNRATED
        # Rows locked in one order (PostgreSQL), so two games ending at once wait for each other.
        rows = {
            row.user_id: row
            for row in session.scalars(
                select(PlayerRatingRow)
                .where(PlayerRatingRow.user_id.in_(sorted(users)))
                .order_by(PlayerRatingRow.user_id)
                .with_for_update()
            )
        }
        before = [(rows[u].mu, rows[u].sigma) for u in users]
        after = rate(before, game.ranks)
        now = utcnow()
        for seat, user_id in enumerate(users):
            row = rows[user_id]
            (mu0, sigma0), (mu1, sigma1) = before[seat], after[seat]
            row.mu, row.sigma, row.games, row.updated_at = mu1, sigma1, row.games + 1, now
            session.add(
                RatingChangeRow(
                    game_id=game.game_id,
                    seat=seat,
                    user_id=user_id,
                    rank=game.ranks[seat],
                    forfeit=seat in game.forfeited,
                    mu_before=mu0,
                    sigma_before=sigma0,
                    mu_after=mu1,
                    sigma_after=sigma1,
                    created_at=now,
                )
            )
    log.info("rated game %s applied", game.game_id)
    return APPLIED


def game_rating(engine: Engine, game_id: str) -> dict[str, object] | None:
    """A game's rating: None when it was not created rated; else its state, why it was not
    rated, the seats accounts hold (``held``), whether it ``started`` (a move was made) and
    each seat's change (account name, before, after)."""
    with Session(engine) as session:
        row = session.get(GameRatingRow, game_id)
        if row is None:
            return None
        changes = session.execute(
            select(RatingChangeRow, UserRow.name)
            .outerjoin(UserRow, UserRow.id == RatingChangeRow.user_id)
            .where(RatingChangeRow.game_id == game_id)
            .order_by(RatingChangeRow.seat)
        ).all()
        held = session.execute(
            select(SeatAccountRow.seat, UserRow.name)
            .join(UserRow, UserRow.id == SeatAccountRow.user_id)
            .where(SeatAccountRow.game_id == game_id)
            .order_by(SeatAccountRow.seat)
        ).all()
        return {
            "rated": True,
            "state": row.state,
            "reason": row.reason,
            "reason_code": _REASON_CODES.get(row.reason or ""),
            "held": [{"seat": seat, "player": name} for seat, name in held],
            "started": session.scalar(select(ActionRow.index).where(ActionRow.game_id == game_id).limit(1)) is not None,
            "changes": [
                {
                    "seat": change.seat,
                    "player": name,
                    "rank": change.rank,
                    "forfeit": change.forfeit,
                    "before": display(change.mu_before, change.sigma_before),
                    "after": display(change.mu_after, change.sigma_after),
                    "delta": display(change.mu_after, change.sigma_after)
                    - display(change.mu_before, change.sigma_before),
                }
                for change, name in changes
            ],
        }


def rating_of(engine: Engine, user_id: str) -> Rating:
    """An account's rating (the start values before its first rated game)."""
    with Session(engine) as session:
        row = session.get(PlayerRatingRow, user_id)
        return Rating(START_MU, START_SIGMA, 0) if row is None else Rating(row.mu, row.sigma, row.games)
