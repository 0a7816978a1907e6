"""The small protocol every integrator shares, and what it asks of the problem it integrates.

An integrator advances ``y`` (differential variables) and carries ``z`` (algebraic variables,
e.g. Lagrange multipliers) as an opaque guess. The problem owns the nonlinear solve of one
implicit step (``correct``) and the error weights (which components count, how scaled), so the
integrator knows nothing of mechanics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


class IntegrationError(RuntimeError):
    """A step could not be completed. The message says when, with what step size, and why."""

    def __init__(self, message: str, t: float, step_size: float) -> None:
        super().__init__(message)
        self.t = t
        self.step_size = step_size


@dataclass
class Correction:
    """Outcome of one implicit solve ``y = base + c * f(t, y, z)``."""

    y: FloatArray
    z: FloatArray
    converged: bool
    iterations: int
    residual: float
    """weighted norm of the last Newton increment"""
    diagnosis: str | Callable[[], str] = ""
    """for a failure: what went wrong, naming the element if the problem can; a function when saying
    it costs work (it is called only if the integrator gives up: ``failure_text``)"""
    factorizations: int = 1
    """iteration matrices factorized for this solve (0 when it reused an earlier step's factors)"""
    retried_iterations: int = 0
    """iterations spent before ``iterations`` with the factors of an earlier step, which failed: counted
    in the statistics, not in the step size's safety factor (they say the factors were stale, not that
    the step was long)"""
    evaluated_jacobians: bool = False
    """whether the problem evaluated its Jacobians afresh for this solve unasked (a failure with kept
    factors blamed on old ones)"""


def failure_text(diagnosis: str | Callable[[], str]) -> str:
    """The text of a failure's diagnosis, working it out if it was left as a function."""
    return diagnosis() if callable(diagnosis) else diagnosis


class ImplicitProblem(Protocol):
    """What an implicit integrator needs from the equations it integrates."""

    def correct(
        self,
        t: float,
        predicted: FloatArray,
        base: FloatArray,
        c: float,
        z_guess: FloatArray,
        weights: FloatArray,
        tolerance: float,
        refresh_jacobian: bool,
    ) -> Correction:
        """Solve ``y = base + c * dy/dt(t, y, z)`` by Newton from ``predicted``."""
        ...

    def step_limit(self, t: float, y: FloatArray) -> float:
        """The longest step [s] the equations allow from ``(t, y)`` whatever the error estimate
        says (a contact ahead must not be stepped over); inf when nothing limits it."""
        ...

    def finalize(self, y: FloatArray) -> FloatArray:
        """Project an accepted ``y`` back onto its manifold (unit Euler parameters)."""
        ...

    def error_weights(self, y: FloatArray, step_size: float, rtol: float, atol: float) -> FloatArray:
        """Inverse error scales per component (0 for components outside the error test)."""
        ...


@dataclass
class Statistics:
    """Counters every integrator keeps."""

    steps: int = 0
    rejected_steps: int = 0
    newton_iterations: int = 0
    newton_failures: int = 0
    jacobian_evaluations: int = 0
    factorizations: int = 0
    compiled_steps: int = 0
    """steps of ``steps`` taken by compiled stepping (``BDF.take_compiled_steps``)"""

    def as_dict(self) -> dict[str, float]:
        """Plain dict for ``Results.stats``."""
        return dict(self.__dict__)


def rms(x: FloatArray) -> float:
    """Root mean square over the components that count (all of ``x``)."""
    return float(np.sqrt(np.dot(x, x) / x.size)) if x.size else 0.0


def max_norm(x: FloatArray) -> float:
    """Largest magnitude in ``x`` (0 for an empty ``x``): the step-error test's norm, so that the
    one coordinate that is off is not averaged away among many that are not."""
    return float(np.max(np.abs(x), initial=0.0))


STALLED_ATTEMPTS = 1000
"""Attempted steps over which a run must advance by at least as many ``min_step``: a contact, an end
stop or a valve switching takes a few dozen shorter steps among many longer ones; an unregularized
``sign(v)`` or a slack rope snapping taut at a jump start takes them by the million."""


class StallWatch:
    """ADAMS's HMIN as a stall test: a run whose last ``STALLED_ATTEMPTS`` attempted steps advanced
    it by less than ``STALLED_ATTEMPTS * min_step`` (an average step below ``min_step`` [s]; 0:
    never) stops, naming what the latest failed attempt failed on, instead of crawling on."""

    def __init__(self, min_step: float) -> None:
        self.min_step = min_step
        self.attempts = 0
        self.window_start = 0.0
        """[s] where the current window of attempts started"""
        self.last_failure: Callable[[], str] = lambda: "no step failed"
        """what the latest rejected or failed step failed on (worked out when the run stops)"""

    def attempt(self, t: float, h: float, steps_taken: int) -> None:
        """Count an attempt of step ``h`` from ``t``; raise ``IntegrationError`` when stalled."""
        if self.attempts == 0:
            self.window_start = t
        self.attempts += 1
        if self.attempts < STALLED_ATTEMPTS:
            return
        self.attempts = 0
        advance = t - self.window_start
        if advance >= STALLED_ATTEMPTS * self.min_step:
            return
        text = (
            f"the run has stalled at t = {t:.6g} s: its last {STALLED_ATTEMPTS} attempted steps advanced it by "
            f"{advance:.3g} s, less than min_step = {self.min_step:.3g} s each (the latest {h:.3g} s); "
            f"{self.last_failure()}"
        )
        if not steps_taken:
            text += "; no step was accepted: the run starts with a jump (a motion at full speed at t = 0): ramp it up"
        raise IntegrationError(
            f"{text}; look for a jump in the model there (a discontinuous force law or motion, a slack rope snapping "
            "taut), or pass min_step=0 to go on regardless",
            t,
            h,
        )

    def newton_failed(self, t: float, diagnosis: str | Callable[[], str]) -> None:
        """Note a Newton failure at ``t``."""
        self.last_failure = lambda: f"Newton did not converge at t = {t:.6g} s: {failure_text(diagnosis)}"

    def error_test_failed(self, t: float, problem: object | None, weighted_error: FloatArray | None) -> None:
        """Note an error-test failure at ``t`` with the weighted error ``weighted_error`` (y's size):
        what its largest component belongs to, when the problem can say (``describe_error``; a
        ``problem`` of None says nothing)."""
        describe = getattr(problem, "describe_error", None)
        on = (lambda: f" on {describe(weighted_error)}") if describe is not None else (lambda: "")
        self.last_failure = lambda: f"the error test failed at t = {t:.6g} s{on()}"
