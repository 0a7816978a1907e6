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
from multibody.spatial.rotations import FloatArray, cross, skew


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
    u = d / np.where(length > 0.0, length, 1.0)[:, None]
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


@dataclass(frozen=True)
class _TorsionAngles:
    """The angles of a group's torsion springs at one instant, with what their gradients are made of."""

    x_I: FloatArray
    """(ne, 3) I's x axis, world"""
    x_J: FloatArray
    """(ne, 3) J's x axis, world"""
    y_J: FloatArray
    """(ne, 3) J's y axis, world"""
    sine: FloatArray
    """(ne,) x_I . y_J"""
    cosine: FloatArray
    """(ne,) x_I . x_J"""
    axis: FloatArray
    """(ne, 3) the angle's gradient with respect to I's world rotation [1/rad per rad] (J's: its negative)"""
    relative_angular_velocity: FloatArray
    """(ne, 3) w_I - w_J [rad/s]"""
    law: tuple[FloatArray, float, float, float]
    """``spring_damper_law``'s values"""


def _torsion_angles(group: TorsionSprings, inputs: LoadInputs) -> _TorsionAngles:
    """The group's angles at ``inputs``' instant, the angle of x_I from x_J about the axis ``atan2(x_I . y_J,
    x_I . x_J)``, and its law at the deflection from the free angle and the rate ``axis . (w_I - w_J)``."""
    i, j = group.i_marker, group.j_marker
    R_WM, w_M = inputs.R_WM, inputs.w_M
    x_I, x_J, y_J = R_WM[i][:, :, 0], R_WM[j][:, :, 0], R_WM[j][:, :, 1]
    sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)
    angle = np.arctan2(sine, cosine)
    deflection = np.mod(angle - group.free_angle + np.pi, 2.0 * np.pi) - np.pi
    # d(angle)/dt = axis . (w_I - w_J); the axis is z_J when the revolute holds, and this exact
    # gradient keeps the spring conservative even while the joint is slightly violated.
    axis = (cosine[:, None] * cross(x_I, y_J) - sine[:, None] * cross(x_I, x_J)) / (sine**2 + cosine**2)[:, None]
    relative_angular_velocity = w_M[i] - w_M[j]
    law = spring_damper_law(
        group.stiffness, deflection, group.damping, _dot(axis, relative_angular_velocity), group.preload, 0.0
    )
    return _TorsionAngles(x_I, x_J, y_J, sine, cosine, axis, relative_angular_velocity, law)


def _torsion_spring_loads(group: TorsionSprings, inputs: LoadInputs, out: LoadOutputs) -> None:
    angles = _torsion_angles(group, inputs)
    axis = angles.axis
    scalar, stored, damping_power, _ = angles.law
    out.torque[group.element] = scalar[:, None] * axis
    out.value[group.element] = scalar
    out.potential += stored
    out.dissipated += damping_power


def _torsion_spring_tangents(group: TorsionSprings, inputs: LoadInputs) -> tuple[FloatArray, FloatArray]:
    """``LoadTangents`` of ``_torsion_spring_loads``: the couple ``T = s a`` with the scalar
    ``s = -k (angle - free) - c a . (w_I - w_J) + preload`` and the axis ``a = N / D``, ``N = cos p - sin r``,
    ``D = sin^2 + cos^2``, ``p = x_I x y_J``, ``r = x_I x x_J`` (whose gradients with respect to I's world
    rotation are ``d sin = p``, ``d cos = r``, ``dp = skew(y_J) skew(x_I)``, ``dr = skew(x_J) skew(x_I)``; with
    respect to J's, ``-p``, ``-r``, ``-skew(x_I) skew(y_J)``, ``-skew(x_I) skew(x_J)``):
    ``dT/dtheta = a (ds/dtheta)^T + s da/dtheta``, ``ds/dtheta_I = -k a - c (da/dtheta_I)^T (w_I - w_J)``, and
    ``dT/dw_I = -c a a^T``, J's the negative; no force, and the origins' columns zero."""
    angles = _torsion_angles(group, inputs)
    x_I, x_J, y_J, sine, cosine, a = angles.x_I, angles.x_J, angles.y_J, angles.sine, angles.cosine, angles.axis
    scalar = angles.law[0]
    p, r = cross(x_I, y_J), cross(x_I, x_J)
    squared = (sine**2 + cosine**2)[:, None, None]
    outer = np.einsum("ea,eb->eab", p, r) - np.einsum("ea,eb->eab", r, p)  # p r^T - r p^T
    load_displacement, load_velocity = np.zeros((2, a.shape[0], 6, 12))
    for sign, columns, p_change, r_change in (
        (1.0, slice(3, 6), skew(y_J) @ skew(x_I), skew(x_J) @ skew(x_I)),
        (-1.0, slice(9, 12), -skew(x_I) @ skew(y_J), -skew(x_I) @ skew(x_J)),
    ):
        numerator_change = sign * outer + cosine[:, None, None] * p_change - sine[:, None, None] * r_change
        squared_change = 2.0 * sign * (sine[:, None] * p + cosine[:, None] * r)
        axis_change = (numerator_change - np.einsum("ea,eb->eab", a, squared_change)) / squared
        scalar_change = -sign * group.stiffness[:, None] * a - group.damping[:, None] * np.einsum(
            "eab,ea->eb", axis_change, angles.relative_angular_velocity
        )
        load_displacement[:, 3:, columns] = (
            np.einsum("ea,eb->eab", a, scalar_change) + scalar[:, None, None] * axis_change
        )
        load_velocity[:, 3:, columns] = -sign * group.damping[:, None, None] * np.einsum("ea,eb->eab", a, a)
    return load_displacement, load_velocity


SPRING_DAMPER = ForceFamily(
    "spring_damper", (SpringDamper,), _spring_dampers, _spring_damper_loads, tangents=_spring_damper_tangents
)
TORSION_SPRING = ForceFamily(
    "torsion_spring", (TorsionSpring,), _torsion_springs, _torsion_spring_loads, tangents=_torsion_spring_tangents
)
