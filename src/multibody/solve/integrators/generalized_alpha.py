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
the reactions there). First-order states ``x' = F`` (``State.x``) take the same recursion as the
velocities, with their own acceleration-like variable ``w`` (the first-order generalized-alpha of
Jansen, Whiting & Hulbert 2000, written as Arnold & Brüls write the second-order one):

    x_{n+1} = x_n + h (1 - gamma) w_n + h gamma w_{n+1}
    (1 - alpha_m) w_{n+1} + alpha_m w_n = (1 - alpha_f) F_{n+1} + alpha_f F_n

and ``x_{n+1}`` is solved in the same Newton iteration as the accelerations (the states may
couple both ways with the mechanics). It is second order for the same reason the velocities are
(``gamma = 1/2 + alpha_f - alpha_m``); on ``x' = lambda x`` its amplification at
``h lambda -> -infinity`` has the eigenvalues ``-alpha_f / (1 - alpha_f)`` and
``-(1 - gamma) / gamma``: -0.9 and -0.81 for generalized-alpha at ``rho = 0.9``, -0.06 and -0.81
for HHT, so fast state modes are damped like the mechanical ones. (The trapezoidal rule, the
other second-order choice, has amplification -1 there: a stiff state, e.g. a dashpot much softer
than its spring, would ring undamped.) With ``rho`` the spectral radius at infinity (0 <= rho <= 1):

* generalized-alpha: ``alpha_m = (2 rho - 1) / (rho + 1)``, ``alpha_f = rho / (rho + 1)``;
* HHT: ``alpha_m = 0``, ``alpha_f = (1 - rho) / (1 + rho)`` (``alpha_HHT = -alpha_f``,
  1/2 <= rho <= 1);

both with ``gamma = 1/2 + alpha_f - alpha_m``, ``beta = (1 + alpha_f - alpha_m)^2 / 4``: second
order, unconditionally stable for linear problems, high frequencies damped to ``rho`` per step.

