"""scipy's ODE solvers (RK45, DOP853, LSODA) stepped one accepted step at a time, with the
attributes the analyses read from ``BDF`` (``t``, ``t_old``, ``y``, ``step``, ``dense_output``,
``stats``) and an optional projection after each step.

The projection (``project(t, y)`` returning the projected ``y``, or None when ``y`` is close
enough to its manifold) restarts the solver from the projected state: scipy's solvers keep
their history internally, so a changed ``y`` needs a fresh start (one derivative evaluation
and an initial step size guess). Components with ``atol = inf`` are outside the error test.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from multibody.solve.integrators.base import FloatArray, IntegrationError, Statistics

SOLVERS: tuple[str, ...] = ("RK45", "DOP853", "LSODA")
"""Names of scipy.integrate's solvers, imported when first used: non-stiff (RK45: Dormand-Prince 5(4);
DOP853: 8(5,3)) and automatic stiffness switching (LSODA)."""

Rate = Callable[[float, FloatArray], FloatArray]
Projection = Callable[[float, FloatArray], "FloatArray | None"]


class ExplicitIntegrator:
    """One of ``SOLVERS`` from ``t0`` to ``t_bound`` on ``dy/dt = rate(t, y)``."""

    def __init__(
        self,
        method: str,
        rate: Rate,
        t0: float,
        y0: FloatArray,
        t_bound: float,
        rtol: float,
        atol: float | FloatArray,
        max_step: float = np.inf,
        project: Projection | None = None,
    ) -> None:
        if method not in SOLVERS:
            raise ValueError(f"unknown explicit method {method!r}; choose one of {', '.join(SOLVERS)}")
        self.method = method
        self.rate = rate
        self.t_bound = float(t_bound)
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        self.project = project
        self.stats = Statistics()
        self.function_evaluations = 0
        self.restarts = 0
        self.t = self.t_old = float(t0)
        self._start(float(t0), np.asarray(y0, dtype=float))
        self._interpolant: Callable[[float], FloatArray] | None = None

    def _start(self, t: float, y: FloatArray) -> None:
        if hasattr(self, "_solver"):
            self.function_evaluations += self._solver.nfev
        import scipy.integrate  # heavy (pulls in scipy.optimize): loaded when first used

        self._solver = getattr(scipy.integrate, self.method)(
            self.rate, t, y, self.t_bound, rtol=self.rtol, atol=self.atol, max_step=self.max_step
        )
        self.y = self._solver.y

    def step(self) -> None:
        """Advance one accepted step; raises ``IntegrationError`` when the solver gives up."""
        solver = self._solver
        message = solver.step()
        if solver.status == "failed":
            raise IntegrationError(
                f"{self.method} failed at t = {solver.t:.6g} s: {message}", solver.t, solver.step_size or 0.0
            )
        self.stats.steps += 1
        self.t_old, self.t = solver.t_old, solver.t
        self._interpolant = solver.dense_output()
        self.y = solver.y
        if self.project is not None and self.t < self.t_bound:
            projected = self.project(self.t, self.y)
            if projected is not None:
                self.restarts += 1
                self._start(self.t, projected)

    def dense_output(self, t: float) -> FloatArray:
        """Solution interpolated at ``t`` within the last step ``[t_old, t]``."""
        if self._interpolant is None:
            return self.y.copy()
        return self._interpolant(t)

    def stats_dict(self) -> dict[str, float]:
        """Counters for ``Results.stats``."""
        return {
            "steps": self.stats.steps,
            "function_evaluations": self.function_evaluations + self._solver.nfev,
            "projection_restarts": self.restarts,
        }
