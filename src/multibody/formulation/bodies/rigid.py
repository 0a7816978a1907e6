"""The rigid body kind: how a marker fixed on a rigid body moves, and what marker loads do to it.

Coordinates of one body (a block of the coordinate layout, 7 positions and 6 velocities):
``q_b = (p_WBo_W (3), e_WB (4))``, ``v_b = (v_WBo_W (3), w_WB_B (3))``: CM position and velocity
in world components, Euler parameters, angular velocity in body components. Only this module
and ``multibody.formulation.frames`` (its vectorized NumPy face) know the numbers 7 and 6.

The marker contract every body kind fulfils, here vectorized over the group in compiled kernels:

* pose of each marker: ``p_WM_W``, ``R_WM`` (and ``p_BM_W``, the marker from its body's CM);
* twist of each marker: ``v_WM_W``, ``w_WM_W``;
* the Jacobian of the marker twist w.r.t. the body's velocity coordinates, used through
  ``body_coefficients`` (row coefficients on marker twists -> coefficients on body velocities)
  and ``generalized_forces`` (``J^T`` times marker wrenches);
* the bias ``J' v`` of the marker acceleration (in ``marker_twists``: the centripetal
  acceleration ``w x (w x p_BM)`` of a rigid body).

Per-body arrays have ``nb + 1`` rows, the last being the ground (index -1) at rest at the origin.
"""

from __future__ import annotations

import numpy as np
from numba import njit

POSITION_WIDTH = 7
"""Position coordinates per rigid body: CM position (3) and Euler parameters (4)."""
VELOCITY_WIDTH = 6
"""Velocity coordinates per rigid body: CM velocity (3) and body-axes angular velocity (3)."""
TRANSLATION = slice(0, 3)
"""Within a body's velocity block: the CM translation coordinates (world x, y, z) [m/s]."""
ROTATION = slice(3, 6)
"""Within a body's velocity block: the rotation coordinates (body axes x, y, z) [rad/s]."""
VELOCITY_COORDINATE_NAMES = (
    "translation along world x",
    "translation along world y",
    "translation along world z",
    "rotation about body x",
    "rotation about body y",
    "rotation about body z",
)
"""What each velocity coordinate of a body moves (its generalized force: force along world
x ... moment about body z)."""
VELOCITY_INPUT_NAMES = ("vx", "vy", "vz", "angular_velocity", "angular_velocity", "angular_velocity")
"""The ``RigidBody`` input that sets each velocity coordinate."""


@njit(cache=True)
def _rotation(e0: float, e1: float, e2: float, e3: float, R: np.ndarray) -> None:
    """``R_WB`` from Euler parameters, normalized here (the norm is not a degree of freedom)."""
    scale = 1.0 / np.sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
    e0, e1, e2, e3 = e0 * scale, e1 * scale, e2 * scale, e3 * scale
    R[0, 0] = 2.0 * (e0 * e0 + e1 * e1) - 1.0
    R[0, 1] = 2.0 * (e1 * e2 - e0 * e3)
    R[0, 2] = 2.0 * (e1 * e3 + e0 * e2)
    R[1, 0] = 2.0 * (e1 * e2 + e0 * e3)
    R[1, 1] = 2.0 * (e0 * e0 + e2 * e2) - 1.0
    R[1, 2] = 2.0 * (e2 * e3 - e0 * e1)
    R[2, 0] = 2.0 * (e1 * e3 - e0 * e2)
    R[2, 1] = 2.0 * (e2 * e3 + e0 * e1)
    R[2, 2] = 2.0 * (e0 * e0 + e3 * e3) - 1.0


