"""Driver functions of velocity and acceleration motions, integrated to a displacement.

A velocity motion prescribes a rate; its driver needs ``f(t) = f0 + integral_0^t rate``. An
acceleration motion needs the double integral too. Both are integrated once, onto Chebyshev
panels built on demand as the analysis asks for later (or earlier) times, so that each
evaluation costs a polynomial evaluation instead of a quadrature from 0 to t.
"""

from __future__ import annotations

import bisect

import numpy as np
from numpy.polynomial import chebyshev

from multibody.model.functions import Evaluated, TimeFunction, Times


class IntegratedVelocity(TimeFunction):
    """``f(t) = f0 + integral_0^t rate(s) ds`` for a velocity motion (see ``CumulativeIntegral``)."""

    def __init__(self, rate: TimeFunction, initial: float) -> None:
        self.rate = rate
        self.initial = float(initial)
        self._integral = CumulativeIntegral(rate)

    def _value(self, t: np.ndarray) -> np.ndarray:
        return self.initial + self._integral.first(t)

    def _derivative(self, t: np.ndarray) -> Evaluated:
        return self.rate.value(t)

    def _second_derivative(self, t: np.ndarray) -> Evaluated:
        return self.rate.derivative(t)


class IntegratedAcceleration(TimeFunction):
    """``f(t) = f0 + f0' t + integral_0^t (t - s) accel(s) ds`` for an acceleration motion."""

    def __init__(self, acceleration: TimeFunction, initial: float, initial_rate: float) -> None:
        self.acceleration = acceleration
        self.initial = float(initial)
        self.initial_rate = float(initial_rate)
        self._integral = CumulativeIntegral(acceleration)

    def _value(self, t: np.ndarray) -> np.ndarray:
        # integral_0^t (t - s) a(s) ds = integral_0^t (integral_0^u a) du, by parts.
        return self.initial + self.initial_rate * t + self._integral.second(t)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        return self.initial_rate + self._integral.first(t)

    def _second_derivative(self, t: np.ndarray) -> Evaluated:
        return self.acceleration.value(t)


class CumulativeIntegral:
    """``I1(t) = integral_0^t g`` and ``I2(t) = integral_0^t I1`` of a function of time ``g``.

    Each side of t = 0 is covered by consecutive panels on which ``g`` is interpolated by a
    Chebyshev series of degree ``DEGREE`` and integrated exactly. A panel is halved until the
    last coefficients of its series fall below ``RELATIVE_TOLERANCE`` times the largest
    coefficient met so far (error of the integral about that fraction of |g| times the panel
    width), or until it is ``MINIMUM_WIDTH`` (1 + |t|) wide: at a jump of ``g`` the error is
    then below the jump times that width, at a kink below the change of slope times its
    square. The next panel starts twice as wide as the last one accepted. Panels are appended
    when a later time is asked for; the panels do not depend on the order of the requests, so
    neither do the values.
    """

    DEGREE = 16
    RELATIVE_TOLERANCE = 1e-14
    MINIMUM_WIDTH = 1e-10
    """[s] per second of |t|"""
    FIRST_WIDTH = 0.5
    """[s]"""

    def __init__(self, g: TimeFunction) -> None:
        self._forward = _Panels(g, 1.0)
        self._backward = _Panels(g, -1.0)

    def first(self, t: Times) -> np.ndarray:
        """``integral_0^t g(s) ds`` for times ``t`` [s] (an array shaped like ``t``)."""
        return self._integral(t, 1, -1.0)

    def second(self, t: Times) -> np.ndarray:
        """``integral_0^t integral_0^u g(s) ds du`` for times ``t`` [s]."""
        # For t < 0, substitute s = -u in both integrals: the two sign changes cancel.
        return self._integral(t, 2, 1.0)

    def _integral(self, t: Times, order: int, backward_sign: float) -> np.ndarray | float:
        t = np.asarray(t, dtype=float)
        if t.ndim == 0:  # the common call, one time per evaluation: no array machinery
            time = float(t)
            if time >= 0.0:
                return self._forward.integral_at(time, order)
            return backward_sign * self._backward.integral_at(-time, order)
        result = np.empty(t.shape)
        after = t >= 0.0
        result[after] = self._forward.integral(t[after], order)
        before = ~after
        if np.any(before):
            result[before] = backward_sign * self._backward.integral(-t[before], order)
        return result


