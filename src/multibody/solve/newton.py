"""Convergence monitoring of (modified) Newton iterations from the sizes of their increments."""

from __future__ import annotations

from enum import Enum

import numpy as np
import numpy.typing as npt

EPS = float(np.finfo(float).eps)
ROUNDOFF_ULPS = 10.0
"""Increments within this many units in the last place of the iterate are round-off."""
STAGNATION_ULPS = 1000.0
"""Increments that stop shrinking (``STAGNATION_RATE``) within this many units in the last place of
the iterate are the round-off of the linear solve. An ill-conditioned iteration matrix (a saddle
point with widely different masses, inertias and lever arms) solves only to about its condition
number times eps, which can be well above ``ROUNDOFF_ULPS`` of the iterate: a four-bar of 10-40 m
bars under SI2 at rtol = atol = 1e-10 stalls at 80-100 ulps and had its step collapse."""
STAGNATION_RATE = 0.5
"""Contraction rate above which increments no longer shrink usefully."""


def roundoff_norm(y: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]) -> float:
    """Weighted RMS size of increments that round-off alone produces at the iterate ``y`` (n,)
    with error weights ``weights`` (n,): ``rms(ROUNDOFF_ULPS * eps * |y| * weights)``. At tight
    tolerances (rtol near 1e-10) this exceeds a fraction of the Newton tolerance, and such
    increments say nothing about convergence."""
    scaled = y * weights
    return ROUNDOFF_ULPS * EPS * float(np.sqrt(np.dot(scaled, scaled) / scaled.size)) if scaled.size else 0.0


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
    ``roundoff_fraction * tolerance``, or below ``roundoff`` (the weighted size of round-off at
    the iterate, see ``roundoff_norm``), count as converged whatever their rate, since at that
    size the rate only measures round-off; so do increments that stagnate (rate above
    ``STAGNATION_RATE``) below ``STAGNATION_ULPS`` of the iterate (the linear solve's round-off).
    """

    def __init__(
        self, tolerance: float, max_iterations: int, roundoff_fraction: float = 1e-3, roundoff: float = 0.0
    ) -> None:
        self.tolerance = tolerance
        self.max_iterations = max_iterations
        self.roundoff_fraction = roundoff_fraction
        self.roundoff = roundoff
        self.iterations = 0
        self.norm = float("inf")
        self._previous: float | None = None
        self.rate: float | None = None
        """the latest contraction rate (None before the second increment)"""

    @property
    def contracting(self) -> bool:
        """Whether the increments still shrink clearly (rate below 1/2): a given-up iteration
        that was contracting is worth continuing with a fresh iteration matrix."""
        return self.rate is not None and self.rate < 0.5

    def update(self, norm: float) -> Verdict:
        """Register the weighted norm of the latest increment."""
        self.iterations += 1
        self.norm = norm
        if np.isnan(norm):
            return Verdict.DIVERGING
        rate = None if not self._previous else norm / self._previous
        self.rate = rate
        self._previous = norm
        if norm < max(self.roundoff_fraction * self.tolerance, self.roundoff):
            return Verdict.CONVERGED
        if rate is not None and rate >= STAGNATION_RATE and norm < STAGNATION_ULPS / ROUNDOFF_ULPS * self.roundoff:
            return Verdict.CONVERGED
        if rate is not None and rate < 1.0 and rate / (1.0 - rate) * norm < self.tolerance:
            return Verdict.CONVERGED
        remaining = self.max_iterations - self.iterations
        if rate is not None and (rate >= 1.0 or rate**remaining / (1.0 - rate) * norm > self.tolerance):
            return Verdict.DIVERGING
        if remaining <= 0:
            return Verdict.DIVERGING
        return Verdict.CONTINUE
