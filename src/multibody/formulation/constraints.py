"""Constraint equations of the Cartesian formulation: compiled kernels over all rows at once.

For a set of rows (see ``multibody.model.joints.base`` for the primitive kinds):

``Phi(q, t)``          position-level residual (m,)
``G(q)``               Jacobian in velocity space, ``dPhi/dt = G v - nu`` (m, nv)
``nu(q, t)``           velocity right-hand side, ``G v = nu`` (m,): ``-dPhi/dt`` at ``v = 0``
``gamma(q, v, t)``     acceleration right-hand side, ``G dv/dt = gamma`` (m,)

The kernels see only markers: each row is written through world coefficients of the twists of
its two markers, ``dPhi/dt = a_vI . v_I + a_wI . w_I + a_vJ . v_J + a_wJ . w_J - nu``, and its
``gamma`` through the markers' twists and acceleration biases ``J' v``. The body kind of each
marker turns these into coefficients on its velocity coordinates (``G = coefficients x marker
Jacobians``, ``multibody.formulation.bodies``), so a new body kind works with every row kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from multibody.formulation.blocks import add_entries
from multibody.formulation.bodies import rigid
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray
from multibody.system.system import CONSTRAINT_KINDS, ConstraintRows, System

KIND = {name: code for code, name in enumerate(CONSTRAINT_KINDS)}
COINCIDENT, PERPENDICULAR, IN_PLANE, DISTANCE = (
    KIND["coincident"],
    KIND["perpendicular"],
    KIND["in_plane"],
    KIND["distance"],
)
ROTATION_DRIVER, TRANSLATION_DRIVER = KIND["rotation_driver"], KIND["translation_driver"]
CONSTANT_VELOCITY, SCREW = KIND["constant_velocity"], KIND["screw"]
RIM_TANGENT, RIM_MATERIAL, ON_CYLINDER, GROOVE = (
    KIND["rim_tangent"],
    KIND["rim_material"],
    KIND["on_cylinder"],
    KIND["groove"],
)
SMALLEST_LENGTH = 1e-300
"""Floor of a distance row's length [m]: coincident markers give a zero row, not a division by zero."""


@dataclass(frozen=True)
class ConstraintJacobian:
    """``G`` as world-frame coefficients per row (m, 3) for the I-side and J-side bodies' CM
    velocities and angular velocities (the rigid body kind's transfer of the marker coefficients)."""

    g_vi: FloatArray
    g_wi: FloatArray
    g_vj: FloatArray
    g_wj: FloatArray


@njit(cache=True, inline="always")
def _dot(a: np.ndarray, b: np.ndarray) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


@njit(cache=True, inline="always")
def _axis_of(R_WM: np.ndarray, marker: int, axis: int) -> tuple[float, float, float]:
    """Column ``axis`` of marker ``marker``'s rotation (world) as a tuple, for the per-row loops: a view
    would cost its atomic reference count, several times the row's arithmetic."""
    return R_WM[marker, 0, axis], R_WM[marker, 1, axis], R_WM[marker, 2, axis]


