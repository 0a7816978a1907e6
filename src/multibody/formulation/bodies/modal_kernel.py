"""Compiled kernels of the modal body kind (``multibody.formulation.bodies.modal``): one pass each over
all modal bodies or all markers on them, on the arrays ``ModalBodies`` computes once.

Per body the invariants are zero-padded to the most modes of any body (``mm``); a body's own count
``m`` bounds every loop, so the padding is never read. Per marker ``T``, ``A`` (3, mm) are its
translation and rotation modes (body axes) and ``columns`` (mm,) its body's modal coordinates in
``q`` or ``v``. Equations: see ``modal``'s module docstring and ``multibody.fem.invariants``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.fem.invariants import mass_and_quadratic_velocity
from multibody.formulation.bodies.rigid import VELOCITY_WIDTH


@njit(cache=True, inline="always")
def _cross_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a x b`` (3,)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def _modal_vector(modes: np.ndarray, values: np.ndarray, columns: np.ndarray, count: int, out: np.ndarray) -> None:
    """``out = modes[:, :count] @ values[columns[:count]]`` (3,) for modes (3, mm)."""
    for a in range(3):
        total = 0.0
        for j in range(count):
            total += modes[a, j] * values[columns[j]]
        out[a] = total


@njit(cache=True)
def deform_markers(
    q: np.ndarray,
    marker: np.ndarray,
    marker_positions: np.ndarray,
    marker_count: np.ndarray,
    translation_modes: np.ndarray,
    rotation_modes: np.ndarray,
    positions: np.ndarray,
    orientations: np.ndarray,
) -> None:
    """Deform the markers on modal bodies in place: ``positions[marker] += T q_f`` (nm, 3) [m] and
    ``orientations[marker] = exp(skew(A q_f)) orientations[marker]`` (nm, 3, 3), the exact rotation of
    the small rotation vector (Rodrigues' formula, its series below 1e-8 rad)."""
    displacement = np.empty(3)
    theta = np.empty(3)
    turn = np.empty((3, 3))
    turned = np.empty((3, 3))
    for k in range(marker.size):
        i = marker[k]
        _modal_vector(translation_modes[k], q, marker_positions[k], marker_count[k], displacement)
        _modal_vector(rotation_modes[k], q, marker_positions[k], marker_count[k], theta)
        for a in range(3):
            positions[i, a] += displacement[a]
        angle = np.sqrt(theta[0] ** 2 + theta[1] ** 2 + theta[2] ** 2)
        if angle < 1e-8:
            first, second = 1.0, 0.5
        else:
            first, second = np.sin(angle) / angle, (1.0 - np.cos(angle)) / angle**2
        # exp(skew(theta)) = I + first skew(theta) + second skew(theta)^2, skew^2 = theta theta^T - |theta|^2 I
        for a in range(3):
            for b in range(3):
                turn[a, b] = second * theta[a] * theta[b]
            turn[a, a] += 1.0 - second * angle**2
        turn[0, 1] -= first * theta[2]
        turn[0, 2] += first * theta[1]
        turn[1, 0] += first * theta[2]
        turn[1, 2] -= first * theta[0]
        turn[2, 0] -= first * theta[1]
        turn[2, 1] += first * theta[0]
        for a in range(3):
            for b in range(3):
                turned[a, b] = (
                    turn[a, 0] * orientations[i, 0, b]
                    + turn[a, 1] * orientations[i, 1, b]
                    + turn[a, 2] * orientations[i, 2, b]
                )
        orientations[i] = turned


@njit(cache=True)
def add_marker_motion(
    v: np.ndarray,
    marker: np.ndarray,
    marker_frame: np.ndarray,
    marker_velocities: np.ndarray,
    marker_count: np.ndarray,
    translation_modes: np.ndarray,
    rotation_modes: np.ndarray,
    R_WB: np.ndarray,
    w_WB_W: np.ndarray,
    v_WM_W: np.ndarray,
    w_WM_W: np.ndarray,
    bias_WM_W: np.ndarray,
) -> None:
    """Add ``R_WB T q_f'`` to the markers' velocities, ``R_WB A q_f'`` to their angular velocities and
    the Coriolis term ``2 w_WB x R_WB T q_f'`` to their acceleration biases (nm, 3 each, world, in place)."""
    elastic_B = np.empty(3)
    elastic_W = np.empty(3)
    coriolis = np.empty(3)
    for k in range(marker.size):
        i, b = marker[k], marker_frame[k]
        R = R_WB[b]
        _modal_vector(translation_modes[k], v, marker_velocities[k], marker_count[k], elastic_B)
        for a in range(3):
            elastic_W[a] = R[a, 0] * elastic_B[0] + R[a, 1] * elastic_B[1] + R[a, 2] * elastic_B[2]
            v_WM_W[i, a] += elastic_W[a]
        _cross_into(w_WB_W[b], elastic_W, coriolis)
        for a in range(3):
            bias_WM_W[i, a] += 2.0 * coriolis[a]
        _modal_vector(rotation_modes[k], v, marker_velocities[k], marker_count[k], elastic_B)
        for a in range(3):
            w_WM_W[i, a] += R[a, 0] * elastic_B[0] + R[a, 1] * elastic_B[1] + R[a, 2] * elastic_B[2]


@njit(cache=True, inline="always")
def _marker_twist_coefficients(
    body_coefficients: np.ndarray, r: int, side: int, p_BM_W: np.ndarray, a_v: np.ndarray, a_w: np.ndarray
) -> None:
    """Row ``r``'s coefficients ``(a_v, a_w)`` on its ``side`` (0: I, 2: J) marker's twist from the world
    body coefficients (m, 4, 3): ``a_v = g_v``, ``a_w = g_w - p_BM x g_v``."""
    g_v, g_w = body_coefficients[r, side], body_coefficients[r, side + 1]
    for a in range(3):
        a_v[a] = g_v[a]
    _cross_into(p_BM_W, g_v, a_w)
    for a in range(3):
        a_w[a] = g_w[a] - a_w[a]


@njit(cache=True)
def jacobian_entries(
    slot: np.ndarray,
    marker_frame: np.ndarray,
    marker_velocities: np.ndarray,
    marker_count: np.ndarray,
    translation_modes: np.ndarray,
    rotation_modes: np.ndarray,
    i_marker: np.ndarray,
    j_marker: np.ndarray,
    body_coefficients: np.ndarray,
    p_BM_W: np.ndarray,
    R_WB: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row, column, value)`` of the modal columns of ``G``: per row side on a modal body's marker,
    ``(R_WB^T a_v) . T + (R_WB^T a_w) . A`` on its body's modal velocities (duplicates to be summed)."""
    count = 0
    for r in range(i_marker.size):
        for n in (slot[i_marker[r]], slot[j_marker[r]]):
            if n >= 0:
                count += marker_count[n]
    rows = np.empty(count, np.int64)
    columns = np.empty(count, np.int64)
    values = np.empty(count)
    a_v, a_w = np.empty(3), np.empty(3)
    b_v, b_w = np.empty(3), np.empty(3)
    entry = 0
    for side in (0, 2):
        markers = i_marker if side == 0 else j_marker
        for r in range(markers.size):
            n = slot[markers[r]]
            if n < 0:
                continue
            _marker_twist_coefficients(body_coefficients, r, side, p_BM_W[markers[r]], a_v, a_w)
            R = R_WB[marker_frame[n]]
            for a in range(3):  # the coefficients in body axes
                b_v[a] = R[0, a] * a_v[0] + R[1, a] * a_v[1] + R[2, a] * a_v[2]
                b_w[a] = R[0, a] * a_w[0] + R[1, a] * a_w[1] + R[2, a] * a_w[2]
            T, A = translation_modes[n], rotation_modes[n]
            for j in range(marker_count[n]):
                rows[entry] = r
                columns[entry] = marker_velocities[n, j]
                values[entry] = (
                    b_v[0] * T[0, j] + b_v[1] * T[1, j] + b_v[2] * T[2, j]
                    + b_w[0] * A[0, j] + b_w[1] * A[1, j] + b_w[2] * A[2, j]
                )  # fmt: skip
                entry += 1
    return rows, columns, values


@njit(cache=True)
def angular_bias_rhs(
    slot: np.ndarray,
    i_marker: np.ndarray,
    j_marker: np.ndarray,
    body_coefficients: np.ndarray,
    p_BM_W: np.ndarray,
    w_WB_W: np.ndarray,
    w_WM_W: np.ndarray,
    marker_body: np.ndarray,
) -> np.ndarray:
    """The rows' ``gamma`` (m,) from the angular acceleration bias ``w_WB x (w_WM - w_WB)`` of markers on
    modal bodies: ``-(a_wI . bias_I + a_wJ . bias_J)``."""
    gamma = np.zeros(i_marker.size)
    a_v, a_w = np.empty(3), np.empty(3)
    relative, bias = np.empty(3), np.empty(3)
    for side in (0, 2):
        markers = i_marker if side == 0 else j_marker
        for r in range(markers.size):
            i = markers[r]
            if slot[i] < 0:
                continue
            w_WB = w_WB_W[marker_body[i]]
            for a in range(3):
                relative[a] = w_WM_W[i, a] - w_WB[a]
            _cross_into(w_WB, relative, bias)
            _marker_twist_coefficients(body_coefficients, r, side, p_BM_W[i], a_v, a_w)
            gamma[r] -= a_w[0] * bias[0] + a_w[1] * bias[1] + a_w[2] * bias[2]
    return gamma


@njit(cache=True)
def load_forces(
    slot: np.ndarray,
    marker_frame: np.ndarray,
    marker_velocities: np.ndarray,
    marker_count: np.ndarray,
    translation_modes: np.ndarray,
    rotation_modes: np.ndarray,
    force_W: np.ndarray,
    torque_W: np.ndarray,
    marker: np.ndarray,
    sign: np.ndarray,
    application: np.ndarray,
    p_WM_W: np.ndarray,
    R_WB: np.ndarray,
    out: np.ndarray,
) -> None:
    """Add to ``out`` (nv,) ``T^T R^T F + A^T R^T (T + r x F)`` of the loads ``sign (F, T)`` carried by
    markers on modal bodies (see ``modal.load_forces``)."""
    force, torque, arm, moment = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    force_B, torque_B = np.empty(3), np.empty(3)
    for k in range(marker.size):
        n = slot[marker[k]]
        if n < 0:
            continue
        for a in range(3):
            force[a] = sign[k] * force_W[k, a]
            arm[a] = p_WM_W[application[k], a] - p_WM_W[marker[k], a]
        _cross_into(arm, force, moment)
        for a in range(3):
            torque[a] = sign[k] * torque_W[k, a] + moment[a]
        R = R_WB[marker_frame[n]]
        for a in range(3):
            force_B[a] = R[0, a] * force[0] + R[1, a] * force[1] + R[2, a] * force[2]
            torque_B[a] = R[0, a] * torque[0] + R[1, a] * torque[1] + R[2, a] * torque[2]
        T, A = translation_modes[n], rotation_modes[n]
        for j in range(marker_count[n]):
            out[marker_velocities[n, j]] += (
                force_B[0] * T[0, j] + force_B[1] * T[1, j] + force_B[2] * T[2, j]
                + torque_B[0] * A[0, j] + torque_B[1] * A[1, j] + torque_B[2] * A[2, j]
            )  # fmt: skip


@njit(cache=True)
def body_terms(
    q: np.ndarray,
    v: np.ndarray,
    R_WB: np.ndarray,
    gravity: np.ndarray,
    frame: np.ndarray,
    q_offset: np.ndarray,
    v_offset: np.ndarray,
    count: np.ndarray,
    mass: np.ndarray,
    first_moment: np.ndarray,
    inertia: np.ndarray,
    translation_coupling: np.ndarray,
    rotation_coupling: np.ndarray,
    modal_mass: np.ndarray,
    position_modes: np.ndarray,
    mode_products: np.ndarray,
    cross_products: np.ndarray,
    stiffness: np.ndarray,
    damping: np.ndarray,
    spin_stiffness: np.ndarray,
    spin_axis: np.ndarray,
    block_start: np.ndarray,
    out: np.ndarray,
    blocks: np.ndarray,
) -> float:
    """All modal bodies at ``(q, v)``: add to ``out`` (nv,) ``D (Q_v + M [w x v_B; 0; 0] + Q_g) - [0; (K +
    Omega^2 K_G) q_f + C q_f']`` and write ``D M(q_f) D^T`` ((6+m)^2, row-major) into ``blocks`` from
    ``block_start[k]``; ``D = diag(R_WB, I3, I_m)``. Returns the power of the modal damping [W].
    Invariants padded per body (``ModalBodies.kernel_arrays``); frames of bodies ``frame`` (nf,)."""
    most = int(count.max()) if count.size else 0
    M = np.empty((6 + most, 6 + most))
    quadratic = np.empty(6 + most)
    u = np.empty(6 + most)
    body_axes = np.empty(6 + most)
    g_B, s, moment, spin_velocity, transport = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    dissipated = 0.0
    for k in range(frame.size):
        m = count[k]
        n = 6 + m
        R = R_WB[frame[k]]
        columns = VELOCITY_WIDTH * frame[k]  # the frame's v_WO_W, then w_WB_B
        q_f = q[q_offset[k] : q_offset[k] + m]
        qdot = v[v_offset[k] : v_offset[k] + m]
        for a in range(3):
            u[a] = R[0, a] * v[columns] + R[1, a] * v[columns + 1] + R[2, a] * v[columns + 2]
            u[3 + a] = v[columns + 3 + a]
            g_B[a] = R[0, a] * gravity[0] + R[1, a] * gravity[1] + R[2, a] * gravity[2]
        u[6:n] = qdot
        mass_and_quadratic_velocity(
            mass[k],
            first_moment[k],
            inertia[k],
            translation_coupling[k, :, :m],
            rotation_coupling[k, :, :m],
            modal_mass[k, :m, :m],
            position_modes[k, :m],
            mode_products[k, :m, :m],
            cross_products[k, :m, :m],
            q_f,
            u[:n],
            M[:n, :n],
            quadratic[:n],
        )
        # gravity: (m g_B, s(q) x g_B, S_t^T g_B); transport M [w x v_B; 0; 0]
        for a in range(3):
            s[a] = first_moment[k, a]
            for j in range(m):
                s[a] += translation_coupling[k, a, j] * q_f[j]
        _cross_into(s, g_B, moment)
        _cross_into(u[3:6], u[:3], spin_velocity)
        for i in range(n):
            transport_i = M[i, 0] * spin_velocity[0] + M[i, 1] * spin_velocity[1] + M[i, 2] * spin_velocity[2]
            body_axes[i] = quadratic[i] + transport_i
        for a in range(3):
            body_axes[a] += mass[k] * g_B[a]
            body_axes[3 + a] += moment[a]
        spin = u[3] * spin_axis[k, 0] + u[4] * spin_axis[k, 1] + u[5] * spin_axis[k, 2]
        for j in range(m):
            weight = 0.0
            elastic = 0.0
            damping_force = 0.0
            for a in range(3):
                weight += translation_coupling[k, a, j] * g_B[a]
            for l in range(m):
                elastic += (stiffness[k, j, l] + spin * spin * spin_stiffness[k, j, l]) * q_f[l]
                damping_force += damping[k, j, l] * qdot[l]
            body_axes[6 + j] += weight - elastic - damping_force
            dissipated += qdot[j] * damping_force
        # into the layout's coordinates: D body_axes, D M D^T
        for a in range(3):
            transport[a] = R[a, 0] * body_axes[0] + R[a, 1] * body_axes[1] + R[a, 2] * body_axes[2]
        for a in range(3):
            out[columns + a] += transport[a]
            out[columns + 3 + a] += body_axes[3 + a]
        for j in range(m):
            out[v_offset[k] + j] += body_axes[6 + j]
        block = blocks[block_start[k] : block_start[k] + n * n].reshape((n, n))
        block[:, :] = M[:n, :n]
        for j in range(n):  # rows 0..2 and columns 0..2 turned by R
            for a in range(3):
                transport[a] = R[a, 0] * M[0, j] + R[a, 1] * M[1, j] + R[a, 2] * M[2, j]
            for a in range(3):
                block[a, j] = transport[a]
        for i in range(n):
            for a in range(3):
                transport[a] = block[i, 0] * R[a, 0] + block[i, 1] * R[a, 1] + block[i, 2] * R[a, 2]
            for a in range(3):
                block[i, a] = transport[a]
    return dissipated
