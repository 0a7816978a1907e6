"""Assembly of initial conditions: the nearest consistent positions and velocities.

Reference: a pendulum of half-length L = 0.5 m hinged at the world origin about z (revolute
joint, rod along body x, pivot marker at (-L, 0, 0) in body axes). Its consistent positions
are ``p = L (cos a, sin a, 0)`` with the body turned by ``a`` about z, and its consistent
velocities ``v = (0, L w, 0)``, ``w = (0, 0, w)`` at ``a = 0``. Assembly minimizes
``|p - p0|^2 + k |a - a0|^2`` (k = 1 for a given orientation, 1e-6 for an unspecified one,
angles in rad) on that set, and ``|v - v0|^2 + k |w - w0|^2`` for velocities; both minima are
found here in closed form (velocities) or from the scalar stationarity condition (positions).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.typing import ArrayLike
from scipy.optimize import brentq

import multibody as mb

HALF_LENGTH = 0.5
"""L [m]: pivot to CM of the pendulum rod."""

UNSPECIFIED_WEIGHT = 1e-6
"""Assembly weight of an initial condition the user did not give (ADAMS convention)."""

CLOSURE = 1e-10
"""[m] Constraint residual assembly closes to (its documented tolerance for a model of 1 m size)."""


def pendulum(**initial: object) -> mb.Model:
    """The reference pendulum; ``initial`` are the rod's initial conditions (``RigidBody`` keywords)."""
    model = mb.Model("pendulum")
    rod = model.add(mb.RigidBody("rod", mass=2.0, inertia=(0.001, 0.17, 0.17), **initial))
    model.add(mb.Revolute("pivot", rod.add_marker("pivot", (-HALF_LENGTH, 0.0, 0.0)), model.ground.add_marker("pivot")))
    return model


def nearest_angle(p0: ArrayLike, angle_weight: float) -> float:
    """Angle a [rad] minimizing |L (cos a, sin a, 0) - p0|^2 + angle_weight a^2 (input angle 0).

    Stationarity: angle_weight a = L (p0_y cos a - p0_x sin a); the root near the radial angle
    of p0 is the minimum.
    """
    x, y, _ = p0
    radial = np.arctan2(y, x)
    return brentq(
        lambda a: angle_weight * a - HALF_LENGTH * (y * np.cos(a) - x * np.sin(a)), radial - 1.0, radial + 1.0
    )


@pytest.mark.parametrize(
    ("orientation", "angle_weight"),
    [(np.eye(3), 1.0), (None, UNSPECIFIED_WEIGHT)],
    ids=["orientation given", "orientation free"],
)
def test_body_placed_off_the_joint_moves_to_the_nearest_configuration(
    orientation: ArrayLike | None, angle_weight: float
) -> None:
    """A CM given 1-2 cm off the circle it must lie on is pulled onto it, to the weighted-nearest point.

    Tolerance 1e-9 m: Gauss-Newton converges linearly here (successive steps shrink by ~0.02,
    the offset over L) and stops at a residual below 1e-10 m, so the iterate is within ~1e-10 m of
    the minimizer. That is 80 times below the 8e-8 m by which the free-orientation answer differs
    from the plain radial projection, so the test sees the weights.
    """
    p0 = np.array([HALF_LENGTH + 0.01, 0.02, -0.005])
    rod = mb.assemble(pendulum(position=p0, orientation=orientation)).body("rod")
    a = nearest_angle(p0, angle_weight)
    np.testing.assert_allclose(rod.position[0], HALF_LENGTH * np.array([np.cos(a), np.sin(a), 0.0]), rtol=0, atol=1e-9)
    # The body turns with its CM about the pivot: Euler parameters of a rotation by a about z.
    np.testing.assert_allclose(rod.euler_parameters[0], [np.cos(a / 2), 0.0, 0.0, np.sin(a / 2)], rtol=0, atol=1e-9)


def test_exact_component_is_kept() -> None:
    """``exact=("x",)`` keeps x = 0.3 m: the circle of radius 0.5 m then gives y = 0.4 m (3-4-5),
    the root nearer the given y = 0.45 m. Tolerance: the closure residual."""
    rod = mb.assemble(pendulum(position=(0.3, 0.45, 0.0), exact=("x",))).body("rod")
    assert rod.position[0, 0] == 0.3  # exact means untouched, not approximately kept
    np.testing.assert_allclose(rod.position[0], [0.3, 0.4, 0.0], rtol=0, atol=CLOSURE)


