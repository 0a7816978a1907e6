"""Constraint equations of the Cartesian formulation, evaluated in vectorized groups by kind.

For a set of rows (see ``multibody.model.joints.base`` for the primitive kinds):

``Phi(q, t)``          position-level residual (m,)
``G(q)``               Jacobian in velocity space, ``dPhi/dt = G v - nu`` (m, 6 nb)
``nu(q, t)``           velocity right-hand side, ``G v = nu`` (m,): ``-dPhi/dt`` at ``v = 0``
``gamma(q, v, t)``     acceleration right-hand side, ``G dv/dt = gamma`` (m,)

Every row is written through world-frame coefficients of the velocities of its two bodies:
``dPhi/dt = g_vi . v_i + g_wi . w_i + g_vj . v_j + g_wj . w_j - nu`` (angular velocities
in world); the body-components Jacobian follows as ``[g_v, R_WB^T g_w]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray, cross
from multibody.system.system import CONSTRAINT_KINDS, ConstraintRows, System

KIND = {name: code for code, name in enumerate(CONSTRAINT_KINDS)}


@dataclass(frozen=True)
class ConstraintJacobian:
    """``G`` as world-frame coefficients per row (m, 3) for the I-side and J-side bodies."""

    g_vi: FloatArray
    g_wi: FloatArray
    g_vj: FloatArray
    g_wj: FloatArray


@dataclass(frozen=True)
class RowGeometry:
    """Marker vectors of each row at one pose (world components, (m, 3) each)."""

    body_i: np.ndarray
    body_j: np.ndarray
    a_I: FloatArray
    """axis ``i_axis`` of marker I (x_I for drivers)"""
    b_J: FloatArray
    """axis ``j_axis`` of marker J"""
    x_J: FloatArray
    y_J: FloatArray
    d: FloatArray
    """I origin from J origin [m]"""
    p_I_from_i: FloatArray
    """I origin from body i's CM [m]"""
    p_J_from_j: FloatArray
    """J origin from body j's CM [m]"""


