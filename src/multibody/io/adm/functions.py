"""The ADAMS/Solver run-time functions that depend only on their arguments.

Each takes floats or numpy arrays (broadcast together) and returns the same, so one compiled
expression serves a single instant and a whole results history. Definitions follow the ADAMS/Solver
function reference; the docstrings give them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import interpolate

Value = float | NDArray[np.float64]


def _progress(x: ArrayLike, x0: float, x1: float) -> NDArray[np.float64]:
    """``(x - x0) / (x1 - x0)`` clipped to [0, 1]."""
    if not x1 > x0:
        raise ValueError(f"a STEP-like function needs x1 > x0, got x0 = {x0}, x1 = {x1}")
    return np.clip((np.asarray(x, dtype=float) - x0) / (x1 - x0), 0.0, 1.0)


def step(x: ArrayLike, x0: float, h0: float, x1: float, h1: float) -> Value:
    """STEP: ``h0`` for x <= x0, ``h1`` for x >= x1, in between ``h0 + (h1 - h0) s^2 (3 - 2 s)``
    with ``s = (x - x0) / (x1 - x0)`` (cubic; continuous slope)."""
    s = _progress(x, x0, x1)
    return _scalar(h0 + (h1 - h0) * s**2 * (3.0 - 2.0 * s))


def step5(x: ArrayLike, x0: float, h0: float, x1: float, h1: float) -> Value:
    """STEP5: as STEP with the quintic ``s^3 (10 - 15 s + 6 s^2)`` (continuous curvature)."""
    s = _progress(x, x0, x1)
    return _scalar(h0 + (h1 - h0) * s**3 * (10.0 - 15.0 * s + 6.0 * s**2))


def havsin(x: ArrayLike, x0: float, h0: float, x1: float, h1: float) -> Value:
    """HAVSIN: haversine step ``h0 + (h1 - h0) (1 - cos(pi s)) / 2``, s as in STEP."""
    s = _progress(x, x0, x1)
    return _scalar(h0 + (h1 - h0) * 0.5 * (1.0 - np.cos(np.pi * s)))


def poly(x: ArrayLike, x0: float, *coefficients: float) -> Value:
    """POLY: ``sum_j a_j (x - x0)^j`` for the coefficients a_0, a_1, ..."""
    u = np.asarray(x, dtype=float) - x0
    return _scalar(np.polynomial.polynomial.polyval(u, coefficients))


def cheby(x: ArrayLike, x0: float, *coefficients: float) -> Value:
    """CHEBY: ``sum_j a_j T_j(x - x0)`` with T_j the Chebyshev polynomials of the first kind."""
    return _scalar(np.polynomial.chebyshev.chebval(np.asarray(x, dtype=float) - x0, coefficients))


def forcos(x: ArrayLike, x0: float, w: float, *coefficients: float) -> Value:
    """FORCOS: ``a_0 + sum_{j>=1} a_j cos(j w (x - x0))``."""
    u = np.asarray(x, dtype=float) - x0
    return _scalar(sum(a * np.cos(j * w * u) for j, a in enumerate(coefficients)))


def forsin(x: ArrayLike, x0: float, w: float, *coefficients: float) -> Value:
    """FORSIN: ``a_0 + sum_{j>=1} a_j sin(j w (x - x0))``."""
    u = np.asarray(x, dtype=float) - x0
    return _scalar(coefficients[0] + sum(a * np.sin(j * w * u) for j, a in enumerate(coefficients) if j > 0))


def shf(x: ArrayLike, x0: float, a: float, w: float, phi: float, b: float) -> Value:
    """SHF: simple harmonic function ``a sin(w (x - x0) - phi) + b``."""
    return _scalar(a * np.sin(w * (np.asarray(x, dtype=float) - x0) - phi) + b)


def impact(x: ArrayLike, x_dot: ArrayLike, x1: float, k: float, e: float, c_max: float, d: float) -> Value:
    """IMPACT: one-sided contact force, zero for x >= x1; for x < x1
    ``max(0, k (x1 - x)^e - STEP(x, x1 - d, c_max, x1, 0) x_dot)`` (damping ramps in over the
    penetration depth d)."""
    x = np.asarray(x, dtype=float)
    penetration = np.maximum(x1 - x, 0.0)
    damping = step(x, x1 - d, c_max, x1, 0.0)
    force = np.maximum(k * penetration**e - damping * np.asarray(x_dot, dtype=float), 0.0)
    return _scalar(np.where(x < x1, force, 0.0))


def bistop(x: ArrayLike, x_dot: ArrayLike, x1: float, x2: float, k: float, e: float, c_max: float, d: float) -> Value:
    """BISTOP: a gap x1 <= x <= x2 with no force; below x1 the IMPACT force (pushing x up), above
    x2 ``min(0, -k (x - x2)^e - STEP(x, x2, 0, x2 + d, c_max) x_dot)`` (pushing x down)."""
    if not x2 > x1:
        raise ValueError(f"BISTOP needs x2 > x1, got x1 = {x1}, x2 = {x2}")
    x = np.asarray(x, dtype=float)
    x_dot = np.asarray(x_dot, dtype=float)
    below = impact(x, x_dot, x1, k, e, c_max, d)
    overshoot = np.maximum(x - x2, 0.0)
    above = np.minimum(-k * overshoot**e - step(x, x2, 0.0, x2 + d, c_max) * x_dot, 0.0)
    return _scalar(np.where(x > x2, above, below))


def if_sign(condition: ArrayLike, negative: ArrayLike, zero: ArrayLike, positive: ArrayLike) -> Value:
    """IF(condition: negative, zero, positive): the value for the sign of ``condition``."""
    c = np.asarray(condition, dtype=float)
    return _scalar(np.where(c < 0.0, negative, np.where(c == 0.0, zero, positive)))


def dim(a: ArrayLike, b: ArrayLike) -> Value:
    """DIM: positive difference, ``a - b`` if a > b else 0 (Fortran DIM)."""
    return _scalar(np.maximum(np.asarray(a, dtype=float) - b, 0.0))


def sign(a: ArrayLike, b: ArrayLike) -> Value:
    """SIGN: ``|a|`` with the sign of ``b`` (Fortran SIGN: +|a| when b = 0)."""
    return _scalar(np.where(np.asarray(b, dtype=float) >= 0.0, np.abs(a), -np.abs(a)))


def mod(a: ArrayLike, b: ArrayLike) -> Value:
    """MOD: ``a - int(a / b) b`` (Fortran MOD: the remainder has the sign of a)."""
    return _scalar(np.fmod(a, b))


def anint(a: ArrayLike) -> Value:
    """ANINT: nearest whole number, halves away from zero."""
    a = np.asarray(a, dtype=float)
    return _scalar(np.sign(a) * np.floor(np.abs(a) + 0.5))


def aint(a: ArrayLike) -> Value:
    """AINT: truncation toward zero."""
    return _scalar(np.trunc(a))


def minimum(*values: ArrayLike) -> Value:
    """MIN of two or more values."""
    return _scalar(np.minimum.reduce(np.broadcast_arrays(*map(np.asarray, values))))


def maximum(*values: ArrayLike) -> Value:
    """MAX of two or more values."""
    return _scalar(np.maximum.reduce(np.broadcast_arrays(*map(np.asarray, values))))


class Curve:
    """A SPLINE's curve y(x) read by AKISPL (Akima) or CUBSPL (cubic spline), with its first and
    second derivatives (``order`` 0, 1, 2). Outside the data it extrapolates with the end
    polynomials, or linearly when ``linear_extrapolate``."""

    def __init__(self, x: ArrayLike, y: ArrayLike, method: str, linear_extrapolate: bool = False) -> None:
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        if method == "akima":
            self.curve = interpolate.Akima1DInterpolator(self.x, self.y)
            self.curve.extrapolate = True
        else:
            self.curve = interpolate.CubicSpline(self.x, self.y)
        self.linear_extrapolate = linear_extrapolate

    def __call__(self, x: ArrayLike, order: int = 0) -> Value:
        """y(x) (order 0), dy/dx (1) or d2y/dx2 (2)."""
        x = np.asarray(x, dtype=float)
        if not self.linear_extrapolate:
            return _scalar(self.curve(x, order))
        ends = np.clip(x, self.x[0], self.x[-1])
        inside = self.curve(ends, order)
        if order == 0:
            return _scalar(inside + self.curve(ends, 1) * (x - ends))
        if order == 1:
            return _scalar(inside)
        return _scalar(np.where(x == ends, inside, 0.0))


def _scalar(value: ArrayLike) -> Value:
    """A float for a 0-d result, else the array."""
    array = np.asarray(value, dtype=float)
    return float(array) if array.ndim == 0 else array
