"""Joint reactions from Lagrange multipliers: the constraint wrench each element puts on its I marker."""

from __future__ import annotations

import numpy as np

from multibody.formulation.constraints import ConstraintJacobian, position_level
from multibody.formulation.frames import Pose
from multibody.spatial.rotations import FloatArray, cross
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
    force = np.zeros((n_elements, 3))
    torque = np.zeros((n_elements, 3))
    if len(rows) == 0:
        return force, torque
    if jacobian is None:
        _, jacobian, _ = position_level(system, rows, frames)
    p_I = frames.p_WM_W[rows.i_marker]
    body_i = system.marker_body[rows.i_marker]
    body_j = system.marker_body[rows.j_marker]
    i_side = body_i >= 0
    m = len(rows)
    g_v = np.where(i_side[:, None], jacobian.g_vi[:m], -jacobian.g_vj[:m])
    g_w = np.where(i_side[:, None], jacobian.g_wi[:m], -jacobian.g_wj[:m])
    body = np.where(i_side, body_i, body_j)
    row_force = -g_v * lam[:, None]
    row_moment_cm = -g_w * lam[:, None]
    row_torque = row_moment_cm - cross(p_I - frames.p_WB_W[body], row_force)
    np.add.at(force, rows.element, row_force)
    np.add.at(torque, rows.element, row_torque)
    return force, torque


def in_marker_axes(frames: Pose, marker: np.ndarray, vectors_W: FloatArray) -> FloatArray:
    """World vectors (n, 3) expressed in the axes of markers ``marker`` (n,)."""
    return np.einsum("nji,nj->ni", frames.R_WM[marker], vectors_W)
