"""Impact analysis: the impulse-momentum equations of a collision, with Newton's restitution.

During a collision of short duration the configuration is frozen and only impulses count
(Chang & Huston 2001, the impulse form of Kane's equations, eqs 31-34 and 46-53). In the
Cartesian coordinates of this package, with joints as constraints, the same balance reads

    M dv + G^T Lambda = G_c^T P        (generalized momentum change = generalized impulse)
    G dv = 0                           (the joints hold through the impact)
    G_c (v + dv) = -e G_c v            (Newton: the normal approach speed reverses, scaled by e)

``M`` (nv x nv) is the mass matrix, ``G`` (m x nv) the joint Jacobian, ``G_c`` (k x nv)
the normal-velocity rows of the contact points, ``P`` (k,) the normal impulses [N s] and
``Lambda`` (m,) the impulsive multipliers, which are the internal joint impulses: releasing a
joint (the paper's device) and requiring its released speeds not to jump gives exactly these
multipliers. With ``W = G_c M^-1_G G_c^T`` (the inverse effective mass seen by the contacts
through the joints) the impulses are ``W P = -(1 + e) G_c v``; contacts that would need a
pulling impulse are left out (they separate by themselves). Motions hold through the impact like
joints (their rows are in ``G``); their multipliers are the actuators' impulses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from multibody.analysis.assemble import assembled_state
from multibody.analysis.model_input import as_system
from multibody.formulation import constraints
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.frames import Pose
from multibody.formulation.reactions import reactions
from multibody.formulation.state import State
from multibody.model.marker import Marker
from multibody.model.model import Model
from multibody.solve.linear import Factorization, Matrix, saddle_point_matrix, to_dense
from multibody.spatial.rotations import FloatArray, cross
from multibody.system.system import CONSTRAINT_KINDS, ConstraintRows, System


@dataclass(frozen=True)
class Collision:
    """One point of collision between two bodies, for ``impact``.

    ``point`` is the contact point c on the first body and ``other`` the contact point d on the
    second body or on ground: markers, or their full names ``"body/marker"``. ``normal`` is the
    common normal (3,), world components, pointing from the second body into the first: the
    impulse on the first body is ``+P normal``, on the second ``-P normal``. ``restitution`` is
    Newton's coefficient e in [0, 1].
    """

    point: Marker | str
    other: Marker | str
    normal: ArrayLike
    restitution: float


@dataclass(frozen=True)
class ImpulseResponse:
    """Outcome of the impulse-momentum equations at one configuration."""

    impulse: FloatArray
    """(k,) normal impulse of every contact [N s] (0 for contacts left out)"""
    velocity_change: FloatArray
    """(n_velocities,) jump of the velocity coordinates (CM velocity world, angular velocity body)"""
    multipliers: FloatArray
    """(m,) impulsive multipliers of the joint rows [N s]"""


@dataclass(frozen=True)
class Impact:
    """What a collision does to a system (see ``impact``). Units N s, m/s, rad/s, J."""

    system: System
    impulse: FloatArray
    """(k,) normal impulse of each collision, on its first body along its normal [N s]"""
    velocity_before: FloatArray
    """(n_velocities,) velocity coordinates before the collision"""
    velocity_after: FloatArray
    """(n_velocities,) velocity coordinates after it"""
    body_velocity_change: FloatArray
    """(nb, 3) jump of each CM velocity, world [m/s]"""
    body_angular_velocity_change: FloatArray
    """(nb, 3) jump of each angular velocity, world [rad/s]"""
    joint_impulse: FloatArray
    """(nc, 3) internal impulse of every joint on its I marker's body, world [N s]"""
    joint_angular_impulse: FloatArray
    """(nc, 3) internal angular impulse of every joint on its I marker's body about the I origin, world [N m s]"""
    kinetic_energy_loss: float
    """kinetic energy before minus after [J]"""

    def velocity_change(self, body: str) -> tuple[FloatArray, FloatArray]:
        """``(dv_W (3,), dw_W (3,))``: jumps of the CM velocity and angular velocity of ``body``."""
        b = self.system.body_index(body)
        return self.body_velocity_change[b], self.body_angular_velocity_change[b]

    def internal_impulse(self, joint: str) -> tuple[FloatArray, FloatArray]:
        """``(impulse (3,), angular impulse (3,))`` of ``joint`` on its I marker's body, world."""
        names = self.system.constraint_names
        if joint not in names:
            raise KeyError(f"no joint '{joint}'; joints are: {', '.join(names)}")
        k = names.index(joint)
        return self.joint_impulse[k], self.joint_angular_impulse[k]


def impact(model: Model | System, collisions: Sequence[Collision], state: State | None = None) -> Impact:
    """Impulses and velocity jumps of a frictionless collision at ``state`` (default: the model's
    assembled initial conditions), with the configuration frozen during the impact.

    Returns the normal impulse of every collision, the velocity changes of every body and the
    internal impulses of every joint (see the module docstring for the equations).
    """
    system = as_system(model)
    if not collisions:
        raise ValueError("impact needs at least one Collision")
    if state is None:
        system, state = assembled_state(system)
    form = CartesianFormulation(system)
    evaluation = form.evaluate(state.q, state.v, state.t)
    rows, normals = _collision_rows(system, collisions)
    G_c = point_normal_jacobian(system, evaluation.frames, rows, normals)
    restitution = np.array([_restitution(c) for c in collisions])
    response = impulse_response(form, evaluation, state.v, G_c, restitution, np.ones(len(collisions), dtype=bool))
    v_after = state.v + response.velocity_change
    motion_after = kinematics.twist(system, evaluation.frames, v_after)
    force, torque = reactions(system, evaluation.frames, response.multipliers)
    return Impact(
        system=system,
        impulse=response.impulse,
        velocity_before=state.v,
        velocity_after=v_after,
        body_velocity_change=motion_after.v_WB_W[:-1] - evaluation.motion.v_WB_W[:-1],
        body_angular_velocity_change=motion_after.w_WB_W[:-1] - evaluation.motion.w_WB_W[:-1],
        joint_impulse=force,
        joint_angular_impulse=torque,
        kinetic_energy_loss=form.kinetic_energy(evaluation.frames, evaluation.motion)
        - form.kinetic_energy(evaluation.frames, motion_after),
    )