@njit(cache=True, inline="always")
def _cross_of(a: tuple, b: tuple) -> tuple[float, float, float]:
    """``a x b`` of two tuples."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def _put(a: np.ndarray, r: int, twist: int, scale: float, vector: tuple) -> None:
    """``a[r, twist] = scale * vector``."""
    a[r, twist, 0] = scale * vector[0]
    a[r, twist, 1] = scale * vector[1]
    a[r, twist, 2] = scale * vector[2]


@njit(cache=True)
def row_kernels(
    kind: np.ndarray,
    i_marker: np.ndarray,
    j_marker: np.ndarray,
    i_axis: np.ndarray,
    j_axis: np.ndarray,
    parameter: np.ndarray,
    f: np.ndarray,
    f_dot: np.ndarray,
    R_WM: np.ndarray,
    p_WM_W: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Phi (m,), nu (m,), marker coefficients (m, 4, 3))`` of every row.

    ``f``, ``f_dot`` (m,): prescribed value and rate of driver rows (ignored elsewhere). The
    coefficients are those of ``v_I``, ``w_I``, ``v_J``, ``w_J`` (world) in ``dPhi/dt``.
    """
    m = kind.size
    phi = np.zeros(m)
    nu = np.zeros(m)
    a = np.zeros((m, 4, 3))
    for r in range(m):
        I, J = i_marker[r], j_marker[r]
        k = kind[r]
        if k == COINCIDENT:
            axis = j_axis[r]
            phi[r] = p_WM_W[I, axis] - p_WM_W[J, axis]
            a[r, 0, axis] = 1.0
            a[r, 2, axis] = -1.0
            continue
        u_I = _axis_of(R_WM, I, max(i_axis[r], 0))
        u_J = _axis_of(R_WM, J, max(j_axis[r], 0))
        x_J = _axis_of(R_WM, J, 0)
        y_J = _axis_of(R_WM, J, 1)
        d = (p_WM_W[I, 0] - p_WM_W[J, 0], p_WM_W[I, 1] - p_WM_W[J, 1], p_WM_W[I, 2] - p_WM_W[J, 2])
        if k == PERPENDICULAR:
            phi[r] = _dot(u_I, u_J)
            turning = _cross_of(u_I, u_J)
            _put(a, r, 1, 1.0, turning)
            _put(a, r, 3, -1.0, turning)
        elif k == IN_PLANE or k == TRANSLATION_DRIVER or k == GROOVE:
            # u_J . d with u_J turning with J: d/dt = u_J . (v_I - v_J) + w_J . (u_J x d)
            phi[r] = _dot(u_J, d)
            if k == TRANSLATION_DRIVER:
                phi[r] -= f[r]
                nu[r] = f_dot[r]
            elif k == GROOVE:  # less c f (f = s - s_ref; the coordinate's column -c is added by the assembler)
                phi[r] -= parameter[r] * f[r]
            _put(a, r, 0, 1.0, u_J)
            _put(a, r, 2, -1.0, u_J)
            _put(a, r, 3, 1.0, _cross_of(u_J, d))
        elif k == DISTANCE:
            # coincident markers leave the direction undefined: a zero row, which the solvers
            # report as a singular constraint instead of dividing by zero
            length = max(np.sqrt(_dot(d, d)), SMALLEST_LENGTH)
            phi[r] = np.sqrt(_dot(d, d)) - parameter[r]
            for n in range(3):
                a[r, 0, n] = d[n] / length
                a[r, 2, n] = -d[n] / length
        elif k == ROTATION_DRIVER or k == SCREW:
            # sin(theta - f), theta the angle of x_I from x_J about z_J; a screw's f = 2 pi (z_J . d) / pitch
            # follows the translation
            if k == SCREW:
                turns_per_length = 2.0 * np.pi / parameter[r]
                angle = turns_per_length * _dot(u_J, d)
            else:
                angle = f[r]
            sine, cosine = _dot(u_I, y_J), _dot(u_I, x_J)
            c, s = np.cos(angle), np.sin(angle)
            phi[r] = c * sine - s * cosine
            first, second = _cross_of(u_I, y_J), _cross_of(u_I, x_J)
            turning = (
                c * first[0] - s * second[0],
                c * first[1] - s * second[1],
                c * first[2] - s * second[2],
            )
            _put(a, r, 1, 1.0, turning)
            _put(a, r, 3, -1.0, turning)
            if k == ROTATION_DRIVER:
                nu[r] = f_dot[r] * (s * sine + c * cosine)
            else:
                along = -(s * sine + c * cosine) * turns_per_length
                _put(a, r, 0, along, u_J)
                _put(a, r, 2, -along, u_J)
                moment = _cross_of(u_J, d)
                for n in range(3):
                    a[r, 3, n] += along * moment[n]
        elif k == CONSTANT_VELOCITY:
            y_I = _axis_of(R_WM, I, 1)
            phi[r] = _dot(u_I, u_J) + _dot(y_I, x_J)
            first, second = _cross_of(u_I, u_J), _cross_of(y_I, x_J)
            turning = (first[0] + second[0], first[1] + second[1], first[2] + second[2])
            _put(a, r, 1, 1.0, turning)
            _put(a, r, 3, -1.0, turning)
        elif k == RIM_TANGENT:
            # c_x a_x + c_y a_y with c = (x_J . d, y_J . d) and a = (u_I . x_J, u_I . y_J)
            c_x, c_y = _dot(d, x_J), _dot(d, y_J)
            a_x, a_y = _dot(u_I, x_J), _dot(u_I, y_J)
            phi[r] = c_x * a_x + c_y * a_y
            first, second = _cross_of(x_J, d), _cross_of(y_J, d)
            turn_x, turn_y = _cross_of(u_I, x_J), _cross_of(u_I, y_J)
            for n in range(3):
                along = a_x * x_J[n] + a_y * y_J[n]
                turning = c_x * turn_x[n] + c_y * turn_y[n]
                a[r, 0, n] = along
                a[r, 2, n] = -along
                a[r, 1, n] = turning
                a[r, 3, n] = a_x * first[n] + a_y * second[n] - turning
        elif k == ON_CYLINDER:
            c_x, c_y = _dot(d, x_J), _dot(d, y_J)
            radius = max(np.sqrt(c_x * c_x + c_y * c_y), SMALLEST_LENGTH)
            phi[r] = radius - parameter[r]
            first, second = _cross_of(x_J, d), _cross_of(y_J, d)
            for n in range(3):
                along = (c_x * x_J[n] + c_y * y_J[n]) / radius
                a[r, 0, n] = along
                a[r, 2, n] = -along
                a[r, 3, n] = (c_x * first[n] + c_y * second[n]) / radius
        elif k == RIM_MATERIAL:
            # f = s - s_ref (the coordinate's column is added by the assembler) minus k psi, psi the
            # angle of d about z_J from x_J, unwrapped to the turn nearest f / k
            phi[r] = f[r]
            scale = parameter[r]
            if scale != 0.0:
                c_x, c_y = _dot(d, x_J), _dot(d, y_J)
                radius_squared = max(c_x * c_x + c_y * c_y, SMALLEST_LENGTH)
                angle = np.arctan2(c_y, c_x)
                angle += 2.0 * np.pi * np.round((f[r] / scale - angle) / (2.0 * np.pi))
                phi[r] -= scale * angle
                first, second = _cross_of(y_J, d), _cross_of(x_J, d)
                for n in range(3):
                    along = (c_x * y_J[n] - c_y * x_J[n]) / radius_squared
                    a[r, 0, n] = -scale * along
                    a[r, 2, n] = scale * along
                    a[r, 3, n] = -scale * (c_x * first[n] - c_y * second[n]) / radius_squared
    return phi, nu, a