def test_assembly_that_cannot_close_names_the_joint_and_its_violation() -> None:
    """CM held exactly at 0.6708 m from the pivot, marker at 0.5 m: only the rotation is free, and the
    least-squares best leaves the pivot open by (|p| - L) along p. The message must say which joint
    and by how much (the core prints 3 significant digits)."""
    p = np.array([0.6, 0.3, 0.0])
    with pytest.raises(mb.AssemblyError) as raised:
        mb.assemble(pendulum(position=p, exact=("x", "y", "z")))
    gap = (np.linalg.norm(p) - HALF_LENGTH) * p / np.linalg.norm(p)
    message = str(raised.value)
    assert "did not close" in message
    assert f"'pivot' translation along world x by {gap[0]:.3g}" in message, message
    assert f"'pivot' translation along world y by {gap[1]:.3g}" in message, message


def test_incompatible_ground_anchors_raise_naming_both_joints() -> None:
    """A plate welded to ground and tethered by a Distance of 0.8 m to a ground post 1.0 m from the
    tether point: the Distance repeats the weld (removed as redundant) and contradicts it by 0.2 m."""
    model = mb.Model("welded")
    plate = model.add(mb.RigidBody("plate", 2.0, (0.04, 0.04, 0.04)))
    model.add(mb.Fixed("weld", plate.add_marker("weld"), model.ground.add_marker("weld")))
    tether_point = (0.3, 0.4, 0.0)
    model.add(
        mb.Distance(
            "tether", plate.add_marker("tip", tether_point), model.ground.add_marker("post", (0.3, 0.4, 1.0)), 0.8
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        with pytest.raises(mb.AssemblyError) as raised:
            mb.assemble(model)
    message = str(raised.value)
    assert "'tether' distance by 0.2" in message and "'weld'" in message, message


@pytest.mark.parametrize(
    ("given_angular_velocity", "k", "round_off"),
    [(True, 1.0, 1e-12), (False, UNSPECIFIED_WEIGHT, 1e-9)],
    ids=["angular velocity given", "angular velocity free"],
)
def test_inconsistent_velocity_is_projected(given_angular_velocity: bool, k: float, round_off: float) -> None:
    """Velocities given as v0 = (0.3, 1.2, -0.4) m/s, w0 = (0.5, -0.2, 1.0) rad/s at a = 0.

    Closed form: minimize |(0, L w, 0) - v0|^2 + k |(0, 0, w) - w0|^2, so
    w = (L v0_y + k w0_z) / (L^2 + k), with k = 1 (w0 given) or 1e-6 (not given). One linear
    solve, so round-off only: ~eps relative with equal weights; with weights 1 and 1e-6 the
    normal matrix G W^-1 G^T spans six decades and round-off grows to ~1e6 eps ~ 2e-10.
    """
    v0, w0 = np.array([0.3, 1.2, -0.4]), np.array([0.5, -0.2, 1.0])
    rod = mb.assemble(
        pendulum(
            position=(HALF_LENGTH, 0.0, 0.0),
            orientation=np.eye(3),
            velocity=v0,
            angular_velocity=w0 if given_angular_velocity else None,
        )
    ).body("rod")
    w = (HALF_LENGTH * v0[1] + (k * w0[2] if given_angular_velocity else 0.0)) / (HALF_LENGTH**2 + k)
    np.testing.assert_allclose(rod.velocity[0], [0.0, HALF_LENGTH * w, 0.0], rtol=0, atol=round_off * abs(w))
    np.testing.assert_allclose(rod.angular_velocity[0], [0.0, 0.0, w], rtol=0, atol=round_off * abs(w))


def test_exact_velocity_the_joint_forbids_raises_naming_the_joint() -> None:
    """v_x = 0.3 m/s marked exact, but the pivot allows only v = (0, L w, 0) at a = 0."""
    model = pendulum(position=(HALF_LENGTH, 0.0, 0.0), orientation=np.eye(3), velocity=(0.3, 1.2, -0.4), exact=("vx",))
    with pytest.raises(mb.AssemblyError) as raised:
        mb.assemble(model)
    message = str(raised.value)
    assert "'pivot' translation along world x by 0.3" in message and "marked exact" in message, message
