"""A sequential test on the mean margin, to compare two agent versions in as few games as it takes.

Each game gives one number: the margin of A over B (A's total minus B's). Wald's sequential
probability ratio test weighs H0 "A's mean margin is ``h0``" (default 0: no better) against H1
"it is ``h1``" (say +5 points), with the margins taken as normal with the standard deviation seen
so far. After each game the log-likelihood ratio is

    LLR = (h1 - h0) / sd² · Σ (x - (h0 + h1) / 2)

and the test stops with H1 when it reaches log((1 - beta) / alpha), with H0 when it falls to
log(beta / (1 - alpha)). The margin's SD in this game is 30–45 points, so a +5-point difference
is decided in a few hundred games; a win-rate gate is for the end of development, not for this.

>>> test = SequentialTest(h0=0, h1=5, alpha=0.05, beta=0.05, min_games=4)
>>> for margin in [30, -20, 45, 10, 25, -5, 60, 12] * 40:
...     if test.add(margin):
...         break
>>> test.decision, test.games < 320
('H1', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class SequentialTest:
    """Wald's SPRT on the mean of normal observations with a plug-in variance."""

    h0: float = 0.0
    h1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    #: Games before the test may stop (the variance estimate needs some).
    min_games: int = 30
    margins: list[float] = field(default_factory=list)
    decision: str | None = None  # "H0", "H1", or None while undecided

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie between 0 and 0.5")
        if self.h1 == self.h0:
            raise ValueError("h0 and h1 must differ")
        if self.min_games < 2:
            raise ValueError("min_games must be at least 2")

    @property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def games(self) -> int:
        return len(self.margins)

    @property
    def mean(self) -> float:
        return sum(self.margins) / len(self.margins) if self.margins else 0.0

    @property
    def sd(self) -> float:
        n = len(self.margins)
        if n < 2:
            return 0.0
        mean = self.mean
        return math.sqrt(sum((x - mean) ** 2 for x in self.margins) / (n - 1))

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 over H0 so far (0 until the SD is known)."""
        sd = self.sd
        if sd == 0:
            return 0.0
        midpoint = (self.h0 + self.h1) / 2
        return (self.h1 - self.h0) / (sd * sd) * sum(x - midpoint for x in self.margins)

    def add(self, margin: float) -> bool:
        """Record one game's margin; True once the test has decided (later games change nothing)."""
        if self.decision is not None:
            return True
        self.margins.append(float(margin))
        if self.games >= self.min_games:
            llr = self.llr
            if llr >= self.upper:
                self.decision = "H1"
            elif llr <= self.lower:
                self.decision = "H0"
        return self.decision is not None

    def summary(self) -> str:
        """One line: games, mean margin with its standard error, the LLR and its bounds, the verdict."""
        se = self.sd / math.sqrt(self.games) if self.games > 1 else float("nan")
        verdict = {
            "H1": f"A is better by about {self.h1:+g} (H1 accepted)",
            "H0": f"A is not better than {self.h0:+g} (H0 accepted)",
            None: "undecided",
        }[self.decision]
        return (
            f"{self.games} games, mean margin {self.mean:+.2f} ± {se:.2f} (sd {self.sd:.1f}), "
            f"LLR {self.llr:+.2f} in [{self.lower:.2f}, {self.upper:.2f}]: {verdict}"
        )