@njit(cache=True, inline="always")
def _turning_dot(a: np.ndarray, b: np.ndarray, w_i: np.ndarray, w_j: np.ndarray) -> tuple[float, float]:
    """For ``a . b`` with ``a`` turning with marker I and ``b`` with J: (rate, minus the quadratic part)."""
    w_rel = w_i - w_j
    rate = _dot(_cross(a, b), w_rel)
    quadratic = _dot(_cross(_cross(w_i, a), b) + _cross(a, _cross(w_j, b)), w_rel)
    return rate, -quadratic


@njit(cache=True, inline="always")
def _turning_plane(b: np.ndarray, d: np.ndarray, d_dot: np.ndarray, bias: np.ndarray, w_j: np.ndarray) -> float:
    """``-(quadratic part)`` of ``b . d`` with ``b`` turning with marker J."""
    wb = _cross(w_j, b)
    return -(_dot(_cross(w_j, wb), d) + 2.0 * _dot(wb, d_dot) + _dot(b, bias))


@njit(cache=True, inline="always")
def _angle_following(
    u_I: np.ndarray,
    x_J: np.ndarray,
    y_J: np.ndarray,
    w_i: np.ndarray,
    w_j: np.ndarray,
    f: float,
    f_dot: float,
    f_ddot: float,
) -> float:
    """``gamma`` of ``sin(theta - f)`` for given rates of f (``f_ddot``: the part of f's second
    rate that is not in the Jacobian)."""
    sine, cosine = _dot(u_I, y_J), _dot(u_I, x_J)
    sine_rate, sine_gamma = _turning_dot(u_I, y_J, w_i, w_j)
    cosine_rate, cosine_gamma = _turning_dot(u_I, x_J, w_i, w_j)
    c, s = np.cos(f), np.sin(f)
    return (
        c * sine_gamma
        - s * cosine_gamma
        + 2.0 * f_dot * (s * sine_rate + c * cosine_rate)
        + f_ddot * (s * sine + c * cosine)
        + f_dot**2 * (c * sine - s * cosine)
    )


