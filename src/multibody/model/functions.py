"""Functions of time for prescribed motions and applied forces.

Every function is a :class:`TimeFunction` with ``value(t)``, ``derivative(t)`` and
``second_derivative(t)``. Time ``t`` is in seconds and may be a float or an array of any
shape; the result has the same shape (a float for a scalar ``t``). The unit of the value is
whatever the caller prescribes (m, rad, N, N*m ...); the derivatives are in that unit per
second and per second squared.

Where a function has a kink or a jump in a derivative (at the ends of a :class:`Step`, at the
knots of a :class:`PiecewiseLinear`), the derivative there is the right-hand limit.
"""

from __future__ import annotations

import abc
import collections.abc
import numbers

import numpy as np
import numpy.typing as npt

Times = npt.ArrayLike
"""Time [s]: a float, or an array-like of times of any shape."""

Evaluated = float | np.ndarray
"""Result of an evaluation: a float for a scalar time, else an array shaped like the times."""

ScalarFunction = collections.abc.Callable[[float | np.ndarray], float | np.ndarray]
"""A user function of time [s]."""


class TimeFunction(abc.ABC):
    """A scalar function of time t [s], with its first and second time derivatives.

    Subclasses implement the kernels ``_value``, ``_derivative`` and ``_second_derivative``,
    which receive a float array of times and may return anything that broadcasts to its shape.
    """

    def value(self, t: Times) -> Evaluated:
        """Value at time t [s], in the unit of the prescribed quantity."""
        return _evaluate(self._value, t)

    def derivative(self, t: Times) -> Evaluated:
        """First time derivative at time t [s], in the unit of the quantity per second."""
        return _evaluate(self._derivative, t)

    def second_derivative(self, t: Times) -> Evaluated:
        """Second time derivative at time t [s], in the unit of the quantity per second^2."""
        return _evaluate(self._second_derivative, t)

    def __call__(self, t: Times) -> Evaluated:
        """Value at time t [s]; same as :meth:`value`."""
        return self.value(t)

    @abc.abstractmethod
    def _value(self, t: np.ndarray) -> npt.ArrayLike: ...

    @abc.abstractmethod
    def _derivative(self, t: np.ndarray) -> npt.ArrayLike: ...

    @abc.abstractmethod
    def _second_derivative(self, t: np.ndarray) -> npt.ArrayLike: ...


def _evaluate(kernel: collections.abc.Callable[[np.ndarray], npt.ArrayLike], t: Times) -> Evaluated:
    """Apply a kernel to times t [s]; return a float for scalar t, else an array shaped like t."""
    t_array = np.asarray(t, dtype=float)
    result = np.broadcast_to(np.asarray(kernel(t_array), dtype=float), t_array.shape)
    return float(result) if t_array.ndim == 0 else result.copy()


class Constant(TimeFunction):
    """A value that does not change with time."""

    def __init__(self, value: float) -> None:
        """Hold ``value`` (unit of the prescribed quantity) for all times."""
        self.constant = float(value)

    def _value(self, t: np.ndarray) -> float:
        return self.constant

    def _derivative(self, t: np.ndarray) -> float:
        return 0.0

    def _second_derivative(self, t: np.ndarray) -> float:
        return 0.0

    def __repr__(self) -> str:
        return f"Constant({self.constant!r})"


