"""Rotations: Euler parameters, 3-1-3 angles, the kinematic matrix and the exact quaternion update.

References are identities that hold exactly (orthonormality, round trips, the definition of the
angular velocity); tolerances are a few hundred ulps of double precision.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from multibody.spatial import rotations

unit_quaternions = (
    st.lists(st.floats(-1, 1), min_size=4, max_size=4)
    .filter(lambda e: np.linalg.norm(e) > 0.1)
    .map(lambda e: np.array(e) / np.linalg.norm(e))
)


@given(unit_quaternions)
@settings(max_examples=50, deadline=None)
def test_rotation_round_trip_and_orthonormality(e):
    R = rotations.rotation_from_euler_parameters(e)
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-14)
    assert np.isclose(np.linalg.det(R), 1.0, atol=1e-14)
    back = rotations.euler_parameters_from_rotation(R)
    assert np.isclose(abs(back @ e), 1.0, atol=1e-12)  # e and -e are the same rotation
    assert back[0] >= 0.0


def test_90_degrees_about_z():
    e = np.array([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)])
    assert np.allclose(rotations.rotation_from_euler_parameters(e) @ [1, 0, 0], [0, 1, 0], atol=1e-15)


def test_313_angles_match_elementary_rotations():
    """ADAMS body-fixed 3-1-3: Rz(psi) Rx(theta) Rz(phi); (90, 90, 0) deg maps z to (sin psi sin theta, -cos psi sin theta, cos theta)."""
    psi, theta, phi = 0.3, 1.1, -0.7
    R = rotations.rotation_from_313_angles(psi, theta, phi)
    expected_z = [np.sin(psi) * np.sin(theta), -np.cos(psi) * np.sin(theta), np.cos(theta)]
    assert np.allclose(R[:, 2], expected_z, atol=1e-15)


@given(unit_quaternions, st.lists(st.floats(-3, 3), min_size=3, max_size=3))
@settings(max_examples=50, deadline=None)
def test_kinematic_matrix_defines_body_angular_velocity(e, w):
    """R(e + h de/dt) = R (I + h skew(w_B)) + O(h^2): central difference, error ~h^2 = 1e-12."""
    w = np.array(w)
    h = 1e-6
    e_dot = rotations.euler_parameter_rate(e, w)
    R_dot = (
        rotations.rotation_from_euler_parameters(e + h * e_dot)
        - rotations.rotation_from_euler_parameters(e - h * e_dot)
    ) / (2 * h)
    R = rotations.rotation_from_euler_parameters(e)
    assert np.allclose(R_dot, R @ rotations.skew(w), atol=1e-8)
    assert abs(e @ e_dot) < 1e-14  # the rate keeps the norm


@given(unit_quaternions, st.lists(st.floats(-3, 3), min_size=3, max_size=3))
@settings(max_examples=50, deadline=None)
def test_finite_rotation_update_and_rotation_vector(e, theta):
    theta = np.array(theta)
    updated = rotations.rotate_by_body_vector(e, theta)
    assert np.isclose(np.linalg.norm(updated), 1.0, atol=1e-14)
    R = rotations.rotation_from_euler_parameters(e)
    R_new = rotations.rotation_from_euler_parameters(updated)
    angle = np.linalg.norm(theta)
    if angle < np.pi - 1e-6:
        assert np.allclose(rotations.rotation_vector(R.T @ R_new), theta, atol=1e-10)


def test_rotation_from_axes_is_right_handed():
    R = rotations.rotation_from_axes([0, 0, 2.0], [1.0, 1.0, 0.0])
    assert np.allclose(R[:, 2], [0, 0, 1]) and np.allclose(R[:, 0], np.array([1, 1, 0]) / np.sqrt(2))
    assert np.isclose(np.linalg.det(R), 1.0)
