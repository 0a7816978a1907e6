"""Compiled recursions of Kane's equations on a spanning tree (``multibody.formulation.kane``).

Every function here is one pass (or two) over the tree joints in their breadth-first order, a
parent's joint before its children's, so an outward pass reads the parent's row already filled and
an inward pass (reversed order) has every child's row done. One right-hand side of the tree ODE is
``tree_kinematics`` + ``applied_spatial_forces`` + ``forward_dynamics``: three calls from Python
whatever the number of joints.

Conventions (world components throughout):

* spatial motion vectors (6,): angular velocity, then the velocity of the body point at the world
  origin; spatial force vectors (6,): moment about the world origin, then force. The dynamic
  recursions (``inverse_dynamics``, ``forward_dynamics``, ``mass_matrix``) take these and work
  with every body's quantities about its own CM instead (same axes), shifting them between
  parent and child: about the world origin, inertias grow as ``m |p|^2`` and the recursions would
  lose ``|p|^2 / l^2`` of the precision;
* per-body arrays have ``nb + 1`` rows, the last being the ground (a parent index -1 reads it);
* a joint's motion subspace ``S`` (6, 6) holds its ``n_u_k`` columns first (translations, then
  rotation axes) and zeros after: the partial angular velocities and partial velocities of its
  speeds;
* rotation kinds of the joints are integer codes: ``ROTATION_CODES``.

Joint data (``n`` joints): ``parent``, ``child`` body indices; ``rotation`` codes;
``n_translations``, ``n_speeds``, ``q_start``, ``u_start``; the frames ``R_PN`` (n, 3, 3),
``r_PN`` (n, 3) of the inner frame N on the parent and ``R_CO``, ``r_CO`` of the outer frame O on
the child; the offsets ``R_NO_reference``, ``d_N_reference`` of O in N at zero joint coordinates;
``translation_axes`` (n, 3, 3) (columns, N axes); ``axis_N`` (n, 3) (the rotation axis, or the first
of two) and ``axis_O`` (n, 3) (the second of two).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.formulation.bodies.rigid import _rotation as rotation_from_euler_parameters

ROTATION_CODES = {"none": 0, "axis": 1, "two_axes": 2, "ball": 3}
"""Integer code of each kind of rotation part of a tree joint (``multibody.formulation.tree``)."""
NO_ROTATION, AXIS, TWO_AXES, BALL = 0, 1, 2, 3
SINGULAR_PIVOT = 1e-13
"""A joint's articulated inertia is singular when an elimination pivot falls below this fraction
of its largest entry (a massless subtree, or a joint axis about which nothing has inertia)."""


@njit(cache=True, inline="always")
def _ground_row(body: int, nb: int) -> int:
    """Row of ``body`` in a per-body array with the ground last."""
    return nb if body < 0 else body


@njit(cache=True, inline="always")
def _multiply(A: np.ndarray, B: np.ndarray, out: np.ndarray) -> None:
    """``out = A B`` for 3x3 matrices (``out`` distinct from both)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(cache=True, inline="always")
