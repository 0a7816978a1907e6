"""Convergence monitoring of (modified) Newton iterations from the sizes of their increments.

A contraction rate is known only from the second increment, so a step takes two unless the first is at round-off.
Deciding on the first with the rate of the previous step (Hairer & Wanner IV.8, RADAU5: ``rate / (1 - rate) |dy_1| <
tolerance``, the rate aged by ``** 0.8`` a step) was measured and left out: the first increment is the predictor's
error, which step-size control keeps near the local-error tolerance: 50 to 1000 Newton tolerances at rtol 1e-6 and
1000 to 8000 at 1e-8, so it passes only at rates below 0.001-0.02, which fresh factors reach and the previous step's
rate seldom shows. Knowing each step's own rate, 8-15 % of the solves could stop at one increment at rtol 1e-6 (free
slider-crank, chains of 2-50 links), 1-2 % at 1e-8; the rule saved 0-5 % of the iterations and no wall time, and at
rtol 1e-3 to 1e-4, where it fires, its less converged iterates took up to 13 % more steps, crank-angle errors
1.15-3.4x larger."""

from __future__ import annotations

from enum import Enum

import numpy as np
import numpy.typing as npt
from numba import njit

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
ROUNDOFF_FRACTION = 1e-3
"""Fraction of the tolerance below which an increment counts as converged whatever its rate (the
default of ``ConvergenceMonitor``)."""


@njit(cache=True)
def roundoff_norm(y: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]) -> float:
    """Weighted RMS size of increments that round-off alone produces at the iterate ``y`` (n,)
    with error weights ``weights`` (n,): ``rms(ROUNDOFF_ULPS * eps * |y| * weights)``. At tight
    tolerances (rtol near 1e-10) this exceeds a fraction of the Newton tolerance, and such
    increments say nothing about convergence."""
    if y.size == 0:
        return 0.0
    total = 0.0
    for i in range(y.size):
        total += (y[i] * weights[i]) ** 2
    return ROUNDOFF_ULPS * EPS * np.sqrt(total / y.size)


class Verdict(Enum):
    """What one more Newton increment says about the iteration."""

    CONTINUE = "continue"
    CONVERGED = "converged"
    DIVERGING = "diverging"


CONTINUE, CONVERGED, DIVERGING = 0, 1, 2
"""The codes of ``verdict_code`` (compiled loops cannot return an ``Enum``)."""
VERDICTS = (Verdict.CONTINUE, Verdict.CONVERGED, Verdict.DIVERGING)
"""The ``Verdict`` of each code."""


@njit(cache=True)
def verdict_code(
    norm: float,
    previous: float,
    iterations: int,
    tolerance: float,
    max_iterations: int,
    roundoff_fraction: float,
    roundoff: float,
) -> int:
    """The verdict (``CONTINUE``, ``CONVERGED`` or ``DIVERGING``) on the ``iterations``-th increment of
    weighted norm ``norm``, ``previous`` the one before (0 at the first), by the rules of
    ``ConvergenceMonitor``; compiled, so that a compiled Newton loop decides as the monitor does."""
    if np.isnan(norm):
        return DIVERGING
    has_rate = previous > 0.0 or previous < 0.0
    rate = norm / previous if has_rate else 0.0
    if norm < max(roundoff_fraction * tolerance, roundoff):
        return CONVERGED
    if has_rate and rate >= STAGNATION_RATE and norm < STAGNATION_ULPS / ROUNDOFF_ULPS * roundoff:
        return CONVERGED
    if has_rate and rate < 1.0 and rate / (1.0 - rate) * norm < tolerance:
        return CONVERGED
    remaining = max_iterations - iterations
    if has_rate and (rate >= 1.0 or rate**remaining / (1.0 - rate) * norm > tolerance):
        return DIVERGING
    if remaining <= 0:
        return DIVERGING
    return CONTINUE


class ConvergenceMonitor:
    """Decides convergence from weighted increment norms, as in Hairer & Wanner (IV.8).

    With the contraction rate ``rate = |dy_k| / |dy_(k-1)|`` the remaining error is about
    ``rate / (1 - rate) |dy_k|``: converged when that is below ``tolerance``; given up when
    ``rate >= 1`` or when even ``max_iterations`` would not get there. Increments below
    ``roundoff_fraction * tolerance``, or below ``roundoff`` (the weighted size of round-off at
    the iterate, see ``roundoff_norm``), count as converged whatever their rate, since at that
    size the rate only measures round-off; so do increments that stagnate (rate above
    ``STAGNATION_RATE``) below ``STAGNATION_ULPS`` of the iterate (the linear solve's round-off).
    The rules are ``verdict_code``'s.
    """

    def __init__(
        self,
        tolerance: float,
        max_iterations: int,
        roundoff_fraction: float = ROUNDOFF_FRACTION,
        roundoff: float = 0.0,
    ) -> None:
        self.tolerance = tolerance
        self.max_iterations = max_iterations
        self.roundoff_fraction = roundoff_fraction
        self.roundoff = roundoff
        self.iterations = 0
        self.norm = float("inf")
        self._previous = 0.0
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
        code = verdict_code(
            norm,
            self._previous,
            self.iterations,
            self.tolerance,
            self.max_iterations,
            self.roundoff_fraction,
            self.roundoff,
        )
        if not np.isnan(norm):
            self.rate = norm / self._previous if self._previous else None
            self._previous = norm
        return VERDICTS[code]