Step-size control: the local position (and state) error is O(h^3). It is estimated as the difference between
the method's new positions (states) and a predictor one order higher, the cubic Hermite extrapolation of
the last step's end positions and velocities (states and their rates) (a Milne-type estimate, in the spirit of the
predictor-corrector estimate of Negrut, Rampalli, Ottarsson & Sajdak 2007 for HHT), both taken in
velocity space from ``q_n``: the step's own position change ``displacement + c_q a`` against the
extrapolated one (on the rotation group the two differ from the difference of the positions by
terms of O(h^4)). Estimates
from the accelerations, ``h^2 (a_{n+1} - a_n)``, are useless on the index-3 form: ``a`` and the
multipliers carry an alternating parasitic component (decaying as ``rho`` per step), and steps
were rejected every other step. Velocities are tested with the same estimate divided by ``h``,
their weights scaled by ``h`` (index-3 error control, as BDF's I3). The step then follows
``error^(-1/3)``, held while that factor stays near 1 (``GeneralizedAlpha.hold_factors``); a changed
step first moves ``a_n`` to the new step's lag (``_step_start``).

Newton measures its velocity increments with the unscaled weights: what it leaves unconverged is
not random but repeats from step to step, and with the factors kept across steps (modified Newton,
``multibody.formulation.index3_alpha``) velocity increments tested against ``rtol / h`` left the free
slider-crank's crank angle 1.3e-2 rad off after 10 s where full convergence gives 4.2e-3 (rtol 5e-8).

Dense output: cubic Hermite interpolation of the position difference from ``q_n`` (rates
``v_n``, ``v_{n+1}``), of the velocities (rates ``dv_n``, ``dv_{n+1}``), of the states (rates
``F_n``, ``F_{n+1}``) and of the quadratures (energy bookkeeping; trapezoidal, as the step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numba import njit

from multibody.solve.integrators.base import (
    FloatArray,
    IntegrationError,
    StallWatch,
    Statistics,
    failure_text,
    max_norm,
)

VARIANTS = ("generalized", "HHT")
EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class StepBase:
    """What a step's unknowns (accelerations ``a``, state rates ``r``) are added to:
    ``q = displace(q, displacement + c_q a)``, ``v = velocity + c_v a``, ``x = states + c_v r``."""

    q: FloatArray
    displacement: FloatArray
    """(nv,) velocity-space position increment at zero acceleration"""
    velocity: FloatArray
    states: FloatArray
    c_q: float
    """[s^2]"""
    c_v: float
    """[s]"""


class SecondOrderProblem(Protocol):
    """What the integrator needs from the equations (``formulation.index3_alpha.Index3Mechanics``)."""

    nv: int
    n_states: int

    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(q, v, rest)``: positions, velocities and the rest of ``y``, whose first
        ``n_states`` entries are first-order states (advanced by the alpha recursion) and the
        others quadratures (advanced by the trapezoidal rule from their rates)."""
        ...

    def join(self, q: FloatArray, v: FloatArray, rest: FloatArray) -> FloatArray: ...

    def displace(self, q: FloatArray, dx: FloatArray) -> FloatArray: ...

    def error_weights(
        self, q: FloatArray, v: FloatArray, x: FloatArray, rtol: float, atol: float
    ) -> tuple[FloatArray, FloatArray, FloatArray]: ...

    def solve(
        self,
        t: float,
        base: StepBase,
        acceleration_guess: FloatArray,
        rate_guess: FloatArray,
        lam_guess: FloatArray,
        weights: tuple[FloatArray, FloatArray, FloatArray],
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


@njit(cache=True)
def _step_start(
    h: float,
    span: float,
    v: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    last_lam: FloatArray,
    acceleration: FloatArray,
    last_acceleration: FloatArray,
    alpha_acceleration: FloatArray,
    state_rate: FloatArray,
    last_state_rate: FloatArray,
    alpha_state_rate: FloatArray,
    coefficients: tuple,
) -> tuple:
    """What a step ``h`` [s] from ``t_n`` adds its unknowns to: ``(displacement, velocity, states)``
    of ``StepBase``; ``(offset, state_offset)``, the parts of ``a_{n+1}`` and ``w_{n+1}`` that do not
    depend on them (module docstring), with ``coefficients = (alpha_m, alpha_f, gamma, beta)``; and
    Newton's start, the accelerations, state rates and multipliers extrapolated linearly from the
    last step, ``span`` [s] long (its end values when there was none, ``span = 0``): ``last_*`` are
    their values at ``t_n - span``.

    ``a_n`` is about ``dv/dt`` at ``t_n + (alpha_m - alpha_f) span``; for a step of another size it is
    first moved to ``t_n + (alpha_m - alpha_f) h`` along the slope of the accelerations over the last
    step, and ``w_n`` likewise: left as it is, the lag of a changed step is a first-order error."""
    alpha_m, alpha_f, gamma, beta = coefficients
    ratio = h / span if span > 0.0 else 0.0
    shift = (alpha_m - alpha_f) * (ratio - 1.0) if span > 0.0 else 0.0
    acceleration_change, state_rate_change = acceleration - last_acceleration, state_rate - last_state_rate
    alpha_acceleration = alpha_acceleration + shift * acceleration_change
    alpha_state_rate = alpha_state_rate + shift * state_rate_change
    offset = (alpha_f * acceleration - alpha_m * alpha_acceleration) / (1.0 - alpha_m)
    state_offset = (alpha_f * state_rate - alpha_m * alpha_state_rate) / (1.0 - alpha_m)
    displacement = h * v + h * h * ((0.5 - beta) * alpha_acceleration + beta * offset)
    velocity = v + h * ((1.0 - gamma) * alpha_acceleration + gamma * offset)
    states = x + h * ((1.0 - gamma) * alpha_state_rate + gamma * state_offset)
    guess = (
        acceleration + ratio * acceleration_change,
        state_rate + ratio * state_rate_change,
        lam + ratio * (lam - last_lam),
    )
    return displacement, velocity, states, offset, state_offset, guess


@njit(cache=True)
def _error_norm(
    h: float,
    span: float,
    displacement: FloatArray,
    last_displacement: FloatArray,
    v_start: FloatArray,
    v: FloatArray,
    acceleration: FloatArray,
    x_start: FloatArray,
    x: FloatArray,
    x_new: FloatArray,
    state_rate_start: FloatArray,
    state_rate: FloatArray,
    new_state_rate: FloatArray,
    weights: tuple,
) -> float:
    """The weighted error estimate of a step ``h`` [s] from ``t_n`` (module docstring): its position
    change ``displacement`` (nv,) in velocity space against the cubic Hermite extrapolation of the last
    step (``span`` [s] long, position change ``last_displacement``, velocities ``v_start`` and ``v`` at
    its ends) or, before any step (``span = 0``), the Taylor polynomial ``h v + h^2/2 acceleration``;
    the new states ``x_new`` against the Hermite extrapolation of the last step's end states
    ``x_start``, ``x`` and rates, or the trapezoidal rule with the new rate before any step (its local
    error is of the method's order: the first estimate is of the right size, not one order finer).
    The largest of ``|error| position_weights``, ``|error / h| (h velocity_weights)`` (index-3
    control of the velocities, whose error is about 3/2 of the position error over ``h``) and
    ``|state error| state_weights``, ``weights`` being those three; NaN when any is NaN."""
    position_weights, velocity_weights, state_weights = weights
    h00 = h10 = h01 = h11 = 0.0
    if span > 0.0:
        s = 1.0 + h / span
        h00, h10, h01, h11 = (
            2 * s**3 - 3 * s**2 + 1,
            (s**3 - 2 * s**2 + s) * span,
            -2 * s**3 + 3 * s**2,
            (s**3 - s**2) * span,
        )
    largest = 0.0
    for i in range(displacement.size):
        if span > 0.0:
            predicted = -h00 * last_displacement[i] + h10 * v_start[i] + h11 * v[i]
        else:
            predicted = h * v[i] + 0.5 * h * h * acceleration[i]
        error = displacement[i] - predicted
        for value in (abs(error * position_weights[i]), abs(error * velocity_weights[i])):
            if np.isnan(value):
                return np.nan
            largest = max(largest, value)
    for i in range(x_new.size):
        if span > 0.0:
            predicted = h00 * x_start[i] + h01 * x[i] + h10 * state_rate_start[i] + h11 * state_rate[i]
        else:
            predicted = x[i] + 0.5 * h * (state_rate[i] + new_state_rate[i])
        value = abs((x_new[i] - predicted) * state_weights[i])
        if np.isnan(value):
            return np.nan
        largest = max(largest, value)
    return largest


class GeneralizedAlpha:
    """The alpha method on ``problem`` with error-controlled steps (or fixed ones, ``adaptive=False``).

    Same protocol as ``BDF``: ``step()`` advances ``t_old -> t``; ``y`` = (q, v, x, E, W) and ``z``
    (the multipliers) are the state at ``t``; ``dense_output(t)`` interpolates in the last step;
    ``stats`` counts. ``y_dot0`` must hold the consistent accelerations in its velocity part, the
    state and quadrature rates in the rest, and ``z0`` the consistent multipliers.
    """

    min_factor = 0.2
    max_factor = 5.0
    safety = 0.9
    hold_factors = (0.7, 2.0)
    """The step is kept while the controller's factor stays in this range. At constant steps the
    method's energy error oscillates; each change of step adds to a slow drift (the lag of ``a``
    that a change would leave, ``(alpha_m - alpha_f)`` times the change, is corrected in
    ``_step_start``). The upper end sets how long a step stays shorter than the error test asks:
    measured on the double pendulum of benchmarks/alpha_energy.py (20 periods, rtol 1e-4, largest
    energy error over m g L) and on the free slider-crank of benchmarks/slider_crank_free.py (crank
    angle error at 10 s, rtol 5e-8):

    ==============  =========================  =========================  ===========================
    hold            HHT energy (steps)         GALPHA energy (steps)      HHT crank angle (steps)
    ==============  =========================  =========================  ===========================
    none            3.1e-4 (1904)              1.7e-4 (1910)              3.8e-4 rad (7301)
    (0.7, 1.5)      3.2e-4 (2021)              1.2e-4 (2034)              3.6e-4 rad (8056)
    (0.7, 2.0)      1.2e-4 (2187)              4.4e-5 (2175)              8.0e-4 rad (8393)
    (0.7, 3.0)      7.1e-5 (2444)              2.3e-5 (2356)              4.2e-3 rad (11,113)
    ==============  =========================  =========================  ===========================

    The crank's phase error grows fivefold with the wider hold for a third more steps (its steps
    stayed a third of what the error test allowed for long stretches, then jumped), the pendulum's
    energy error halves: (0.7, 2.0) is the middle."""

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
        min_step: float = 0.0,
    ) -> None:
        self.alpha_m, self.alpha_f, self.gamma, self.beta = alpha_coefficients(rho_inf, variant)
        self.problem = problem
        self.t = self.t_old = float(t0)
        self.t_bound = float(t_bound)
        self.y = np.asarray(y0, dtype=float).copy()
        self.z = np.asarray(z0, dtype=float).copy()
        q, v, rest = problem.split(self.y)
        _, acceleration, rest_rate = problem.split(np.asarray(y_dot0, dtype=float))
        nx = problem.n_states
        self.acceleration = acceleration.copy()
        self.alpha_acceleration = acceleration.copy()
        self.state_rate = rest_rate[:nx].copy()
        self.alpha_state_rate = rest_rate[:nx].copy()
        self.quadrature_rate = rest_rate[nx:].copy()
        self.rtol, self.atol = rtol, atol
        self.max_step = max_step
        self.stall = StallWatch(min_step)
        """``min_step`` [s] (ADAMS's HMIN) as a stall test (``StallWatch``)"""
        self.adaptive = adaptive
        self.stats = Statistics()
        self.newton_tolerance = max(10.0 * np.finfo(float).eps / rtol, min(0.03, rtol**0.5))
        span = abs(t_bound - t0)
        if first_step is None:
            if not adaptive:
                raise ValueError("a fixed-step alpha method needs first_step (the step size)")
            # a tenth of the step whose position change h^2 |a| / 2 is the tolerance (within 1 % of the span)
            position_weights = problem.error_weights(q, v, rest[:nx], rtol, atol)[0]
            scale = max_norm(acceleration * position_weights)
            first_step = 0.1 * np.sqrt(2.0 / scale) if scale > 0.0 else 0.01 * span
        self.h = float(min(first_step, max_step, 0.01 * span if adaptive else span))
        self.refresh_jacobian = True
        self._previous = _StepStart(
            self.t,
            q.copy(),
            v.copy(),
            self.acceleration,
            rest[:nx].copy(),
            self.state_rate,
            rest[nx:].copy(),
            self.quadrature_rate,
            self.z,
            np.zeros(problem.nv),
        )

    def step(self) -> None:
        """Advance one accepted step (``t_old`` -> ``t``); raises ``IntegrationError``."""
        problem = self.problem
        t = self.t
        q, v, rest = problem.split(self.y)
        nx = problem.n_states
        x, quadratures = rest[:nx], rest[nx:]
        min_step = 10.0 * EPS * max(abs(t), 1.0)
        h = max(min(self.h, self.max_step, problem.step_limit(t, self.y)), min_step)
        # a_{n+1} = (1 - alpha_f)/(1 - alpha_m) dv_{n+1} + (alpha_f dv_n - alpha_m a_n)/(1 - alpha_m),
        # and the same for the states' w_{n+1} from F_{n+1}
        slope = (1.0 - self.alpha_f) / (1.0 - self.alpha_m)
        start = self._previous
        span = t - start.t
        position_weights, velocity_weights, state_weights = problem.error_weights(q, v, x, self.rtol, self.atol)
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
            self.stall.attempt(t, h_step, self.stats.steps)
            weights = (position_weights, velocity_weights, state_weights)  # Newton's (module docstring)
            displacement, velocity, states, offset, state_offset, guess = _step_start(
                h_step,
                span,
                v,
                x,
                self.z,
                start.lam,
                self.acceleration,
                start.acceleration,
                self.alpha_acceleration,
                self.state_rate,
                start.state_rate,
                self.alpha_state_rate,
                (self.alpha_m, self.alpha_f, self.gamma, self.beta),
            )
            base = StepBase(
                q, displacement, velocity, states, self.beta * slope * h_step**2, self.gamma * slope * h_step
            )
            refreshed = self.refresh_jacobian
            solved = problem.solve(
                t_new,
                base,
                *guess,
                weights,
                self.newton_tolerance,
                refreshed,
            )
            self.refresh_jacobian = False
            self.stats.newton_iterations += solved.iterations
            self.stats.factorizations += solved.factorizations
            self.stats.jacobian_evaluations += int(refreshed or solved.evaluated_jacobians)
            if not solved.converged:
                self.stats.newton_failures += 1
                self.stall.newton_failed(t_new, solved.diagnosis)
                if not refreshed:
                    self.refresh_jacobian = True
                    continue
                if not self.adaptive or 0.5 * h < min_step:
                    raise IntegrationError(
                        f"Newton iteration did not converge at t = {t_new:.6g} s with step size {h_step:.3g} s "
                        f"(increment norm {solved.residual:.3g}); {failure_text(solved.diagnosis)}",
                        t_new,
                        h_step,
                    )
                h = 0.5 * h_step
                self.refresh_jacobian = True
                continue
            displacement = base.displacement + base.c_q * solved.acceleration  # q_{n+1} from q_n
            error_norm = _error_norm(
                h_step,
                span,
                displacement,
                start.displacement,
                start.v,
                v,
                self.acceleration,
                start.x,
                x,
                solved.x,
                start.state_rate,
                self.state_rate,
                solved.state_rate,
                weights,
            )
            if not np.isfinite(error_norm):
                raise IntegrationError(
                    f"the solution became non-finite at t = {t_new:.6g} s with step size {h_step:.3g} s", t_new, h_step
                )
            if self.adaptive and error_norm > 1.0:
                self.stats.rejected_steps += 1
                self.stall.error_test_failed(t_new, None, None)
                h = h_step * max(self.min_factor, self.safety * error_norm ** (-1.0 / 3.0))
                continue
            break
        self.stats.steps += 1
        self._previous = _StepStart(
            t, q, v, self.acceleration, x, self.state_rate, quadratures, self.quadrature_rate, self.z, displacement
        )
        new_quadratures = quadratures + 0.5 * h_step * (self.quadrature_rate + solved.quadrature_rate)
        self.t_old, self.t = t, t_new
        self.y = problem.join(solved.q, solved.v, np.concatenate([solved.x, new_quadratures]))
        self.z = solved.lam
        self.alpha_acceleration = slope * solved.acceleration + offset
        self.alpha_state_rate = slope * solved.state_rate + state_offset
        self.acceleration = solved.acceleration
        self.state_rate = solved.state_rate
        self.quadrature_rate = solved.quadrature_rate
        if self.adaptive:
            factor = self.safety * error_norm ** (-1.0 / 3.0) if error_norm > 0.0 else self.max_factor
            held = self.hold_factors[0] <= factor < self.hold_factors[1]
            self.h = h_step if held else h_step * min(self.max_factor, max(self.min_factor, factor))

    def dense_output(self, t: float | FloatArray) -> FloatArray:
        """``y`` interpolated at ``t`` within the last step ``[t_old, t]``: (n,) or (len(t), n)."""
        problem = self.problem
        start = self._previous
        _, v1, rest1 = problem.split(self.y)
        x1 = rest1[: problem.n_states]
        h = self.t - start.t
        times = np.atleast_1d(np.asarray(t, dtype=float))
        if h <= 0.0:
            values = np.tile(self.y, (times.size, 1))
            return values[0] if np.ndim(t) == 0 else values
        d1 = start.displacement
        rows = []
        for s in (times - start.t) / h:
            h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
            d = h10 * h * start.v + h01 * d1 + h11 * h * v1
            v = h00 * start.v + h10 * h * start.acceleration + h01 * v1 + h11 * h * self.acceleration
            x = h00 * start.x + h10 * h * start.state_rate + h01 * x1 + h11 * h * self.state_rate
            quadratures = (
                start.quadratures
                + s * h * start.quadrature_rate
                + 0.5 * s**2 * h * (self.quadrature_rate - start.quadrature_rate)
            )
            rows.append(problem.join(problem.displace(start.q, d), v, np.concatenate([x, quadratures])))
        values = np.array(rows)
        return values[0] if np.ndim(t) == 0 else values


@dataclass(frozen=True)
class _StepStart:
    """The state at the start of the last step, for the error estimate and the dense output."""

    t: float
    q: FloatArray
    v: FloatArray
    acceleration: FloatArray
    x: FloatArray
    state_rate: FloatArray
    quadratures: FloatArray
    quadrature_rate: FloatArray
    lam: FloatArray
    displacement: FloatArray
    """(nv,) the step's position change (velocity space: ``q_end = displace(q, displacement)``)"""