def row_geometry(system: System, rows: ConstraintRows, frames: Pose) -> RowGeometry:
    """Gather the marker vectors every row kind needs."""
    i, j = rows.i_marker, rows.j_marker
    R_I, R_J = frames.R_WM[i], frames.R_WM[j]
    m = np.arange(len(rows))
    return RowGeometry(
        body_i=system.marker_body[i],
        body_j=system.marker_body[j],
        a_I=R_I[m, :, np.maximum(rows.i_axis, 0)],
        b_J=R_J[m, :, np.maximum(rows.j_axis, 0)],
        x_J=R_J[:, :, 0],
        y_J=R_J[:, :, 1],
        d=frames.p_WM_W[i] - frames.p_WM_W[j],
        p_I_from_i=frames.p_BM_W[i],
        p_J_from_j=frames.p_BM_W[j],
    )


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def _drivers(rows: ConstraintRows, index: np.ndarray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Prescribed value, rate and acceleration of the driver rows ``index`` at time ``t``."""
    functions = [rows.driver[r] for r in index]
    return (
        np.array([f.value(t) for f in functions], dtype=float),
        np.array([f.derivative(t) for f in functions], dtype=float),
        np.array([f.second_derivative(t) for f in functions], dtype=float),
    )


def position_level(
    system: System, rows: ConstraintRows, frames: Pose
) -> tuple[FloatArray, ConstraintJacobian, FloatArray]:
    """``(Phi (m,), G as world coefficients, nu (m,))`` at ``frames`` (time ``frames.t``)."""
    geo = row_geometry(system, rows, frames)
    m = len(rows)
    phi = np.zeros(m)
    nu = np.zeros(m)
    g_vi, g_wi, g_vj, g_wj = (np.zeros((m, 3)) for _ in range(4))
    e_J = geo.d + geo.p_J_from_j  # I origin from body j's CM

    def translational(k: np.ndarray, direction: FloatArray, j_direction_turns: bool) -> None:
        """Row ``direction . d``: moving points I (body i) and J (body j)."""
        g_vi[k] = direction
        g_wi[k] = cross(geo.p_I_from_i[k], direction)
        g_vj[k] = -direction
        g_wj[k] = cross(direction, e_J[k]) if j_direction_turns else -cross(geo.p_J_from_j[k], direction)

    k = np.flatnonzero(rows.kind == KIND["coincident"])
    if k.size:
        axis = np.eye(3)[rows.j_axis[k]]
        phi[k] = _dot(axis, geo.d[k])
        translational(k, axis, False)

    k = np.flatnonzero(rows.kind == KIND["perpendicular"])
    if k.size:
        phi[k] = _dot(geo.a_I[k], geo.b_J[k])
        axb = cross(geo.a_I[k], geo.b_J[k])
        g_wi[k], g_wj[k] = axb, -axb

    k = np.flatnonzero(rows.kind == KIND["in_plane"])
    if k.size:
        phi[k] = _dot(geo.b_J[k], geo.d[k])
        translational(k, geo.b_J[k], True)

    k = np.flatnonzero(rows.kind == KIND["distance"])
    if k.size:
        length = np.linalg.norm(geo.d[k], axis=1)
        phi[k] = length - rows.parameter[k]
        translational(k, geo.d[k] / length[:, None], False)

    k = np.flatnonzero(rows.kind == KIND["translation_driver"])
    if k.size:
        f, f_dot, _ = _drivers(rows, k, frames.t)
        z_J = geo.b_J[k]
        phi[k] = _dot(z_J, geo.d[k]) - f
        nu[k] = f_dot
        translational(k, z_J, True)

    k = np.flatnonzero(rows.kind == KIND["rotation_driver"])
    if k.size:
        f, f_dot, _ = _drivers(rows, k, frames.t)
        x_I, x_J, y_J = geo.a_I[k], geo.x_J[k], geo.y_J[k]
        sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)  # sin and cos of the joint angle
        c, s = np.cos(f), np.sin(f)
        phi[k] = c * sine - s * cosine  # sin(theta - f)
        nu[k] = f_dot * (s * sine + c * cosine)
        g = c[:, None] * cross(x_I, y_J) - s[:, None] * cross(x_I, x_J)
        g_wi[k], g_wj[k] = g, -g

    k = np.flatnonzero(rows.kind == KIND["constant_velocity"])
    if k.size:
        x_I, y_J = geo.a_I[k], geo.b_J[k]
        y_I, x_J = frames.R_WM[rows.i_marker[k]][:, :, 1], geo.x_J[k]
        phi[k] = _dot(x_I, y_J) + _dot(y_I, x_J)
        g = cross(x_I, y_J) + cross(y_I, x_J)
        g_wi[k], g_wj[k] = g, -g

    k = np.flatnonzero(rows.kind == KIND["screw"])
    if k.size:
        # sin(theta - f) with theta the angle of x_I from x_J about z_J and f = 2 pi (z_J . d) / pitch
        turns_per_length = 2.0 * np.pi / rows.parameter[k]
        x_I, x_J, y_J, z_J = geo.a_I[k], geo.x_J[k], geo.y_J[k], geo.b_J[k]
        f = turns_per_length * _dot(z_J, geo.d[k])
        sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)
        c, s = np.cos(f), np.sin(f)
        phi[k] = c * sine - s * cosine
        translational(k, z_J, True)  # the rows of z_J . d, scaled by d(phi)/d(f) below
        along = (-(s * sine + c * cosine) * turns_per_length)[:, None]
        g = c[:, None] * cross(x_I, y_J) - s[:, None] * cross(x_I, x_J)
        g_vi[k], g_vj[k] = along * g_vi[k], along * g_vj[k]
        g_wi[k], g_wj[k] = along * g_wi[k] + g, along * g_wj[k] - g

    return phi, ConstraintJacobian(g_vi, g_wi, g_vj, g_wj), nu


def acceleration_rhs(system: System, rows: ConstraintRows, frames: Pose, motion: Twist) -> FloatArray:
    """``gamma`` (m,) with ``G dv/dt = gamma``: minus the quadratic-velocity and explicit-time
    parts of the second time derivative of each row."""
    geo = row_geometry(system, rows, frames)
    m = len(rows)
    gamma = np.zeros(m)
    w_i, w_j = motion.w_WB_W[geo.body_i], motion.w_WB_W[geo.body_j]
    # Centripetal accelerations of points I (on body i) and J (on body j).
    centripetal = cross(w_i, cross(w_i, geo.p_I_from_i)) - cross(w_j, cross(w_j, geo.p_J_from_j))
    d_dot = motion.v_WM_W[rows.i_marker] - motion.v_WM_W[rows.j_marker]

    def turning_dot(k: np.ndarray, a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
        """For ``a . b`` with ``a`` on body i and ``b`` on body j: (rate, minus the quadratic part)."""
        rate = _dot(cross(a, b), w_i[k] - w_j[k])
        quadratic = _dot(cross(cross(w_i[k], a), b) + cross(a, cross(w_j[k], b)), w_i[k] - w_j[k])
        return rate, -quadratic

    def turning_plane(k: np.ndarray, b: FloatArray) -> FloatArray:
        """``-(quadratic part)`` of ``b . d`` with ``b`` turning with body j."""
        wb = cross(w_j[k], b)
        return -(_dot(cross(w_j[k], wb), geo.d[k]) + 2.0 * _dot(wb, d_dot[k]) + _dot(b, centripetal[k]))

    k = np.flatnonzero(rows.kind == KIND["coincident"])
    if k.size:
        gamma[k] = -centripetal[k, rows.j_axis[k]]

    k = np.flatnonzero(rows.kind == KIND["perpendicular"])
    if k.size:
        gamma[k] = turning_dot(k, geo.a_I[k], geo.b_J[k])[1]

    k = np.flatnonzero(rows.kind == KIND["in_plane"])
    if k.size:
        gamma[k] = turning_plane(k, geo.b_J[k])

    k = np.flatnonzero(rows.kind == KIND["distance"])
    if k.size:
        length = np.linalg.norm(geo.d[k], axis=1)
        u = geo.d[k] / length[:, None]
        u_dot_d = _dot(u, d_dot[k])
        gamma[k] = -(_dot(u, centripetal[k]) + (_dot(d_dot[k], d_dot[k]) - u_dot_d**2) / length)

    k = np.flatnonzero(rows.kind == KIND["translation_driver"])
    if k.size:
        _, _, f_ddot = _drivers(rows, k, frames.t)
        gamma[k] = turning_plane(k, geo.b_J[k]) + f_ddot

    def angle_following(k: np.ndarray, f: FloatArray, f_dot: FloatArray, f_ddot: FloatArray) -> FloatArray:
        """``gamma`` of ``sin(theta - f)``, theta the angle of x_I from x_J about z_J, for given
        rates of f (``f_ddot``: the part of f's second rate that is not in the Jacobian)."""
        x_I, x_J, y_J = geo.a_I[k], geo.x_J[k], geo.y_J[k]
        sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)
        sine_rate, sine_gamma = turning_dot(k, x_I, y_J)
        cosine_rate, cosine_gamma = turning_dot(k, x_I, x_J)
        c, s = np.cos(f), np.sin(f)
        return (
            c * sine_gamma
            - s * cosine_gamma
            + 2.0 * f_dot * (s * sine_rate + c * cosine_rate)
            + f_ddot * (s * sine + c * cosine)
            + f_dot**2 * (c * sine - s * cosine)
        )

    k = np.flatnonzero(rows.kind == KIND["rotation_driver"])
    if k.size:
        gamma[k] = angle_following(k, *_drivers(rows, k, frames.t))

    k = np.flatnonzero(rows.kind == KIND["constant_velocity"])
    if k.size:
        y_I = frames.R_WM[rows.i_marker[k]][:, :, 1]
        gamma[k] = turning_dot(k, geo.a_I[k], geo.b_J[k])[1] + turning_dot(k, y_I, geo.x_J[k])[1]

    k = np.flatnonzero(rows.kind == KIND["screw"])
    if k.size:
        # As a rotation driver whose f = 2 pi s / pitch follows s = z_J . d: f's rate from the
        # velocities, and of its second rate only the quadratic part (the rest is in G).
        turns_per_length = 2.0 * np.pi / rows.parameter[k]
        z_J = geo.b_J[k]
        f = turns_per_length * _dot(z_J, geo.d[k])
        f_dot = turns_per_length * (_dot(cross(w_j[k], z_J), geo.d[k]) + _dot(z_J, d_dot[k]))
        gamma[k] = angle_following(k, f, f_dot, -turns_per_length * turning_plane(k, z_J))
    return gamma


class JacobianAssembler:
    """Scatters world coefficients into ``G`` (m, 6 nb), dense or sparse (CSR), with the
    sparsity pattern fixed once for a row set. Ground columns are dropped."""

    def __init__(self, system: System, rows: ConstraintRows, sparse: bool) -> None:
        self.shape = (len(rows), system.n_velocities)
        self.sparse = sparse
        body_i = system.marker_body[rows.i_marker]
        body_j = system.marker_body[rows.j_marker]
        m = len(rows)
        row_index = np.repeat(np.arange(m), 12)
        bodies = np.repeat(np.stack([body_i, body_j], axis=1), 6, axis=1).reshape(-1)
        column = 6 * bodies + np.tile(np.arange(6), 2 * m)
        self.keep = bodies >= 0
        self.row_index = row_index[self.keep]
        self.column = column[self.keep]
        self.body_i, self.body_j = body_i, body_j

    def assemble(self, frames: Pose, jacobian: ConstraintJacobian) -> np.ndarray | sp.csr_matrix:
        """``G`` in velocity space (angular part in body components)."""
        R_i = frames.R_WB[self.body_i]
        R_j = frames.R_WB[self.body_j]
        g_wi_B = np.einsum("mji,mj->mi", R_i, jacobian.g_wi)
        g_wj_B = np.einsum("mji,mj->mi", R_j, jacobian.g_wj)
        values = np.concatenate([jacobian.g_vi, g_wi_B, jacobian.g_vj, g_wj_B], axis=1).reshape(-1)[self.keep]
        if self.sparse:
            return sp.csr_matrix((values, (self.row_index, self.column)), shape=self.shape)
        G = np.zeros(self.shape)
        G[self.row_index, self.column] = values
        return G
