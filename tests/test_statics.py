"""Static equilibrium and quasi-statics against closed forms and an independent energy method.

References:
- a body on a vertical spring: static deflection m g / k (Hooke's law);
- a pendulum: hangs straight down with the hinge carrying its weight; started past the
  horizontal, Newton may find the inverted equilibrium, which must be reported unstable;
- a four-bar with a spring and gravity: the equilibrium crank angle is where the potential
  energy V(theta) (closed-form loop closure of ``examples/four_bar.py``) is stationary, found by
  ``scipy.optimize.brentq`` on dV/dtheta -- the principle of virtual work, with no Lagrange
  multipliers, no Newton and no finite-difference stiffness;
- the crane jib of ``examples/crane_jib.py``: holding torque g cos(alpha) (m_jib L/2 + m_load L)
  and the load straight below the tip at every quasi-static frame.

Tolerances: statics converges to force residuals of 1e-10 of the load scale, so positions and
reactions match closed forms to about 1e-9 relative; the four-bar's reference derivative is a
central difference of step 1e-5 (error ~ h^2 V''' ~ 1e-10 rad in the root).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import multibody as mb
from multibody.cli import load_model_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

G = 9.81
UP = (0.0, 0.0, 1.0)


def spring_body(start_height: float, joint: bool = True) -> mb.Model:
    """A 2 kg body below a ground anchor at z = 0 on a spring (k = 500 N/m, free length 0.5 m),
    on a vertical translational joint (or free, ``joint=False``), placed at ``start_height``."""
    model = mb.Model("spring_body")
    body = model.add(mb.RigidBody("weight", 2.0, (0.01, 0.01, 0.01), position=(0.0, 0.0, start_height)))
    anchor = model.ground.add_marker("anchor", z_axis=UP)
    model.add(mb.SpringDamper("spring", body.add_marker("hook", z_axis=UP), anchor, 500.0, 0.0, 0.5))
    if joint:
        model.add(mb.Translational("guide", body.marker("hook"), anchor))
    return model


def test_spring_under_gravity_deflects_m_g_over_k_from_a_poor_start() -> None:
    # Start 2 m below the anchor (spring stretched by 1.5 m): equilibrium at
    # z = -(free length + m g / k) = -0.53924 m. (Above the anchor the spring would hold the body
    # up in compression at z = +(free length - m g / k), another equilibrium.)
    results = mb.statics(spring_body(-2.0))
    assert results.layout.analysis == "statics" and len(results) == 1
    np.testing.assert_allclose(results.body("weight").position[0, 2], -(0.5 + 2.0 * G / 500.0), rtol=1e-10)
    np.testing.assert_allclose(results.force("spring").value[0], -2.0 * G, rtol=1e-9)  # tension: negative
    stats = results.stats
    assert 1 <= stats["iterations"] < 20
    assert stats["force_residual"] < 1e-9 and stats["constraint_residual"] < 1e-10
    assert stats["unstable_directions"] == 0
    assert np.all(results.body("weight").velocity == 0.0) and results.energy["kinetic"][0] == 0.0


def test_body_hanging_on_a_spring_alone_settles_below_the_anchor_with_neutral_rotations() -> None:
    # No joint: the spring acts at the CM, so the three rotations are neutral (no load, no
    # stiffness) and Newton must leave them alone. Started 0.3 m off to the side.
    model = spring_body(-0.2, joint=False)
    model.bodies["weight"].position = np.array([0.3, -0.1, -0.2])
    results = mb.statics(model)
    np.testing.assert_allclose(results.body("weight").position[0], [0.0, 0.0, -(0.5 + 2.0 * G / 500.0)], atol=1e-10)
    assert results.stats["neutral_directions"] == 3 and results.stats["unstable_directions"] == 0


def pendulum(angle_deg: float) -> mb.Model:
    return load_model_file(EXAMPLES / "pendulum.py").build(np.radians(angle_deg))


def test_pendulum_hangs_straight_down_with_the_hinge_carrying_its_weight() -> None:
    results = mb.statics(pendulum(60.0))
    np.testing.assert_allclose(results.body("rod").position[0], [0.0, 0.0, -0.5], atol=1e-12)
    np.testing.assert_allclose(results.joint("hinge").reaction_force[0], [0.0, 0.0, G], atol=1e-9)
    assert results.stats["unstable_directions"] == 0


def test_inverted_pendulum_is_an_equilibrium_reported_unstable() -> None:
    with pytest.warns(mb.UnstableEquilibriumWarning, match="unstable in 1 independent direction"):
        results = mb.statics(pendulum(170.0))
    np.testing.assert_allclose(results.body("rod").position[0], [0.0, 0.0, 0.5], atol=1e-12)
    assert results.stats["unstable_directions"] == 1


P_SPRING = np.array([0.0, 0.0, 0.3])
"""Ground end of the four-bar's spring [m]; its other end is the crank pin B."""
K_SPRING, L0_SPRING = 100.0, 0.1
"""Spring stiffness [N/m] and free length [m]."""


