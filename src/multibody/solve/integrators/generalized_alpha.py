"""Generalized-alpha (Chung & Hulbert 1993) and HHT-alpha (Hilber, Hughes & Taylor 1977) for
constrained second-order systems in index-3 form, with step-size control.

Per step ``h`` from ``(q_n, v_n, a_n, dv_n)`` (``a`` the method's acceleration-like variable,
``dv`` the true accelerations), as in Arnold & Brüls, "Convergence of the generalized-alpha
scheme for constrained mechanical systems" (Multibody Syst. Dyn. 18, 2007), with the rotation
update on the group (Brüls, Cardona & Arnold 2012):

    q_{n+1} = q_n (+) h (v_n + h (1/2 - beta) a_n + h beta a_{n+1})
    v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) dv_{n+1} + alpha_f dv_n

and the equations of motion and constraints hold exactly at ``t_{n+1}`` (so the multipliers are
the reactions there). With ``rho`` the spectral radius at infinity (0 <= rho <= 1):

* generalized-alpha: ``alpha_m = (2 rho - 1) / (rho + 1)``, ``alpha_f = rho / (rho + 1)``;
* HHT: ``alpha_m = 0``, ``alpha_f = (1 - rho) / (1 + rho)`` (``alpha_HHT = -alpha_f``,
  1/2 <= rho <= 1);

both with ``gamma = 1/2 + alpha_f - alpha_m``, ``beta = (1 + alpha_f - alpha_m)^2 / 4``: second
order, unconditionally stable for linear problems, high frequencies damped to ``rho`` per step.

Step-size control: the local position error is O(h^3). It is estimated as the difference between
the method's new positions and a predictor one order higher, the cubic Hermite extrapolation of
the last step's end positions and velocities (a Milne-type estimate, in the spirit of the
predictor-corrector estimate of Negrut, Rampalli, Ottarsson & Sajdak 2007 for HHT). Estimates
from the accelerations, ``h^2 (a_{n+1} - a_n)``, are useless on the index-3 form: ``a`` and the
multipliers carry an alternating parasitic component (decaying as ``rho`` per step), and steps
were rejected every other step. Velocities are tested with the same estimate divided by ``h``,
their weights scaled by ``h`` (index-3 error control, as BDF's I3). The step then follows
``error^(-1/3)``.

Dense output: cubic Hermite interpolation of the position difference from ``q_n`` (rates
``v_n``, ``v_{n+1}``), of the velocities (rates ``dv_n``, ``dv_{n+1}``) and of the quadratures
(energy bookkeeping; trapezoidal, as the step).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from multibody.solve.integrators.base import FloatArray, IntegrationError, Statistics, rms

VARIANTS = ("generalized", "HHT")


class SecondOrderProblem(Protocol):
    """What the integrator needs from the equations (``formulation.index3_alpha.Index3Mechanics``)."""

    nv: int

    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(q, v, quadratures)``: positions, velocities and the rest of ``y``, advanced by the
        trapezoidal rule from their rates."""
        ...

    def join(self, q: FloatArray, v: FloatArray, quadratures: FloatArray) -> FloatArray: ...

    def displace(self, q: FloatArray, dx: FloatArray) -> FloatArray: ...

    def position_difference(self, q: FloatArray, q_ref: FloatArray) -> FloatArray: ...

    def error_weights(
        self, q: FloatArray, v: FloatArray, rtol: float, atol: float
    ) -> tuple[FloatArray, FloatArray]: ...

    def solve(
        self,
        t: float,
        q_base: FloatArray,
        x_base: FloatArray,
        v_base: FloatArray,
        c_q: float,
        c_v: float,
        acceleration_guess: FloatArray,
        lam_guess: FloatArray,
        weights: tuple[FloatArray, FloatArray],
        tolerance: float,
        refresh_jacobian: bool,
    ): ...


