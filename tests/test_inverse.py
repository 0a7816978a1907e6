"""Inverse dynamics: motor torque of the driven slider-crank, power balance, followed trajectories.

References:
- closed-form motor torque of ``examples/slider_crank.py`` (crank r, rod l of mass m_r and
  inertia I_r about its CM, slider m_s; crank at constant speed w, theta = theta0 + w t). With
  theta the one coordinate, T = 1/2 m(theta) w^2 and Lagrange's equation gives
  tau = 1/2 m'(theta) w^2 + V'(theta) = w^2 (m_r p'.p'' + I_r phi' phi'' + m_s x' x'') + V'(theta),
  where ' is d/dtheta of the closed-form positions:
  s = sqrt(l^2 - r^2 sin^2 theta), slider x = r cos theta + s, rod CM p = (r cos theta + s/2,
  r sin theta / 2) in the x-z plane, rod angle phi = asin(-r sin theta / l), and the only
  potential term is the rod's weight, V' = g m_r r cos(theta) / 2 (crank balanced, slider on
  the level). Agreement to round-off (1e-12 N m) is expected: both are exact;
- the power balance: the motor's power equals d(T + V)/dt, computed from the results' velocities
  and accelerations (sum m v.a + w_B . J alpha_B - m g.v), not by differencing outputs; to 1e-8;
- a pendulum driven along its own free (dynamics) trajectory needs no torque: the residual
  torque is the cubic spline's error, O(h^2) in the output step h of the followed run;
- a pendulum held at a fixed angle needs the static torque m g d sin(angle).
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

import multibody as mb
from multibody.cli import load_model_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
G = 9.81


@pytest.fixture(scope="module")
def driven() -> tuple[object, mb.InverseDynamics]:
    slider_crank = load_model_file(EXAMPLES / "slider_crank.py")
    return slider_crank, mb.inverse_dynamics(slider_crank.build(), 1.0, 0.01)


def closed_form_torque(sc, t: np.ndarray) -> np.ndarray:
    r, l, w = sc.CRANK_RADIUS, sc.ROD_LENGTH, sc.CRANK_SPEED
    theta = sc.INITIAL_ANGLE + w * t
    s = np.sqrt(l**2 - r**2 * np.sin(theta) ** 2)
    s1 = -(r**2) * np.sin(theta) * np.cos(theta) / s
    s2 = (-(r**2) * np.cos(2 * theta) - s1**2) / s
    p1 = np.stack([-r * np.sin(theta) + s1 / 2, r * np.cos(theta) / 2])
    p2 = np.stack([-r * np.cos(theta) + s2 / 2, -r * np.sin(theta) / 2])
    phi1 = -r * np.cos(theta) / s
    phi2 = (r * np.sin(theta) * s + r * np.cos(theta) * s1) / s**2
    x1, x2 = -r * np.sin(theta) + s1, -r * np.cos(theta) + s2
    rod_inertia = sc.ROD_MASS * l**2 / 12
    inertial = sc.ROD_MASS * np.sum(p1 * p2, axis=0) + rod_inertia * phi1 * phi2 + sc.SLIDER_MASS * x1 * x2
    return w**2 * inertial + G * sc.ROD_MASS * r * np.cos(theta) / 2


def test_motor_torque_of_the_driven_slider_crank_matches_the_closed_form(driven) -> None:
    sc, inverse = driven
    assert inverse.motion_names == ("crank_drive",) and inverse.effort.shape == (101, 1)
    torque = inverse.motion_effort("crank_drive")
    reference = closed_form_torque(sc, inverse.results.time)
    assert np.ptp(reference) > 0.5  # the torque varies over the turn
    np.testing.assert_allclose(torque, reference, rtol=0, atol=1e-12)


def test_motor_power_equals_the_rate_of_kinetic_plus_potential_energy(driven) -> None:
    sc, inverse = driven
    results = inverse.results
    system = sc.build().compile()
    arrays = results.arrays
    R_WB = np.stack([results.body(name).rotation for name in results.layout.body_names], axis=1)
    w_B = np.einsum("tbji,tbj->tbi", R_WB, arrays["body/angular_velocity"])
    alpha_B = np.einsum("tbji,tbj->tbi", R_WB, arrays["body/angular_acceleration"])
    kinetic_rate = np.einsum("b,tbi,tbi->t", system.mass, arrays["body/velocity"], arrays["body/acceleration"])
    kinetic_rate += np.einsum("tbi,bij,tbj->t", w_B, system.inertia, alpha_B)
    potential_rate = -np.einsum("b,tbi,i->t", system.mass, arrays["body/velocity"], system.gravity)
    power = inverse.motion_power("crank_drive")
    np.testing.assert_allclose(power, kinetic_rate + potential_rate, rtol=0, atol=1e-8)
    np.testing.assert_allclose(power, inverse.motion_effort("crank_drive") * sc.CRANK_SPEED, rtol=1e-14)


def test_following_a_free_run_needs_no_torque_to_spline_accuracy() -> None:
    pendulum = load_model_file(EXAMPLES / "pendulum.py")
    model = pendulum.build()
    residual = []
    for step in (0.01, 0.005):
        free_run = mb.dynamics(model, 1.0, step, rtol=1e-10)
        inverse = mb.inverse_dynamics(model, 0.8, 0.01, drive={"hinge": free_run})
        residual.append(np.max(np.abs(inverse.motion_effort("hinge_drive"))))
    assert not model.motions  # the model passed in is left undriven
    holding = 1.0 * G * 0.5  # m g d: the torque scale [N m]
    assert residual[0] < 1e-3 * holding
    assert residual[0] / residual[1] > 3.0  # O(h^2)


def test_pendulum_held_at_an_angle_needs_the_static_torque() -> None:
    pendulum = load_model_file(EXAMPLES / "pendulum.py")
    # The hinge angle is that of the rod's x-axis (hinge to tip) from world x about +y: turning x
    # about +y by beta gives (cos beta, 0, -sin beta), so the rod hangs at 'angle' from the
    # downward vertical, tip towards +x, when beta = 90 deg - angle.
    angle = np.radians(25.0)
    inverse = mb.inverse_dynamics(pendulum.build(), 0.1, 0.05, drive={"hinge": np.pi / 2 - angle})
    torque = inverse.motion_effort("hinge_drive")
    # Gravity's moment about +y (the hinge axis) on the rod is +m g d sin(angle); the drive cancels it.
    np.testing.assert_allclose(torque, -G * 0.5 * np.sin(angle), rtol=1e-10)
    np.testing.assert_allclose(inverse.motion_power("hinge_drive"), 0.0, atol=1e-14)


def test_a_model_left_with_freedom_or_an_unknown_joint_is_reported() -> None:
    pendulum = load_model_file(EXAMPLES / "pendulum.py")
    with pytest.raises(mb.AnalysisError, match="1 degrees of freedom"):
        mb.inverse_dynamics(pendulum.build(), 0.1, 0.05)
    with pytest.raises(KeyError, match="no revolute, translational or cylindrical joint 'pivot'.*hinge"):
        mb.inverse_dynamics(pendulum.build(), 0.1, 0.05, drive={"pivot": 0.0})


def test_efforts_and_power_are_saved_next_to_the_results(tmp_path: Path, driven) -> None:
    _, inverse = driven
    inverse.save(tmp_path / "inverse.h5")
    with h5py.File(tmp_path / "inverse.h5", "r") as file:
        assert list(file["inverse/motion_names"].asstr()[()]) == ["crank_drive"]
        np.testing.assert_array_equal(file["inverse/power"][()], inverse.power)
