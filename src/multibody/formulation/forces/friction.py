"""Joint friction kernel: the bristle (LuGre-type) Coulomb law of ``JointFriction`` over a group.

See ``multibody.model.forces.friction`` for the law. Per element the joint is reduced to up to
three slip components ``s_k = a_k . v_rel + b_k . w_rel`` [m/s] (``a_k``, ``b_k`` world vectors
from the joint's marker axes, zero for unused components), where ``v_rel`` is the velocity of
I's origin relative to the point of J's body under it and ``w_rel`` the relative angular
velocity; the surface friction ``f`` [N] enters as the force ``sum f_k a_k`` at I's origin and
the torque ``sum f_k b_k``, so its power is exactly ``f . s``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from multibody.formulation.constraints import marker_level
from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
    marker_indices,
)
from multibody.formulation.frames import Pose
from multibody.model.forces.base import ForceElement
from multibody.model.forces.friction import SLIP_COMPONENTS, JointFriction
from multibody.model.joints.cylindrical import Cylindrical
from multibody.model.joints.revolute import Revolute
from multibody.model.joints.spherical import Spherical
from multibody.model.joints.translational import Translational
from multibody.model.joints.universal import Universal
from multibody.spatial.rotations import FloatArray, cross

FAMILY_CODE = {Translational: 0, Revolute: 1, Cylindrical: 2, Spherical: 3, Universal: 4}
"""Joint family -> the code the kernel branches on (vectorized with ``np.where``)."""


@dataclass(frozen=True)
class FrictionGroup:
    """Every ``JointFriction`` of a System as flat arrays (n elements)."""

    element: IntArray
    i_marker: IntArray
    j_marker: IntArray
    constraint: IntArray
    """(n,) the constraint element (joint) whose reaction loads each friction"""
    family: IntArray
    """(n,) ``FAMILY_CODE`` of the joint"""
    state_index: IntArray
    """(n, 3) index into ``x`` of each component's bristle state; -1 for unused components"""
    mu_static: FloatArray
    dynamic_ratio: FloatArray
    """(n,) mu_dynamic / mu_static (1 when mu_static is 0: the capacity is the preload alone)"""
    stiction_velocity: FloatArray
    transition_velocity: FloatArray
    max_deformation: FloatArray
    radius: FloatArray
    """(n,) pin or ball radius [m] (1 for a translational joint: unused)"""
    weight_force_xy: FloatArray
    """(n,) factor on |F_xy| (J axes) in the normal load"""
    weight_force_z: FloatArray
    """(n,) factor on |F_z|: friction_arm / pin_radius for a revolute's thrust face"""
    weight_force: FloatArray
    """(n,) factor on |F| (spherical and universal joints)"""
    weight_bending: FloatArray
    """(n,) 1 / bending_reflection_arm on |T_xy|"""
    weight_torsion: FloatArray
    """(n,) 1 / reaction_arm on |T_z| (translational)"""
    preload: FloatArray
    """(n,) surface friction without reaction [N]: preload + preload_torque / radius"""


