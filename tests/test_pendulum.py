"""A rod pendulum released from the horizontal: its period against the exact elliptic-integral formula.

Reference: a compound pendulum of mass m, centre of mass at distance a from the pivot and moment
of inertia I_O about the pivot axis obeys I_O theta'' = -m g a sin(theta); released from rest at
amplitude theta_0 it swings with the exact period

    T = 4 sqrt(I_O / (m g a)) K(k),   k = sin(theta_0 / 2)

(K the complete elliptic integral of the first kind; ``scipy.special.ellipk`` takes k^2). From
90 degrees the period is 18 % longer than the small-angle one, so a solver that only got small
swings right would miss it by far.

Measurement: the angular velocity vanishes at every turning point, i.e. at t = T/2, T, 3T/2 ...
Each crossing is located on the cubic Hermite interpolant of the output angular velocity and
angular acceleration (its error, h^4/384 max|omega''''| with h = 10 ms, moves a crossing by at
most about 1e-9 s, 5e-10 of T; measured 2e-11 s against 2 ms outputs), so the measured times
reflect the integration alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import CubicHermiteSpline
from scipy.special import ellipk

import multibody as mb

GRAVITY = 9.81
"""[m/s^2], along -y."""
LENGTH, MASS, RADIUS = 1.0, 1.0, 0.01
"""The pendulum is a uniform steel-like rod: length [m], mass [kg], radius [m]."""
AMPLITUDE = np.pi / 2.0
"""Released from rest, horizontal [rad from the downward vertical]."""
HALF_SWINGS = 4
"""Turning points checked after release (two full periods)."""
OUTPUT_STEP = 0.01
"""[s]"""
RTOL = 1e-9
"""Integrator tolerance. The phase error after N accepted steps is at most about N * RTOL of the
elapsed time (local errors add up at most linearly); two periods take about 900 steps, so the
period is good to about 1e-6 at worst. Measured: 4e-9 (SI2, 936 steps), 1.0e-8 (I3, 683 steps)."""
PERIOD_TOLERANCE = 1e-6
"""Relative error allowed on every turning-point time (the bound N * RTOL above)."""


def rod_pendulum() -> tuple[mb.Model, float]:
    """The rod hinged at one end at the origin about world z, lying along +x at rest, gravity -y;
    and its exact period [s]."""
    model = mb.Model("rod_pendulum", gravity=(0.0, -GRAVITY, 0.0))
    transverse = MASS * (3.0 * RADIUS**2 + LENGTH**2) / 12.0
    rod = model.add(
        mb.RigidBody("rod", MASS, (MASS * RADIUS**2 / 2.0, transverse, transverse), position=(LENGTH / 2.0, 0.0, 0.0))
    )
    model.add(
        mb.Revolute("hinge", rod.add_marker("hinge", (-LENGTH / 2.0, 0.0, 0.0)), model.ground.add_marker("hinge"))
    )
    inertia_about_pivot = transverse + MASS * (LENGTH / 2.0) ** 2
    period = 4.0 * np.sqrt(inertia_about_pivot / (MASS * GRAVITY * LENGTH / 2.0)) * ellipk(np.sin(AMPLITUDE / 2.0) ** 2)
    return model, float(period)


def turning_times(results: mb.Results, body: str) -> np.ndarray:
    """Times [s] after t = 0 at which the body's angular velocity about world z vanishes, found as
    roots of the cubic Hermite interpolant of the angular velocity and acceleration."""
    history = results.body(body)
    spin = CubicHermiteSpline(results.time, history.angular_velocity[:, 2], history.angular_acceleration[:, 2])
    roots = spin.roots(extrapolate=False)
    return roots[roots > 0.5 * (results.time[1] - results.time[0])]


@pytest.mark.parametrize("method", ["SI2", "I3"])
def test_period_from_horizontal_release_matches_elliptic_integral(method: str) -> None:
    model, period = rod_pendulum()
    results = mb.dynamics(model, (HALF_SWINGS + 0.5) * period / 2.0, OUTPUT_STEP, method=method, rtol=RTOL)
    measured = turning_times(results, "rod")
    expected = period / 2.0 * np.arange(1, HALF_SWINGS + 1)
    assert measured.size == HALF_SWINGS
    np.testing.assert_allclose(measured, expected, rtol=PERIOD_TOLERANCE, atol=0.0)
