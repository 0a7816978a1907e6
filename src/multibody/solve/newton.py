"""Convergence monitoring of (modified) Newton iterations from the sizes of their increments."""

from __future__ import annotations

from enum import Enum


class Verdict(Enum):
    """What one more Newton increment says about the iteration."""

    CONTINUE = "continue"
    CONVERGED = "converged"
    DIVERGING = "diverging"


class ConvergenceMonitor:
    """Decides convergence from weighted increment norms, as in Hairer & Wanner (IV.8).

    With the contraction rate ``rate = |dy_k| / |dy_(k-1)|`` the remaining error is about
    ``rate / (1 - rate) |dy_k|``: converged when that is below ``tolerance``; given up when
    ``rate >= 1`` or when even ``max_iterations`` would not get there. Increments below
    ``roundoff_fraction * tolerance`` count as converged whatever their rate, since at that
    size the rate only measures round-off.
    """

    def __init__(self, tolerance: float, max_iterations: int, roundoff_fraction: float = 1e-3) -> None:
        self.tolerance = tolerance
        self.max_iterations = max_iterations
        self.roundoff_fraction = roundoff_fraction
        self.iterations = 0
        self.norm = float("inf")
        self._previous: float | None = None

    def update(self, norm: float) -> Verdict:
        """Register the weighted norm of the latest increment."""
        self.iterations += 1
        self.norm = norm
        if norm != norm:  # NaN
            return Verdict.DIVERGING
        rate = None if not self._previous else norm / self._previous
        self._previous = norm
        if norm < self.roundoff_fraction * self.tolerance:
            return Verdict.CONVERGED
        if rate is not None and rate < 1.0 and rate / (1.0 - rate) * norm < self.tolerance:
            return Verdict.CONVERGED
        remaining = self.max_iterations - self.iterations
        if rate is not None and (rate >= 1.0 or rate**remaining / (1.0 - rate) * norm > self.tolerance):
            return Verdict.DIVERGING
        if remaining <= 0:
            return Verdict.DIVERGING
        return Verdict.CONTINUE
