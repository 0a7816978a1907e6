"""Analytic load tangents on rigid bodies: a family's marker-level derivatives (``ForceFamily.tangents``)
chained through the rigid bodies' kinematics and ``J^T`` to the blocks of ``K = dQ/dx`` and ``C = dQ/dv``.

Per element, its I and J markers sit on rigid bodies (or ground) with velocity-space coordinates
``x_b = (dp_B [m], dtheta_B [rad], body axes)`` (``frames.displace``) and ``v_b = (v_B [m/s], w_B [rad/s],
body axes)``. A marker M of body B moves by ``dp_M = dp_B - skew(p_BM_W) R_WB dtheta_B`` and turns by
``dtheta_W = R_WB dtheta_B``; its twist ``(v_M, w_M) = (v_B + w_W x p_BM_W, w_W)``, ``w_W = R_WB w_B``,
has the same Jacobian with respect to ``v_b`` and changes with ``x_b`` at fixed ``v`` by
``(dtheta_W x (w_W x p_BM_W), dtheta_W x w_W)``. The load ``(F, T)`` at I's origin enters the
generalized forces of I's body as ``(F, R_WB^T (r_I x F + T))`` with ``r_I = p_BM_W`` and of J's body
as ``(-F, -R_WB^T (r_J x F + T))`` with ``r_J`` from J's CM to I's origin; those moments also turn with
the bodies and their arms with the markers (the geometric terms).
"""

from __future__ import annotations

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray, cross, skew
from multibody.system.system import IntArray, System


def rigid_load_tangents(
    system: System,
    frames: Pose,
    motion: Twist,
    element: IntArray,
    force_W: FloatArray,
    torque_W: FloatArray,
    load_displacement: FloatArray,
    load_velocity: FloatArray,
) -> tuple[IntArray, FloatArray, FloatArray]:
    """``(columns (ne, 12), K (ne, 12, 12), C (ne, 12, 12))`` of force elements ``element`` (ne,) whose
    markers are on rigid bodies or ground: per element, the velocity coordinates of I's body then J's
    (``-1`` where a side is ground or absent: those rows and columns are to be dropped), and the
    derivatives of the generalized forces on them (rows, world force [N] and body-axes moment [N m]
    per body) with respect to those coordinates' position increments (``K``) and velocities (``C``).
    ``force_W``, ``torque_W`` (ne, 3): the elements' loads; ``load_displacement``, ``load_velocity``
    (ne, 6, 12): their ``ForceFamily.tangents``."""
    n = element.size
    markers = system.force_markers[element]
    body = np.where(markers >= 0, system.marker_body[np.maximum(markers, 0)], -1)
    loaded = body >= 0
    marker = np.maximum(markers, 0)
    R_WB = frames.R_WB[np.where(loaded, body, -1)] * loaded[:, :, None, None]  # (ne, 2, 3, 3), zero on ground
    turn_T = np.swapaxes(R_WB, -1, -2)
    p_BM_W = frames.p_BM_W[marker]  # (ne, 2, 3)
    w_W = motion.w_WM_W[marker]
    # the arms from the CMs to I's origin, the moments about them (I's side's sign) in body axes
    arm = p_BM_W + (frames.p_WM_W[marker[:, :1]] - frames.p_WM_W[marker])
    moment_B = np.einsum("esji,esj->esi", R_WB, cross(arm, force_W[:, None, :]) + torque_W[:, None, :])
    offset_skew, swirl_skew, spin_skew, arm_skew, moment_skew = np.moveaxis(
        skew(np.stack([p_BM_W, cross(w_W, p_BM_W), w_W, arm, moment_B], axis=2)), 2, 0
    )  # each (ne, 2, 3, 3)
    force_skew = skew(force_W)
    # marker motion per body coordinates, per side: (dp_M, dtheta_W) by (dp_B, dtheta_B)
    marker_jacobian = np.zeros((n, 12, 12))
    twist_change = np.zeros((n, 12, 12))  # (dv_M, dw_M) by (dp_B, dtheta_B) at fixed v
    load_map = np.zeros((n, 12, 6))  # J^T: the generalized forces of both bodies from the load
    for side, sign in ((0, 1.0), (1, -1.0)):
        translation, rotation = slice(6 * side, 6 * side + 3), slice(6 * side + 3, 6 * side + 6)
        turn = R_WB[:, side]
        marker_jacobian[:, translation, translation] = np.eye(3) * loaded[:, side, None, None]
        marker_jacobian[:, translation, rotation] = -offset_skew[:, side] @ turn
        marker_jacobian[:, rotation, rotation] = turn
        twist_change[:, translation, rotation] = -swirl_skew[:, side] @ turn
        twist_change[:, rotation, rotation] = -spin_skew[:, side] @ turn
        load_map[:, translation, :3] = sign * np.eye(3)
        load_map[:, rotation, :3] = sign * turn_T[:, side] @ arm_skew[:, side]
        load_map[:, rotation, 3:] = sign * turn_T[:, side]
    K = load_map @ (load_displacement @ marker_jacobian + load_velocity @ twist_change)
    C = load_map @ (load_velocity @ marker_jacobian)
    # geometric terms: the moments' arms move with the markers and the moments turn with the bodies
    K[:, 3:6, 3:6] += turn_T[:, 0] @ force_skew @ offset_skew[:, 0] @ R_WB[:, 0] + moment_skew[:, 0]
    # J's moment -(r_J x F + T): r_J = p_I - p_J_CM moves with I's marker and against J's CM
    K[:, 9:12, 0:6] += turn_T[:, 1] @ force_skew @ marker_jacobian[:, 0:3, 0:6]
    K[:, 9:12, 6:9] -= turn_T[:, 1] @ force_skew
    K[:, 9:12, 9:12] -= moment_skew[:, 1]
    first_column = np.where(loaded, body * rigid.VELOCITY_WIDTH, -rigid.VELOCITY_WIDTH - 1)
    columns = (first_column[:, :, None] + np.arange(rigid.VELOCITY_WIDTH)).reshape(n, 12)
    return np.where(columns >= 0, columns, -1), K, C