def build_group(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> FrictionGroup:
    """Flatten the friction elements ``members`` ((element index, element) pairs)."""
    n = len(members)
    state_index = -np.ones((n, 3), dtype=np.int64)
    column = {f.name: np.zeros(n) for f in fields(FrictionGroup) if f.type == "FloatArray"}
    for row, (_, friction) in enumerate(members):
        assert isinstance(friction, JointFriction)
        family = type(friction.joint)
        slots = context.states(friction)
        state_index[row, : SLIP_COMPONENTS[family]] = np.arange(slots.start, slots.stop)
        inputs = friction.inputs
        radius = friction.pin_radius or 1.0
        reaction = "reaction_force" in inputs
        column["mu_static"][row] = friction.mu_static
        column["dynamic_ratio"][row] = friction.mu_dynamic / friction.mu_static if friction.mu_static > 0 else 1.0
        column["stiction_velocity"][row] = friction.stiction_velocity
        column["transition_velocity"][row] = friction.transition_velocity
        column["max_deformation"][row] = friction.max_stiction_deformation
        column["radius"][row] = radius
        column["weight_force_xy"][row] = reaction and family in (Translational, Revolute, Cylindrical)
        column["weight_force"][row] = reaction and family in (Spherical, Universal)
        if reaction and friction.friction_arm is not None:
            column["weight_force_z"][row] = friction.friction_arm / radius
        if "bending_moment" in inputs:
            column["weight_bending"][row] = 1.0 / friction.bending_reflection_arm
        if "torsional_moment" in inputs:
            column["weight_torsion"][row] = 1.0 / friction.reaction_arm
        if "preload" in inputs:
            column["preload"][row] = friction.preload + friction.preload_torque / radius
    return FrictionGroup(
        element=element_indices(members),
        i_marker=marker_indices(members, context, "i_marker"),
        j_marker=marker_indices(members, context, "j_marker"),
        constraint=np.array([context.constraint(f.read_joints[0]) for _, f in members], dtype=np.int64),
        family=np.array([FAMILY_CODE[type(f.read_joints[0])] for _, f in members], dtype=np.int64),
        state_index=state_index,
        **column,
    )


BREAKAWAY = 0.9
"""Fraction of the steady bristle deflection below which a loaded bristle is purely elastic
(Dupont et al. 2002's elasto-plastic refinement of LuGre): sticking under up to 90 % of the
static capacity holds with no slip at all."""


OVERLOAD = 1.1
"""The bristle's spring-damper force passes unchanged up to the capacity ``C(|s|)`` and is then
bent smoothly (slope 1 at ``C``, so Newton sees no kink where steady sliding sits) towards at
most ``OVERLOAD x C``: a body thrown onto a sliding joint is not stopped by its damper."""


def adams_step(x: FloatArray, x0: FloatArray, h0: FloatArray, x1: FloatArray, h1: FloatArray) -> FloatArray:
    """ADAMS's STEP: ``h0`` below ``x0``, ``h1`` above ``x1``, a cubic with zero end slopes between."""
    xi = np.clip((x - x0) / (x1 - x0), 0.0, 1.0)
    return h0 + (h1 - h0) * xi * xi * (3.0 - 2.0 * xi)


def slip_directions(group: FrictionGroup, R_WI: FloatArray, R_WJ: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(a, b)`` (n, 3 components, 3): world vectors with ``s_k = a_k . v_rel + b_k . w_rel``."""
    n = group.element.size
    a = np.zeros((n, 3, 3))
    b = np.zeros((n, 3, 3))
    z_J = R_WJ[:, :, 2]
    radius = group.radius[:, None]
    family = group.family
    sliding = (family == FAMILY_CODE[Translational]) | (family == FAMILY_CODE[Cylindrical])
    a[sliding, 0] = z_J[sliding]
    turning = family == FAMILY_CODE[Revolute]
    b[turning, 0] = (radius * z_J)[turning]
    cylinder = family == FAMILY_CODE[Cylindrical]
    b[cylinder, 1] = (radius * z_J)[cylinder]
    ball = family == FAMILY_CODE[Spherical]
    b[ball] = (radius[:, :, None] * np.swapaxes(R_WJ, 1, 2))[ball]
    cross_pins = family == FAMILY_CODE[Universal]
    b[cross_pins, 0] = (radius * R_WI[:, :, 2])[cross_pins]
    b[cross_pins, 1] = (radius * z_J)[cross_pins]
    return a, b


def joint_reactions(group: FrictionGroup, system: Any, frames: Pose, lam: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Reaction force and torque (n, 3) on each friction's joint I marker (at its origin), world:
    ``-a_vI lambda`` and ``-a_wI lambda`` summed over the joint's active rows."""
    n = group.element.size
    force = np.zeros((n, 3))
    torque = np.zeros((n, 3))
    rows_of = [system.active_rows_of[k] for k in group.constraint]
    rows = np.concatenate(rows_of) if rows_of else np.zeros(0, dtype=np.int64)
    if rows.size == 0 or lam.size == 0:
        return force, torque
    owner = np.repeat(np.arange(n), [r.size for r in rows_of])
    coefficients = marker_level(system.rows, frames)[2][rows]  # one compiled pass over every row
    np.add.at(force, owner, -coefficients[:, 0] * lam[rows][:, None])
    np.add.at(torque, owner, -coefficients[:, 1] * lam[rows][:, None])
    return force, torque


def normal_load(group: FrictionGroup, F_J: FloatArray, T_J: FloatArray) -> FloatArray:
    """The normal load ``L`` (n,) [N] from the reaction in J axes (see the model module)."""
    return (
        group.weight_force_xy * np.hypot(F_J[:, 0], F_J[:, 1])
        + group.weight_force_z * np.abs(F_J[:, 2])
        + group.weight_force * np.linalg.norm(F_J, axis=1)
        + group.weight_bending * np.hypot(T_J[:, 0], T_J[:, 1])
        + group.weight_torsion * np.abs(T_J[:, 2])
    )


def bristle_law(
    group: FrictionGroup, slip: FloatArray, deflection: FloatArray, capacity: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(surface friction f (n,3) [N], bristle rates z' (n,3) [m/s], slip speed (n,))``.

    ``capacity`` (n,) is the static capacity ``C_s = mu_s L + preload`` [N]; unused components
    carry zero slip and deflection and get zero force and rate. The bristle's spring-damper
    ``C_s (z / z_max + z' / v_s)`` is capped at the capacity ``C_s mu(|s|) / mu_s`` of the slip
    speed, which steady sliding (``z' = 0``, ``|z| = z_ss``) reaches exactly.
    """
    speed = np.linalg.norm(slip, axis=1)
    ratio = adams_step(speed, group.stiction_velocity, 1.0, group.transition_velocity, group.dynamic_ratio)
    z_max = group.max_deformation[:, None]
    # the steady deflection; a floor keeps a frictionless slide (mu_dynamic = 0) finite
    steady = group.max_deformation * np.maximum(ratio, 1e-9)
    loaded = np.linalg.norm(deflection, axis=1) / steady
    # elasto-plastic: purely elastic (no slip) below BREAKAWAY of the steady deflection or unloading
    plastic = np.where(np.einsum("nk,nk->n", deflection, slip) > 0.0, adams_step(loaded, BREAKAWAY, 0.0, 1.0, 1.0), 0.0)
    rate = slip - (plastic * speed / steady)[:, None] * deflection
    # the damper settles a sticking bristle and yields with it, so steady sliding is pure spring
    damping = (1.0 - plastic) / group.stiction_velocity
    bristle = capacity[:, None] * (deflection / z_max + damping[:, None] * rate)
    size = np.linalg.norm(bristle, axis=1)
    limit = capacity * ratio
    excess = np.maximum(size - limit, 0.0)
    headroom = (OVERLOAD - 1.0) * np.maximum(limit, 1e-300)
    capped = np.minimum(size, limit) + headroom * np.tanh(excess / headroom)
    scale = np.where(size > 0.0, capped / np.where(size > 0.0, size, 1.0), 1.0)
    return -scale[:, None] * bristle, rate, speed


def contact_mode(speed: FloatArray, stiction_velocity: FloatArray, transition_velocity: FloatArray) -> FloatArray:
    """``multibody.results.CONTACT_MODES`` index by slip speed: 1 sticking, 2 transition, 3 sliding."""
    return np.where(speed <= stiction_velocity, 1.0, np.where(speed < transition_velocity, 2.0, 3.0))


@dataclass(frozen=True)
class FrictionState:
    """The friction of every element of a group at one instant."""

    force: FloatArray
    """(n, 3) force on I at its origin [N], world"""
    torque: FloatArray
    """(n, 3) torque on I [N m], world"""
    friction: FloatArray
    """(n, 3) surface friction per slip component [N]"""
    slip: FloatArray
    """(n, 3) slip components [m/s]"""
    rate: FloatArray
    """(n, 3) bristle rates [m/s]"""
    normal_load: FloatArray
    """(n,) [N]"""


def friction_state(group: FrictionGroup, inputs: LoadInputs) -> FrictionState:
    """Slip, reaction load, bristle law and the resulting loads (see the module)."""
    i, j = group.i_marker, group.j_marker
    p_M, v_M, R_WM, w_M = inputs.p_M, inputs.v_M, inputs.R_WM, inputs.w_M
    R_WJ = R_WM[j]
    v_rel = v_M[i] - v_M[j] - cross(w_M[j], p_M[i] - p_M[j])
    w_rel = w_M[i] - w_M[j]
    a, b = slip_directions(group, R_WM[i], R_WJ)
    slip = np.einsum("nkc,nc->nk", a, v_rel) + np.einsum("nkc,nc->nk", b, w_rel)
    used = group.state_index >= 0
    deflection = np.where(used, inputs.x[np.maximum(group.state_index, 0)], 0.0)
    F_W, T_W = joint_reactions(group, inputs.system, inputs.frames, inputs.lam)
    F_J = np.einsum("nji,nj->ni", R_WJ, F_W)
    T_J = np.einsum("nji,nj->ni", R_WJ, T_W)
    load = normal_load(group, F_J, T_J)
    friction, rate, _ = bristle_law(group, slip, deflection, group.mu_static * load + group.preload)
    force = np.einsum("nk,nkc->nc", friction, a)
    torque = np.einsum("nk,nkc->nc", friction, b)
    return FrictionState(force, torque, friction, slip, rate, load)


def evaluate_loads(group: FrictionGroup, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Friction loads, bristle rates, dissipation (see the module); ``out`` rows ``group.element``."""
    state = friction_state(group, inputs)
    used = group.state_index >= 0
    out.force[group.element] = state.force
    out.torque[group.element] = state.torque
    out.value[group.element] = np.linalg.norm(state.friction, axis=1)
    out.state_rate[group.state_index[used]] = state.rate[used]
    out.dissipated += -float(np.sum(state.friction * state.slip))


def contact_quantities(group: FrictionGroup, inputs: LoadInputs) -> dict[str, FloatArray]:
    """What ``res.contact(name)`` reports of a joint friction: the normal load, the friction force
    along the slide (a rotational joint's friction torque is the element's torque), slip and mode."""
    state = friction_state(group, inputs)
    n = group.element.size
    speed = np.linalg.norm(state.slip, axis=1)
    return {
        "penetration": np.zeros(n),
        "point": inputs.p_M[group.i_marker],
        "normal": np.zeros((n, 3)),
        "normal_force": state.normal_load,
        "friction_force": state.force,
        "slip_speed": speed,
        "mode": contact_mode(speed, group.stiction_velocity, group.transition_velocity),
    }


JOINT_FRICTION = ForceFamily("joint_friction", (JointFriction,), build_group, evaluate_loads, contact_quantities)
