"""Body and marker frames of the Cartesian formulation: poses from q, velocities from v.

Coordinates per body: ``q_b = (p_WBo_W (3), e_WB (4))`` and ``v_b = (v_WBo_W (3), w_WB_B (3))``:
CM position and velocity in world, Euler parameters, angular velocity in body components.
Per-body arrays have ``nb + 1`` rows; the last (index -1) is the ground at rest at the origin.
The per-step work runs in the compiled kernels of the rigid body kind
(``multibody.formulation.bodies.rigid``); this module gives them named results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.spatial import rotations
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


@dataclass(frozen=True)
class Pose:
    """Where every body and marker is at time ``t`` [s] (world components)."""

    t: float
    p_WB_W: FloatArray
    """(nb+1, 3) CM positions [m]"""
    R_WB: FloatArray
    """(nb+1, 3, 3)"""
    e_WB: FloatArray
    """(nb, 4) Euler parameters"""
    p_WM_W: FloatArray
    """(nm, 3) marker origins [m]"""
    p_BM_W: FloatArray
    """(nm, 3) marker origin from its body's CM [m]"""
    R_WM: FloatArray
    """(nm, 3, 3)"""


@dataclass(frozen=True)
class Twist:
    """How fast every body and marker moves (world components)."""

    v_WB_W: FloatArray
    """(nb+1, 3) CM velocities [m/s]"""
    w_WB_W: FloatArray
    """(nb+1, 3) angular velocities [rad/s]"""
    w_WB_B: FloatArray
    """(nb, 3) angular velocities in body components [rad/s]"""
    v_WM_W: FloatArray
    """(nm, 3) marker origin velocities [m/s]"""
    w_WM_W: FloatArray
    """(nm, 3) marker angular velocities [rad/s]"""
    bias_WM_W: FloatArray
    """(nm, 3) the velocity-dependent part ``J' v`` of the marker origin accelerations [m/s^2]"""


def split_positions(system: System, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Views ``(p_WB_W (nb,3), e_WB (nb,4))`` of the position vector ``q`` (n_positions,)."""
    blocks = rigid.position_blocks(q)
    return blocks[:, :3], blocks[:, 3:]


def split_velocities(system: System, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Views ``(v_WB_W (nb,3), w_WB_B (nb,3))`` of the velocity vector ``v`` (n_velocities,)."""
    blocks = rigid.velocity_blocks(v)
    return blocks[:, rigid.TRANSLATION], blocks[:, rigid.ROTATION]


def pose(system: System, q: FloatArray, t: float) -> Pose:
    """Body and marker frames at positions ``q`` (7 nb,) and time ``t`` [s]. Rotations come from
    normalized parameters: the norm of e is not a degree of freedom (q' = N v keeps it only to the
    integrator's accuracy), so nothing may depend on it."""
    p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM = rigid.marker_frames(
        np.ascontiguousarray(q, dtype=float), system.marker_body, system.marker_position, system.marker_orientation
    )
    return Pose(
        t=t, p_WB_W=p_WB_W, R_WB=R_WB, e_WB=split_positions(system, q)[1], p_WM_W=p_WM_W, p_BM_W=p_BM_W, R_WM=R_WM
    )


def twist(system: System, frames: Pose, v: FloatArray) -> Twist:
    """Body and marker velocities for velocities ``v`` (6 nb,) at ``frames``."""
    v = np.ascontiguousarray(v, dtype=float)
    v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W = rigid.marker_twists(v, frames.R_WB, system.marker_body, frames.p_BM_W)
    return Twist(v_WB_W, w_WB_W, split_velocities(system, v)[1], v_WM_W, w_WM_W, bias_WM_W)


def position_rate(system: System, q: FloatArray, v: FloatArray) -> FloatArray:
    """``dq/dt = N(q) v`` (7 nb,): CM velocity and Euler-parameter rates."""
    return rigid.position_rate(np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float))


def displace(system: System, q: FloatArray, dx: FloatArray) -> FloatArray:
    """Positions moved by a velocity-space increment ``dx`` (6 nb,): CM by ``dx[:3]`` [m], rotation
    by the body-axes rotation vector ``dx[3:]`` [rad], exactly on the rotation group."""
    p, e = split_positions(system, q)
    dp, theta_B = split_velocities(system, dx)
    return np.hstack([p + dp, rotations.rotate_by_body_vector(e, theta_B)]).reshape(-1)


def position_difference(system: System, q: FloatArray, q_ref: FloatArray) -> FloatArray:
    """Velocity-space difference ``q - q_ref`` (6 nb,): CM offsets and body-axes rotation vectors
    of ``R_ref^T R``, so that ``displace(q_ref, position_difference(q, q_ref)) == q``."""
    p, e = split_positions(system, q)
    p_ref, e_ref = split_positions(system, q_ref)
    R = rotations.rotation_from_euler_parameters(e)
    R_ref = rotations.rotation_from_euler_parameters(e_ref)
    theta = rotations.rotation_vector(np.swapaxes(R_ref, -1, -2) @ R)
    return np.hstack([p - p_ref, theta]).reshape(-1)


def normalize_positions(system: System, q: FloatArray) -> FloatArray:
    """``q`` with every body's Euler parameters projected back to unit norm."""
    return rigid.normalized_positions(np.ascontiguousarray(q, dtype=float))
