"""Rotations: Euler parameters, ADAMS 3-1-3 angles, skew matrices and the quaternion update.

Every function is pure and vectorized over leading axes. Euler parameters are stored scalar
first, ``e = (e0, e1, e2, e3)``, and describe the rotation ``R_WB`` taking body components to
world components. Angular velocities of the Cartesian formulation are in body components
(``w_B``), so the kinematic relation is ``de/dt = 1/2 * L(e)^T w_B`` with the 3x4 matrix ``L``
of Nikravesh / Haug.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def skew(w: ArrayLike) -> FloatArray:
    """Cross-product matrix: ``skew(w) @ x == cross(w, x)``. Shape (..., 3) -> (..., 3, 3)."""
    w = np.asarray(w, dtype=float)
    zero = np.zeros(w.shape[:-1])
    return np.stack(
        [
            np.stack([zero, -w[..., 2], w[..., 1]], axis=-1),
            np.stack([w[..., 2], zero, -w[..., 0]], axis=-1),
            np.stack([-w[..., 1], w[..., 0], zero], axis=-1),
        ],
        axis=-2,
    )


def rotation_from_euler_parameters(e: ArrayLike) -> FloatArray:
    """Rotation matrix ``R_WB`` from unit Euler parameters. Shape (..., 4) -> (..., 3, 3)."""
    e = np.asarray(e, dtype=float)
    e0, e1, e2, e3 = e[..., 0], e[..., 1], e[..., 2], e[..., 3]
    R = np.empty(e.shape[:-1] + (3, 3))
    R[..., 0, 0] = e0 * e0 + e1 * e1 - 0.5
    R[..., 0, 1] = e1 * e2 - e0 * e3
    R[..., 0, 2] = e1 * e3 + e0 * e2
    R[..., 1, 0] = e1 * e2 + e0 * e3
    R[..., 1, 1] = e0 * e0 + e2 * e2 - 0.5
    R[..., 1, 2] = e2 * e3 - e0 * e1
    R[..., 2, 0] = e1 * e3 - e0 * e2
    R[..., 2, 1] = e2 * e3 + e0 * e1
    R[..., 2, 2] = e0 * e0 + e3 * e3 - 0.5
    R *= 2.0
    return R


def euler_parameters_from_rotation(R_WB: ArrayLike) -> FloatArray:
    """Unit Euler parameters (e0 >= 0) of a rotation matrix (Shepperd's method). (...,3,3) -> (...,4)."""
    R = np.asarray(R_WB, dtype=float)
    trace = np.trace(R, axis1=-2, axis2=-1)
    # Squares of the four parameters times 4; pick the largest for a well-conditioned division.
    candidates = np.stack(
        [
            1.0 + trace,
            1.0 + 2.0 * R[..., 0, 0] - trace,
            1.0 + 2.0 * R[..., 1, 1] - trace,
            1.0 + 2.0 * R[..., 2, 2] - trace,
        ],
        axis=-1,
    )
    pivot = np.argmax(candidates, axis=-1)
    e = np.empty(R.shape[:-2] + (4,))
    s = np.sqrt(np.maximum(np.take_along_axis(candidates, pivot[..., None], -1)[..., 0], 0.0))
    e_pivot = 0.5 * s
    quarter = 0.25 / np.where(e_pivot > 0.0, e_pivot, 1.0)
    w0 = (R[..., 2, 1] - R[..., 1, 2]) * quarter
    w1 = (R[..., 0, 2] - R[..., 2, 0]) * quarter
    w2 = (R[..., 1, 0] - R[..., 0, 1]) * quarter
    s01 = (R[..., 1, 0] + R[..., 0, 1]) * quarter
    s02 = (R[..., 0, 2] + R[..., 2, 0]) * quarter
    s12 = (R[..., 2, 1] + R[..., 1, 2]) * quarter
    rows = {
        0: (e_pivot, w0, w1, w2),
        1: (w0, e_pivot, s01, s02),
        2: (w1, s01, e_pivot, s12),
        3: (w2, s02, s12, e_pivot),
    }
    for k, components in rows.items():
        mask = pivot == k
        e[mask] = np.stack(components, axis=-1)[mask]
    e *= np.where(e[..., :1] < 0.0, -1.0, 1.0)
    return e


def rotation_from_313_angles(psi: float, theta: float, phi: float) -> FloatArray:
    """``R_WB`` from ADAMS body-fixed 3-1-3 Euler angles (psi about z, theta about new x, phi about new z) [rad]."""
    return rotation_about_z(psi) @ rotation_about_x(theta) @ rotation_about_z(phi)


def rotation_about_z(angle: float) -> FloatArray:
    """Elementary rotation by ``angle`` [rad] about z, shape (3, 3)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_about_x(angle: float) -> FloatArray:
    """Elementary rotation by ``angle`` [rad] about x, shape (3, 3)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rotation_from_axes(z_axis: ArrayLike, x_axis: ArrayLike | None = None) -> FloatArray:
    """``R_WB`` whose z column is ``z_axis`` and whose x column is ``x_axis`` made orthogonal to it.

    Without ``x_axis`` the x column is chosen perpendicular to z (the world axis least aligned
    with z is projected out), as ADAMS does for a marker given by its z-axis alone. Shape (3, 3).
    """
    z = np.asarray(z_axis, dtype=float)
    z = z / np.linalg.norm(z)
    if x_axis is None:
        helper = np.eye(3)[np.argmin(np.abs(z))]
    else:
        helper = np.asarray(x_axis, dtype=float)
    x = helper - np.dot(helper, z) * z
    x = x / np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def kinematic_matrix(e: ArrayLike) -> FloatArray:
    """``N`` with ``de/dt = N(e) @ w_B``: the 4x3 matrix ``1/2 L(e)^T``. Shape (..., 4) -> (..., 4, 3)."""
    e = 0.5 * np.asarray(e, dtype=float)
    e0, e1, e2, e3 = e[..., 0], e[..., 1], e[..., 2], e[..., 3]
    N = np.empty(e.shape[:-1] + (4, 3))
    N[..., 0, 0], N[..., 0, 1], N[..., 0, 2] = -e1, -e2, -e3
    N[..., 1, 0], N[..., 1, 1], N[..., 1, 2] = e0, -e3, e2
    N[..., 2, 0], N[..., 2, 1], N[..., 2, 2] = e3, e0, -e1
    N[..., 3, 0], N[..., 3, 1], N[..., 3, 2] = -e2, e1, e0
    return N


def euler_parameter_rate(e: ArrayLike, w_B: ArrayLike) -> FloatArray:
    """``de/dt`` for angular velocity ``w_B`` in body components. Shapes (...,4), (...,3) -> (...,4)."""
    return np.einsum("...ij,...j->...i", kinematic_matrix(e), np.asarray(w_B, dtype=float))


def normalize(e: ArrayLike) -> FloatArray:
    """Project Euler parameters back onto the unit sphere. Shape (..., 4)."""
    e = np.asarray(e, dtype=float)
    return e / np.linalg.norm(e, axis=-1, keepdims=True)


def rotate_by_body_vector(e: ArrayLike, theta_B: ArrayLike) -> FloatArray:
    """Euler parameters of ``R_WB @ exp(skew(theta_B))``: a finite rotation given in body components.

    Used for position increments in velocity space (Newton, assembly, finite differences):
    exact on the rotation group, so the result stays a unit quaternion. Shapes (...,4), (...,3).
    """
    e = np.asarray(e, dtype=float)
    theta = np.asarray(theta_B, dtype=float)
    angle = np.linalg.norm(theta, axis=-1, keepdims=True)
    half = 0.5 * angle
    # sin(x/2)/x with its Taylor series near zero (accurate to 1e-17 below 1e-4 rad).
    sinc_half = np.where(angle > 1e-4, np.sin(half) / np.where(angle > 1e-4, angle, 1.0), 0.5 - angle**2 / 48.0)
    increment = np.concatenate([np.cos(half), sinc_half * theta], axis=-1)
    return quaternion_product(e, increment)


def quaternion_product(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Hamilton product ``a * b`` (scalar first); rotation of ``a`` followed by ``b`` in body axes."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a0, av = a[..., :1], a[..., 1:]
    b0, bv = b[..., :1], b[..., 1:]
    scalar = a0 * b0 - np.sum(av * bv, axis=-1, keepdims=True)
    vector = a0 * bv + b0 * av + np.cross(av, bv)
    return np.concatenate([scalar, vector], axis=-1)


def rotation_vector(R_AB: ArrayLike) -> FloatArray:
    """Rotation vector (axis times angle, angle in [0, pi]) of a rotation matrix. (...,3,3) -> (...,3)."""
    e = euler_parameters_from_rotation(R_AB)
    sin_half = np.linalg.norm(e[..., 1:], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(sin_half, e[..., :1])
    scale = np.where(sin_half > 1e-12, angle / np.where(sin_half > 1e-12, sin_half, 1.0), 2.0)
    return scale * e[..., 1:]


def cross(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Cross product over the last axis of (..., 3) arrays (broadcasting); ``numpy.cross`` without
    its axis bookkeeping, which dominates for the small arrays of the formulation."""
    a = np.asarray(a)
    b = np.asarray(b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
    out = np.empty(shape, dtype=np.result_type(a.dtype, b.dtype, np.float64))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out
