"""Screw and constant-velocity joints (ADAMS SCREW and CONVEL) against closed-form motion.

References. Screw: a nut of mass m and spin inertia J on a vertical cylindrical joint, threaded
with pitch p (k = 2 pi / p turns per metre) and falling under gravity, has the single coordinate s
with ``(m + J k^2) s'' = -m g``: uniform acceleration, spin ``k s'``. Constant-velocity joint:
its defining property, the output shaft turns at the input's rate whatever the bend angle, where
a Hooke joint's output rate fluctuates by the factor ``cos(beta)`` to ``1/cos(beta)``. The
constraint Jacobian and acceleration right-hand side of both against finite differences.
Tolerances: the integration budget at rtol 1e-9 (1e-8 m, rad/s); kinematics to 1e-12.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_formulation import check_constraint_derivatives, two_bodies

from multibody import (
    Cylindrical,
    Hooke,
    Model,
    Motion,
    Revolute,
    RigidBody,
    dynamics,
    kinematics,
)
from multibody.spatial.rotations import rotation_from_axes
from multibody.model.element import ModelError
from multibody.model.joints import ConstantVelocity, Screw


@pytest.mark.parametrize("method", ["SI2", "I3"])
def test_screw_nut_falls_with_reduced_acceleration(method: str) -> None:
    m, J, p, g = 2.0, 0.05, 0.1, 9.81
    model = Model("screw", gravity=(0.0, 0.0, -g))
    nut = model.add(
        RigidBody("nut", m, (0.03, 0.03, J), position=(0, 0, 0), velocity=(0, 0, 0), angular_velocity=(0, 0, 0))
    )
    i, j = nut.add_marker("I"), model.ground.add_marker("J")
    model.add(Cylindrical("axis", i, j))
    model.add(Screw("thread", i, j, pitch=p))
    results = dynamics(model, 1.0, 0.1, method=method, rtol=1e-9)
    k = 2.0 * np.pi / p
    a = -m * g / (m + J * k * k)
    np.testing.assert_allclose(results.body("nut").position[:, 2], 0.5 * a * results.time**2, rtol=0, atol=1e-8)
    np.testing.assert_allclose(results.body("nut").angular_velocity[:, 2], k * a * results.time, rtol=0, atol=1e-7)


def test_screw_needs_a_pitch() -> None:
    model = Model("bad")
    body = model.add(RigidBody("b", 1.0, (1, 1, 1)))
    with pytest.raises(ModelError, match="pitch must be a finite, non-zero"):
        Screw("s", body.add_marker("I"), model.ground.add_marker("J"), pitch=0.0)


def bent_shafts(coupling: type, beta: float, j_along: float = -1.0) -> Model:
    """Input shaft A about ground z driven at 2 rad/s; output shaft B about an axis u bent by
    ``beta`` in the xz-plane; the coupling between A's z and B's axis at the origin, z_J along
    ``j_along`` u (ADAMS: the z-axes point down the shafts, away from the joint: -u) and the
    x-axes of I and J parallel, as ADAMS asks."""
    model = Model("bent shafts", gravity=(0.0, 0.0, 0.0))
    u = np.array([np.sin(beta), 0.0, np.cos(beta)])
    shaft_a = model.add(RigidBody("A", 1.0, (1, 1, 1)))
    shaft_b = model.add(RigidBody("B", 1.0, (1, 1, 1), orientation=rotation_from_axes(u, (0, 1, 0))))
    bearing_a = model.add(Revolute("bearing A", shaft_a.add_marker("a"), model.ground.add_marker("ga")))
    model.add(Revolute("bearing B", shaft_b.add_marker("b"), model.ground.add_marker("gb", z_axis=u, x_axis=(0, 1, 0))))
    i = shaft_a.add_marker("I", z_axis=(0, 0, 1), x_axis=(0, 1, 0))
    j = shaft_b.add_marker("J", z_axis=j_along * u, x_axis=(0, 1, 0), frame="world")
    model.add(coupling("coupling", i, j))
    model.add(Motion("drive", bearing_a, displacement=lambda t: 2.0 * t))
    return model


def output_rates(coupling: type, beta: float, j_along: float = -1.0) -> np.ndarray:
    with warnings.catch_warnings():  # the couplings' coincident rows repeat the bearings'
        warnings.simplefilter("ignore")
        results = kinematics(bent_shafts(coupling, beta, j_along), 3.0, 0.05)
    return np.linalg.norm(results.body("B").angular_velocity, axis=1)


@pytest.mark.parametrize(("bend_degrees", "j_along"), [(0.0, -1.0), (30.0, -1.0), (60.0, -1.0), (30.0, 1.0)])
def test_constant_velocity_joint_keeps_the_rate(bend_degrees: float, j_along: float) -> None:
    """Straight or bent, with z_J away from the joint (ADAMS's way) or toward it, the CONVEL
    output turns at exactly the input's 2 rad/s. (With z_J toward the joint the equation
    degenerates when the shafts are straight, which is why ADAMS asks for them pointing away.)"""
    np.testing.assert_allclose(
        output_rates(ConstantVelocity, np.radians(bend_degrees), j_along), 2.0, rtol=0, atol=1e-12
    )


def test_a_hooke_joint_does_not() -> None:
    """The Hooke joint's output rate swings between 2 cos(beta) and 2 / cos(beta): the test above
    can tell a constant-velocity joint from one that is not."""
    beta = np.radians(30.0)
    hooke = output_rates(Hooke, beta)
    assert hooke.min() == pytest.approx(2.0 * np.cos(beta), rel=1e-3)
    assert hooke.max() == pytest.approx(2.0 / np.cos(beta), rel=1e-3)


@pytest.mark.parametrize("on_ground", [False, True])
@pytest.mark.parametrize(
    "make_joint", [lambda i, j: ConstantVelocity("cv", i, j), lambda i, j: Screw("screw", i, j, 0.37)]
)
def test_jacobian_and_gamma_match_differences(make_joint, on_ground) -> None:
    """G and gamma of the new rows against central differences of Phi along a path, at a random
    configuration where the rows are not satisfied (the check of ``test_formulation``)."""
    model, i, j = two_bodies(11, on_ground)
    model.add(make_joint(i, j))
    check_constraint_derivatives(model.compile(), 11)
