"""Kinematic analysis of a driven slider-crank against its closed form and its energy balance.

The slider-crank (crank r = 0.1 m, rod l = 0.3 m, slider on the world x-axis, in the xy-plane
under gravity -y) is built as ADAMS users build it: revolute crank pivot, revolute crank pin,
spherical wrist pin, translational slide. Its out-of-plane slide equation repeats the loop
(Gruebler -1 with the motion, 0 DOF), so compile removes it with a warning.

References:
- slider position x = r cos(theta) + sqrt(l^2 - r^2 sin^2(theta)) and its time derivatives
  (closed form) for theta = omega t;
- the energy balance: the power of the driving torque equals d(T + V)/dt, as the other
  joints do no work;
- a motion given at displacement, velocity or acceleration level describes one angle history.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import ArrayLike, NDArray

import multibody as mb

CRANK, ROD = 0.1, 0.3
"""Crank radius and rod length [m]."""

OMEGA = 2.0 * np.pi
"""Crank speed [rad/s]: one turn per second."""

Z = (0.0, 0.0, 1.0)


def slider_crank(crank_angular_velocity: ArrayLike | None = None, **drive: object) -> mb.Model:
    """The slider-crank at theta = 0; ``drive`` are the Motion keywords (none: no motion)."""
    model = mb.Model("slider_crank", gravity=(0.0, -9.81, 0.0))
    crank = model.add(
        mb.RigidBody(
            "crank", 0.5, (1e-5, 5e-4, 5e-4), position=(CRANK / 2, 0.0, 0.0), angular_velocity=crank_angular_velocity
        )
    )
    rod = model.add(mb.RigidBody("rod", 1.0, (1e-5, 7.5e-3, 7.5e-3), position=(CRANK + ROD / 2, 0.0, 0.0)))
    slider = model.add(mb.RigidBody("slider", 2.0, (1e-3, 1e-3, 1e-3), position=(CRANK + ROD, 0.0, 0.0)))
    pin, wrist = (CRANK, 0.0, 0.0), (CRANK + ROD, 0.0, 0.0)
    pivot = model.add(
        mb.Revolute(
            "pivot", crank.add_marker("pivot", z_axis=Z, frame="world"), model.ground.add_marker("pivot", z_axis=Z)
        )
    )
    model.add(
        mb.Revolute(
            "crank_pin",
            rod.add_marker("pin", pin, z_axis=Z, frame="world"),
            crank.add_marker("pin", pin, z_axis=Z, frame="world"),
        )
    )
    model.add(mb.Spherical("wrist_pin", rod.add_marker("wrist", wrist, frame="world"), slider.add_marker("wrist")))
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "slide", slider.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    if drive:
        model.add(mb.Motion("drive", pivot, **drive))
    return model


def run(t_end: float, output_step: float, **drive: object) -> mb.Results:
    with pytest.warns(mb.RedundantConstraintWarning, match="'slide': translation along J y"):
        system = slider_crank(**drive).compile()
    return mb.kinematics(system, t_end, output_step)


def slider_closed_form(t: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """Slider x [m], dx/dt [m/s], d2x/dt2 [m/s^2] for theta = OMEGA t.

    x = r cos(theta) + s, s = sqrt(l^2 - u), u = r^2 sin^2(theta):
    s' = -u' / (2 s), s'' = -u'' / (2 s) - u'^2 / (4 s^3), u' = r^2 omega sin(2 theta),
    u'' = 2 r^2 omega^2 cos(2 theta).
    """
    theta = OMEGA * t
    s = np.sqrt(ROD**2 - CRANK**2 * np.sin(theta) ** 2)
    u_dot = CRANK**2 * OMEGA * np.sin(2.0 * theta)
    u_ddot = 2.0 * CRANK**2 * OMEGA**2 * np.cos(2.0 * theta)
    s_dot = -u_dot / (2.0 * s)
    s_ddot = -u_ddot / (2.0 * s) - u_dot**2 / (4.0 * s**3)
    return (
        CRANK * np.cos(theta) + s,
        -CRANK * OMEGA * np.sin(theta) + s_dot,
        -CRANK * OMEGA**2 * np.cos(theta) + s_ddot,
    )


@pytest.fixture(scope="module")
def one_turn() -> mb.Results:
    """One crank turn, theta = OMEGA t, 200 output frames."""
    return run(1.0, 0.005, displacement=mb.Polynomial([0.0, OMEGA]))


def test_slider_follows_the_closed_form(one_turn: mb.Results) -> None:
    """Tolerance 1e-9 (m, m/s, m/s^2): Newton closes the loop to 1e-12 m; velocities and
    accelerations are linear solves with a Jacobian of condition ~l/r = 3 at these positions,
    so errors stay within a few 1e-12 of values of order 0.1-4; 1e-9 leaves room for round-off
    in the quadratic velocity terms (omega^2 r ~ 4 m/s^2) without hiding a wrong term."""
    slider = one_turn.body("slider")
    x, x_dot, x_ddot = slider_closed_form(one_turn.time)
    np.testing.assert_allclose(slider.position[:, 0], x, rtol=0, atol=1e-9)
    np.testing.assert_allclose(slider.velocity[:, 0], x_dot, rtol=0, atol=1e-9)
    np.testing.assert_allclose(slider.acceleration[:, 0], x_ddot, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(slider.position[:, 1:], 0.0)  # the slide holds it on the x-axis


def test_motion_power_is_the_rate_of_mechanical_energy(one_turn: mb.Results) -> None:
    """P = T_drive . omega against d(T + V)/dt by a 5-point central difference at h = 5 ms.

    The difference has a truncation error ~h^4 E^(5) / 30, estimated from the same data by
    Richardson (stencils h and 2h: the error of the h stencil is (D(2h) - D(h)) / 15); allow
    twice that, plus 1e-8 W for the positions' Newton residual (1e-12 m x m g, divided by h).
    """
    h = 0.005
    total = one_turn.energy["total"]
    power = one_turn.joint("drive").reaction_torque[:, 2] * OMEGA
    rate_h = (total[:-4] - 8.0 * total[1:-3] + 8.0 * total[3:-1] - total[4:]) / (12.0 * h)
    rate_2h = (total[:-8] - 8.0 * total[2:-6] + 8.0 * total[6:-2] - total[8:]) / (24.0 * h)
    truncation = np.max(np.abs(rate_2h - rate_h[2:-2])) / 15.0
    assert truncation < 1e-5 * np.max(np.abs(power))  # the estimate itself is small: the data are smooth
    np.testing.assert_allclose(rate_h, power[2:-2], rtol=0, atol=2.0 * truncation + 1e-8)


def test_total_plus_dissipated_energy_is_constant(one_turn: mb.Results) -> None:
    """The motion's work enters ``dissipated`` by the trapezoidal rule over the output frames, so
    total + dissipated drifts by at most t_end h^2 / 12 max|P''| (P'' from second differences of P)."""
    h = 0.005
    power = one_turn.joint("drive").reaction_torque[:, 2] * OMEGA
    bound = one_turn.time[-1] * h**2 / 12.0 * np.max(np.abs(np.diff(power, 2))) / h**2
    balance = one_turn.energy["total"] + one_turn.energy["dissipated"]
    assert np.ptp(balance) <= bound
    # The bound is a small fraction of the energy swing, so work missing or of the wrong sign shows.
    assert np.ptp(one_turn.energy["total"]) > 100.0 * bound


def test_motion_levels_give_the_same_positions() -> None:
    """theta = omega t + alpha t^2 / 2 given as a displacement, a velocity (from theta(0) = 0) and an
    acceleration (from theta(0) = 0 and the crank's initial angular velocity omega). Tolerance
    1e-12 m: the drivers integrate by quadrature to 1e-13 relative (angles below 10 rad, lever
    0.1 m) and Newton closes the loop to 1e-12 m."""
    alpha = 3.0
    displacement = run(1.0, 0.05, displacement=mb.Polynomial([0.0, OMEGA, alpha / 2.0]))
    velocity = run(1.0, 0.05, velocity=mb.Polynomial([OMEGA, alpha]))
    acceleration = run(1.0, 0.05, acceleration=alpha, crank_angular_velocity=(0.0, 0.0, OMEGA))
    for other in (velocity, acceleration):
        for name in ("crank", "rod", "slider"):
            np.testing.assert_allclose(other.body(name).position, displacement.body(name).position, rtol=0, atol=1e-12)


def test_model_with_free_coordinates_is_refused() -> None:
    with pytest.warns(mb.RedundantConstraintWarning):
        system = slider_crank().compile()
    with pytest.raises(mb.AnalysisError) as raised:
        mb.kinematics(system, 1.0, 0.1)
    message = str(raised.value)
    assert "0 degrees of freedom" in message and "model 'slider_crank' has 1" in message and "Add motions" in message