@njit(cache=True)
def acceleration_kernels(
    kind: np.ndarray,
    i_marker: np.ndarray,
    j_marker: np.ndarray,
    i_axis: np.ndarray,
    j_axis: np.ndarray,
    parameter: np.ndarray,
    f: np.ndarray,
    f_dot: np.ndarray,
    f_ddot: np.ndarray,
    R_WM: np.ndarray,
    p_WM_W: np.ndarray,
    v_WM_W: np.ndarray,
    w_WM_W: np.ndarray,
    bias_WM_W: np.ndarray,
) -> np.ndarray:
    """``gamma`` (m,) of every row from the markers' poses, twists (``v_WM_W``, ``w_WM_W``) and
    acceleration biases ``J' v`` (``bias_WM_W``), all (nm, 3) world."""
    m = kind.size
    gamma = np.zeros(m)
    for r in range(m):
        I, J = i_marker[r], j_marker[r]
        u_I = R_WM[I, :, max(i_axis[r], 0)]
        u_J = R_WM[J, :, max(j_axis[r], 0)]
        x_J = R_WM[J, :, 0]
        y_J = R_WM[J, :, 1]
        d = p_WM_W[I] - p_WM_W[J]
        d_dot = v_WM_W[I] - v_WM_W[J]
        bias = bias_WM_W[I] - bias_WM_W[J]
        w_i, w_j = w_WM_W[I], w_WM_W[J]
        k = kind[r]
        if k == COINCIDENT:
            gamma[r] = -bias[j_axis[r]]
        elif k == PERPENDICULAR:
            gamma[r] = _turning_dot(u_I, u_J, w_i, w_j)[1]
        elif k == IN_PLANE or k == GROOVE:  # a groove's coordinate term is linear: all in G
            gamma[r] = _turning_plane(u_J, d, d_dot, bias, w_j)
        elif k == TRANSLATION_DRIVER:
            gamma[r] = _turning_plane(u_J, d, d_dot, bias, w_j) + f_ddot[r]
        elif k == DISTANCE:
            length = max(np.sqrt(_dot(d, d)), SMALLEST_LENGTH)
            u = d / length
            along = _dot(u, d_dot)
            gamma[r] = -(_dot(u, bias) + (_dot(d_dot, d_dot) - along**2) / length)
        elif k == ROTATION_DRIVER:
            gamma[r] = _angle_following(u_I, x_J, y_J, w_i, w_j, f[r], f_dot[r], f_ddot[r])
        elif k == CONSTANT_VELOCITY:
            y_I = R_WM[I, :, 1]
            gamma[r] = _turning_dot(u_I, u_J, w_i, w_j)[1] + _turning_dot(y_I, x_J, w_i, w_j)[1]
        elif k == RIM_TANGENT or k == ON_CYLINDER:
            c_x, c_y = _dot(d, x_J), _dot(d, y_J)
            rate_x = _dot(d_dot, x_J) + _dot(w_j, _cross(x_J, d))
            rate_y = _dot(d_dot, y_J) + _dot(w_j, _cross(y_J, d))
            quadratic_x = -_turning_plane(x_J, d, d_dot, bias, w_j)
            quadratic_y = -_turning_plane(y_J, d, d_dot, bias, w_j)
            if k == ON_CYLINDER:
                radius = max(np.sqrt(c_x * c_x + c_y * c_y), SMALLEST_LENGTH)
                radial_rate = (c_x * rate_x + c_y * rate_y) / radius
                gamma[r] = -(
                    (rate_x * rate_x + rate_y * rate_y + c_x * quadratic_x + c_y * quadratic_y) / radius
                    - radial_rate * radial_rate / radius
                )
            else:
                a_x, a_y = _dot(u_I, x_J), _dot(u_I, y_J)
                turn_x, minus_quadratic_ax = _turning_dot(u_I, x_J, w_i, w_j)
                turn_y, minus_quadratic_ay = _turning_dot(u_I, y_J, w_i, w_j)
                gamma[r] = -(
                    quadratic_x * a_x
                    + quadratic_y * a_y
                    + 2.0 * (rate_x * turn_x + rate_y * turn_y)
                    - c_x * minus_quadratic_ax
                    - c_y * minus_quadratic_ay
                )
        elif k == RIM_MATERIAL and parameter[r] != 0.0:
            # k psi'' has the quadratic part k [(c_x Q_y - c_y Q_x) / rho^2 - 2 N (c_x c_x' + c_y c_y') / rho^4]
            # with c = (x_J . d, y_J . d), N = c_x c_y' - c_y c_x', Q the quadratic parts of c''
            c_x, c_y = _dot(d, x_J), _dot(d, y_J)
            rate_x = _dot(d_dot, x_J) + _dot(w_j, _cross(x_J, d))
            rate_y = _dot(d_dot, y_J) + _dot(w_j, _cross(y_J, d))
            radius_squared = max(c_x * c_x + c_y * c_y, SMALLEST_LENGTH)
            quadratic_x = -_turning_plane(x_J, d, d_dot, bias, w_j)
            quadratic_y = -_turning_plane(y_J, d, d_dot, bias, w_j)
            turning = c_x * rate_y - c_y * rate_x
            gamma[r] = parameter[r] * (
                (c_x * quadratic_y - c_y * quadratic_x) / radius_squared
                - 2.0 * turning * (c_x * rate_x + c_y * rate_y) / radius_squared**2
            )
        elif k == SCREW:
            # As a rotation driver whose f = 2 pi s / pitch follows s = z_J . d: f's rate from the
            # velocities, and of its second rate only the quadratic part (the rest is in G).
            turns_per_length = 2.0 * np.pi / parameter[r]
            angle = turns_per_length * _dot(u_J, d)
            angle_rate = turns_per_length * (_dot(_cross(w_j, u_J), d) + _dot(u_J, d_dot))
            quadratic = -turns_per_length * _turning_plane(u_J, d, d_dot, bias, w_j)
            gamma[r] = _angle_following(u_I, x_J, y_J, w_i, w_j, angle, angle_rate, quadratic)
    return gamma


