"""Variable-order (1-5), variable-step BDF in the quasi-constant step-size difference form.

The history is the array of backward differences ``D`` of the solution; a change of step size
rescales it (Shampine & Reichelt, "The MATLAB ODE suite", 1997, the form scipy's BDF uses), and
the order moves by one when the error estimates of the neighbouring orders predict a longer
step. The implicit solve of each step is left to the problem (``ImplicitProblem.correct``),
which is how DAE forms such as I3 and SI2 plug in. Dense output is the interpolating
polynomial of the backward differences. The rates ``dy/dt`` the corrector solved for and the
algebraic variables ``z`` (multipliers) keep backward differences of their own, rescaled and
updated with those of ``y`` (as if they were solution components outside the error test; kept
apart from ``D``, whose arithmetic they leave bit for bit as it was), so that
``dense_state`` gives ``y``, ``dy/dt`` and ``z`` at any instant of the last step from their
polynomials of the step's order ``k`` without evaluating the problem: each is exact at the step's
end and interpolated to ``O(h^(k+1))`` inside. (The derivative of ``y``'s own polynomial, one order
lower, is ``O(h)`` on the order-1 steps after a start or a restart.) The corrector starts from ``z``
extrapolated by its polynomial to the step's end, as ``y`` is (a multiplier guess off by its change
over the step made modified Newton diverge: ``multibody.formulation.dae``).

The error test takes the largest weighted component (``max_norm``), not the root mean square:
with the rms, the error of the one coordinate that is off (a crank's phase) was averaged away
among the many that are not, and the default tolerance let a free slider-crank drift 2e-2 rad in
10 s; with the max norm it stays within 6e-3 rad (``examples/free_slider_crank.py``) for about
25 % more steps.

``take_compiled_steps`` lends the state to compiled stepping (``multibody.analysis.stepping``), which
takes a plain rigid model's steps with the same ``predict`` and ``accept_step`` as ``step``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from multibody.solve.integrators.base import (
    FloatArray,
    ImplicitProblem,
    IntegrationError,
    StallWatch,
    Statistics,
    failure_text,
    max_norm,
)

EPS = float(np.finfo(float).eps)


@njit(cache=True)
def weighted_max_distance(scale: float, x: FloatArray, reference: FloatArray, weights: FloatArray) -> float:
    """``max_norm(scale * (x - reference) * weights)`` in one pass (once per step: NumPy's temporaries
    cost more than the arithmetic for the vectors of most models); NaN when any product is NaN."""
    largest = 0.0
    for i in range(x.size):
        value = abs(scale * (x[i] - reference[i]) * weights[i])
        if np.isnan(value):
            return np.nan
        largest = max(largest, value)
    return largest


@njit(cache=True)
def _difference_rescaling(order: int, factor: float) -> FloatArray:
    """Matrix ``R`` that maps backward differences for step ``h`` to step ``factor * h``: the
    cumulative products down the columns of ``M`` (``M[0] = 1``, ``M[i, j] = (i - 1 - factor j) / i``)."""
    R = np.empty((order + 1, order + 1))
    R[0] = 1.0
    for i in range(1, order + 1):
        R[i, 0] = 0.0
        for j in range(1, order + 1):
            R[i, j] = R[i - 1, j] * ((i - 1 - factor * j) / i)
    return R


@njit(cache=True)
def rescale_differences(differences: FloatArray, order: int, factor: float) -> None:
    """Rescale the backward differences (rows ``0..order`` of ``differences``) for a step ``factor``
    times the last, in place: ``D <- (R(factor) R(1))^T D``."""
    RU = _difference_rescaling(order, factor) @ _difference_rescaling(order, 1.0)
    rescaled = RU.T @ differences[: order + 1]
    differences[: order + 1] = rescaled


@njit(cache=True)
def _order_change(
    D: FloatArray, order: int, error_norm: float, weights: FloatArray, error_constant: FloatArray, max_order: int
) -> tuple[int, float]:
    """After an accepted step of ``order`` with weighted error ``error_norm``: the order among
    ``order - 1 .. order + 1`` whose error estimate (from the differences ``D``) allows the longest
    next step, and that step's factor before the safety factor: ``(order, factor)``."""
    best_order, best_factor = order, 0.0
    zero = np.zeros(D.shape[1])
    for candidate in range(order - 1, order + 2):
        if candidate < 1 or candidate > max_order:
            continue
        if candidate == order:
            error = error_norm
        else:
            error = weighted_max_distance(error_constant[candidate], D[candidate + 1], zero, weights)
        factor = np.inf if error == 0.0 else error ** (-1.0 / (candidate + 1))
        if factor > best_factor:
            best_order, best_factor = candidate, factor
    return best_order, best_factor


