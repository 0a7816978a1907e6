"""Body and marker frames of the Cartesian formulation: poses from q, velocities from v.

Coordinates per body: ``q_b = (p_WBo_W (3), e_WB (4))`` and ``v_b = (v_WBo_W (3), w_WB_B (3))``:
CM position and velocity in world, Euler parameters, angular velocity in body components.
Per-body arrays have ``nb + 1`` rows; the last (index -1) is the ground at rest at the origin.
The frame blocks of every body come first in ``q`` and ``v``, then the coordinates of the other
body kinds present (``System.body_kinds``, registered in ``multibody.formulation.bodies.registry``),
each of which says how they move the markers on its bodies (``BodyKind.marker_geometry``,
``add_marker_motion``). Past the frames, every kind so far has ``dq/dt = v`` on its coordinates,
which ``position_rate``, ``displace`` and ``position_difference`` take as they are (a kind with
rotation parameters among its coordinates would add a hook there). The per-step work runs in the
compiled kernels of the rigid body kind (``multibody.formulation.bodies.rigid``) and of the other
kinds; this module gives them named results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.spatial.rotations import FloatArray
from multibody.system.system import IntArray, System

_NONE = np.zeros(0)
_NONE.flags.writeable = False


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
    q_modal: FloatArray = field(default_factory=lambda: _NONE)
    """the coordinates after the frames': the other body kinds' (``System.body_kinds``), in their order
    (the flexible bodies' modal coordinates [sqrt(kg) m], the cables' node positions [m] and slopes ...)"""


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
    v_modal: FloatArray = field(default_factory=lambda: _NONE)
    """the velocities after the frames': the other body kinds', in their order (modal velocities
    [sqrt(kg) m/s], the cables' node velocities [m/s] and slope rates [1/s] ...)"""


def frame_positions(system: System, q: FloatArray) -> FloatArray:
    """The frame blocks of ``q`` (every body's position and Euler parameters), without the modal tail."""
    return q[: rigid.POSITION_WIDTH * system.n_bodies]


def frame_velocities(system: System, v: FloatArray) -> FloatArray:
    """The frame blocks of a velocity-space vector ``v``, without the modal tail."""
    return v[: rigid.VELOCITY_WIDTH * system.n_bodies]


def split_positions(system: System, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Views ``(p_WB_W (nb,3), e_WB (nb,4))`` of the position vector ``q`` (n_positions,)."""
    blocks = rigid.position_blocks(frame_positions(system, q))
    return blocks[:, :3], blocks[:, 3:]


def split_velocities(system: System, v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Views ``(v_WB_W (nb,3), w_WB_B (nb,3))`` of the velocity vector ``v`` (n_velocities,)."""
    blocks = rigid.velocity_blocks(frame_velocities(system, v))
    return blocks[:, rigid.TRANSLATION], blocks[:, rigid.ROTATION]


def marker_geometry(system: System, q: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(marker_position (nm, 3), marker_orientation (nm, 3, 3))`` at ``q``: the System's, with the
    markers on the other body kinds' bodies where their coordinates put them (``BodyKind.marker_geometry``:
    flexible bodies deform them, cables' nodes carry them)."""
    geometry = system.marker_position, system.marker_orientation
    for kind, group in system.body_kinds:
        if kind.marker_geometry is not None:
            geometry = kind.marker_geometry(group, q, *geometry)
    return geometry


def pose(system: System, q: FloatArray, t: float) -> Pose:
    """Body and marker frames at positions ``q`` (n_positions,) and time ``t`` [s]. Rotations come from
    normalized parameters: the norm of e is not a degree of freedom (q' = N v keeps it only to the
    integrator's accuracy), so nothing may depend on it."""
    q = np.ascontiguousarray(q, dtype=float)
    p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM = rigid.marker_frames(
        frame_positions(system, q), system.marker_body, *marker_geometry(system, q)
    )
    return Pose(t, p_WB_W, R_WB, split_positions(system, q)[1], p_WM_W, p_BM_W, R_WM, q[system.n_frame_positions :])


def twist(system: System, frames: Pose, v: FloatArray) -> Twist:
    """Body and marker velocities for velocities ``v`` (n_velocities,) at ``frames``."""
    v = np.ascontiguousarray(v, dtype=float)
    v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W = rigid.marker_twists(
        frame_velocities(system, v), frames.R_WB, system.marker_body, frames.p_BM_W
    )
    add_marker_motion(system, frames, v, w_WB_W, v_WM_W, w_WM_W, bias_WM_W)
    return Twist(
        v_WB_W, w_WB_W, split_velocities(system, v)[1], v_WM_W, w_WM_W, bias_WM_W, v[system.n_frame_velocities :]
    )


def add_marker_motion(
    system: System,
    frames: Pose,
    v: FloatArray,
    w_WB_W: FloatArray,
    v_WM_W: FloatArray,
    w_WM_W: FloatArray,
    bias_WM_W: FloatArray,
) -> None:
    """Add to the rigid markers' twists and biases (nm, 3 each, in place) what the other body kinds'
    coordinates do at ``frames`` and velocities ``v`` (n_velocities,) (``BodyKind.add_marker_motion``:
    modal deformation rates, cable node velocities); ``w_WB_W`` (nb+1, 3) are the frames' angular
    velocities [rad/s]."""
    for kind, group in system.body_kinds:
        if kind.add_marker_motion is not None:
            kind.add_marker_motion(group, system, frames, v, w_WB_W, v_WM_W, w_WM_W, bias_WM_W)


def position_rate(system: System, q: FloatArray, v: FloatArray) -> FloatArray:
    """``dq/dt = N(q) v`` (n_positions,): CM velocity and Euler-parameter rates; modal rates = modal velocities."""
    frames = rigid.position_rate(
        np.ascontiguousarray(frame_positions(system, q), dtype=float),
        np.ascontiguousarray(frame_velocities(system, v), dtype=float),
    )
    return np.concatenate([frames, v[system.n_frame_velocities :]])


def displace(system: System, q: FloatArray, dx: FloatArray) -> FloatArray:
    """Positions moved by a velocity-space increment ``dx`` (n_velocities,): CM by ``dx[:3]`` [m], rotation
    by the body-axes rotation vector ``dx[3:]`` [rad], exactly on the rotation group
    (``rigid.displaced_positions``); modal coordinates by theirs."""
    q = np.ascontiguousarray(q, dtype=float)
    dx = np.ascontiguousarray(dx, dtype=float)
    moved = rigid.displaced_positions(frame_positions(system, q), frame_velocities(system, dx))
    return np.concatenate([moved, q[system.n_frame_positions :] + dx[system.n_frame_velocities :]])


def position_difference(system: System, q: FloatArray, q_ref: FloatArray) -> FloatArray:
    """Velocity-space difference ``q - q_ref`` (n_velocities,): CM offsets and body-axes rotation vectors
    of ``R_ref^T R`` (and modal differences), so that ``displace(q_ref, position_difference(q, q_ref)) == q``."""
    q = np.ascontiguousarray(q, dtype=float)
    q_ref = np.ascontiguousarray(q_ref, dtype=float)
    frames = rigid.position_differences(frame_positions(system, q), frame_positions(system, q_ref))
    tail = system.n_frame_positions
    return np.concatenate([frames, q[tail:] - q_ref[tail:]])


def normalize_positions(system: System, q: FloatArray) -> FloatArray:
    """A copy of ``q`` with every body's Euler parameters projected back to unit norm. ``q`` may be a
    longer vector that starts with the positions (the DAE's ``y``): all after the frame blocks is
    copied unchanged."""
    out = np.array(q, dtype=float)
    rigid.normalize_euler_parameters(out[: system.n_frame_positions])
    return out


def body_velocity_columns(system: System) -> tuple[IntArray, ...]:
    """Per coupling group (``System.adjacency``: each body, then each cable node), its velocity
    coordinates in ``v``: a body's frame's, then those the other body kinds join to it (a flexible
    body's modal ones) or give groups of their own (a node's six) (``BodyKind.add_velocity_groups``)."""
    columns = [np.arange(rigid.body_columns(b).start, rigid.body_columns(b).stop) for b in range(system.n_bodies)]
    for kind, group in system.body_kinds:
        if kind.add_velocity_groups is not None:
            kind.add_velocity_groups(group, columns)
    return tuple(columns)


def column_groups(system: System) -> IntArray:
    """(n_velocities,) the coupling group (``body_velocity_columns``) owning each velocity coordinate;
    a coordinate of no group (a rope span's material coordinate) is a group of its own."""
    groups = np.full(system.n_velocities, -1)
    owned = body_velocity_columns(system)
    for group, columns in enumerate(owned):
        groups[columns] = group
    alone = groups < 0
    groups[alone] = len(owned) + np.arange(np.count_nonzero(alone))
    return groups


def position_scale(system: System, q: FloatArray) -> FloatArray:
    """(n_velocities,) size of each velocity-space position coordinate at ``q``: ``|p|`` [m] of the
    CM coordinates, 1 rad for rotations, ``|q_f|`` of modal coordinates."""
    return np.concatenate([rigid.position_scale(frame_positions(system, q)), np.abs(q[system.n_frame_positions :])])


def coordinate_scale(system: System, length: float) -> FloatArray:
    """(n_velocities,) a typical size of each velocity-space coordinate: ``length`` [m] on translations,
    1 rad on rotations, and the other body kinds' sizes of theirs (``BodyKind.coordinate_scale``:
    ``sqrt(m) length`` [sqrt(kg) m] on a flexible body's modal coordinates, on cable node positions
    the shorter of ``length`` and the cable's shortest element, 1 on slopes)."""
    scale = [rigid.coordinate_scale(system.n_bodies, length)]
    for kind, group in system.body_kinds:
        if kind.coordinate_scale is not None:
            scale += kind.coordinate_scale(group, length)
    return np.concatenate(scale)