def driver_values(
    rows: ConstraintRows, t: float, order: int, q_tail: FloatArray | None = None
) -> tuple[FloatArray, ...]:
    """Prescribed value, rate (and acceleration when ``order`` is 2) of every driver row at time
    ``t`` [s] as (m,) arrays, zero for the other rows; each driver function is called once. With
    ``q_tail`` (the positions after the frames'), a row that reads a coordinate (``rim_material``)
    gets that coordinate less its offset as its value."""
    values = tuple(np.zeros((order + 1, len(rows))))
    for r in rows.driver_rows:  # user functions of time: one Python call each
        function = rows.driver[r]
        values[0][r] = function.value(t)
        values[1][r] = function.derivative(t)
        if order == 2:
            values[2][r] = function.second_derivative(t)
    if q_tail is not None:
        set_coordinate_values(rows, values[0], q_tail)
    return values


def set_coordinate_values(rows: ConstraintRows, f: FloatArray, q_tail: FloatArray) -> None:
    """Set in ``f`` (m,) the value of every row that reads a coordinate (``rim_material``, ``groove``):
    the coordinate in ``q_tail`` (the positions after the frames') less the row's offset."""
    if rows.coordinate is not None:
        reads = rows.coordinate >= 0
        f[reads] = q_tail[rows.coordinate[reads]] - rows.reference[reads]