@njit(cache=True)
def predict(
    D: FloatArray, carried: FloatArray, order: int, gamma: FloatArray, alpha: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The prediction of a step of ``order`` from the backward differences: ``(y predicted
    (sum_j D_j), the corrector's base (predicted - sum_j gamma_j D_j / alpha), z predicted (the
    multipliers' polynomial at the step's end, from ``carried``))``, in one pass."""
    n = D.shape[1]
    predicted = D[0].copy()
    for j in range(1, order + 1):
        for k in range(n):
            predicted[k] += D[j, k]
    psi = np.zeros(n)
    for j in range(1, order + 1):
        for k in range(n):
            psi[k] += D[j, k] * gamma[j]
    base = np.empty(n)
    for k in range(n):
        base[k] = predicted[k] - psi[k] / alpha
    z = carried[0, n:].copy()
    for j in range(1, order + 1):
        for k in range(z.size):
            z[k] += carried[j, n + k]
    return predicted, base, z


@njit(cache=True)
def _push(differences: FloatArray, order: int, values: FloatArray) -> None:
    """Take the accepted ``values`` of a step of ``order`` into their backward differences in place:
    the value less its prediction (``sum_j D_j``) becomes the new highest difference."""
    for k in range(values.size):
        predicted = 0.0
        for j in range(order + 1):
            predicted += differences[j, k]
        change = values[k] - predicted
        differences[order + 2, k] = change - differences[order + 1, k]
        differences[order + 1, k] = change
    for i in range(order, -1, -1):
        for k in range(values.size):
            differences[i, k] += differences[i + 1, k]


@njit(cache=True)
def _add_step(
    D: FloatArray,
    carried: FloatArray,
    order: int,
    y: FloatArray,
    base: FloatArray,
    c: float,
    z: FloatArray,
    y_projected: FloatArray,
    last_differences: FloatArray,
    last_carried: FloatArray,
) -> None:
    """Take an accepted step of ``order`` into the backward differences in place: of ``y`` (``D``)
    and of the rate ``(y - base) / c`` and ``z`` (``carried``); the projected ``y_projected`` moves
    ``D_0`` only (``BDF.step``). Rows ``0..order`` of both go to ``last_differences`` and
    ``last_carried``, the step's dense output."""
    _push(D, order, y)
    n = y.size
    companions = np.empty(carried.shape[1])
    companions[:n] = (y - base) / c
    companions[n:] = z
    _push(carried, order, companions)
    for k in range(n):
        D[0, k] += y_projected[k] - y[k]
    last_differences[: order + 1] = D[: order + 1]
    last_carried[: order + 1] = carried[: order + 1]


