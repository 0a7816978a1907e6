"""One compiled pass over the Cartesian equations of rigid bodies at a state: positions ->
velocities -> constraint rows -> Jacobian entries -> inertial forces, so that an evaluation costs
one call from Python whatever the number of bodies and rows (``CartesianFormulation.evaluate``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.formulation.bodies import rigid
from multibody.formulation.constraints import row_kernels


@njit(cache=True)
def evaluate_rigid(
    q: np.ndarray,
    v: np.ndarray,
    marker_body: np.ndarray,
    marker_position: np.ndarray,
    marker_orientation: np.ndarray,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    mass: np.ndarray,
    inertia: np.ndarray,
    gravity: np.ndarray,
) -> tuple:
    """Frames, twists, ``Phi``, ``nu``, the entries of ``G`` and ``Q`` of gravity and gyroscopic
    moments at ``(q (7 nb,), v (6 nb,))``, for the rows given by their arrays
    (``ConstraintRows.kernel_arrays``) and driver values ``f``, ``f_dot`` (see
    ``constraints.row_kernels``).

    Returns ``(p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM, v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W, phi,
    nu, body coefficients (m, 4, 3) (``rigid.body_coefficients``), jacobian_values (m, 12), wrench
    (nb, 6))``.
    """
    i_marker, j_marker = rows[1], rows[2]
    p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM = rigid.marker_frames(q, marker_body, marker_position, marker_orientation)
    v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W = rigid.marker_twists(v, R_WB, marker_body, p_BM_W)
    phi, nu, marker_coefficients = row_kernels(
        rows[0], i_marker, j_marker, rows[3], rows[4], rows[5], f, f_dot, R_WM, p_WM_W
    )
    coefficients = rigid.body_coefficients(marker_coefficients, p_BM_W[i_marker], p_BM_W[j_marker])
    values = rigid.jacobian_values(coefficients, R_WB, marker_body[i_marker], marker_body[j_marker])
    nb = mass.size
    w_WB_B = np.empty((nb, 3))
    for b in range(nb):
        for k in range(3):
            w_WB_B[b, k] = v[6 * b + 3 + k]
    wrench = np.zeros((nb, 6))
    rigid.inertial_forces(mass, inertia, gravity, w_WB_B, wrench)
    return (
        p_WB_W,
        R_WB,
        p_WM_W,
        p_BM_W,
        R_WM,
        v_WB_W,
        w_WB_W,
        v_WM_W,
        w_WM_W,
        bias_WM_W,
        phi,
        nu,
        coefficients,
        values,
        wrench,
    )