class _Panels:
    """Chebyshev panels from 0 covering ``integral_0^u g(direction s) ds`` and its integral, for
    u >= 0 (``direction`` -1: the panels of negative times)."""

    def __init__(self, g: TimeFunction, direction: float) -> None:
        self.g = g
        self.direction = direction
        self.edges = [0.0]
        self.first: list[np.ndarray] = []
        """per panel, Chebyshev coefficients (on [-1, 1]) of I1 across the panel"""
        self.second: list[np.ndarray] = []
        self.scale = 0.0
        """largest Chebyshev coefficient of g met so far"""
        self.next_width = CumulativeIntegral.FIRST_WIDTH
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        """edges, first and second as arrays, rebuilt after a panel is appended"""

    def integral(self, t: np.ndarray, order: int) -> np.ndarray:
        """I1 (``order`` 1) or I2 (2) at times ``t`` >= 0 [s] (1-D)."""
        self._cover(float(np.max(t, initial=0.0)))
        if self._arrays is None:
            self._arrays = (np.array(self.edges), np.array(self.first), np.array(self.second))
        edges, first, second = self._arrays
        panel = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(first) - 1)
        start, width = edges[panel], edges[panel + 1] - edges[panel]
        x = 2.0 * (t - start) / width - 1.0
        return _clenshaw(x, (first if order == 1 else second)[panel])

    def integral_at(self, t: float, order: int) -> float:
        """I1 (``order`` 1) or I2 (2) at one time ``t`` >= 0 [s]."""
        self._cover(t)
        panel = min(bisect.bisect_right(self.edges, t) - 1, len(self.first) - 1)
        start, end = self.edges[panel], self.edges[panel + 1]
        x = 2.0 * (t - start) / (end - start) - 1.0
        return float(chebyshev.chebval(x, (self.first if order == 1 else self.second)[panel]))

    def _cover(self, t_end: float) -> None:
        """Append panels until they reach ``t_end`` [s]."""
        if not np.isfinite(t_end):
            raise ValueError(f"a velocity or acceleration motion was evaluated at t = {t_end} s")
        while not self.first or self.edges[-1] < t_end:
            self._append_panel()
            self._arrays = None

    def _append_panel(self) -> None:
        start = self.edges[-1]
        width = self.next_width
        while True:
            half = 0.5 * width
            g_x = chebyshev.chebinterpolate(self._sample, CumulativeIntegral.DEGREE, args=(start, half))
            self.scale = max(self.scale, float(np.max(np.abs(g_x))))
            tail = float(np.max(np.abs(g_x[-3:])))
            converged = tail <= CumulativeIntegral.RELATIVE_TOLERANCE * self.scale
            if converged or width <= CumulativeIntegral.MINIMUM_WIDTH * (1.0 + start):
                break
            width = half
        # d/dx = (width / 2) d/dt: integrate in x and scale; the constants continue the previous panel.
        first = chebyshev.chebint(g_x, lbnd=-1.0, k=self._end_value(self.first), scl=half)
        second = chebyshev.chebint(first, lbnd=-1.0, k=self._end_value(self.second), scl=half)
        self.first.append(first)
        self.second.append(second)
        self.edges.append(start + width)
        self.next_width = 2.0 * width

    def _sample(self, x: np.ndarray, start: float, half_width: float) -> np.ndarray:
        """``g`` at the nodes ``x`` in [-1, 1] of the panel from ``start`` [s], ``2 half_width`` wide:
        one call on the array, or one per node for a user function that only takes floats."""
        t = self.direction * (start + half_width * (x + 1.0))
        try:
            return np.broadcast_to(np.asarray(self.g.value(t), dtype=float), t.shape)
        except (TypeError, ValueError):
            return np.array([self.g.value(float(time)) for time in t])

    @staticmethod
    def _end_value(panels: list[np.ndarray]) -> float:
        """Value at the right end (x = 1) of the last panel's series, 0 before the first panel."""
        return float(np.sum(panels[-1])) if panels else 0.0


def _clenshaw(x: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """``sum_k c[..., k] T_k(x)`` with one coefficient row per entry of ``x`` (Clenshaw's recurrence)."""
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for k in range(coefficients.shape[-1] - 1, 0, -1):
        b1, b2 = coefficients[..., k] + 2.0 * x * b1 - b2, b1
    return coefficients[..., 0] + x * b1 - b2