@njit(cache=True)
def accept_step(
    D: FloatArray,
    carried: FloatArray,
    order: int,
    y: FloatArray,
    base: FloatArray,
    c: float,
    z: FloatArray,
    y_projected: FloatArray,
    last_differences: FloatArray,
    last_carried: FloatArray,
    equal_steps: int,
    error_norm: float,
    weights: FloatArray,
    error_constant: FloatArray,
    max_order: int,
    safety: float,
    max_factor: float,
) -> tuple[int, int, float]:
    """Take an accepted step of ``order`` (``_add_step``, the ``equal_steps``-th of its size before
    it) and, after ``order + 1`` steps of one size, choose the next step's order and size from its
    weighted error ``error_norm`` (``_order_change``, ``safety`` times the factor it allows, at most
    ``max_factor``), the differences rescaled to it in place. Returns ``(order, equal steps,
    factor of the step size)``; ``BDF.step`` and compiled stepping (``multibody.analysis.stepping``)
    share it."""
    _add_step(D, carried, order, y, base, c, z, y_projected, last_differences, last_carried)
    equal_steps += 1
    if equal_steps < order + 1:
        return order, equal_steps, 1.0
    order, factor = _order_change(D, order, error_norm, weights, error_constant, max_order)
    factor = min(max_factor, safety * factor)
    rescale_differences(D, order, factor)
    rescale_differences(carried, order, factor)
    return order, 0, factor


@njit(cache=True)
def newton_safety(newton_max_iterations: int, iterations: int) -> float:
    """The safety factor of a step-size change after a step whose Newton took ``iterations``: 0.9,
    less for a slow solve (scipy's BDF)."""
    return 0.9 * (2 * newton_max_iterations + 1) / (2 * newton_max_iterations + iterations)


@njit(cache=True)
def newton_form(differences: FloatArray, order: int, t: float, t_end: float, h: float) -> FloatArray:
    """The polynomial of the backward differences ``differences`` (rows ``0..order``, for steps
    ``h`` ending at ``t_end``) at ``t``, in the Newton form term by term."""
    value = differences[0].copy()
    product = 1.0
    for j in range(order):
        product *= (t - (t_end - h * j)) / (h * (1.0 + j))
        for k in range(value.size):
            value[k] += product * differences[j + 1, k]
    return value