def marker_level(rows: ConstraintRows, frames: Pose) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(Phi (m,), nu (m,), marker coefficients (m, 4, 3))`` at ``frames`` (time ``frames.t``)."""
    f, f_dot = driver_values(rows, frames.t, 1, frames.q_modal)
    return row_kernels(*rows.kernel_arrays, f, f_dot, frames.R_WM, frames.p_WM_W)


def position_level(
    system: System, rows: ConstraintRows, frames: Pose
) -> tuple[FloatArray, ConstraintJacobian, FloatArray]:
    """``(Phi (m,), G as world body coefficients, nu (m,))`` at ``frames`` (time ``frames.t``)."""
    phi, nu, coefficients = marker_level(rows, frames)
    g = rigid.body_coefficients(coefficients, frames.p_BM_W[rows.i_marker], frames.p_BM_W[rows.j_marker])
    return phi, ConstraintJacobian(g[:, 0], g[:, 1], g[:, 2], g[:, 3]), nu


def acceleration_rhs(system: System, rows: ConstraintRows, frames: Pose, motion: Twist) -> FloatArray:
    """``gamma`` (m,) with ``G dv/dt = gamma``: minus the quadratic-velocity and explicit-time
    parts of the second time derivative of each row."""
    f, f_dot, f_ddot = driver_values(rows, frames.t, 2)
    return acceleration_kernels(
        *rows.kernel_arrays,
        f,
        f_dot,
        f_ddot,
        frames.R_WM,
        frames.p_WM_W,
        motion.v_WM_W,
        motion.w_WM_W,
        motion.bias_WM_W,
    )


class JacobianAssembler:
    """Scatters body coefficients into ``G`` (m, nv), dense or sparse (CSR) with the sparsity
    pattern fixed once for a row set; only the values are computed per call. Ground columns are
    dropped."""

    def __init__(self, system: System, rows: ConstraintRows, sparse: bool) -> None:
        self.shape = (len(rows), system.n_velocities)
        self.sparse = sparse
        body_i = system.marker_body[rows.i_marker]
        body_j = system.marker_body[rows.j_marker]
        m = len(rows)
        width = rigid.VELOCITY_WIDTH
        row_index = np.repeat(np.arange(m), 2 * width)
        bodies = np.repeat(np.stack([body_i, body_j], axis=1), width, axis=1).reshape(-1)
        column = width * bodies + np.tile(np.arange(width), 2 * m)
        self.keep = np.flatnonzero(bodies >= 0)
        self.row_index = row_index[self.keep]
        self.column = column[self.keep]
        self.body_i, self.body_j = body_i, body_j
        self.system, self.i_marker, self.j_marker = system, rows.i_marker, rows.j_marker
        reads = np.flatnonzero(rows.read_coordinates >= 0)
        # d Phi / d s: 1 in a rim_material row, -c in a groove row
        slope = np.where(rows.kind[reads] == GROOVE, -rows.parameter[reads], 1.0)
        self.coordinate_entries = (reads, system.n_frame_velocities + rows.read_coordinates[reads], slope)
        """``(row, column, value)`` of the rows' entries on the coordinates they read (``rim_material``, ``groove``)"""
        # Fixed CSR pattern: each kept value goes to one slot of ``data`` (duplicates summed); the
        # slots are the distinct (row, column) keys in row-major order, CSR's with sorted indices.
        n_columns = max(self.shape[1], 1)
        keys, self._slot = np.unique(self.row_index * n_columns + self.column, return_inverse=True)
        self._indices = (keys % n_columns).astype(np.int32)
        self._indptr = np.searchsorted(keys // n_columns, np.arange(m + 1)).astype(np.int32)
        self._nnz = keys.size
        self.pattern = (self.keep.astype(np.int64), self.row_index.astype(np.int64), self.column.astype(np.int64))
        """``(keep, row, column)``: which of the (m, 12) kernel values are entries of ``G`` and where
        each sits (``multibody.formulation.dae_kernel``)"""

    def assemble(self, frames: Pose, jacobian: ConstraintJacobian) -> np.ndarray | sp.csr_matrix:
        """``G`` in velocity space (angular part in body components), the other body kinds' columns included."""
        coefficients = np.stack([jacobian.g_vi, jacobian.g_wi, jacobian.g_vj, jacobian.g_wj], axis=1)
        G = self.from_values(rigid.jacobian_values(coefficients, frames.R_WB, self.body_i, self.body_j))
        return self.with_kind_columns(G, frames, coefficients)

    def with_kind_columns(
        self, G: np.ndarray | sp.csr_matrix, frames: Pose, coefficients: FloatArray
    ) -> np.ndarray | sp.csr_matrix:
        """``G`` (from ``from_values``) with the columns of the other body kinds' coordinates from the
        world body coefficients (m, 4, 3) (``BodyKind.jacobian_entries``: the flexible bodies' modal
        coordinates, the cables' nodes) and the rows' entries on the coordinates they read; ``G``
        itself when there are none."""
        entries = []
        for kind, group in self.system.body_kinds:
            if kind.jacobian_entries is not None:
                entries.append(
                    kind.jacobian_entries(group, self.system, frames, self.i_marker, self.j_marker, coefficients)
                )
        if self.coordinate_entries[0].size:
            entries.append(self.coordinate_entries)
        if not entries:
            return G
        row, column, value = (np.concatenate(parts) for parts in zip(*entries))
        if self.sparse:
            return (G + sp.csr_matrix((value, (row, column)), shape=self.shape)).tocsr()
        add_entries(G, row, column, value)
        return G

    def from_values(self, values: FloatArray) -> np.ndarray | sp.csr_matrix:
        """``G`` from the (m, 2 x 6) entries of ``rigid.jacobian_values`` (both bodies' velocity blocks)."""
        kept = values.reshape(-1)[self.keep]
        if self.sparse:
            data = np.bincount(self._slot, weights=kept, minlength=self._nnz)
            return sp.csr_matrix((data, self._indices, self._indptr), shape=self.shape)
        G = np.zeros(self.shape)
        G[self.row_index, self.column] = kept
        return G
