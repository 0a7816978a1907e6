"""Joint reactions from Lagrange multipliers: the constraint wrench each element puts on its I marker."""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.formulation.constraints import ConstraintJacobian, position_level
from multibody.formulation.frames import Pose
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


def reactions(
    system: System, frames: Pose, lam: FloatArray, jacobian: ConstraintJacobian | None = None
) -> tuple[FloatArray, FloatArray]:
    """Force [N] and torque [N m] (about the I origin) on the I marker of every constraint element,
    world components, shapes (nc, 3). Redundant rows carry no multiplier (their share is in the
    rows they repeat). Motions report the driving force or torque.

    The constraint force on a body is ``-G_b^T lambda``; with world coefficients ``g_v``, ``g_w``
    that is a force ``-g_v lambda`` at the CM and a moment ``-g_w lambda``. When I is on ground the
    wrench is taken from the J side (equal and opposite: every primitive is invariant under a
    rigid motion of the pair) and negated. ``jacobian``: the coefficients of (at least) the
    active rows at ``frames`` when already evaluated.
    """
    rows = system.rows
    n_elements = len(system.constraint_names)
    if len(rows) == 0:
        return np.zeros((n_elements, 3)), np.zeros((n_elements, 3))
    if jacobian is None:
        _, jacobian, _ = position_level(system, rows, frames)
    return row_wrenches(
        n_elements,
        rows.element,
        rows.i_marker,
        rows.j_marker,
        system.marker_body,
        frames.p_WM_W,
        frames.p_WB_W,
        np.ascontiguousarray(jacobian.g_vi),
        np.ascontiguousarray(jacobian.g_wi),
        np.ascontiguousarray(jacobian.g_vj),
        np.ascontiguousarray(jacobian.g_wj),
        np.ascontiguousarray(lam, dtype=float),
    )


@njit(cache=True)
def row_wrenches(
    n_elements: int,
    element: np.ndarray,
    i_marker: np.ndarray,
    j_marker: np.ndarray,
    marker_body: np.ndarray,
    p_WM_W: np.ndarray,
    p_WB_W: np.ndarray,
    g_vi: np.ndarray,
    g_wi: np.ndarray,
    g_vj: np.ndarray,
    g_wj: np.ndarray,
    lam: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Sum every row's constraint wrench on its element's I marker (see ``reactions``); the
    coefficient arrays may hold more rows than ``element`` (only the first are read)."""
    force = np.zeros((n_elements, 3))
    torque = np.zeros((n_elements, 3))
    for r in range(element.size):
        body_i, body_j = marker_body[i_marker[r]], marker_body[j_marker[r]]
        if body_i >= 0:
            body, g_v, g_w, sign = body_i, g_vi[r], g_wi[r], 1.0
        else:
            body, g_v, g_w, sign = body_j, g_vj[r], g_wj[r], -1.0
        f = -sign * lam[r] * g_v
        arm = p_WM_W[i_marker[r]] - p_WB_W[body]
        k = element[r]
        for n in range(3):
            force[k, n] += f[n]
        torque[k, 0] += -sign * lam[r] * g_w[0] - (arm[1] * f[2] - arm[2] * f[1])
        torque[k, 1] += -sign * lam[r] * g_w[1] - (arm[2] * f[0] - arm[0] * f[2])
        torque[k, 2] += -sign * lam[r] * g_w[2] - (arm[0] * f[1] - arm[1] * f[0])
    return force, torque