def test_four_bar_with_spring_and_gravity_settles_where_virtual_work_vanishes() -> None:
    four_bar = load_model_file(EXAMPLES / "four_bar.py")
    model = four_bar.build()
    model.add(
        mb.SpringDamper(
            "lift",
            model.bodies["crank"].marker("end"),
            model.ground.add_marker("P", P_SPRING),
            K_SPRING,
            0.0,
            L0_SPRING,
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)  # the planar loop's 3 repeated rows
        results = mb.statics(model)
    crank_cm = results.body("crank").position[0]
    theta = np.arctan2(crank_cm[2], crank_cm[0])

    def potential(angle: float) -> float:
        """V = g sum(m z_cm) + k/2 (|B - P| - L0)^2 with the joint centres in closed form."""
        _, B, C, _ = four_bar.joint_centres(angle)
        per_length = four_bar.BAR_MASS_PER_LENGTH
        heights = (
            four_bar.CRANK_LENGTH * B[2] / 2
            + four_bar.COUPLER_LENGTH * (B[2] + C[2]) / 2
            + four_bar.ROCKER_LENGTH * C[2] / 2
        )
        return G * per_length * heights + 0.5 * K_SPRING * (np.linalg.norm(B - P_SPRING) - L0_SPRING) ** 2

    def virtual_work(angle: float, h: float = 1e-5) -> float:
        return (potential(angle + h) - potential(angle - h)) / (2.0 * h)

    # dV/dtheta changes sign once on the crank's range from 0.2 to 2.5 rad (checked on a grid).
    grid = np.linspace(0.2, 2.5, 47)
    assert np.count_nonzero(np.diff(np.sign([virtual_work(a) for a in grid]))) == 1
    reference = brentq(virtual_work, 0.2, 2.5, xtol=1e-14)
    assert abs(theta - reference) < 1e-9
    assert abs(theta - four_bar.INITIAL_ANGLE) > 0.5  # a real search: from 60 to 103 degrees
    assert results.stats["unstable_directions"] == 0


def test_free_body_under_gravity_has_no_equilibrium_and_says_which_coordinate() -> None:
    model = mb.Model("falling")
    model.add(mb.RigidBody("ball", 1.0, (0.1, 0.1, 0.1), position=(0.0, 0.0, 1.0)))
    with pytest.raises(mb.AnalysisError, match=r"no static equilibrium.*'ball' translation along world z"):
        mb.statics(model)


def test_non_convergence_names_the_equations_with_the_largest_residual() -> None:
    with pytest.raises(mb.AnalysisError, match=r"did not converge in 1 iterations.*largest residuals: .*'rod'"):
        mb.statics(pendulum(60.0), max_iterations=1)


def test_crane_jib_quasi_statics_holds_the_closed_form_torque_along_the_luff() -> None:
    crane = load_model_file(EXAMPLES / "crane_jib.py")
    results = mb.quasi_statics(crane.build(), 60.0, 5.0)
    assert results.layout.analysis == "quasi_statics" and len(results) == 13
    assert results.layout.frame_shapes() == mb.dynamics(crane.build(), 0.1, 0.1).layout.frame_shapes()
    alpha = crane.luffing_angle(results.time)
    torque = results.joint("luffing").reaction_torque_in_j[:, 2]
    np.testing.assert_allclose(torque, crane.hoist_torque(alpha), rtol=1e-9)
    tip = crane.JIB_LENGTH * np.column_stack([np.cos(alpha), np.zeros_like(alpha), np.sin(alpha)])
    np.testing.assert_allclose(results.body("load").position, tip - (0.0, 0.0, crane.LOAD_DROP), atol=1e-9)
    # The ground holds the jib (the I body) up with the whole weight.
    np.testing.assert_allclose(
        results.joint("hinge").reaction_force[:, 2], G * (crane.JIB_MASS + crane.LOAD_MASS), rtol=1e-9
    )
    assert np.all(results.arrays["body/velocity"] == 0.0)
    assert results.stats["frames"] == 13 and results.stats["max_iterations"] < 10
    assert results.stats["unstable_frames"] == 0


def test_quasi_statics_failure_keeps_the_frames_solved(tmp_path) -> None:
    # Newton capped at 0 iterations: the input configuration at t = 0 is already in equilibrium,
    # the jib's motion makes t = 1 s fail; the file keeps the first frame and says where it stopped.
    crane = load_model_file(EXAMPLES / "crane_jib.py")
    path = tmp_path / "crane.h5"
    with pytest.raises(mb.AnalysisError, match=r"t = 1 s.*equilibria up to t = 0 s are saved") as error:
        mb.quasi_statics(crane.build(), 5.0, 1.0, max_iterations=0, output=str(path))
    assert error.value.results_path == str(path)
    saved = mb.Results.load(path)
    assert saved.status == "failed" and len(saved) == 1
