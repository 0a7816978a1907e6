"""Kernels of the spring-damper family: translational spring-damper-actuators along the line
I-J and torsion springs about a revolute axis (``multibody.model.forces.spring_damper``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
    element_indices,
    marker_indices,
    parameters,
)
from multibody.model.forces.base import ForceElement
from multibody.model.forces.spring_damper import SpringDamper, TorsionSpring
from multibody.model.functions import TimeFunction
from multibody.spatial.rotations import FloatArray, cross


@dataclass(frozen=True)
class SpringDampers:
    """Translational spring-damper-actuators (see ``SpringDamper``)."""

    element: IntArray
    i_marker: IntArray
    j_marker: IntArray
    stiffness: FloatArray
    damping: FloatArray
    free_length: FloatArray
    preload: FloatArray
    actuator: tuple[TimeFunction | None, ...]


@dataclass(frozen=True)
class TorsionSprings:
    """Rotational spring-dampers about revolute axes (see ``TorsionSpring``)."""

    element: IntArray
    i_marker: IntArray
    j_marker: IntArray
    stiffness: FloatArray
    damping: FloatArray
    free_angle: FloatArray
    preload: FloatArray


def spring_damper_law(
    stiffness: FloatArray,
    deflection: FloatArray,
    damping: FloatArray,
    rate: FloatArray,
    preload: FloatArray,
    actuator: FloatArray | float,
) -> tuple[FloatArray, float, float, float]:
    """Linear law ``-k x - c x' + preload + actuator``: (scalar per element, stored energy
    ``1/2 k x^2 - preload x`` summed, power dissipated by damping ``c x'^2`` summed, power of the
    actuator summed)."""
    scalar = -stiffness * deflection + preload - damping * rate + actuator
    stored = float(np.sum(0.5 * stiffness * deflection**2 - preload * deflection))
    return scalar, stored, float(np.sum(damping * rate**2)), float(np.sum(actuator * rate))


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def _spring_dampers(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> SpringDampers:
    return SpringDampers(
        element_indices(members),
        marker_indices(members, context, "i_marker"),
        marker_indices(members, context, "j_marker"),
        parameters(members, "stiffness"),
        parameters(members, "damping"),
        parameters(members, "free_length"),
        parameters(members, "preload"),
        tuple(f.actuator for _, f in members),
    )


@dataclass(frozen=True)
class _SpringLines:
    """The lines I-J of a group's elements at one instant and their laws' values."""

    inverse_length: FloatArray
    """(ne,) 1 / |p_I - p_J| [1/m], zero at zero length (where ``direction`` is zero and so the force)"""
    direction: FloatArray
    """(ne, 3) unit vector from J's origin to I's"""
    relative_velocity: FloatArray
    """(ne, 3) v_I - v_J [m/s]"""
    law: tuple[FloatArray, float, float, float]
    """``spring_damper_law``'s values"""


def _spring_lines(group: SpringDampers, inputs: LoadInputs) -> _SpringLines:
    """The group's lines at ``inputs``' instant: ``d = p_I - p_J``, its length's law (``spring_damper_law``
    at ``L - L0`` and ``L' = u . (v_I - v_J)``)."""
    i, j = group.i_marker, group.j_marker
    d = inputs.p_M[i] - inputs.p_M[j]
    length = np.linalg.norm(d, axis=1)
    inverse_length = np.divide(1.0, length, out=np.zeros_like(length), where=length > 0.0)
    u = d * inverse_length[:, None]
    relative_velocity = inputs.v_M[i] - inputs.v_M[j]
    actuator = np.array([0.0 if a is None else a.value(inputs.t) for a in group.actuator])
    law = spring_damper_law(
        group.stiffness, length - group.free_length, group.damping, _dot(u, relative_velocity), group.preload, actuator
    )
    return _SpringLines(inverse_length, u, relative_velocity, law)