class Step(TimeFunction):
    """The ADAMS STEP function: a smooth cubic transition from h0 to h1 between t0 and t1.

    h(t) = h0 for t <= t0, h1 for t >= t1, and h0 + (h1 - h0) s^2 (3 - 2 s) in between, with
    s = (t - t0) / (t1 - t0). Value and slope are continuous; the second derivative jumps at
    t0 and t1 (where the right-hand limit is returned).
    """

    def __init__(self, t0: float, h0: float, t1: float, h1: float) -> None:
        """Step from value h0 at time t0 [s] to value h1 at time t1 [s] > t0."""
        if not t1 > t0:
            raise ValueError(f"Step: end time t1 = {t1} s must be greater than start time t0 = {t0} s")
        self.t0 = float(t0)
        self.h0 = float(h0)
        self.t1 = float(t1)
        self.h1 = float(h1)

    @property
    def duration(self) -> float:
        """Length of the transition t1 - t0 [s]."""
        return self.t1 - self.t0

    @property
    def rise(self) -> float:
        """Total change of value h1 - h0."""
        return self.h1 - self.h0

    def _progress(self, t: np.ndarray) -> np.ndarray:
        """Normalized time s = (t - t0) / (t1 - t0), clipped to [0, 1] (dimensionless)."""
        return np.clip((t - self.t0) / self.duration, 0.0, 1.0)

    def _value(self, t: np.ndarray) -> np.ndarray:
        s = self._progress(t)
        return self.h0 + self.rise * s**2 * (3.0 - 2.0 * s)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        s = self._progress(t)
        return self.rise * 6.0 * s * (1.0 - s) / self.duration

    def _second_derivative(self, t: np.ndarray) -> np.ndarray:
        s = self._progress(t)
        in_transition = (t >= self.t0) & (t < self.t1)
        return np.where(in_transition, self.rise * 6.0 * (1.0 - 2.0 * s) / self.duration**2, 0.0)

    def __repr__(self) -> str:
        return f"Step(t0={self.t0!r}, h0={self.h0!r}, t1={self.t1!r}, h1={self.h1!r})"


class Harmonic(TimeFunction):
    """offset + amplitude * sin(2 pi frequency t + phase)."""

    def __init__(self, amplitude: float, frequency: float, phase: float = 0.0, offset: float = 0.0) -> None:
        """Sine of ``amplitude`` about ``offset``, ``frequency`` [Hz], ``phase`` [rad] at t = 0."""
        self.amplitude = float(amplitude)
        self.frequency = float(frequency)
        self.phase = float(phase)
        self.offset = float(offset)

    @classmethod
    def from_angular_frequency(
        cls, amplitude: float, omega: float, phase: float = 0.0, offset: float = 0.0
    ) -> Harmonic:
        """Harmonic of angular frequency ``omega`` [rad/s] instead of a frequency in Hz."""
        return cls(amplitude, omega / (2.0 * np.pi), phase, offset)

    @property
    def angular_frequency(self) -> float:
        """Angular frequency 2 pi frequency [rad/s]."""
        return 2.0 * np.pi * self.frequency

    def _angle(self, t: np.ndarray) -> np.ndarray:
        """Argument of the sine, omega t + phase [rad]."""
        return self.angular_frequency * t + self.phase

    def _value(self, t: np.ndarray) -> np.ndarray:
        return self.offset + self.amplitude * np.sin(self._angle(t))

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        return self.amplitude * self.angular_frequency * np.cos(self._angle(t))

    def _second_derivative(self, t: np.ndarray) -> np.ndarray:
        return -self.amplitude * self.angular_frequency**2 * np.sin(self._angle(t))

    def __repr__(self) -> str:
        return (
            f"Harmonic(amplitude={self.amplitude!r}, frequency={self.frequency!r}, "
            f"phase={self.phase!r}, offset={self.offset!r})"
        )