@njit(cache=True)
def marker_frames(
    q: np.ndarray, marker_body: np.ndarray, marker_position: np.ndarray, marker_orientation: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Body and marker frames at positions ``q`` (7 nb,).

    ``marker_position`` (nm, 3) and ``marker_orientation`` (nm, 3, 3) are the markers' origins from
    their body's CM and ``R_BM`` (ground markers: world). Returns ``p_WB_W`` (nb+1, 3) [m],
    ``R_WB`` (nb+1, 3, 3), ``p_WM_W`` (nm, 3) [m], ``p_BM_W`` (nm, 3) [m], ``R_WM`` (nm, 3, 3).
    """
    nb = q.size // 7
    nm = marker_body.size
    p_WB_W = np.zeros((nb + 1, 3))
    R_WB = np.zeros((nb + 1, 3, 3))
    for b in range(nb):
        for k in range(3):
            p_WB_W[b, k] = q[7 * b + k]
        _rotation(q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6], R_WB[b])
    for k in range(3):
        R_WB[nb, k, k] = 1.0
    p_WM_W = np.empty((nm, 3))
    p_BM_W = np.empty((nm, 3))
    R_WM = np.empty((nm, 3, 3))
    for m in range(nm):
        b = marker_body[m]
        if b < 0:
            b = nb
        for i in range(3):
            s = 0.0
            for k in range(3):
                s += R_WB[b, i, k] * marker_position[m, k]
            p_BM_W[m, i] = s
            p_WM_W[m, i] = p_WB_W[b, i] + s
            for j in range(3):
                s = 0.0
                for k in range(3):
                    s += R_WB[b, i, k] * marker_orientation[m, k, j]
                R_WM[m, i, j] = s
    return p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM


@njit(cache=True)
def marker_twists(
    v: np.ndarray, R_WB: np.ndarray, marker_body: np.ndarray, p_BM_W: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Body and marker velocities for velocities ``v`` (6 nb,) at frames ``R_WB`` (nb+1, 3, 3).

    Returns ``v_WB_W`` (nb+1, 3) [m/s], ``w_WB_W`` (nb+1, 3) [rad/s], and per marker ``v_WM_W``
    (nm, 3) [m/s], ``w_WM_W`` (nm, 3) [rad/s] (a rigid body's markers turn with it) and the bias
    ``J' v`` of the marker origin's acceleration ``bias_WM_W`` (nm, 3) [m/s^2]: ``w x (w x p_BM)``.
    """
    nb = v.size // 6
    v_WB_W = np.zeros((nb + 1, 3))
    w_WB_W = np.zeros((nb + 1, 3))
    for b in range(nb):
        for i in range(3):
            v_WB_W[b, i] = v[6 * b + i]
            w_WB_W[b, i] = R_WB[b, i, 0] * v[6 * b + 3] + R_WB[b, i, 1] * v[6 * b + 4] + R_WB[b, i, 2] * v[6 * b + 5]
    nm = marker_body.size
    v_WM_W = np.empty((nm, 3))
    w_WM_W = np.empty((nm, 3))
    bias_WM_W = np.empty((nm, 3))
    for m in range(nm):
        b = marker_body[m]
        if b < 0:
            b = nb
        w0, w1, w2 = w_WB_W[b, 0], w_WB_W[b, 1], w_WB_W[b, 2]
        p0, p1, p2 = p_BM_W[m, 0], p_BM_W[m, 1], p_BM_W[m, 2]
        c0, c1, c2 = w1 * p2 - w2 * p1, w2 * p0 - w0 * p2, w0 * p1 - w1 * p0
        v_WM_W[m, 0] = v_WB_W[b, 0] + c0
        v_WM_W[m, 1] = v_WB_W[b, 1] + c1
        v_WM_W[m, 2] = v_WB_W[b, 2] + c2
        w_WM_W[m, 0], w_WM_W[m, 1], w_WM_W[m, 2] = w0, w1, w2
        bias_WM_W[m, 0] = w1 * c2 - w2 * c1
        bias_WM_W[m, 1] = w2 * c0 - w0 * c2
        bias_WM_W[m, 2] = w0 * c1 - w1 * c0
    return v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W


@njit(cache=True)
def body_coefficients(marker_coefficients: np.ndarray, p_BI_W: np.ndarray, p_BJ_W: np.ndarray) -> np.ndarray:
    """Row coefficients on the twists of markers I and J -> on the velocities of their bodies.

    ``marker_coefficients`` (m, 4, 3): world coefficients of ``v_I``, ``w_I``, ``v_J``, ``w_J`` in
    ``dPhi/dt``; ``p_BI_W``, ``p_BJ_W`` (m, 3): the markers from their bodies' CMs. Returns (m, 4, 3)
    world coefficients of ``v_i``, ``w_i``, ``v_j``, ``w_j`` (CM velocities, angular velocities):
    ``v_M = v_B + w_B x p_BM`` gives ``g_w = a_w + p_BM x a_v``.
    """
    m = marker_coefficients.shape[0]
    out = marker_coefficients.copy()
    for r in range(m):
        for side, p in ((0, p_BI_W), (2, p_BJ_W)):
            a0, a1, a2 = (
                marker_coefficients[r, side, 0],
                marker_coefficients[r, side, 1],
                marker_coefficients[r, side, 2],
            )
            out[r, side + 1, 0] += p[r, 1] * a2 - p[r, 2] * a1
            out[r, side + 1, 1] += p[r, 2] * a0 - p[r, 0] * a2
            out[r, side + 1, 2] += p[r, 0] * a1 - p[r, 1] * a0
    return out


@njit(cache=True)
def jacobian_values(coefficients: np.ndarray, R_WB: np.ndarray, body_i: np.ndarray, body_j: np.ndarray) -> np.ndarray:
    """Entries of ``G`` (m, 12): per row the 6 columns of body i then of body j, from the world body
    coefficients (m, 4, 3) of ``body_coefficients``; angular parts in body components
    (``R_WB^T g_w``), as the velocity coordinates are."""
    m = coefficients.shape[0]
    values = np.empty((m, 12))
    for r in range(m):
        for side, body in ((0, body_i[r]), (1, body_j[r])):
            for k in range(3):
                values[r, 6 * side + k] = coefficients[r, 2 * side, k]
                s = 0.0
                for n in range(3):
                    s += R_WB[body, n, k] * coefficients[r, 2 * side + 1, n]
                values[r, 6 * side + 3 + k] = s
    return values


@njit(cache=True)
def generalized_forces(
    force_W: np.ndarray,
    torque_W: np.ndarray,
    marker: np.ndarray,
    sign: np.ndarray,
    marker_body: np.ndarray,
    p_BM_W: np.ndarray,
    p_WM_W: np.ndarray,
    R_WB: np.ndarray,
    application: np.ndarray,
) -> np.ndarray:
    """``J^T`` times loads at markers: generalized forces (nb+1, 6), world force and body-axes moment
    about the CM; the last row (ground) collects the loads on ground (moment about the origin).

    Load ``k`` is ``sign[k] * (force_W[k], torque_W[k])`` applied at the origin of marker
    ``application[k]`` and carried by the body of marker ``marker[k]`` (a two-marker element's J
    side takes the reaction at the I origin).
    """
    nb = R_WB.shape[0] - 1
    wrench = np.zeros((nb + 1, 6))
    for k in range(marker.size):
        b = marker_body[marker[k]]
        if b < 0:
            b = nb
        s = sign[k]
        # Arm from the CM to the application point.
        r0 = p_BM_W[marker[k], 0] + p_WM_W[application[k], 0] - p_WM_W[marker[k], 0]
        r1 = p_BM_W[marker[k], 1] + p_WM_W[application[k], 1] - p_WM_W[marker[k], 1]
        r2 = p_BM_W[marker[k], 2] + p_WM_W[application[k], 2] - p_WM_W[marker[k], 2]
        f0, f1, f2 = s * force_W[k, 0], s * force_W[k, 1], s * force_W[k, 2]
        m0 = r1 * f2 - r2 * f1 + s * torque_W[k, 0]
        m1 = r2 * f0 - r0 * f2 + s * torque_W[k, 1]
        m2 = r0 * f1 - r1 * f0 + s * torque_W[k, 2]
        wrench[b, 0] += f0
        wrench[b, 1] += f1
        wrench[b, 2] += f2
        for i in range(3):
            wrench[b, 3 + i] += R_WB[b, 0, i] * m0 + R_WB[b, 1, i] * m1 + R_WB[b, 2, i] * m2
    return wrench


@njit(cache=True)
def inertial_forces(
    mass: np.ndarray, inertia: np.ndarray, gravity: np.ndarray, w_WB_B: np.ndarray, wrench: np.ndarray
) -> None:
    """Add gravity ``m g`` and the gyroscopic moment ``-w_B x J w_B`` to ``wrench`` (nb, 6) in place;
    ``w_WB_B`` (nb, 3) body-axes angular velocities [rad/s]."""
    for b in range(mass.size):
        w0, w1, w2 = w_WB_B[b, 0], w_WB_B[b, 1], w_WB_B[b, 2]
        h0 = inertia[b, 0, 0] * w0 + inertia[b, 0, 1] * w1 + inertia[b, 0, 2] * w2
        h1 = inertia[b, 1, 0] * w0 + inertia[b, 1, 1] * w1 + inertia[b, 1, 2] * w2
        h2 = inertia[b, 2, 0] * w0 + inertia[b, 2, 1] * w1 + inertia[b, 2, 2] * w2
        for k in range(3):
            wrench[b, k] += mass[b] * gravity[k]
        wrench[b, 3] -= w1 * h2 - w2 * h1
        wrench[b, 4] -= w2 * h0 - w0 * h2
        wrench[b, 5] -= w0 * h1 - w1 * h0


@njit(cache=True)
def position_rate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``dq/dt = N(q) v`` (7 nb,): CM velocity and ``de/dt = 1/2 L(e)^T w_B``."""
    nb = v.size // 6
    rate = np.empty(7 * nb)
    for b in range(nb):
        for k in range(3):
            rate[7 * b + k] = v[6 * b + k]
        e0, e1, e2, e3 = 0.5 * q[7 * b + 3], 0.5 * q[7 * b + 4], 0.5 * q[7 * b + 5], 0.5 * q[7 * b + 6]
        w0, w1, w2 = v[6 * b + 3], v[6 * b + 4], v[6 * b + 5]
        rate[7 * b + 3] = -e1 * w0 - e2 * w1 - e3 * w2
        rate[7 * b + 4] = e0 * w0 - e3 * w1 + e2 * w2
        rate[7 * b + 5] = e3 * w0 + e0 * w1 - e1 * w2
        rate[7 * b + 6] = -e2 * w0 + e1 * w1 + e0 * w2
    return rate


@njit(cache=True)
def normalize_euler_parameters(q: np.ndarray) -> None:
    """Project every body's Euler parameters in ``q`` (7 nb,) back to unit norm, in place."""
    for b in range(q.size // 7):
        scale = 1.0 / np.sqrt(q[7 * b + 3] ** 2 + q[7 * b + 4] ** 2 + q[7 * b + 5] ** 2 + q[7 * b + 6] ** 2)
        for k in range(3, 7):
            q[7 * b + k] *= scale


@njit(cache=True)
def displaced_positions(q: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """``q`` (7 nb,) moved by a velocity-space increment ``dx`` (6 nb,): CM by ``dx[:3]`` [m], and
    ``R_WB exp(skew(theta_B))`` for the body-axes rotation vector ``theta_B = dx[3:]`` [rad], exactly on
    the rotation group (the Euler parameters times the increment's, ``sin(x/2)/x`` by its series
    below 1e-4 rad)."""
    out = np.empty_like(q)
    for b in range(q.size // 7):
        for k in range(3):
            out[7 * b + k] = q[7 * b + k] + dx[6 * b + k]
        t0, t1, t2 = dx[6 * b + 3], dx[6 * b + 4], dx[6 * b + 5]
        angle = np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
        sinc_half = np.sin(0.5 * angle) / angle if angle > 1e-4 else 0.5 - angle * angle / 48.0
        c, i1, i2, i3 = np.cos(0.5 * angle), sinc_half * t0, sinc_half * t1, sinc_half * t2
        e0, e1, e2, e3 = q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6]
        out[7 * b + 3] = e0 * c - (e1 * i1 + e2 * i2 + e3 * i3)
        out[7 * b + 4] = e0 * i1 + c * e1 + (e2 * i3 - e3 * i2)
        out[7 * b + 5] = e0 * i2 + c * e2 + (e3 * i1 - e1 * i3)
        out[7 * b + 6] = e0 * i3 + c * e3 + (e1 * i2 - e2 * i1)
    return out


@njit(cache=True)
def position_differences(q: np.ndarray, q_ref: np.ndarray) -> np.ndarray:
    """Velocity-space difference ``q - q_ref`` (6 nb,) of positions (7 nb,): CM offsets [m] and the
    body-axes rotation vectors [rad] of ``R_ref^T R`` (angle in [0, pi]), the inverse of
    ``displaced_positions``; from the normalized relative Euler parameters ``conj(e_ref) e``."""
    nb = q.size // 7
    out = np.empty(6 * nb)
    for b in range(nb):
        for k in range(3):
            out[6 * b + k] = q[7 * b + k] - q_ref[7 * b + k]
        a0, a1, a2, a3 = q_ref[7 * b + 3], q_ref[7 * b + 4], q_ref[7 * b + 5], q_ref[7 * b + 6]
        e0, e1, e2, e3 = q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6]
        scale = 1.0 / np.sqrt((a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3) * (e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3))
        d0 = (a0 * e0 + a1 * e1 + a2 * e2 + a3 * e3) * scale
        d1 = (a0 * e1 - e0 * a1 - (a2 * e3 - a3 * e2)) * scale
        d2 = (a0 * e2 - e0 * a2 - (a3 * e1 - a1 * e3)) * scale
        d3 = (a0 * e3 - e0 * a3 - (a1 * e2 - a2 * e1)) * scale
        if d0 < 0.0:
            d0, d1, d2, d3 = -d0, -d1, -d2, -d3
        sin_half = np.sqrt(d1 * d1 + d2 * d2 + d3 * d3)
        factor = 2.0 * np.arctan2(sin_half, d0) / sin_half if sin_half > 1e-12 else 2.0
        out[6 * b + 3], out[6 * b + 4], out[6 * b + 5] = factor * d1, factor * d2, factor * d3
    return out


# -- the coordinate blocks of the group, for analyses (plain NumPy) ------------------------------
def position_blocks(q: np.ndarray) -> np.ndarray:
    """View (nb, 7) of the group's positions ``q`` (7 nb,): CM position, then Euler parameters."""
    return q.reshape(-1, POSITION_WIDTH)


def velocity_blocks(v: np.ndarray) -> np.ndarray:
    """View (nb, 6, ...) of any array whose first axis runs over the group's velocity coordinates
    (velocities, position increments, generalized forces, a matrix's rows)."""
    return v.reshape(-1, VELOCITY_WIDTH, *v.shape[1:])


def positions(p_WB_W: np.ndarray, e_WB: np.ndarray) -> np.ndarray:
    """The group's positions (7 nb,) from CM positions (nb, 3) [m] and Euler parameters (nb, 4)."""
    return np.hstack([p_WB_W, e_WB]).reshape(-1)


def velocities(v_WB_W: np.ndarray, w_WB_B: np.ndarray) -> np.ndarray:
    """The group's velocities (6 nb,) from CM velocities (nb, 3) [m/s, world] and angular
    velocities (nb, 3) [rad/s, body axes]; also accelerations from their parts."""
    return np.hstack([v_WB_W, w_WB_B]).reshape(-1)


def mass_blocks(mass: np.ndarray, inertia: np.ndarray) -> np.ndarray:
    """(nb, 6, 6) mass matrix blocks ``diag(m I, J_B)`` from masses (nb,) [kg] and inertias about
    the CM in body axes (nb, 3, 3) [kg m^2]."""
    blocks = np.zeros((mass.size, VELOCITY_WIDTH, VELOCITY_WIDTH))
    blocks[:, TRANSLATION, TRANSLATION] = mass[:, None, None] * np.eye(3)
    blocks[:, ROTATION, ROTATION] = inertia
    return blocks


def euler_parameters(q: np.ndarray) -> np.ndarray:
    """View (nb, 4) of the Euler parameters in the group's positions ``q`` (7 nb,)."""
    return position_blocks(q)[:, 3:]


def coordinate_scale(n_bodies: int, length: float, rotation: float = 1.0) -> np.ndarray:
    """(6 nb,) per velocity-space coordinate: ``length`` on translations, ``rotation`` on rotations."""
    block = np.empty(VELOCITY_WIDTH)
    block[TRANSLATION], block[ROTATION] = length, rotation
    return np.tile(block, n_bodies)


@njit(cache=True)
def position_scale(q: np.ndarray) -> np.ndarray:
    """(6 nb,) size of each velocity-space position coordinate at ``q`` (7 nb,): ``|p|`` [m] of the
    CM coordinates, 1 rad for rotations (a rotation vector has no size of its own)."""
    nb = q.size // 7
    scale = np.ones(6 * nb)
    for b in range(nb):
        for k in range(3):
            scale[6 * b + k] = abs(q[7 * b + k])
    return scale


def body_columns(body: int, part: slice = slice(0, VELOCITY_WIDTH)) -> slice:
    """Where ``part`` (``TRANSLATION``, ``ROTATION`` or the whole block) of rigid body ``body``'s
    velocity coordinates is in the group's velocity vector."""
    start = VELOCITY_WIDTH * body
    return slice(start + part.start, start + part.stop)