def _multiply_transposed(A: np.ndarray, B: np.ndarray, out: np.ndarray) -> None:
    """``out = A B^T`` for 3x3 matrices (``out`` distinct from both)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


@njit(cache=True)
def _axis_rotation(axis: np.ndarray, angle: float, R: np.ndarray) -> None:
    """``R`` (3, 3) = the rotation by ``angle`` [rad] about the unit ``axis`` (Rodrigues:
    ``I + sin K + (1 - cos) K^2``, ``K = skew(axis)``)."""
    s, c = np.sin(angle), 1.0 - np.cos(angle)
    x, y, z = axis[0], axis[1], axis[2]
    R[0, 0] = 1.0 - c * (y * y + z * z)
    R[0, 1] = -s * z + c * x * y
    R[0, 2] = s * y + c * x * z
    R[1, 0] = s * z + c * x * y
    R[1, 1] = 1.0 - c * (x * x + z * z)
    R[1, 2] = -s * x + c * y * z
    R[2, 0] = -s * y + c * x * z
    R[2, 1] = s * x + c * y * z
    R[2, 2] = 1.0 - c * (x * x + y * y)


@njit(cache=True)
def _euler_parameters(R: np.ndarray, e: np.ndarray) -> None:
    """Unit Euler parameters (e0 >= 0) of the rotation ``R`` (3, 3) into ``e`` (4,) by Shepperd's
    method (the largest of the four squares picks the division; ``rotations.euler_parameters_from_rotation``)."""
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    candidates = (1.0 + trace, 1.0 + 2.0 * R[0, 0] - trace, 1.0 + 2.0 * R[1, 1] - trace, 1.0 + 2.0 * R[2, 2] - trace)
    pivot = 0
    for k in range(1, 4):
        if candidates[k] > candidates[pivot]:
            pivot = k
    e_pivot = 0.5 * np.sqrt(max(candidates[pivot], 0.0))
    quarter = 0.25 / (e_pivot if e_pivot > 0.0 else 1.0)
    w0 = (R[2, 1] - R[1, 2]) * quarter
    w1 = (R[0, 2] - R[2, 0]) * quarter
    w2 = (R[1, 0] - R[0, 1]) * quarter
    s01 = (R[1, 0] + R[0, 1]) * quarter
    s02 = (R[0, 2] + R[2, 0]) * quarter
    s12 = (R[2, 1] + R[1, 2]) * quarter
    if pivot == 0:
        e[0], e[1], e[2], e[3] = e_pivot, w0, w1, w2
    elif pivot == 1:
        e[0], e[1], e[2], e[3] = w0, e_pivot, s01, s02
    elif pivot == 2:
        e[0], e[1], e[2], e[3] = w1, s01, e_pivot, s12
    else:
        e[0], e[1], e[2], e[3] = w2, s02, s12, e_pivot
    if e[0] < 0.0:
        for k in range(4):
            e[k] = -e[k]


@njit(cache=True, inline="always")
def _cross_motion(V: np.ndarray, m: np.ndarray, out: np.ndarray) -> None:
    """Add the spatial cross product ``V x m`` of motion vectors (6,) to ``out`` (6,)."""
    w0, w1, w2, v0, v1, v2 = V[0], V[1], V[2], V[3], V[4], V[5]
    a0, a1, a2, b0, b1, b2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] += w1 * a2 - w2 * a1
    out[1] += w2 * a0 - w0 * a2
    out[2] += w0 * a1 - w1 * a0
    out[3] += w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1
    out[4] += w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2
    out[5] += w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0


@njit(cache=True)
def tree_kinematics(
    q: np.ndarray,
    u: np.ndarray,
    parent: np.ndarray,
    child: np.ndarray,
    rotation: np.ndarray,
    n_translations: np.ndarray,
    q_start: np.ndarray,
    u_start: np.ndarray,
    R_PN: np.ndarray,
    r_PN: np.ndarray,
    R_CO: np.ndarray,
    r_CO: np.ndarray,
    R_NO_reference: np.ndarray,
    d_N_reference: np.ndarray,
    translation_axes: np.ndarray,
    axis_N: np.ndarray,
    axis_O: np.ndarray,
    mass: np.ndarray,
    inertia: np.ndarray,
) -> tuple:
    """The outward pass at joint coordinates ``q`` (n_q,) and speeds ``u`` (n_u,).

    ``mass`` (nb,) [kg] and ``inertia`` (nb, 3, 3) [kg m^2] (body axes, about the CM). Returns
    ``(R_WB (nb+1, 3, 3), p_WB_W (nb+1, 3) [m], S (n, 6, 6), V (nb+1, 6), bias (n, 6),
    central_inertia (nb, 3, 3), q_cartesian (7 nb,), v_cartesian (6 nb,))``: body rotations and
    CM positions, motion subspaces, spatial velocities [rad/s, m/s], ``dS_k/dt u_k`` (the joint's
    part of its child's acceleration at ``du/dt = 0``) [rad/s^2, m/s^2], inertias about the CMs
    in world axes [kg m^2], and the Cartesian coordinates of the bodies (CM, Euler parameters;
    CM velocity world, angular velocity body axes).

    A joint's columns fixed in the parent (translations, the first axis of two) change as
    ``V_parent x S``, those fixed in the child (the rotation axes otherwise) as ``V_child x S``.
    """
    n = parent.size
    nb = mass.size
    R_WB = np.zeros((nb + 1, 3, 3))
    p_WB = np.zeros((nb + 1, 3))
    for k in range(3):
        R_WB[nb, k, k] = 1.0
    S = np.zeros((n, 6, 6))
    V = np.zeros((nb + 1, 6))
    bias = np.zeros((n, 6))
    relative = np.empty(6)
    child_fixed_rate = np.empty(6)
    parent_fixed_rate = np.empty(6)
    d_N = np.empty(3)
    p_WO = np.empty(3)
    a = np.empty(3)
    turn = np.empty((3, 3))
    R_turned = np.empty((3, 3))
    R_NO = np.empty((3, 3))
    R_WN = np.empty((3, 3))
    R_WO = np.empty((3, 3))
    for k in range(n):
        P = _ground_row(parent[k], nb)
        C = child[k]
        nt = n_translations[k]
        q0 = q_start[k]
        code = rotation[k]
        # Joint transform: O relative to N.
        for i in range(3):
            d_N[i] = d_N_reference[k, i]
            for c in range(nt):
                d_N[i] += translation_axes[k, i, c] * q[q0 + c]
        if code == AXIS:
            _axis_rotation(axis_N[k], q[q0 + nt], turn)
            _multiply(turn, R_NO_reference[k], R_NO)
        elif code == TWO_AXES:
            _axis_rotation(axis_N[k], q[q0 + nt], turn)
            _multiply(turn, R_NO_reference[k], R_turned)
            _axis_rotation(axis_O[k], q[q0 + nt + 1], turn)
            _multiply(R_turned, turn, R_NO)
        elif code == BALL:
            rotation_from_euler_parameters(q[q0 + nt], q[q0 + nt + 1], q[q0 + nt + 2], q[q0 + nt + 3], turn)
            _multiply(R_NO_reference[k], turn, R_NO)
        else:
            R_NO[:, :] = R_NO_reference[k]
        R_WP = R_WB[P]
        _multiply(R_WP, R_PN[k], R_WN)
        _multiply(R_WN, R_NO, R_WO)
        for i in range(3):
            s = p_WB[P, i]
            for j in range(3):
                s += R_WP[i, j] * r_PN[k, j] + R_WN[i, j] * d_N[j]
            p_WO[i] = s
        _multiply_transposed(R_WO, R_CO[k], R_WB[C])
        for i in range(3):
            s = p_WO[i]
            for j in range(3):
                s -= R_WB[C, i, j] * r_CO[k, j]
            p_WB[C, i] = s
        # Motion subspace: translation columns, then rotation axes through O's origin.
        n_rotation_speeds = 0
        if code == AXIS:
            n_rotation_speeds = 1
        elif code == TWO_AXES:
            n_rotation_speeds = 2
        elif code == BALL:
            n_rotation_speeds = 3
        for c in range(nt):
            for i in range(3):
                s = 0.0
                for j in range(3):
                    s += R_WN[i, j] * translation_axes[k, j, c]
                S[k, 3 + i, c] = s
        for r in range(n_rotation_speeds):
            if code == BALL:
                for i in range(3):
                    a[i] = R_WO[i, r]
            elif r == 0:
                for i in range(3):
                    a[i] = R_WN[i, 0] * axis_N[k, 0] + R_WN[i, 1] * axis_N[k, 1] + R_WN[i, 2] * axis_N[k, 2]
            else:
                for i in range(3):
                    a[i] = R_WO[i, 0] * axis_O[k, 0] + R_WO[i, 1] * axis_O[k, 1] + R_WO[i, 2] * axis_O[k, 2]
            c = nt + r
            S[k, 0, c], S[k, 1, c], S[k, 2, c] = a[0], a[1], a[2]
            S[k, 3, c] = p_WO[1] * a[2] - p_WO[2] * a[1]
            S[k, 4, c] = p_WO[2] * a[0] - p_WO[0] * a[2]
            S[k, 5, c] = p_WO[0] * a[1] - p_WO[1] * a[0]
        # Velocities and the joint's velocity-product acceleration.
        first_child_fixed = nt + 1 if code == TWO_AXES else nt
        for i in range(6):
            relative[i] = 0.0
            child_fixed_rate[i] = 0.0
            for c in range(nt + n_rotation_speeds):
                rate = S[k, i, c] * u[u_start[k] + c]
                relative[i] += rate
                if c >= first_child_fixed:
                    child_fixed_rate[i] += rate
            parent_fixed_rate[i] = relative[i] - child_fixed_rate[i]
            V[C, i] = V[P, i] + relative[i]
        _cross_motion(V[P], parent_fixed_rate, bias[k])
        _cross_motion(V[C], child_fixed_rate, bias[k])

    central_inertia = np.empty((nb, 3, 3))
    q_cartesian = np.empty(7 * nb)
    v_cartesian = np.empty(6 * nb)
    for b in range(nb):
        _multiply(R_WB[b], inertia[b], turn)
        _multiply_transposed(turn, R_WB[b], central_inertia[b])
        p0, p1, p2 = p_WB[b, 0], p_WB[b, 1], p_WB[b, 2]
        # Cartesian coordinates.
        for i in range(3):
            q_cartesian[7 * b + i] = p_WB[b, i]
        _euler_parameters(R_WB[b], q_cartesian[7 * b + 3 : 7 * b + 7])
        w0, w1, w2 = V[b, 0], V[b, 1], V[b, 2]
        v_cartesian[6 * b] = V[b, 3] + w1 * p2 - w2 * p1
        v_cartesian[6 * b + 1] = V[b, 4] + w2 * p0 - w0 * p2
        v_cartesian[6 * b + 2] = V[b, 5] + w0 * p1 - w1 * p0
        for i in range(3):
            v_cartesian[6 * b + 3 + i] = R_WB[b, 0, i] * w0 + R_WB[b, 1, i] * w1 + R_WB[b, 2, i] * w2
    return R_WB, p_WB, S, V, bias, central_inertia, q_cartesian, v_cartesian


@njit(cache=True)
def applied_spatial_forces(
    wrench: np.ndarray, mass: np.ndarray, gravity: np.ndarray, R_WB: np.ndarray, p_WB: np.ndarray
) -> np.ndarray:
    """Spatial forces (nb, 6) on the bodies: moment about the world origin [N m] and force [N] of
    gravity and of the element loads ``wrench`` (nb or nb+1, 6) (world force, body-axes moment
    about the CM, as ``forces.generalized_element_forces`` gives them)."""
    nb = mass.size
    applied = np.empty((nb, 6))
    for b in range(nb):
        f0 = wrench[b, 0] + mass[b] * gravity[0]
        f1 = wrench[b, 1] + mass[b] * gravity[1]
        f2 = wrench[b, 2] + mass[b] * gravity[2]
        p0, p1, p2 = p_WB[b, 0], p_WB[b, 1], p_WB[b, 2]
        for i in range(3):
            applied[b, i] = R_WB[b, i, 0] * wrench[b, 3] + R_WB[b, i, 1] * wrench[b, 4] + R_WB[b, i, 2] * wrench[b, 5]
        applied[b, 0] += p1 * f2 - p2 * f1
        applied[b, 1] += p2 * f0 - p0 * f2
        applied[b, 2] += p0 * f1 - p1 * f0
        applied[b, 3], applied[b, 4], applied[b, 5] = f0, f1, f2
    return applied


@njit(cache=True)
def spatial_accelerations(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    S: np.ndarray,
    bias: np.ndarray,
    u_dot: np.ndarray,
    nb: int,
) -> np.ndarray:
    """(nb+1, 6) body spatial accelerations [rad/s^2, m/s^2] for speed rates ``u_dot`` (n_u,): the
    outward pass ``A_child = A_parent + dS/dt u + S du/dt``; the ground row is zero."""
    A = np.zeros((nb + 1, 6))
    for k in range(parent.size):
        P, C = _ground_row(parent[k], nb), child[k]
        for i in range(6):
            s = A[P, i] + bias[k, i]
            for c in range(n_speeds[k]):
                s += S[k, i, c] * u_dot[u_start[k] + c]
            A[C, i] = s
    return A


@njit(cache=True)
def _invert_small(D: np.ndarray, n: int, D_inverse: np.ndarray) -> bool:
    """Invert the leading ``n`` x ``n`` block of ``D`` into ``D_inverse`` by Gauss-Jordan
    elimination with partial pivoting (``n`` <= 6). Returns False when a pivot is below
    ``SINGULAR_PIVOT`` times the largest entry (the block is singular)."""
    work = np.empty((6, 12))
    scale = 0.0
    for i in range(n):
        for j in range(n):
            work[i, j] = D[i, j]
            work[i, n + j] = 1.0 if i == j else 0.0
            scale = max(scale, abs(D[i, j]))
    for column in range(n):
        pivot = column
        for i in range(column + 1, n):
            if abs(work[i, column]) > abs(work[pivot, column]):
                pivot = i
        if not abs(work[pivot, column]) > SINGULAR_PIVOT * scale:
            return False
        if pivot != column:
            for j in range(2 * n):
                work[column, j], work[pivot, j] = work[pivot, j], work[column, j]
        reciprocal = 1.0 / work[column, column]
        for j in range(2 * n):
            work[column, j] *= reciprocal
        for i in range(n):
            if i != column and work[i, column] != 0.0:
                factor = work[i, column]
                for j in range(2 * n):
                    work[i, j] -= factor * work[column, j]
    for i in range(n):
        for j in range(n):
            D_inverse[i, j] = work[i, n + j]
    return True


@njit(cache=True)
def _add_shifted_inertia(inertia: np.ndarray, r: np.ndarray, out: np.ndarray) -> None:
    """Add the spatial inertia (6, 6) ``inertia`` about a point c, re-expressed about the point p
    with ``r = c - p`` [m], to ``out``: ``X^T I X`` with ``X = [[1, 0], [-R, 1]]``, ``R = skew(r)``.
    Blocks ``[[A, B], [B^T, C]]`` give ``[[A - B R + R B^T - R C R, B + R C], [., C]]``."""
    R = np.zeros((3, 3))
    R[0, 1], R[0, 2], R[1, 2] = -r[2], r[1], -r[0]
    R[1, 0], R[2, 0], R[2, 1] = r[2], -r[1], r[0]
    RC = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            RC[i, j] = R[i, 0] * inertia[3, 3 + j] + R[i, 1] * inertia[4, 3 + j] + R[i, 2] * inertia[5, 3 + j]
    for i in range(3):
        for j in range(3):
            BR = inertia[i, 3] * R[0, j] + inertia[i, 4] * R[1, j] + inertia[i, 5] * R[2, j]
            RBt = R[i, 0] * inertia[j, 3] + R[i, 1] * inertia[j, 4] + R[i, 2] * inertia[j, 5]
            RCR = RC[i, 0] * R[0, j] + RC[i, 1] * R[1, j] + RC[i, 2] * R[2, j]
            out[i, j] += inertia[i, j] - BR + RBt - RCR
            top_right = inertia[i, 3 + j] + RC[i, j]
            out[i, 3 + j] += top_right
            out[3 + j, i] += top_right
            out[3 + i, 3 + j] += inertia[3 + i, 3 + j]


@njit(cache=True)
def _about_child_centres(
    child: np.ndarray, n_speeds: np.ndarray, S: np.ndarray, bias: np.ndarray, p_WB: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The joints' motion subspaces (n, 6, 6) and ``dS/dt u`` (n, 6) of ``tree_kinematics``
    re-expressed about their child's CM ``p_WB`` (nb+1, 3) [m]: linear parts gain ``w x p``."""
    n = child.size
    S_C = np.zeros((n, 6, 6))
    bias_C = np.empty((n, 6))
    for k in range(n):
        p0, p1, p2 = p_WB[child[k], 0], p_WB[child[k], 1], p_WB[child[k], 2]
        for c in range(n_speeds[k]):
            a0, a1, a2 = S[k, 0, c], S[k, 1, c], S[k, 2, c]
            S_C[k, 0, c], S_C[k, 1, c], S_C[k, 2, c] = a0, a1, a2
            S_C[k, 3, c] = S[k, 3, c] + a1 * p2 - a2 * p1
            S_C[k, 4, c] = S[k, 4, c] + a2 * p0 - a0 * p2
            S_C[k, 5, c] = S[k, 5, c] + a0 * p1 - a1 * p0
        a0, a1, a2 = bias[k, 0], bias[k, 1], bias[k, 2]
        bias_C[k, 0], bias_C[k, 1], bias_C[k, 2] = a0, a1, a2
        bias_C[k, 3] = bias[k, 3] + a1 * p2 - a2 * p1
        bias_C[k, 4] = bias[k, 4] + a2 * p0 - a0 * p2
        bias_C[k, 5] = bias[k, 5] + a0 * p1 - a1 * p0
    return S_C, bias_C


@njit(cache=True)
def _central_inertias(mass: np.ndarray, central_inertia: np.ndarray) -> np.ndarray:
    """Spatial inertias (nb, 6, 6) about the CMs, world axes: ``diag(J_W, m I)``."""
    nb = mass.size
    inertia = np.zeros((nb, 6, 6))
    for b in range(nb):
        for i in range(3):
            for j in range(3):
                inertia[b, i, j] = central_inertia[b, i, j]
            inertia[b, 3 + i, 3 + i] = mass[b]
    return inertia


@njit(cache=True)
def _central_bias_forces(
    V: np.ndarray, applied: np.ndarray, p_WB: np.ndarray, mass: np.ndarray, central_inertia: np.ndarray
) -> np.ndarray:
    """(nb, 6) ``V x* (I V)`` minus the applied force, about each body's CM: what the body needs
    at zero acceleration, ``(w x J w - n_cm, m w x v_cm - f)``, from the world-origin velocities
    ``V`` and applied forces ``applied`` (the moment shifted to the CM)."""
    nb = applied.shape[0]
    out = np.empty((nb, 6))
    for b in range(nb):
        p0, p1, p2 = p_WB[b, 0], p_WB[b, 1], p_WB[b, 2]
        w0, w1, w2 = V[b, 0], V[b, 1], V[b, 2]
        h0 = central_inertia[b, 0, 0] * w0 + central_inertia[b, 0, 1] * w1 + central_inertia[b, 0, 2] * w2
        h1 = central_inertia[b, 1, 0] * w0 + central_inertia[b, 1, 1] * w1 + central_inertia[b, 1, 2] * w2
        h2 = central_inertia[b, 2, 0] * w0 + central_inertia[b, 2, 1] * w1 + central_inertia[b, 2, 2] * w2
        v0 = V[b, 3] + w1 * p2 - w2 * p1
        v1 = V[b, 4] + w2 * p0 - w0 * p2
        v2 = V[b, 5] + w0 * p1 - w1 * p0
        f0, f1, f2 = applied[b, 3], applied[b, 4], applied[b, 5]
        m = mass[b]
        out[b, 0] = w1 * h2 - w2 * h1 - (applied[b, 0] - p1 * f2 + p2 * f1)
        out[b, 1] = w2 * h0 - w0 * h2 - (applied[b, 1] - p2 * f0 + p0 * f2)
        out[b, 2] = w0 * h1 - w1 * h0 - (applied[b, 2] - p0 * f1 + p1 * f0)
        out[b, 3] = m * (w1 * v2 - w2 * v1) - f0
        out[b, 4] = m * (w2 * v0 - w0 * v2) - f1
        out[b, 5] = m * (w0 * v1 - w1 * v0) - f2
    return out


@njit(cache=True, inline="always")
def _add_force_about_parent(force: np.ndarray, r: np.ndarray, out: np.ndarray) -> None:
    """Add the spatial force (6,) ``force`` about the child's CM to ``out`` about the parent's,
    ``r`` (3,) = child CM - parent CM [m]: the moment gains ``r x f``."""
    out[0] += force[0] + r[1] * force[5] - r[2] * force[4]
    out[1] += force[1] + r[2] * force[3] - r[0] * force[5]
    out[2] += force[2] + r[0] * force[4] - r[1] * force[3]
    for i in range(3, 6):
        out[i] += force[i]


@njit(cache=True, inline="always")
def _add_motion_about_child(motion: np.ndarray, r: np.ndarray, out: np.ndarray) -> None:
    """Add the spatial motion vector (6,) ``motion`` about the parent's CM to ``out`` about the
    child's, ``r`` (3,) = child CM - parent CM [m]: the linear part gains ``w x r``."""
    for i in range(6):
        out[i] += motion[i]
    out[3] += motion[1] * r[2] - motion[2] * r[1]
    out[4] += motion[2] * r[0] - motion[0] * r[2]
    out[5] += motion[0] * r[1] - motion[1] * r[0]


@njit(cache=True)
def inverse_dynamics(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    S: np.ndarray,
    bias: np.ndarray,
    V: np.ndarray,
    applied: np.ndarray,
    p_WB: np.ndarray,
    mass: np.ndarray,
    central_inertia: np.ndarray,
    u_dot: np.ndarray,
) -> np.ndarray:
    """Generalized forces ``M u_dot - F`` (n_u,) [N, N m] the joints must add for rates ``u_dot``:
    recursive Newton-Euler, accelerations outwards, then subtree forces inwards, each body's
    quantities about its CM (arguments as for ``forward_dynamics``)."""
    n = parent.size
    nb = applied.shape[0]
    S_C, bias_C = _about_child_centres(child, n_speeds, S, bias, p_WB)
    A = np.zeros((nb, 6))
    r = np.empty(3)
    for k in range(n):
        P, C = parent[k], child[k]
        for i in range(6):
            s = bias_C[k, i]
            for c in range(n_speeds[k]):
                s += S_C[k, i, c] * u_dot[u_start[k] + c]
            A[C, i] = s
        if P >= 0:
            for i in range(3):
                r[i] = p_WB[C, i] - p_WB[P, i]
            _add_motion_about_child(A[P], r, A[C])
    f = _central_bias_forces(V, applied, p_WB, mass, central_inertia)
    for b in range(nb):
        for i in range(3):
            f[b, i] += (
                central_inertia[b, i, 0] * A[b, 0]
                + central_inertia[b, i, 1] * A[b, 1]
                + (central_inertia[b, i, 2] * A[b, 2])
            )
            f[b, 3 + i] += mass[b] * A[b, 3 + i]
    tau = np.zeros(u_dot.size)
    for k in range(n - 1, -1, -1):
        P, C = parent[k], child[k]
        for c in range(n_speeds[k]):
            s = 0.0
            for i in range(6):
                s += S_C[k, i, c] * f[C, i]
            tau[u_start[k] + c] = s
        if P >= 0:
            for i in range(3):
                r[i] = p_WB[C, i] - p_WB[P, i]
            _add_force_about_parent(f[C], r, f[P])
    return tau


@njit(cache=True)
def forward_dynamics(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    S: np.ndarray,
    bias: np.ndarray,
    V: np.ndarray,
    applied: np.ndarray,
    p_WB: np.ndarray,
    mass: np.ndarray,
    central_inertia: np.ndarray,
    n_u: int,
) -> tuple[np.ndarray, int]:
    """``(du/dt (n_u,), singular joint)``: the articulated-body recursion, solving ``M du/dt = F``
    of the tree without forming ``M``.

    ``S``, ``bias``, ``V`` and ``applied`` are the world-origin quantities of ``tree_kinematics``
    and ``applied_spatial_forces``; ``p_WB`` (nb+1, 3) [m] the CM positions, ``mass`` (nb,) [kg]
    and ``central_inertia`` (nb, 3, 3) [kg m^2] the inertia about the CM in world axes. The
    recursion runs with every body's quantities about its own CM (world axes), shifted between
    parent and child by their CM offset: about the world origin, inertias of bodies far from it
    grow as ``m |p|^2`` and the articulated-inertia updates would lose ``|p|^2 / l^2`` of the
    precision. Inwards, each joint eliminates its speeds from its child's articulated inertia
    (6, 6) and bias force (6,) (an ``n_u_k`` x ``n_u_k`` inverse) and passes the rest to the
    parent (``_articulated_inertias``, then ``_articulated_pass``); outwards, each joint's rates
    follow from its parent's acceleration. The second entry is -1, or the first joint (index)
    whose articulated inertia about its own axes is singular (then ``du/dt`` is meaningless)."""
    S_C, bias_C = _about_child_centres(child, n_speeds, S, bias, p_WB)
    U, D_inverse, passed, rigid, singular = _articulated_inertias(
        parent, child, n_speeds, S_C, p_WB, mass, central_inertia
    )
    if singular >= 0:
        return np.zeros(n_u), singular
    bias_force = _central_bias_forces(V, applied, p_WB, mass, central_inertia)
    u_dot = _articulated_pass(
        parent, child, n_speeds, u_start, S_C, bias_C, p_WB, U, D_inverse, passed, rigid, bias_force, np.zeros(n_u)
    )
    return u_dot, -1


@njit(cache=True)
def articulated_factorization(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    S: np.ndarray,
    p_WB: np.ndarray,
    mass: np.ndarray,
    central_inertia: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The tree's factorization of the generalized mass matrix ``M``, without forming it: the
    articulated-body recursion's inward pass. Returns ``(S_C, U, D_inverse, passed, rigid,
    singular)`` for ``articulated_solve``: the motion subspaces about the child CMs, the inward
    pass's ``U = I^A S``, ``(S^T I^A S)^-1`` and the inertia each joint passes to its parent, all
    (n, 6, 6); ``rigid`` (n,) whether a joint passes no inertia (six speeds); ``singular`` as for
    ``forward_dynamics``. The elimination order of the tree, leaves first, makes no fill-in: O(n)
    for any tree, a chain (depth n) included. Arguments as for ``forward_dynamics``."""
    S_C, _ = _about_child_centres(child, n_speeds, S, np.zeros((child.size, 6)), p_WB)
    U, D_inverse, passed, rigid, singular = _articulated_inertias(
        parent, child, n_speeds, S_C, p_WB, mass, central_inertia
    )
    return S_C, U, D_inverse, passed, rigid, singular


@njit(cache=True)
def articulated_solve(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    S_C: np.ndarray,
    p_WB: np.ndarray,
    U: np.ndarray,
    D_inverse: np.ndarray,
    passed: np.ndarray,
    rigid: np.ndarray,
    rhs: np.ndarray,
) -> np.ndarray:
    """``x`` (n_u,) with ``M x = rhs`` (n_u,) from ``articulated_factorization``'s factors:
    ``rhs`` taken as joint forces at rest, one inward pass (the forces each joint passes to its
    parent) and one outward pass (the accelerations ``x``). O(n)."""
    n, nb = parent.size, p_WB.shape[0] - 1
    return _articulated_pass(
        parent,
        child,
        n_speeds,
        u_start,
        S_C,
        np.zeros((n, 6)),
        p_WB,
        U,
        D_inverse,
        passed,
        rigid,
        np.zeros((nb, 6)),
        rhs,
    )


@njit(cache=True)
def _articulated_inertias(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    S_C: np.ndarray,
    p_WB: np.ndarray,
    mass: np.ndarray,
    central_inertia: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """``(U, D_inverse, passed, rigid, singular)`` of the inward pass (``articulated_factorization``)."""
    n = parent.size
    articulated = _central_inertias(mass, central_inertia)
    U = np.zeros((n, 6, 6))
    D_inverse = np.zeros((n, 6, 6))
    passed = np.zeros((n, 6, 6))
    rigid = np.zeros(n, dtype=np.bool_)
    D = np.empty((6, 6))
    UD = np.empty((6, 6))
    r = np.empty(3)
    for k in range(n - 1, -1, -1):
        C = child[k]
        nk = n_speeds[k]
        for i in range(6):
            for c in range(nk):
                s = 0.0
                for j in range(6):
                    s += articulated[C, i, j] * S_C[k, j, c]
                U[k, i, c] = s
        for row in range(nk):
            for c in range(nk):
                s = 0.0
                for i in range(6):
                    s += S_C[k, i, row] * U[k, i, c]
                D[row, c] = s
        if not _invert_small(D, nk, D_inverse[k]):
            return U, D_inverse, passed, rigid, k
        P = parent[k]
        rigid[k] = nk == 6
        if P < 0 or rigid[k]:
            # A joint of six speeds passes no inertia to its parent: ``I - U D^-1 U^T`` is exactly
            # zero. Computed as a difference it is round-off, which a chain of such joints (finite
            # segments) amplifies: twofold per joint on a 200-segment beam, whose recursion failed
            # by the middle.
            continue
        for i in range(6):
            for c in range(nk):
                s = 0.0
                for row in range(nk):
                    s += U[k, i, row] * D_inverse[k, row, c]
                UD[i, c] = s
        for i in range(6):
            for j in range(6):
                s = articulated[C, i, j]
                for c in range(nk):
                    s -= UD[i, c] * U[k, j, c]
                passed[k, i, j] = s
        for i in range(3):
            r[i] = p_WB[C, i] - p_WB[P, i]
        _add_shifted_inertia(passed[k], r, articulated[P])
    return U, D_inverse, passed, rigid, -1


@njit(cache=True)
def _articulated_pass(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    S_C: np.ndarray,
    bias_C: np.ndarray,
    p_WB: np.ndarray,
    U: np.ndarray,
    D_inverse: np.ndarray,
    passed: np.ndarray,
    rigid: np.ndarray,
    bias_force: np.ndarray,
    joint_force: np.ndarray,
) -> np.ndarray:
    """The speed rates (n_u,) of the articulated-body recursion from the factors of
    ``_articulated_inertias``: inwards, each joint's force ``joint_force - S^T p`` and the bias
    force ``p + I^a c + U D^-1 (joint_force - S^T p)`` it passes to its parent, starting from the
    bodies' ``bias_force`` (nb, 6) (overwritten); outwards, the rates and accelerations, with the
    joints' velocity-product accelerations ``bias_C`` (n, 6) (all about the child CMs). A
    ``rigid`` joint passes exactly ``U D^-1 joint_force`` (``U D^-1 S^T = 1`` for six speeds): as
    a difference, the bias part would be round-off instead of zero."""
    n = parent.size
    nb = bias_force.shape[0]
    torque = np.zeros((n, 6))
    eliminated = np.empty(6)
    passed_force = np.empty(6)
    r = np.empty(3)
    for k in range(n - 1, -1, -1):
        C = child[k]
        nk = n_speeds[k]
        for row in range(nk):
            s = joint_force[u_start[k] + row]
            for i in range(6):
                s -= S_C[k, i, row] * bias_force[C, i]
            torque[k, row] = s
        P = parent[k]
        if P < 0:
            continue
        for c in range(nk):
            # the joint forces whose response ``U D^-1`` passes on (a rigid joint: only the applied)
            eliminated[c] = joint_force[u_start[k] + c] if rigid[k] else torque[k, c]
        for i in range(6):
            s = 0.0
            if not rigid[k]:
                s = bias_force[C, i]
                for j in range(6):
                    s += passed[k, i, j] * bias_C[k, j]
            for c in range(nk):
                for row in range(nk):
                    s += U[k, i, row] * D_inverse[k, row, c] * eliminated[c]
            passed_force[i] = s
        for i in range(3):
            r[i] = p_WB[C, i] - p_WB[P, i]
        _add_force_about_parent(passed_force, r, bias_force[P])
    A = np.zeros((nb, 6))
    u_dot = np.zeros(joint_force.size)
    a = np.empty(6)
    rate = np.empty(6)
    for k in range(n):
        P, C = parent[k], child[k]
        nk = n_speeds[k]
        for i in range(6):
            a[i] = bias_C[k, i]
        if P >= 0:
            for i in range(3):
                r[i] = p_WB[C, i] - p_WB[P, i]
            _add_motion_about_child(A[P], r, a)
        for row in range(nk):
            s = torque[k, row]
            for i in range(6):
                s -= U[k, i, row] * a[i]
            rate[row] = s
        for row in range(nk):
            s = 0.0
            for c in range(nk):
                s += D_inverse[k, row, c] * rate[c]
            u_dot[u_start[k] + row] = s
        for i in range(6):
            s = a[i]
            for c in range(nk):
                s += S_C[k, i, c] * u_dot[u_start[k] + c]
            A[C, i] = s
    return u_dot


@njit(cache=True)
def mass_matrix(
    parent: np.ndarray,
    child: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    body_joint: np.ndarray,
    S: np.ndarray,
    p_WB: np.ndarray,
    mass: np.ndarray,
    central_inertia: np.ndarray,
    n_u: int,
) -> np.ndarray:
    """Generalized mass matrix (n_u, n_u) by composite bodies: ``M[j, k] = S_j^T I^c_k S_k`` for
    every joint ``j`` on the path of joint ``k`` to the ground (``body_joint`` (nb,): the joint
    whose child each body is), with each composite inertia about its body's CM and the columns
    ``I^c_k S_k`` (forces) carried down the path to each ancestor's CM. O(nb * depth)."""
    n = parent.size
    S_C, _ = _about_child_centres(child, n_speeds, S, np.zeros((n, 6)), p_WB)
    composite = _central_inertias(mass, central_inertia)
    r = np.empty(3)
    for k in range(n - 1, -1, -1):
        P, C = parent[k], child[k]
        if P >= 0:
            for i in range(3):
                r[i] = p_WB[C, i] - p_WB[P, i]
            _add_shifted_inertia(composite[C], r, composite[P])
    M = np.zeros((n_u, n_u))
    F = np.empty((6, 6))
    column = np.empty(6)
    for k in range(n):
        nk = n_speeds[k]
        C = child[k]
        for i in range(6):
            for c in range(nk):
                s = 0.0
                for j in range(6):
                    s += composite[C, i, j] * S_C[k, j, c]
                F[i, c] = s
        body = C
        while body >= 0:
            ancestor = body_joint[body]
            for row in range(n_speeds[ancestor]):
                for c in range(nk):
                    s = 0.0
                    for i in range(6):
                        s += S_C[ancestor, i, row] * F[i, c]
                    M[u_start[ancestor] + row, u_start[k] + c] = s
                    M[u_start[k] + c, u_start[ancestor] + row] = s
            up = parent[ancestor]
            if up >= 0:
                for i in range(3):
                    r[i] = p_WB[body, i] - p_WB[up, i]
                for c in range(nk):
                    for i in range(6):
                        column[i] = 0.0
                    _add_force_about_parent(F[:, c], r, column)
                    for i in range(6):
                        F[i, c] = column[i]
            body = up
    return M


@njit(cache=True)
def body_jacobians(
    parent: np.ndarray,
    n_speeds: np.ndarray,
    u_start: np.ndarray,
    body_joint: np.ndarray,
    S: np.ndarray,
    bodies: np.ndarray,
    n_u: int,
) -> np.ndarray:
    """(k, 6, n_u) spatial partial velocities of ``bodies`` (k,): the columns ``S_j`` of the
    joints on each one's path to the ground (the lower-body array), zeros elsewhere. O(k * depth)."""
    J = np.zeros((bodies.size, 6, n_u))
    for row in range(bodies.size):
        body = bodies[row]
        while body >= 0:
            k = body_joint[body]
            for c in range(n_speeds[k]):
                for i in range(6):
                    J[row, i, u_start[k] + c] = S[k, i, c]
            body = parent[k]
    return J


@njit(cache=True)
def position_rate(
    q: np.ndarray, u: np.ndarray, plain_q: np.ndarray, plain_u: np.ndarray, ball_q: np.ndarray, ball_u: np.ndarray
) -> np.ndarray:
    """``dq/dt`` (n_q,): ``u`` for angles and translations (``plain_q`` <- ``plain_u``) and
    ``1/2 L(e)^T w`` for the Euler parameters ``ball_q`` (n, 4) of joints with O-axes angular
    velocity ``ball_u`` (n, 3)."""
    rate = np.empty(q.size)
    for k in range(plain_q.size):
        rate[plain_q[k]] = u[plain_u[k]]
    for k in range(ball_q.shape[0]):
        e0, e1, e2, e3 = 0.5 * q[ball_q[k, 0]], 0.5 * q[ball_q[k, 1]], 0.5 * q[ball_q[k, 2]], 0.5 * q[ball_q[k, 3]]
        w0, w1, w2 = u[ball_u[k, 0]], u[ball_u[k, 1]], u[ball_u[k, 2]]
        rate[ball_q[k, 0]] = -e1 * w0 - e2 * w1 - e3 * w2
        rate[ball_q[k, 1]] = e0 * w0 - e3 * w1 + e2 * w2
        rate[ball_q[k, 2]] = e3 * w0 + e0 * w1 - e1 * w2
        rate[ball_q[k, 3]] = -e2 * w0 + e1 * w1 + e0 * w2
    return rate