def alpha_coefficients(rho_inf: float, variant: str = "generalized") -> tuple[float, float, float, float]:
    """``(alpha_m, alpha_f, gamma, beta)`` for the spectral radius at infinity ``rho_inf``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown alpha-method variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    low = 0.5 if variant == "HHT" else 0.0
    if not low <= rho_inf <= 1.0:
        raise ValueError(
            f"spectral radius at infinity of the {variant} alpha method must be in [{low}, 1], got {rho_inf}"
        )
    if variant == "HHT":
        alpha_m, alpha_f = 0.0, (1.0 - rho_inf) / (1.0 + rho_inf)
    else:
        alpha_m, alpha_f = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0), rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    return alpha_m, alpha_f, gamma, 0.25 * (gamma + 0.5) ** 2


class GeneralizedAlpha:
    """The alpha method on ``problem`` with error-controlled steps (or fixed ones, ``adaptive=False``).

    Same protocol as ``BDF``: ``step()`` advances ``t_old -> t``; ``y`` = (q, v, E) and ``z``
    (the multipliers) are the state at ``t``; ``dense_output(t)`` interpolates in the last step;
    ``stats`` counts. ``y_dot0`` must hold the consistent accelerations in its velocity part and
    ``z0`` the consistent multipliers.
    """

    min_factor = 0.2
    max_factor = 5.0
    safety = 0.9
    hold_factors = (0.7, 3.0)
    """The step is kept while the controller's factor stays in this range. Each change of step
    leaves the acceleration-like variables ``a`` lagging by a different ``(alpha_m - alpha_f) h``,
    a first-order error; changing the step at every step (as BDF does) made the double pendulum
    of benchmarks/alpha_energy.py lose 10x more energy (generalized-alpha, 20 periods at rtol
    1e-4: 4.2e-4 m g L against 4.2e-5 with the hold; HHT 6.8e-4 against 2.0e-4) for 15 % fewer steps."""

    def __init__(
        self,
        problem: SecondOrderProblem,
        t0: float,
        y0: FloatArray,
        y_dot0: FloatArray,
        z0: FloatArray,
        t_bound: float,
        rtol: float,
        atol: float,
        max_step: float = np.inf,
        first_step: float | None = None,
        rho_inf: float = 0.9,
        variant: str = "generalized",
        adaptive: bool = True,
    ) -> None:
        self.alpha_m, self.alpha_f, self.gamma, self.beta = alpha_coefficients(rho_inf, variant)
        self.problem = problem
        self.t = self.t_old = float(t0)
        self.t_bound = float(t_bound)
        self.y = np.asarray(y0, dtype=float).copy()
        self.z = np.asarray(z0, dtype=float).copy()
        q, v, quadratures = problem.split(self.y)
        _, acceleration, quadrature_rate = problem.split(np.asarray(y_dot0, dtype=float))
        self.acceleration = acceleration.copy()
        self.alpha_acceleration = acceleration.copy()
        self.quadrature_rate = quadrature_rate
        self.rtol, self.atol = rtol, atol
        self.max_step = max_step
        self.adaptive = adaptive
        self.stats = Statistics()
        self.newton_tolerance = max(10.0 * np.finfo(float).eps / rtol, min(0.03, rtol**0.5))
        span = abs(t_bound - t0)
        if first_step is None:
            if not adaptive:
                raise ValueError("a fixed-step alpha method needs first_step (the step size)")
            # a tenth of the step whose position change h^2 |a| / 2 is the tolerance (within 1 % of the span)
            position_weights, _ = problem.error_weights(q, v, rtol, atol)
            scale = rms(acceleration * position_weights)
            first_step = 0.1 * np.sqrt(2.0 / scale) if scale > 0.0 else 0.01 * span
        self.h = float(min(first_step, max_step, 0.01 * span if adaptive else span))
        self.refresh_jacobian = True
        self._previous = (self.t, q.copy(), v.copy(), acceleration.copy(), quadratures, quadrature_rate)
        self._has_history = False

    def step(self) -> None:
        """Advance one accepted step (``t_old`` -> ``t``); raises ``IntegrationError``."""
        problem = self.problem
        t = self.t
        q, v, quadratures = problem.split(self.y)
        min_step = 10.0 * np.finfo(float).eps * max(abs(t), 1.0)
        h = min(self.h, self.max_step)
        while True:
            if h < min_step:
                raise IntegrationError(
                    f"step size {h:.3g} s fell below the smallest usable step at t = {t:.6g} s", t, h
                )
            # stretch a step that would leave a sliver (its accelerations would rest on
            # Phi / h^2 at round-off) to the end
            last = t + 1.001 * h >= self.t_bound
            t_new = self.t_bound if last else t + h
            h_step = t_new - t
            weights = problem.error_weights(q, v, self.rtol, self.atol)
            weights = (weights[0], weights[1] * h_step)  # index-3 error control of the velocities
            # a_{n+1} = (1 - alpha_f)/(1 - alpha_m) dv_{n+1} + (alpha_f dv_n - alpha_m a_n)/(1 - alpha_m)
            slope = (1.0 - self.alpha_f) / (1.0 - self.alpha_m)
            offset = (self.alpha_f * self.acceleration - self.alpha_m * self.alpha_acceleration) / (1.0 - self.alpha_m)
            x_base = h_step * v + h_step**2 * ((0.5 - self.beta) * self.alpha_acceleration + self.beta * offset)
            v_base = v + h_step * ((1.0 - self.gamma) * self.alpha_acceleration + self.gamma * offset)
            refreshed = self.refresh_jacobian
            solved = problem.solve(
                t_new,
                q,
                x_base,
                v_base,
                self.beta * slope * h_step**2,
                self.gamma * slope * h_step,
                self.acceleration,
                self.z,
                weights,
                self.newton_tolerance,
                refreshed,
            )
            self.refresh_jacobian = False
            self.stats.newton_iterations += solved.iterations
            self.stats.factorizations += 1
            self.stats.jacobian_evaluations += int(refreshed)
            if not solved.converged:
                self.stats.newton_failures += 1
                if not refreshed:
                    self.refresh_jacobian = True
                    continue
                if not self.adaptive or 0.5 * h < min_step:
                    raise IntegrationError(
                        f"Newton iteration did not converge at t = {t_new:.6g} s with step size {h_step:.3g} s "
                        f"(increment norm {solved.residual:.3g}); {solved.diagnosis}",
                        t_new,
                        h_step,
                    )
                h = 0.5 * h_step
                self.refresh_jacobian = True
                continue
            alpha_acceleration = slope * solved.acceleration + offset
            # the velocities' error (about 3/2 of this over h) is tested with weights scaled by h
            error = problem.position_difference(solved.q, self._predicted_position(q, v, h_step))
            error_norm = rms(np.concatenate([error * weights[0], error * weights[1] / h_step]))
            if not np.isfinite(error_norm):
                raise IntegrationError(
                    f"the solution became non-finite at t = {t_new:.6g} s with step size {h_step:.3g} s", t_new, h_step
                )
            if self.adaptive and error_norm > 1.0:
                self.stats.rejected_steps += 1
                h = h_step * max(self.min_factor, self.safety * error_norm ** (-1.0 / 3.0))
                continue
            break
        self.stats.steps += 1
        self._previous = (t, q, v, self.acceleration, quadratures, self.quadrature_rate)
        self._has_history = True
        new_quadratures = quadratures + 0.5 * h_step * (self.quadrature_rate + solved.quadrature_rate)
        self.t_old, self.t = t, t_new
        self.y = problem.join(solved.q, solved.v, new_quadratures)
        self.z = solved.lam
        self.acceleration = solved.acceleration
        self.alpha_acceleration = alpha_acceleration
        self.quadrature_rate = solved.quadrature_rate
        if self.adaptive:
            factor = self.safety * error_norm ** (-1.0 / 3.0) if error_norm > 0.0 else self.max_factor
            held = self.hold_factors[0] <= factor < self.hold_factors[1]
            self.h = h_step if held else h_step * min(self.max_factor, max(self.min_factor, factor))

    def _predicted_position(self, q: FloatArray, v: FloatArray, h: float) -> FloatArray:
        """Positions at ``t + h`` extrapolated from the last step: the cubic Hermite polynomial
        of its end positions and velocities (local error O(h^4), one order above the method's),
        or before any step the Taylor polynomial ``q + h v + h^2/2 dv/dt``."""
        problem = self.problem
        if not self._has_history:
            return problem.displace(q, h * v + 0.5 * h * h * self.acceleration)
        t0, q0, v0 = self._previous[:3]
        span = self.t - t0
        s = 1.0 + h / span
        x0 = problem.position_difference(q0, q)
        x = (2 * s**3 - 3 * s**2 + 1) * x0 + (s**3 - 2 * s**2 + s) * span * v0 + (s**3 - s**2) * span * v
        return problem.displace(q, x)

    def dense_output(self, t: float | FloatArray) -> FloatArray:
        """``y`` interpolated at ``t`` within the last step ``[t_old, t]``: (n,) or (len(t), n)."""
        problem = self.problem
        t0, q0, v0, dv0, quadratures0, rate0 = self._previous
        q1, v1, _ = problem.split(self.y)
        h = self.t - t0
        times = np.atleast_1d(np.asarray(t, dtype=float))
        if h <= 0.0:
            values = np.tile(self.y, (times.size, 1))
            return values[0] if np.ndim(t) == 0 else values
        x1 = problem.position_difference(q1, q0)
        rows = []
        for s in (times - t0) / h:
            h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
            x = h10 * h * v0 + h01 * x1 + h11 * h * v1
            v = h00 * v0 + h10 * h * dv0 + h01 * v1 + h11 * h * self.acceleration
            quadratures = quadratures0 + s * h * rate0 + 0.5 * s**2 * h * (self.quadrature_rate - rate0)
            rows.append(problem.join(problem.displace(q0, x), v, quadratures))
        values = np.array(rows)
        return values[0] if np.ndim(t) == 0 else values
