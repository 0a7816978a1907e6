"""Tests of the functions of time in multibody.model.functions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from multibody.model.functions import (
    Callable,
    Constant,
    CubicSpline,
    Harmonic,
    PiecewiseLinear,
    Polynomial,
    Ramp,
    Step,
    TimeFunction,
    as_time_function,
)

# Sample times [s] that stay at least 0.03 s away from every kink used below (0, 0.5, 1, 1.5,
# 2, 2.5 s), farther than any finite-difference step, so each stencil sees a smooth function.
SMOOTH_TIMES = np.array([-0.37, 0.23, 0.71, 1.13, 1.37, 1.83, 2.71])

EVERY_KIND = {
    "constant": Constant(2.5),
    "step": Step(0.5, -1.0, 1.5, 3.0),
    "harmonic": Harmonic(2.0, 0.7, phase=0.3, offset=1.0),
    "harmonic_from_omega": Harmonic.from_angular_frequency(1.5, 3.0, phase=-0.2),
    "piecewise_linear": PiecewiseLinear([0.0, 1.0, 2.5], [0.0, 2.0, -1.0]),
    "cubic_spline": CubicSpline([0.0, 0.5, 1.0, 1.5, 2.0], [0.0, 1.0, 0.5, -0.5, 0.2]),
    "natural_spline": CubicSpline([0.0, 1.0, 2.0, 2.5], [1.0, 0.0, 2.0, 1.0], boundary="natural"),
    "polynomial": Polynomial([1.0, -0.5, 0.3, -0.1]),
    "ramp": Ramp(0.8, offset=-0.2),
    "callable_exact": Callable(np.cos, df=lambda t: -np.sin(t), ddf=lambda t: -np.cos(t)),
    "callable_df_only": Callable(np.cos, df=lambda t: -np.sin(t)),
    "callable_fd": Callable(lambda t: np.exp(0.5 * t) * np.sin(t)),
}


def central_first_difference(function, t, h):
    """(f(t + h) - f(t - h)) / (2 h)."""
    return (function(t + h) - function(t - h)) / (2.0 * h)


def central_second_difference(function, t, h):
    """(f(t + h) - 2 f(t) + f(t - h)) / h^2."""
    return (function(t + h) - 2.0 * function(t) + function(t - h)) / h**2


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_derivatives_match_finite_differences_of_value(kind):
    function = EVERY_KIND[kind]
    # Bounds at SMOOTH_TIMES over all the functions above: |f| <= 10, |f'''| <= 170 and
    # |f''''| <= 750 (both from Harmonic(2.0, 0.7 Hz): 2 (2 pi 0.7)^3 and 2 (2 pi 0.7)^4).
    # Central first difference, h = 1e-5 s: truncation h^2 |f'''| / 6 <= 3e-9 plus round-off
    # eps |f| / h <= 2e-10 (and the FD of Callable itself adds ~1e-10): 1e-7 has a wide margin
    # yet catches any wrong factor or sign in a derivative formula.
    h = 1e-5
    np.testing.assert_allclose(
        function.derivative(SMOOTH_TIMES),
        central_first_difference(function.value, SMOOTH_TIMES, h),
        rtol=0.0,
        atol=1e-7,
    )
    # Three-point second difference, h = 3e-4 s: truncation h^2 |f''''| / 12 <= 6e-6 plus
    # round-off 4 eps |f| / h^2 <= 1e-7 (and the FD of Callable itself adds ~1e-7): 2e-5.
    h = 3e-4
    np.testing.assert_allclose(
        function.second_derivative(SMOOTH_TIMES),
        central_second_difference(function.value, SMOOTH_TIMES, h),
        rtol=0.0,
        atol=2e-5,
    )


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_scalar_time_gives_float_and_array_keeps_shape(kind):
    function = EVERY_KIND[kind]
    times = np.linspace(-1.0, 3.0, 12).reshape(3, 4)
    for method in (function.value, function.derivative, function.second_derivative, function):
        assert isinstance(method(1.3), float)
        evaluated = method(times)
        assert evaluated.shape == (3, 4)
        np.testing.assert_array_equal(evaluated[1, 2], method(float(times[1, 2])))
        assert method([0.1, 0.2]).shape == (2,)
        assert method(np.empty(0)).shape == (0,)


def test_constant():
    function = Constant(-4.0)
    assert function(12.0) == -4.0
    np.testing.assert_array_equal(function.value([0.0, 1.0]), [-4.0, -4.0])
    np.testing.assert_array_equal(function.derivative([0.0, 1.0]), [0.0, 0.0])
    np.testing.assert_array_equal(function.second_derivative([0.0, 1.0]), [0.0, 0.0])


class TestStep:
    t0, h0, t1, h1 = 1.0, 2.0, 3.0, -6.0
    step = Step(t0, h0, t1, h1)

    def test_holds_end_values_outside_transition(self):
        np.testing.assert_array_equal(self.step([-5.0, 0.0, self.t0]), self.h0)
        np.testing.assert_array_equal(self.step([self.t1, 4.0, 100.0]), self.h1)
        outside = np.array([-5.0, 0.0, 3.5, 100.0])
        np.testing.assert_array_equal(self.step.derivative(outside), 0.0)
        np.testing.assert_array_equal(self.step.second_derivative(outside), 0.0)

    def test_closed_form_inside(self):
        t = np.linspace(self.t0, self.t1, 9)[1:-1]
        s = (t - self.t0) / (self.t1 - self.t0)
        rise, duration = self.h1 - self.h0, self.t1 - self.t0
        np.testing.assert_allclose(self.step(t), self.h0 + rise * (3 * s**2 - 2 * s**3), rtol=1e-14)
        np.testing.assert_allclose(self.step.derivative(t), rise * (6 * s - 6 * s**2) / duration, rtol=1e-14)
        np.testing.assert_allclose(
            self.step.second_derivative(t), rise * (6 - 12 * s) / duration**2, rtol=1e-13, atol=1e-14
        )

    def test_midpoint(self):
        midpoint = 0.5 * (self.t0 + self.t1)
        assert self.step(midpoint) == pytest.approx(0.5 * (self.h0 + self.h1), rel=1e-15)
        # The slope is largest there and the second derivative changes sign.
        largest_slope = 1.5 * (self.h1 - self.h0) / (self.t1 - self.t0)
        assert self.step.derivative(midpoint) == pytest.approx(largest_slope)
        assert self.step.second_derivative(midpoint) == pytest.approx(0.0, abs=1e-14)

    @pytest.mark.parametrize("edge", [t0, t1])
    def test_value_and_slope_continuous_at_ends(self, edge):
        # Across [edge - d, edge + d] the value changes by O(|h''| d^2) and the slope by
        # O(|h''| d), with |h''| <= 6 |h1 - h0| / (t1 - t0)^2 = 12 here.
        d = 1e-7
        assert self.step(edge + d) == pytest.approx(self.step(edge - d), abs=12 * d**2)
        assert self.step.derivative(edge + d) == pytest.approx(self.step.derivative(edge - d), abs=12 * d)
        assert self.step.derivative(edge) == 0.0

    def test_second_derivative_takes_right_hand_limit_at_ends(self):
        duration = self.t1 - self.t0
        assert self.step.second_derivative(self.t0) == pytest.approx(6 * (self.h1 - self.h0) / duration**2)
        assert self.step.second_derivative(self.t1) == 0.0

    @given(
        t=st.floats(-10.0, 10.0),
        h0=st.floats(-1e3, 1e3),
        h1=st.floats(-1e3, 1e3),
    )
    def test_stays_between_end_values_and_is_monotone(self, t, h0, h1):
        step = Step(-1.0, h0, 2.0, h1)
        low, high = min(h0, h1), max(h0, h1)
        tolerance = 1e-12 * (1 + high - low)
        assert low - tolerance <= step(t) <= high + tolerance
        assert step.derivative(t) * (h1 - h0) >= 0.0

    @pytest.mark.parametrize("t1", [1.0, 0.5])
    def test_rejects_end_not_after_start(self, t1):
        with pytest.raises(ValueError, match="t1 .* must be greater than start time t0"):
            Step(1.0, 0.0, t1, 1.0)


class TestHarmonic:
    def test_exact_derivatives(self):
        amplitude, frequency, phase, offset = 0.3, 2.0, 0.4, -1.0
        function = Harmonic(amplitude, frequency, phase=phase, offset=offset)
        omega = 2 * math.pi * frequency
        t = np.linspace(-1.0, 1.0, 21)
        np.testing.assert_allclose(function(t), offset + amplitude * np.sin(omega * t + phase), rtol=1e-14)
        np.testing.assert_allclose(function.derivative(t), amplitude * omega * np.cos(omega * t + phase), rtol=1e-14)
        np.testing.assert_allclose(
            function.second_derivative(t), -amplitude * omega**2 * np.sin(omega * t + phase), rtol=1e-14
        )
        assert function.angular_frequency == pytest.approx(omega, rel=1e-15)

    def test_period_and_phase(self):
        function = Harmonic(1.0, frequency=4.0, phase=math.pi / 2)
        assert function(0.0) == pytest.approx(1.0)
        assert function(0.25) == pytest.approx(1.0)  # one period 1 / 4 Hz later
        assert function(0.125) == pytest.approx(-1.0)

    def test_from_angular_frequency_equals_frequency_in_hertz(self):
        by_omega = Harmonic.from_angular_frequency(2.0, 4 * math.pi, phase=0.1, offset=3.0)
        by_hertz = Harmonic(2.0, 2.0, phase=0.1, offset=3.0)
        assert by_omega.frequency == pytest.approx(2.0, rel=1e-15)
        t = np.linspace(0.0, 1.0, 11)
        np.testing.assert_allclose(by_omega(t), by_hertz(t), rtol=1e-14)


class TestPiecewiseLinear:
    function = PiecewiseLinear([0.0, 1.0, 3.0], [1.0, 3.0, 2.0])

    def test_interpolates_and_holds_ends(self):
        times = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 9.0]
        np.testing.assert_allclose(self.function(times), [1, 1, 2, 3, 2.5, 2, 2])

    def test_slope_is_right_hand_and_zero_outside(self):
        times = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 9.0]
        np.testing.assert_array_equal(self.function.derivative(times), [0, 2, 2, -0.5, -0.5, 0, 0])
        np.testing.assert_array_equal(self.function.second_derivative(times), 0.0)

    @pytest.mark.parametrize(
        ("times", "values", "message"),
        [
            ([0.0, 1.0, 1.0], [0.0, 1.0, 2.0], "strictly increasing.*times\\[1\\]"),
            ([0.0, 2.0, 1.0], [0.0, 1.0, 2.0], "strictly increasing"),
            ([0.0, 1.0], [0.0, 1.0, 2.0], "2 times but 3 values"),
            ([0.0], [1.0], "at least 2"),
            ([[0.0, 1.0]], [[0.0, 1.0]], "1-D"),
            ([0.0, np.nan], [0.0, 1.0], "finite"),
        ],
    )
    def test_rejects_bad_samples(self, times, values, message):
        for kind in (PiecewiseLinear, CubicSpline):
            with pytest.raises(ValueError, match=f"{kind.__name__}: .*{message}"):
                kind(times, values)

    def test_samples_are_copied_and_read_only(self):
        times = np.array([0.0, 1.0])
        function = PiecewiseLinear(times, [0.0, 1.0])
        times[1] = 5.0
        assert function(1.0) == 1.0
        with pytest.raises(ValueError):
            function.values[0] = 3.0


class TestCubicSpline:
    @staticmethod
    def cubic(t):
        return 1.0 - 2.0 * t + 0.5 * t**2 + 0.25 * t**3

    def test_not_a_knot_reproduces_a_cubic_exactly(self):
        knots = np.array([0.0, 0.4, 1.1, 2.0, 3.0])
        spline = CubicSpline(knots, self.cubic(knots))
        # Inside and extrapolated with the end polynomials, which are the cubic itself.
        t = np.linspace(-1.0, 4.0, 41)
        np.testing.assert_allclose(spline(t), self.cubic(t), atol=1e-12)
        np.testing.assert_allclose(spline.derivative(t), -2.0 + t + 0.75 * t**2, atol=1e-11)
        np.testing.assert_allclose(spline.second_derivative(t), 1.0 + 1.5 * t, atol=1e-10)

    def test_natural_has_zero_curvature_at_ends(self):
        spline = CubicSpline([0.0, 1.0, 2.0, 4.0], [0.0, 1.0, -1.0, 0.5], boundary="natural")
        np.testing.assert_allclose(spline.second_derivative([0.0, 4.0]), 0.0, atol=1e-12)

    def test_periodic_repeats_outside(self):
        spline = CubicSpline([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, -1.0, 0.0], boundary="periodic")
        np.testing.assert_allclose(spline([3.4, 5.2]), spline([0.4, 2.2]), atol=1e-12)


class TestPolynomial:
    def test_closed_form(self):
        function = Polynomial([2.0, -1.0, 0.0, 0.5])
        t = np.array([-2.0, 0.0, 1.5])
        np.testing.assert_allclose(function(t), 2.0 - t + 0.5 * t**3)
        np.testing.assert_allclose(function.derivative(t), -1.0 + 1.5 * t**2)
        np.testing.assert_allclose(function.second_derivative(t), 3.0 * t)

    def test_constant_polynomial_has_zero_derivatives(self):
        function = Polynomial([7.0])
        assert function(3.0) == 7.0
        assert function.derivative(3.0) == 0.0
        assert function.second_derivative(3.0) == 0.0

    def test_ramp_is_a_first_degree_polynomial(self):
        ramp = Ramp(0.5, offset=1.0)
        assert isinstance(ramp, Polynomial)
        np.testing.assert_allclose(ramp([0.0, 2.0]), [1.0, 2.0])
        np.testing.assert_allclose(ramp.derivative([0.0, 2.0]), 0.5)
        np.testing.assert_allclose(ramp.second_derivative([0.0, 2.0]), 0.0)

    @pytest.mark.parametrize("coefficients", [[], [[1.0, 2.0]]])
    def test_rejects_bad_coefficients(self, coefficients):
        with pytest.raises(ValueError, match="non-empty 1-D"):
            Polynomial(coefficients)


class TestCallable:
    def test_uses_given_derivatives(self):
        function = Callable(lambda t: t**2, df=lambda t: 10.0 + 0 * t, ddf=lambda t: 20.0 + 0 * t)
        assert function(3.0) == 9.0
        assert function.derivative(3.0) == 10.0  # the given one, though not f's true derivative
        assert function.second_derivative(3.0) == 20.0

    @pytest.mark.parametrize("t", [0.0, 0.7, -3.0, 40.0])
    def test_finite_differences_reach_documented_accuracy(self, t):
        omega = 1.3
        function = Callable(lambda t: np.sin(omega * t))
        # The error bounds of the Callable docstring, with |f| <= 1 and |f^(k)| <= omega^k,
        # doubled to allow for the constants being estimates.
        grow = 1.0 + abs(t)
        first_error = 1.7e-13 * grow**2 * omega**3 + 2.2e-10 / grow
        second_error = 8.3e-10 * grow**2 * omega**4 + 8.9e-8 / grow**2
        assert function.derivative(t) == pytest.approx(omega * math.cos(omega * t), abs=2 * first_error)
        assert function.second_derivative(t) == pytest.approx(-(omega**2) * math.sin(omega * t), abs=2 * second_error)

    def test_second_derivative_differentiates_df_when_given(self):
        function = Callable(lambda t: 0.0 * t, df=np.sin)  # f is ignored for the second derivative
        assert function.second_derivative(0.4) == pytest.approx(math.cos(0.4), abs=1e-9)

    def test_scalar_time_is_passed_as_float(self):
        received = []
        function = Callable(lambda t: received.append(type(t)) or math.sin(t))
        function(0.2)
        function.derivative(0.2)
        function.second_derivative(0.2)
        assert set(received) == {float}

    def test_constant_returning_function_broadcasts(self):
        np.testing.assert_array_equal(Callable(lambda t: 3.0)([0.0, 1.0, 2.0]), [3.0, 3.0, 3.0])

    def test_rejects_non_callable_derivative(self):
        with pytest.raises(TypeError, match="df must be callable"):
            Callable(np.sin, df=2.0)


class TestAsTimeFunction:
    def test_passes_time_function_through(self):
        step = Step(0.0, 0.0, 1.0, 1.0)
        assert as_time_function(step) is step

    @pytest.mark.parametrize("number", [3, 2.5, np.float64(-1.0), np.int32(4)])
    def test_number_becomes_constant(self, number):
        function = as_time_function(number)
        assert isinstance(function, Constant)
        assert function(10.0) == float(number)

    def test_callable_becomes_callable(self):
        function = as_time_function(np.cos)
        assert isinstance(function, Callable) and isinstance(function, TimeFunction)
        assert function(0.0) == 1.0

    @pytest.mark.parametrize("given_value", ["1.0", None, True, [1.0, 2.0]])
    def test_rejects_other_types_naming_them(self, given_value):
        with pytest.raises(TypeError, match=type(given_value).__name__):
            as_time_function(given_value)