def _validated_samples(kind: str, times: npt.ArrayLike, values: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Check sample times [s] and values for interpolation; return read-only float copies.

    Both must be 1-D, finite, of the same length >= 2, and the times strictly increasing.
    """
    times = np.array(times, dtype=float)
    values = np.array(values, dtype=float)
    if times.ndim != 1 or values.ndim != 1:
        raise ValueError(f"{kind}: times and values must be 1-D, got shapes {times.shape} and {values.shape}")
    if times.size != values.size:
        raise ValueError(f"{kind}: got {times.size} times but {values.size} values")
    if times.size < 2:
        raise ValueError(f"{kind}: needs at least 2 samples, got {times.size}")
    if not (np.all(np.isfinite(times)) and np.all(np.isfinite(values))):
        raise ValueError(f"{kind}: times and values must be finite")
    not_increasing = np.flatnonzero(np.diff(times) <= 0.0)
    if not_increasing.size:
        i = not_increasing[0]
        raise ValueError(
            f"{kind}: times must be strictly increasing, but times[{i}] = {times[i]} s "
            f"and times[{i + 1}] = {times[i + 1]} s"
        )
    times.flags.writeable = False
    values.flags.writeable = False
    return times, values


class PiecewiseLinear(TimeFunction):
    """Linear interpolation between samples, held constant before the first and after the last.

    The derivative is the slope of the segment (the right-hand one at a sample time) and zero
    outside the sampled range; the second derivative is zero.
    """

    def __init__(self, times: npt.ArrayLike, values: npt.ArrayLike) -> None:
        """Interpolate ``values`` given at strictly increasing ``times`` [s]."""
        self.times, self.values = _validated_samples("PiecewiseLinear", times, values)
        self.slopes = np.diff(self.values) / np.diff(self.times)
        """Slope of each segment, in the unit of the values per second."""
        self.slopes.flags.writeable = False

    def _value(self, t: np.ndarray) -> np.ndarray:
        return np.interp(t, self.times, self.values)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        segment = np.searchsorted(self.times, t, side="right") - 1
        inside = (segment >= 0) & (segment < self.slopes.size)
        return np.where(inside, self.slopes[np.clip(segment, 0, self.slopes.size - 1)], 0.0)

    def _second_derivative(self, t: np.ndarray) -> float:
        return 0.0

    def __repr__(self) -> str:
        return f"PiecewiseLinear(times={self.times.tolist()!r}, values={self.values.tolist()!r})"


class CubicSpline(TimeFunction):
    """Cubic spline through samples (scipy.interpolate.CubicSpline), C2-continuous.

    Outside the sampled range it extrapolates with the end polynomials; a ``"periodic"``
    spline repeats instead.
    """

    def __init__(self, times: npt.ArrayLike, values: npt.ArrayLike, boundary: str = "not-a-knot") -> None:
        """Spline through ``values`` at strictly increasing ``times`` [s].

        ``boundary`` is a scipy end condition: ``"not-a-knot"`` (reproduces cubics exactly),
        ``"natural"`` (zero second derivative at the ends), ``"clamped"`` (zero slope at the
        ends) or ``"periodic"`` (first and last values must be equal).
        """
        self.times, self.values = _validated_samples("CubicSpline", times, values)
        self.boundary = boundary
        extrapolation = "periodic" if boundary == "periodic" else True
        from scipy import interpolate  # heavy: loaded when first used

        self._spline = interpolate.CubicSpline(self.times, self.values, bc_type=boundary, extrapolate=extrapolation)
        self._spline_derivative = self._spline.derivative(1)
        self._spline_second_derivative = self._spline.derivative(2)

    def _value(self, t: np.ndarray) -> np.ndarray:
        return self._spline(t)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        return self._spline_derivative(t)

    def _second_derivative(self, t: np.ndarray) -> np.ndarray:
        return self._spline_second_derivative(t)

    def __repr__(self) -> str:
        return (
            f"CubicSpline(times={self.times.tolist()!r}, values={self.values.tolist()!r}, boundary={self.boundary!r})"
        )


class Polynomial(TimeFunction):
    """c0 + c1 t + c2 t^2 + ... with t in seconds; coefficient ck is in unit per s^k."""

    def __init__(self, coefficients: npt.ArrayLike) -> None:
        """Polynomial with ``coefficients`` in increasing order of power (c0 first)."""
        coefficients = np.array(coefficients, dtype=float)
        if coefficients.ndim != 1 or coefficients.size == 0:
            raise ValueError(
                f"{type(self).__name__}: coefficients must be a non-empty 1-D sequence, got shape {coefficients.shape}"
            )
        coefficients.flags.writeable = False
        self.coefficients = coefficients
        self._polynomial = np.polynomial.Polynomial(coefficients)
        self._polynomial_derivative = self._polynomial.deriv(1)
        self._polynomial_second_derivative = self._polynomial.deriv(2)

    def _value(self, t: np.ndarray) -> np.ndarray:
        return self._polynomial(t)

    def _derivative(self, t: np.ndarray) -> np.ndarray:
        return self._polynomial_derivative(t)

    def _second_derivative(self, t: np.ndarray) -> np.ndarray:
        return self._polynomial_second_derivative(t)

    def __repr__(self) -> str:
        return f"Polynomial({self.coefficients.tolist()!r})"


class Ramp(Polynomial):
    """offset + slope * t: a :class:`Polynomial` of degree one."""

    def __init__(self, slope: float, offset: float = 0.0) -> None:
        """Ramp rising by ``slope`` (unit per second) from ``offset`` at t = 0."""
        super().__init__([offset, slope])

    def __repr__(self) -> str:
        offset, slope = self.coefficients.tolist()
        return f"Ramp(slope={slope!r}, offset={offset!r})"


class Callable(TimeFunction):
    """A user Python function of time, with derivatives given or by central finite differences.

    ``f`` (and ``df``, ``ddf``) receive a float for a scalar time and the whole float array for
    array times; in the latter case they must work on numpy arrays (``np.sin``, not
    ``math.sin``).

    Accuracy of the finite differences for a smooth f near t [s], with eps = 2.2e-16 the
    machine precision. The steps grow with 1 + |t| so that they stay far above the rounding of
    t itself; the errors therefore grow with |t|:

    - first derivative, central difference with h = 1e-6 (1 + |t|) s: error about
      h^2 |f'''| / 6 + eps |f| / h = 1.7e-13 (1 + |t|)^2 |f'''| + 2.2e-10 |f| / (1 + |t|).
    - second derivative, three-point second difference with h = 1e-4 (1 + |t|) s: error about
      h^2 |f''''| / 12 + 4 eps |f| / h^2 = 8.3e-10 (1 + |t|)^2 |f''''| + 8.9e-8 |f| / (1 + |t|)^2.
      If ``df`` is given (and ``ddf`` not), the first-derivative difference of ``df`` is used
      instead, with the first-derivative error above written for ``df``.
    """

    _FIRST_DIFFERENCE_STEP = 1e-6
    """Step of the central first difference is this times (1 + |t|) [s]."""
    _SECOND_DIFFERENCE_STEP = 1e-4
    """Step of the central second difference is this times (1 + |t|) [s]."""

    def __init__(self, f: ScalarFunction, df: ScalarFunction | None = None, ddf: ScalarFunction | None = None) -> None:
        """Wrap ``f(t)``; ``df`` and ``ddf`` are its exact first and second derivatives if known."""
        for name, function in (("f", f), ("df", df), ("ddf", ddf)):
            if function is not None and not callable(function):
                raise TypeError(f"Callable: {name} must be callable, got {type(function).__name__}")
        self.f = f
        self.df = df
        self.ddf = ddf

    def _central_first_difference(self, function: ScalarFunction, t: np.ndarray) -> np.ndarray:
        """(g(t + h) - g(t - h)) / (2 h), h = 1e-6 (1 + |t|), using the step actually representable."""
        h = self._FIRST_DIFFERENCE_STEP * (1.0 + np.abs(t))
        t_after, t_before = t + h, t - h
        g_after = _call_user_function(function, t_after)
        g_before = _call_user_function(function, t_before)
        return (g_after - g_before) / (t_after - t_before)

    def _value(self, t: np.ndarray) -> npt.ArrayLike:
        return _call_user_function(self.f, t)

    def _derivative(self, t: np.ndarray) -> npt.ArrayLike:
        if self.df is not None:
            return _call_user_function(self.df, t)
        return self._central_first_difference(self.f, t)

    def _second_derivative(self, t: np.ndarray) -> npt.ArrayLike:
        if self.ddf is not None:
            return _call_user_function(self.ddf, t)
        if self.df is not None:
            return self._central_first_difference(self.df, t)
        h = self._SECOND_DIFFERENCE_STEP * (1.0 + np.abs(t))
        t_after, t_before = t + h, t - h
        h_after, h_before = t_after - t, t - t_before
        f_after = _call_user_function(self.f, t_after)
        f_now = _call_user_function(self.f, t)
        f_before = _call_user_function(self.f, t_before)
        # Second difference on the (possibly unequal) representable steps h_after, h_before.
        return (
            2.0
            * (h_before * f_after - (h_after + h_before) * f_now + h_after * f_before)
            / (h_after * h_before * (h_after + h_before))
        )

    def __repr__(self) -> str:
        return f"Callable({self.f!r}, df={self.df!r}, ddf={self.ddf!r})"


def _call_user_function(function: ScalarFunction, t: np.ndarray) -> np.ndarray:
    """Call a user function of time with a float for 0-d t [s], else with the array."""
    return np.asarray(function(float(t)) if t.ndim == 0 else function(t), dtype=float)


def as_time_function(x: TimeFunction | float | ScalarFunction) -> TimeFunction:
    """Turn x into a TimeFunction: passed through, a real number -> Constant, a callable -> Callable."""
    if isinstance(x, TimeFunction):
        return x
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return Constant(float(x))
    if callable(x):
        return Callable(x)
    raise TypeError(
        f"expected a TimeFunction, a real number or a callable of time t [s], got {type(x).__name__}: {x!r}"
    )
