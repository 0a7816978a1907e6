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