class BDF:
    """Backward differentiation formulas of orders 1 to 5 with error-controlled step and order."""

    max_order = 5
    newton_max_iterations = 5
    min_factor = 0.2
    max_factor = 10.0
    gamma = np.hstack([0.0, np.cumsum(1.0 / np.arange(1, max_order + 1))])
    alpha = gamma
    """coefficient of the new difference in the corrector equation (plain BDF: kappa = 0)"""
    error_constant = 1.0 / np.arange(1, max_order + 3)
    """leading local-error constant per order: 1 / (k + 1)"""

    def __init__(
        self,
        problem: ImplicitProblem,
        t0: float,
        y0: FloatArray,
        y_dot0: FloatArray,
        z0: FloatArray,
        t_bound: float,
        rtol: float,
        atol: float,
        max_step: float = np.inf,
        first_step: float | None = None,
        min_step: float = 0.0,
    ) -> None:
        self.problem = problem
        self.t = float(t0)
        self.t_old = float(t0)
        self.t_bound = float(t_bound)
        self.y = np.asarray(y0, dtype=float).copy()
        self.z = np.asarray(z0, dtype=float).copy()
        if not (np.all(np.isfinite(self.y)) and np.all(np.isfinite(y_dot0))):
            # a NaN step size would never fail the smallest-step test: stop here
            raise IntegrationError(f"the initial state or its rate is not finite at t = {t0:.6g} s", t0, 0.0)
        self.rtol, self.atol = rtol, atol
        self.max_step = max_step
        self.stall = StallWatch(min_step)
        """``min_step`` [s] (ADAMS's HMIN) as a stall test (``StallWatch``)"""
        self.stats = Statistics()
        self.newton_tolerance = max(10.0 * np.finfo(float).eps / rtol, min(0.03, rtol**0.5))
        weights = problem.error_weights(self.y, 1.0, rtol, atol)
        if first_step is None:
            scale_y, scale_rate = max_norm(self.y * weights), max_norm(y_dot0 * weights)
            first_step = 1e-6 if scale_y < 1e-5 or scale_rate < 1e-5 else 0.01 * scale_y / scale_rate
        self.h = float(min(first_step, max_step, abs(t_bound - t0) or 1.0, 0.01 * max(abs(t_bound - t0), 1e-300)))
        self.order = 1
        self.n_equal_steps = 0
        self.D = np.zeros((self.max_order + 3, self.y.size))
        self.D[0] = self.y
        self.D[1] = self.h * np.asarray(y_dot0, dtype=float)
        self._carried = np.zeros((self.max_order + 3, self.y.size + self.z.size))
        """backward differences of ``(dy/dt, z)``, rescaled and updated with ``D`` (module docstring);
        their higher differences start at zero: constant before t0"""
        self._carried[0] = np.concatenate([y_dot0, self.z])
        self.refresh_jacobian = True
        self._last_differences = self.D.copy()
        """the last step's ``D`` (rows ``0..order_of_last_step`` are its dense output's)"""
        self._last_carried = self._carried.copy()
        """the last step's ``_carried`` (rows ``0..order_of_last_step``)"""
        self.order_of_last_step = 0

    def _rescale(self, factor: float) -> None:
        rescale_differences(self.D, self.order, factor)
        rescale_differences(self._carried, self.order, factor)
        self.h *= factor
        self.n_equal_steps = 0

    def step(self) -> None:
        """Advance one accepted step (``t_old`` -> ``t``); raises ``IntegrationError``."""
        t, order, problem, stats = self.t, self.order, self.problem, self.stats
        min_step = 10.0 * EPS * max(abs(t), 1.0)
        longest = min(self.max_step, problem.step_limit(t, self.y))
        if self.h > longest:
            self._rescale(max(longest, min_step) / self.h)
        D, carried, alpha = self.D, self._carried, self.alpha[order]
        while True:
            if self.h < min_step:
                raise IntegrationError(
                    f"step size {self.h:.3g} s fell below the smallest usable step at t = {t:.6g} s", t, self.h
                )
            if t + self.h > self.t_bound:
                self._rescale((self.t_bound - t) / self.h)
            h = self.h
            t_new = min(self.t_bound, t + h)
            self.stall.attempt(t, h, stats.steps)
            predicted, base, z_predicted = predict(D, carried, order, self.gamma, alpha)
            weights = problem.error_weights(predicted, h, self.rtol, self.atol)
            c = h / alpha
            refreshed = self.refresh_jacobian
            correction = problem.correct(
                t_new, predicted, base, c, z_predicted, weights, self.newton_tolerance, refreshed
            )
            self.refresh_jacobian = False
            stats.newton_iterations += correction.iterations + correction.retried_iterations
            stats.factorizations += correction.factorizations
            stats.jacobian_evaluations += refreshed or correction.evaluated_jacobians
            if not correction.converged:
                stats.newton_failures += 1
                self.stall.newton_failed(t_new, correction.diagnosis)
                if not refreshed:
                    self.refresh_jacobian = True
                else:
                    self._rescale(0.5)
                    if self.h < min_step:
                        raise IntegrationError(
                            f"Newton iteration did not converge at t = {t_new:.6g} s with step size {h:.3g} s "
                            f"(increment norm {correction.residual:.3g}); {failure_text(correction.diagnosis)}",
                            t_new,
                            h,
                        )
                continue
            # The error estimate and the differences are the corrector's own; a projection in
            # ``finalize`` (unit Euler parameters, Kane's cut constraints) moves only the value
            # (``D[0]`` below). Taken into the differences, each projection -- a jump of the size
            # of the tolerance, whatever the step -- read as a large derivative, and on a closed
            # loop projected every few steps the step collapsed.
            error_norm = weighted_max_distance(self.error_constant[order], correction.y, predicted, weights)
            if not np.isfinite(error_norm):
                raise IntegrationError(
                    f"the solution became non-finite at t = {t_new:.6g} s with step size {h:.3g} s", t_new, h
                )
            safety = newton_safety(self.newton_max_iterations, correction.iterations)
            if error_norm > 1.0:
                stats.rejected_steps += 1
                weighted_error = self.error_constant[order] * (correction.y - predicted) * weights
                self.stall.error_test_failed(t_new, problem, weighted_error)
                self._rescale(max(self.min_factor, safety * error_norm ** (-1.0 / (order + 1))))
                continue
            break

        y_new = problem.finalize(correction.y)
        stats.steps += 1
        self.t_old, self.t = t, t_new
        self.y, self.z = y_new, correction.z
        self.order_of_last_step = order
        # y = base + c dy/dt: the rate the corrector solved for goes into its differences
        self.order, self.n_equal_steps, factor = accept_step(
            D,
            carried,
            order,
            correction.y,
            base,
            c,
            correction.z,
            y_new,
            self._last_differences,
            self._last_carried,
            self.n_equal_steps,
            error_norm,
            weights,
            self.error_constant,
            self.max_order,
            safety,
            self.max_factor,
        )
        self.h *= factor

    def take_compiled_steps(self, steps: Callable[..., tuple], solve: tuple, output: tuple, rows: FloatArray) -> tuple:
        """Steps taken in compiled code by ``steps`` (``multibody.analysis.stepping.compiled_steps``, which
        takes the problem's ``solve`` and the frames' ``output`` and writes frames to ``rows``) from this
        BDF's state, which they update as ``step`` would have: ``(why it returned, index of the next
        output time, frames written, the problem's factors they made (None: they made none))``."""
        control = (self.t, self.h, self.order, self.n_equal_steps, self.t_bound, self.max_step, self.stall.min_step)
        rules = (
            self.gamma,
            self.alpha,
            self.error_constant,
            self.max_order,
            self.min_factor,
            self.max_factor,
            self.newton_max_iterations,
            self.rtol,
            self.atol,
        )
        differences = (self.D, self._carried, self._last_differences, self._last_carried)
        outcome = steps(differences, control, rules, solve, output, rows)
        reason, t_old, t, h, order, equal_steps, order_of_last_step, taken, rejected, iterations = outcome[:10]
        factorizations, next_output, written, y, z, kept = outcome[10:]
        self.h, self.order, self.n_equal_steps = h, order, equal_steps
        self.stats.steps += taken
        self.stats.compiled_steps += taken
        self.stats.rejected_steps += rejected
        self.stats.newton_iterations += iterations
        self.stats.factorizations += factorizations
        if taken:
            self.t_old, self.t, self.order_of_last_step, self.y, self.z = t_old, t, order_of_last_step, y, z
        return reason, next_output, written, kept if factorizations else None

    def dense_output(self, t: float | FloatArray) -> FloatArray:
        """Solution interpolated at ``t`` within the last step ``[t_old, t]``: (n,) or (len(t), n)."""
        order = self.order_of_last_step
        h = self.t - self.t_old
        differences = self._last_differences
        if np.ndim(t) == 0:  # one instant (an output frame)
            return newton_form(differences, order, float(t), self.t, h)
        shift = self.t - h * np.arange(order)
        denominator = h * (1.0 + np.arange(order))
        times = np.asarray(t, dtype=float)
        x = (times[:, None] - shift) / denominator
        products = np.cumprod(x, axis=1)
        return differences[0] + products @ differences[1 : order + 1]

    def dense_state(self, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(y, dy/dt, z)`` interpolated at one instant ``t`` of the last step ``[t_old, t]``
        (module docstring); at the step's end the rate is the corrector's and ``z`` its
        algebraic variables; before any step, ``y0``, ``y_dot0`` and ``z0``."""
        order, h, n = self.order_of_last_step, self.t - self.t_old, self.y.size
        carried = newton_form(self._last_carried, order, float(t), self.t, h)
        return newton_form(self._last_differences, order, float(t), self.t, h), carried[:n], carried[n:]
