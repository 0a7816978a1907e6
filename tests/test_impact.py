"""Impact analysis (``multibody.impact``): impulse-momentum equations with Newton's restitution.

References that cannot be tuned: the closed forms of a pinned rod striking a stop (effective mass
I_O / l^2, the pivot impulse vanishing at the centre of percussion l = 2 L / 3) and of two free
spheres in central collision (reduced mass); the energy loss (1 - e^2) m_eff v_n^2 / 2; and a
second formulation: Kane's impulse equations ``M(q) du = V_c^T n P`` in the relative coordinates
of ``multibody.formulation.kane``. Everything is linear algebra at a frozen configuration, so
agreement is to rounding (1e-12 relative, 1e-10 where a closed form is evaluated through
the assembled configuration).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.cli import build_model, compile_quietly, load_model_file
from multibody.formulation import frames as kinematics
from multibody.formulation.kane import KaneFormulation

ROD_LENGTH = 1.0
ROD_MASS = 2.0
RATE = 3.0
"""Angular rate of the rod about world y at the strike [rad/s]."""


def pinned_rod(strike: float) -> mb.Model:
    """A uniform rod hanging from a pin at the origin (axis world y), turning at ``RATE``, with a
    marker ``strike`` [m] below the pin and a stop on the ground at the same point."""
    model = mb.Model("pinned_rod", gravity=(0.0, 0.0, 0.0))
    transverse = ROD_MASS * ROD_LENGTH**2 / 12.0
    half = 0.5 * ROD_LENGTH
    rod = model.add(
        mb.RigidBody(
            "rod",
            ROD_MASS,
            (transverse, transverse, 1e-6),
            position=(0.0, 0.0, -half),
            velocity=(RATE * half, 0.0, 0.0),
            angular_velocity=(0.0, -RATE, 0.0),
        )
    )
    pin = rod.add_marker("pin", position=(0.0, 0.0, half), z_axis=(0.0, 1.0, 0.0))
    model.add(mb.Revolute("pivot", pin, model.ground.add_marker("pin", z_axis=(0.0, 1.0, 0.0))))
    rod.add_marker("strike", position=(0.0, 0.0, half - strike))
    model.ground.add_marker("stop", position=(0.0, 0.0, -strike))
    return model


@pytest.mark.parametrize("strike", [ROD_LENGTH, 2.0 * ROD_LENGTH / 3.0, 0.3 * ROD_LENGTH])
@pytest.mark.parametrize("restitution", [0.0, 0.5, 1.0])
def test_pinned_rod_striking_a_stop(strike: float, restitution: float) -> None:
    """Point l below the pin moves at v = w l along +x; the stop pushes along -x. Closed forms:
    m_eff = I_O / l^2, P = (1 + e) m_eff v, w+ = -e w, energy loss (1 - e^2) m_eff v^2 / 2, and
    the pin's impulse on the rod J = P (m d l / I_O - 1) along -x (d = L / 2), zero at l = 2 L / 3."""
    result = mb.impact(pinned_rod(strike), [mb.Collision("rod/strike", "ground/stop", (-1.0, 0.0, 0.0), restitution)])
    I_O = ROD_MASS * ROD_LENGTH**2 / 3.0
    m_eff = I_O / strike**2
    v = RATE * strike
    P = (1.0 + restitution) * m_eff * v
    assert result.impulse[0] == pytest.approx(P, rel=1e-10)
    _, dw = result.velocity_change("rod")
    np.testing.assert_allclose(dw, [0.0, (1.0 + restitution) * RATE, 0.0], atol=1e-10 * RATE)
    assert result.kinetic_energy_loss == pytest.approx(
        0.5 * (1.0 - restitution**2) * m_eff * v**2, rel=1e-10, abs=1e-12
    )
    pin_impulse, pin_angular_impulse = result.internal_impulse("pivot")
    d = 0.5 * ROD_LENGTH
    expected = P * (ROD_MASS * d * strike / I_O - 1.0) * np.array([-1.0, 0.0, 0.0])
    np.testing.assert_allclose(pin_impulse, expected, atol=1e-10 * P)
    np.testing.assert_allclose(pin_angular_impulse, 0.0, atol=1e-10 * P)


def free_spheres(v_a: tuple[float, float, float], v_b: tuple[float, float, float]) -> mb.Model:
    model = mb.Model("spheres", gravity=(0.0, 0.0, 0.0))
    for name, mass, position, velocity in (("a", 1.0, (0.0, 0.0, 0.0), v_a), ("b", 3.0, (0.3, 0.4, 0.0), v_b)):
        body = model.add(
            mb.RigidBody(
                name, mass, (0.01, 0.01, 0.01), position=position, velocity=velocity, angular_velocity=(0.0, 0.0, 1.0)
            )
        )
        body.add_marker("contact", position=np.array([0.3, 0.4, 0.0]) * (0.5 if name == "a" else -0.5))
    return model


def test_free_spheres_in_central_collision() -> None:
    """Two free spheres (1 kg and 3 kg) touching along n = (0.6, 0.8, 0): P = (1 + e) mu v_n with
    the reduced mass mu = m_a m_b / (m_a + m_b); the tangential velocities and the spins (the
    impulse passes through both centres) are unchanged; energy loss (1 - e^2) mu v_n^2 / 2."""
    e = 0.7
    model = free_spheres((2.0, 1.0, 0.5), (-1.0, 0.0, 0.0))
    result = mb.impact(model, [mb.Collision("b/contact", "a/contact", (0.6, 0.8, 0.0), e)])
    n = np.array([0.6, 0.8, 0.0])
    v_n = n @ (np.array([-1.0, 0.0, 0.0]) - np.array([2.0, 1.0, 0.5]))  # b relative to a, along n (from a to b)
    mu = 0.75
    P = -(1.0 + e) * mu * v_n
    assert result.impulse[0] == pytest.approx(P, rel=1e-12)
    np.testing.assert_allclose(result.velocity_change("b")[0], P / 3.0 * n, atol=1e-12)
    np.testing.assert_allclose(result.velocity_change("a")[0], -P / 1.0 * n, atol=1e-12)
    np.testing.assert_allclose(result.body_angular_velocity_change, 0.0, atol=1e-12)
    assert result.kinetic_energy_loss == pytest.approx(0.5 * (1.0 - e**2) * mu * v_n**2, rel=1e-12)