def impulse_response(
    form: CartesianFormulation,
    evaluation: Evaluation,
    v: FloatArray,
    contact_jacobian: Matrix,
    restitution: FloatArray,
    candidates: np.ndarray,
    rate_tolerance: float = 1e-12,
) -> ImpulseResponse:
    """Solve the impulse-momentum equations at ``evaluation`` (positions frozen) with velocities
    ``v`` (n_velocities,) just before the impact, for the contacts ``candidates`` (k,) bool may act on.

    ``contact_jacobian`` (k, n_velocities) holds the normal-gap rate rows ``dg/dt = G_c v``; the target
    after the impact is ``dg/dt+ = -e min(dg/dt-, 0)`` on every contact that receives an impulse.
    Contacts start active when they approach; one that would need a pulling impulse is dropped
    and one that would be driven into the other body is added, until neither happens (at most
    2 k rounds; with one contact, one solve).
    """
    system = form.system
    n = system.n_velocities
    G_c = to_dense(contact_jacobian)
    k = G_c.shape[0]
    saddle = Factorization(saddle_point_matrix(evaluation.mass_matrix, evaluation.G))
    unit_response = saddle.solve(np.vstack([G_c.T, np.zeros((len(evaluation.phi), k))]))
    W = G_c @ unit_response[:n]
    rate = G_c @ v
    target = -restitution * np.minimum(rate, 0.0)
    active = candidates & (rate < -rate_tolerance)
    impulse = np.zeros(k)
    for _ in range(2 * k + 1):
        impulse = np.zeros(k)
        if np.any(active):
            a = np.flatnonzero(active)
            impulse[a] = np.linalg.solve(W[np.ix_(a, a)], target[a] - rate[a])
        pulling = active & (impulse < -rate_tolerance)
        if np.any(pulling):
            active[np.argmin(np.where(pulling, impulse, np.inf))] = False
            continue
        penetrating = candidates & ~active & (rate + W @ impulse < -rate_tolerance)
        if not np.any(penetrating):
            break
        active |= penetrating
    response = unit_response @ impulse
    return ImpulseResponse(impulse, response[:n], response[n:])


def point_normal_jacobian(system: System, frames: Pose, rows: ConstraintRows, normals: FloatArray) -> Matrix:
    """Rows ``n . (v_c - v_d)`` (k, n_velocities) for contact points c (I markers) and d (J markers) of
    ``rows`` and world normals ``normals`` (k, 3): the normal relative velocity of the points."""
    p_c = frames.p_BM_W[rows.i_marker]
    p_d = frames.p_BM_W[rows.j_marker]
    jacobian = constraints.ConstraintJacobian(normals, cross(p_c, normals), -normals, -cross(p_d, normals))
    return constraints.JacobianAssembler(system, rows, sparse=False).assemble(frames, jacobian)


def _collision_rows(system: System, collisions: Sequence[Collision]) -> tuple[ConstraintRows, FloatArray]:
    """Marker pairs of the collisions as rows (for the Jacobian assembler) and unit normals (k, 3)."""
    markers = np.array([[_marker_index(system, c.point, c), _marker_index(system, c.other, c)] for c in collisions])
    normals = np.array([_unit_normal(c) for c in collisions])
    if np.any(system.marker_body[markers[:, 0]] == system.marker_body[markers[:, 1]]):
        bad = next(c for c, (i, j) in zip(collisions, markers) if system.marker_body[i] == system.marker_body[j])
        raise ValueError(
            f"collision {bad.point!r} / {bad.other!r}: both points are on the same body; a collision is between two bodies"
        )
    k = len(collisions)
    rows = ConstraintRows(
        kind=np.full(k, CONSTRAINT_KINDS.index("coincident"), dtype=np.int64),
        i_marker=markers[:, 0],
        j_marker=markers[:, 1],
        i_axis=np.full(k, -1, dtype=np.int64),
        j_axis=np.full(k, -1, dtype=np.int64),
        parameter=np.zeros(k),
        element=np.arange(k, dtype=np.int64),
        label=("collision normal",) * k,
        driver=(None,) * k,
    )
    return rows, normals


def _marker_index(system: System, marker: Marker | str, collision: Collision) -> int:
    name = marker.full_name if isinstance(marker, Marker) else str(marker)
    if name not in system.marker_names:
        raise ValueError(
            f"collision {collision.point!r} / {collision.other!r}: no marker '{name}' in model '{system.name}'; "
            "give a Marker or its full name 'body/marker'"
        )
    return system.marker_names.index(name)


def _unit_normal(collision: Collision) -> FloatArray:
    normal = np.asarray(collision.normal, dtype=float)
    length = float(np.linalg.norm(normal)) if normal.shape == (3,) else 0.0
    if not (np.isfinite(length) and length > 1e-12):
        raise ValueError(
            f"collision {collision.point!r} / {collision.other!r}: normal must be 3 finite numbers, not zero, got {collision.normal!r}"
        )
    return normal / length


def _restitution(collision: Collision) -> float:
    e = float(collision.restitution)
    if not (np.isfinite(e) and 0.0 <= e <= 1.0):
        raise ValueError(
            f"collision {collision.point!r} / {collision.other!r}: restitution must be in [0, 1], got {e!r}"
        )
    return e