def _spring_damper_loads(group: SpringDampers, inputs: LoadInputs, out: LoadOutputs) -> None:
    lines = _spring_lines(group, inputs)
    u = lines.direction
    scalar, stored, damping_power, actuator_power = lines.law
    out.force[group.element] = scalar[:, None] * u
    out.value[group.element] = scalar
    out.potential += stored
    out.dissipated += damping_power
    out.input_power += actuator_power


def _spring_damper_tangents(group: SpringDampers, inputs: LoadInputs) -> tuple[FloatArray, FloatArray]:
    """``LoadTangents`` of ``_spring_damper_loads``: with ``d = p_I - p_J``, ``L = |d|``, ``u = d / L`` and
    the scalar ``s = -k (L - L0) - c L' + preload + actuator``, ``L' = u . (v_I - v_J)``, the force
    ``F = s u`` has ``dF/dd = u (ds/dd)^T + s (1 - u u^T) / L``, ``ds/dd = -k u - c (1 - u u^T)(v_I - v_J) / L``,
    and ``dF/dv_I = -c u u^T``; J's columns are the negatives, the rotations' zero (no couple, and the
    load reads only the origins). At zero length, where the loads hold ``F = 0``, the tangents are zero."""
    lines = _spring_lines(group, inputs)
    u, scalar = lines.direction, lines.law[0]
    along = u[:, :, None] * u[:, None, :]
    across = (np.eye(3) - along) * lines.inverse_length[:, None, None]
    rate_gradient = np.einsum("eab,eb->ea", across, lines.relative_velocity)  # dL'/dd [1/s]
    scalar_gradient = -group.stiffness[:, None] * u - group.damping[:, None] * rate_gradient
    force_by_separation = u[:, :, None] * scalar_gradient[:, None, :] + scalar[:, None, None] * across
    force_by_velocity = -group.damping[:, None, None] * along
    load_displacement, load_velocity = np.zeros((2, u.shape[0], 6, 12))
    for tangent, block in ((load_displacement, force_by_separation), (load_velocity, force_by_velocity)):
        tangent[:, :3, :3], tangent[:, :3, 6:9] = block, -block
    return load_displacement, load_velocity


def _torsion_springs(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> TorsionSprings:
    return TorsionSprings(
        element_indices(members),
        marker_indices(members, context, "i_marker"),
        marker_indices(members, context, "j_marker"),
        parameters(members, "stiffness"),
        parameters(members, "damping"),
        parameters(members, "free_angle"),
        parameters(members, "preload"),
    )


def _torsion_spring_loads(group: TorsionSprings, inputs: LoadInputs, out: LoadOutputs) -> None:
    i, j = group.i_marker, group.j_marker
    R_WM, w_M = inputs.R_WM, inputs.w_M
    x_I, x_J, y_J = R_WM[i][:, :, 0], R_WM[j][:, :, 0], R_WM[j][:, :, 1]
    sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)
    angle = np.arctan2(sine, cosine)
    deflection = np.mod(angle - group.free_angle + np.pi, 2.0 * np.pi) - np.pi
    # d(angle)/dt = axis . (w_I - w_J); the axis is z_J when the revolute holds, and this exact
    # gradient keeps the spring conservative even while the joint is slightly violated.
    axis = (cosine[:, None] * cross(x_I, y_J) - sine[:, None] * cross(x_I, x_J)) / (sine**2 + cosine**2)[:, None]
    rate = _dot(axis, w_M[i] - w_M[j])
    scalar, stored, damping_power, _ = spring_damper_law(
        group.stiffness, deflection, group.damping, rate, group.preload, 0.0
    )
    out.torque[group.element] = scalar[:, None] * axis
    out.value[group.element] = scalar
    out.potential += stored
    out.dissipated += damping_power


SPRING_DAMPER = ForceFamily(
    "spring_damper", (SpringDamper,), _spring_dampers, _spring_damper_loads, tangents=_spring_damper_tangents
)
TORSION_SPRING = ForceFamily("torsion_spring", (TorsionSpring,), _torsion_springs, _torsion_spring_loads)
