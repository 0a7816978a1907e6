"""Velocity and acceleration motions integrated once onto Chebyshev panels, against closed forms.

References (exact antiderivatives, nothing tuned):
- Harmonic rate a sin(w t + p) + c: integral c t + a/w (cos p - cos(w t + p)); double integral
  c t^2/2 + a/w cos(p) t - a/w^2 (sin(w t + p) - sin p).
- PiecewiseLinear: the trapezoidal rule over its own knots is exact.
- Step (ADAMS STEP, cubic in between): its integral is a quartic in the normalized time.
Tolerances: the panels stop at 1e-14 of the largest Chebyshev coefficient, so the integrals are
within a few 1e-14 relative of the closed forms where the function is smooth; at a kink of a
PiecewiseLinear the panel shrinks to 1e-7 (1 + t) s, bounding the error by the slope jump times
that width squared (below 1e-12 here).
"""

from __future__ import annotations

import numpy as np

import multibody as mb
from multibody.system.drivers import IntegratedAcceleration, IntegratedVelocity

TIMES = np.linspace(-4.0, 25.0, 2901)
"""[s]: both sides of t = 0 (an analysis may start before 0), beyond the first panels."""


def test_velocity_motion_of_a_harmonic_rate_integrates_to_the_closed_form() -> None:
    a, frequency, phase, offset = 0.7, 1.3, 0.4, 0.2
    w = 2.0 * np.pi * frequency
    driver = IntegratedVelocity(mb.Harmonic(a, frequency, phase, offset), initial=0.5)
    exact = 0.5 + offset * TIMES + a / w * (np.cos(phase) - np.cos(w * TIMES + phase))
    np.testing.assert_allclose(driver.value(TIMES), exact, rtol=0, atol=1e-13 * np.max(np.abs(exact)))
    # One time at a time (the analyses' call), in an order unlike the array's: the same values.
    for t in (11.3, -2.2, 0.0, 24.9, 3.7):
        exact_t = 0.5 + offset * t + a / w * (np.cos(phase) - np.cos(w * t + phase))
        assert abs(driver.value(t) - exact_t) <= 1e-13 * np.max(np.abs(exact))
    np.testing.assert_array_equal(driver.derivative(TIMES), mb.Harmonic(a, frequency, phase, offset).value(TIMES))


def test_acceleration_motion_of_a_harmonic_integrates_twice_to_the_closed_form() -> None:
    a, frequency, phase, offset = 2.0, 0.45, -1.0, 0.3
    w = 2.0 * np.pi * frequency
    driver = IntegratedAcceleration(mb.Harmonic(a, frequency, phase, offset), initial=0.1, initial_rate=-0.6)
    rate = -0.6 + offset * TIMES + a / w * (np.cos(phase) - np.cos(w * TIMES + phase))
    value = (
        0.1
        - 0.6 * TIMES
        + offset * TIMES**2 / 2.0
        + a / w * np.cos(phase) * TIMES
        - a / w**2 * (np.sin(w * TIMES + phase) - np.sin(phase))
    )
    np.testing.assert_allclose(driver.derivative(TIMES), rate, rtol=0, atol=1e-13 * np.max(np.abs(rate)))
    np.testing.assert_allclose(driver.value(TIMES), value, rtol=0, atol=1e-13 * np.max(np.abs(value)))


def test_piecewise_linear_rate_with_kinks_off_the_panel_grid() -> None:
    knots = np.array([0.0, 1.0 / 3.0, np.pi, 7.77, 12.0])
    values = np.array([0.0, 2.0, -1.0, 3.0, 0.5])
    driver = IntegratedVelocity(mb.PiecewiseLinear(knots, values), initial=0.0)
    t = np.linspace(0.0, 20.0, 4001)
    # Exact: trapezoids over whole segments, plus the part of the segment holding t; constant beyond.
    segment_areas = np.concatenate([[0.0], np.cumsum(np.diff(knots) * (values[:-1] + values[1:]) / 2.0)])
    k = np.clip(np.searchsorted(knots, t, side="right") - 1, 0, len(knots) - 1)
    exact = segment_areas[k] + (t - knots[k]) * (values[k] + mb.PiecewiseLinear(knots, values).value(t)) / 2.0
    np.testing.assert_allclose(driver.value(t), exact, rtol=0, atol=1e-12)


def test_acceleration_motion_of_a_step_matches_its_quartic_integral() -> None:
    t0, h0, t1, h1 = 0.3, -1.0, 1.7, 2.5
    driver = IntegratedAcceleration(mb.Step(t0, h0, t1, h1), initial=0.0, initial_rate=0.0)
    t = np.linspace(0.0, 6.0, 1201)
    duration, rise = t1 - t0, h1 - h0
    s = np.clip((t - t0) / duration, 0.0, 1.0)
    # integral_0^t STEP = h0 t + rise (duration (s^3 - s^4 / 2) + (t - t1) for t > t1).
    rate = h0 * t + rise * (duration * (s**3 - s**4 / 2.0) + np.maximum(t - t1, 0.0))
    np.testing.assert_allclose(driver.derivative(t), rate, rtol=0, atol=1e-13 * np.max(np.abs(rate)))
    # integral_0^t of the rate: h0 t^2 / 2 + rise (duration^2 (s^4 / 4 - s^5 / 10) + 1/2 duration (t - t1)
    # + (t - t1)^2 / 2 for t > t1).
    after = np.maximum(t - t1, 0.0)
    value = h0 * t**2 / 2.0 + rise * (
        duration**2 * (s**4 / 4.0 - s**5 / 10.0) + duration / 2.0 * after + after**2 / 2.0
    )
    np.testing.assert_allclose(driver.value(t), value, rtol=0, atol=1e-13 * np.max(np.abs(value)))


def test_scalar_only_user_rate_with_a_jump_is_integrated_too() -> None:
    """A user function written for floats (an ``if`` on t) cannot take the panel's node array; it
    is then sampled node by node. Rate 1 before 1/3 s and 2 after (a jump off the panel grid):
    integral 2 t - 1/3 beyond. Tolerance: the panel holding the jump shrinks to 1e-10 (1 + t) s,
    so the error is below the jump (1) times that width."""
    driver = IntegratedVelocity(mb.functions.Callable(lambda t: 1.0 if t < 1.0 / 3.0 else 2.0), initial=0.0)
    for t in (0.2, 3.0, 7.5):
        assert abs(driver.value(t) - (t if t < 1.0 / 3.0 else 2.0 * t - 1.0 / 3.0)) < 2e-10


def test_drivers_of_a_compiled_system_pickle() -> None:
    """Systems travel to worker processes (parameter studies): the drivers must pickle, panels included."""
    import pickle

    driver = IntegratedVelocity(mb.Harmonic(0.7, 1.3), initial=0.5)
    value = driver.value(2.0)
    assert pickle.loads(pickle.dumps(driver)).value(2.0) == value