def test_separating_bodies_get_no_impulse() -> None:
    """A contact whose points already move apart needs a pulling impulse: it is left out."""
    model = free_spheres((-1.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    result = mb.impact(model, [mb.Collision("b/contact", "a/contact", (0.6, 0.8, 0.0), 1.0)])
    assert result.impulse[0] == 0.0
    np.testing.assert_array_equal(result.velocity_after, result.velocity_before)


def test_simultaneous_contacts_in_a_corner() -> None:
    """A free ball hitting floor (normal +z) and wall (normal +x) at once, both through its
    centre: the contacts decouple and each normal velocity reverses with its own e."""
    model = mb.Model("corner", gravity=(0.0, 0.0, 0.0))
    ball = model.add(mb.RigidBody("ball", 2.0, (0.1, 0.1, 0.1), position=(0.1, 0.0, 0.1), velocity=(-1.0, 0.5, -2.0)))
    ball.add_marker("bottom", position=(0.0, 0.0, -0.1))
    ball.add_marker("side", position=(-0.1, 0.0, 0.0))
    model.ground.add_marker("floor", position=(0.1, 0.0, 0.0))
    model.ground.add_marker("wall", position=(0.0, 0.0, 0.1))
    result = mb.impact(
        model,
        [
            mb.Collision("ball/bottom", "ground/floor", (0, 0, 1), 0.5),
            mb.Collision("ball/side", "ground/wall", (1, 0, 0), 0.25),
        ],
    )
    np.testing.assert_allclose(result.impulse, [2.0 * 1.5 * 2.0, 2.0 * 1.25 * 1.0], rtol=1e-12)
    np.testing.assert_allclose(result.velocity_after[:3], [0.25, 0.5, 1.0], rtol=1e-12)


def test_agrees_with_kane_s_impulse_equations() -> None:
    """Two formulations on the spatial double pendulum (two ball joints), struck obliquely at the
    lower rod's free end from a fixed point: the Cartesian impulsive multipliers of ``impact``
    against Kane's impulse form in the tree's relative coordinates (partial velocity arrays of
    ``KaneFormulation``): ``M du = V_c^T n P``, ``P = -(1 + e) n.V_c u / (n.V_c M^-1 V_c^T n)``."""
    module = load_model_file(Path(__file__).resolve().parents[1] / "examples" / "double_pendulum.py")
    model = build_model(module)
    tip_B = np.array([0.5 * module.LENGTH, 0.0, 0.0])
    model.bodies["lower"].add_marker("tip", position=tip_B)
    model.ground.add_marker("anvil")  # a point of the ground: its position does not enter
    model_system, model_state = assembled_state(compile_quietly(model))
    normal = np.array([0.3, -0.8, 0.5]) / np.linalg.norm([0.3, -0.8, 0.5])
    e = 0.6
    result = mb.impact(model_system, [mb.Collision("lower/tip", "ground/anvil", normal, e)], state=model_state)

    lower = model_system.body_index("lower")
    pose = kinematics.pose(model_system, model_state.q, model_state.t)
    p_tip_W = pose.p_WB_W[lower] + pose.R_WB[lower] @ tip_B
    kane = KaneFormulation(model_system, model_state.q, model_state.t)
    q = kane.reference_coordinates()
    u = kane.speeds_from_cartesian(q, model_state.v, model_state.t)
    evaluation = kane.evaluate(q, u, model_state.t)
    M = kane.mass_matrix(evaluation)
    V_c = kane.point_partial_velocity(evaluation, lower, p_tip_W)
    direction = V_c.T @ normal
    P = -(1.0 + e) * (direction @ u) / (direction @ np.linalg.solve(M, direction))
    du = np.linalg.solve(M, direction) * P
    assert P > 0.0
    assert result.impulse[0] == pytest.approx(P, rel=1e-10)
    dv = kane.cartesian_velocity_map(evaluation) @ du
    np.testing.assert_allclose(result.velocity_after - result.velocity_before, dv, atol=1e-10 * np.max(np.abs(dv)))


def test_bad_collisions_are_refused_naming_the_problem() -> None:
    model = pinned_rod(ROD_LENGTH)
    with pytest.raises(ValueError, match="no marker 'rod/nowhere' in model 'pinned_rod'"):
        mb.impact(model, [mb.Collision("rod/nowhere", "ground/stop", (1, 0, 0), 0.5)])
    with pytest.raises(ValueError, match="both points are on the same body"):
        mb.impact(model, [mb.Collision("rod/strike", "rod/pin", (1, 0, 0), 0.5)])
    with pytest.raises(ValueError, match="normal must be 3 finite numbers, not zero"):
        mb.impact(model, [mb.Collision("rod/strike", "ground/stop", (0, 0, 0), 0.5)])
    with pytest.raises(ValueError, match="restitution must be in \\[0, 1\\]"):
        mb.impact(model, [mb.Collision("rod/strike", "ground/stop", (1, 0, 0), -0.1)])
    with pytest.raises(ValueError, match="at least one Collision"):
        mb.impact(model, [])
