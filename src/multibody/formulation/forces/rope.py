"""Kernel of the rope family: massless rope paths over pulleys and winches
(``multibody.model.forces.rope``).

Per rope, at every evaluation: the wrapped path at the current marker frames
(``multibody.spatial.wrapping.wrapped_path``), its length ``L`` (free spans, arcs on pulleys, the
arc on each winch from its initial tangent point), the paid-out length ``p`` from the winch
states (drum rotation about its axle since t = 0), the stretch ``L - L0 - p``, its rate from the
bodies' motion (``multibody.spatial.wrapping.span_sensitivity``: exact with fleet angles), and
the tension. Each span's row carries ``T e`` at its start's tangent point with the couple of that
offset from the start marker's origin and ``-T m_a rho_a x delta`` (``e``, ``m_a``: the span's
sensitivity; ``e = u``, ``m = 0`` for a span in its pulleys' planes); the end marker's body takes
the reaction, which is ``-T e`` at its own tangent point and ``-T m_b rho_b x delta``, so that
the loads are ``-T dL/dq`` exactly.

A winch's state is its drum angle, unwrapped: its rate is the drum's spin about its axle plus
``wrap(measured - angle) / WINCH_TRACKING_TIME``, where ``measured`` is the angle of the drum
marker's x-axis about its z-axis from where it was in the input configuration (in (-pi, pi]).
Along any motion the correction is zero (the state is the continuous turn whose wrapped value is
measured), so it changes nothing in dynamics, but it makes the angle a function of the positions
in statics and quasi-statics, where the spin is zero. The path length takes the state modulo
2 pi (the arc on the drum to the tangent point), the paid-out length takes it whole (the turns
counted): a lag of the state behind the drum would change both alike and leave the stretch as it
is (exactly so without a groove pitch).

Energy: ``1/2 EA stretch^2 / (L0 + p)`` while taut; the damper's power is dissipated; the strain
energy of the rope reeled onto (or paid off) a drum, ``-1/2 EA (stretch / (L0 + p))^2 p'``, is
booked as input power, so that the balance closes with the free rest length changing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from multibody.formulation.forces.family import (
    ForceFamily,
    GroupContext,
    IntArray,
    LoadInputs,
    LoadOutputs,
)
from multibody.model.forces.base import ForceElement
from multibody.model.forces.rope import WINCH, Rope, RopeSpan
from multibody.spatial.rotations import FloatArray
from multibody.spatial.wrapping import rope_length, span_sensitivity

WINCH_TRACKING_TIME = 0.01
"""[s] time constant with which a winch state follows the measured drum angle (exact along a motion)"""


@dataclass(frozen=True)
class Ropes:
    """Massless ropes (see ``Rope``): route points of all ropes end to end, rope r's at
    ``route_start[r] : route_start[r + 1]``."""

    element: IntArray
    """(nr,) the ropes' rows"""
    route_start: IntArray
    """(nr + 1,)"""
    marker: IntArray
    """(np,) per route point"""
    radius: FloatArray
    sense: FloatArray
    span_element: IntArray
    """(np,) the row of the span that starts at the point (-1 at a rope's last point)"""
    winch_state: IntArray
    """(np,) where a winch's drum angle sits in ``x`` (-1: not a winch)"""
    length_per_radian: FloatArray
    tangent_angle: FloatArray
    """(np,) a winch's initial tangent angle in its marker's x-y plane [rad]"""
    reference_axis: FloatArray
    """(np, 3) a winch marker's x-axis in world in the input configuration"""
    rest_length: FloatArray
    """(nr,) [m]"""
    axial_stiffness: FloatArray
    damping: FloatArray


def build_ropes(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> Ropes:
    """The ropes of ``members`` (their spans come along as members too)."""
    span_row = {id(element): k for k, element in members if isinstance(element, RopeSpan)}
    ropes = [(k, element) for k, element in members if isinstance(element, Rope)]
    columns: dict[str, list] = {
        key: [] for key in ("marker", "radius", "sense", "span", "state", "per_radian", "angle", "reference")
    }
    route_start, rest_length = [0], []
    for _, rope in ropes:
        reeving = rope.reeving()
        states = context.states(rope)
        winches = iter(range(states.start, states.stop))
        n = len(reeving.markers)
        columns["marker"] += [context.marker(m) for m in reeving.markers]
        columns["radius"] += list(reeving.radius)
        columns["sense"] += list(reeving.sense)
        columns["span"] += [span_row[id(span)] for span in rope.parts] + [-1]
        columns["state"] += [next(winches) if kind == WINCH else -1 for kind in reeving.kind]
        columns["per_radian"] += list(reeving.length_per_radian)
        columns["angle"] += list(reeving.tangent_angle)
        columns["reference"] += list(reeving.reference_axis)
        route_start.append(route_start[-1] + n)
        rest_length.append(reeving.rest_length)
    return Ropes(
        element=np.array([k for k, _ in ropes], dtype=np.int64),
        route_start=np.array(route_start, dtype=np.int64),
        marker=np.array(columns["marker"], dtype=np.int64),
        radius=np.array(columns["radius"], dtype=float),
        sense=np.array(columns["sense"], dtype=float),
        span_element=np.array(columns["span"], dtype=np.int64),
        winch_state=np.array(columns["state"], dtype=np.int64),
        length_per_radian=np.array(columns["per_radian"], dtype=float),
        tangent_angle=np.array(columns["angle"], dtype=float),
        reference_axis=np.array(columns["reference"], dtype=float).reshape(-1, 3),
        rest_length=np.array(rest_length, dtype=float),
        axial_stiffness=np.array([rope.axial_stiffness for _, rope in ropes], dtype=float),
        damping=np.array([rope.damping for _, rope in ropes], dtype=float),
    )


@njit(cache=True)
def _rope_loads(
    p_M: FloatArray,
    R_WM: FloatArray,
    v_M: FloatArray,
    w_M: FloatArray,
    x: FloatArray,
    ropes: tuple,
    force: FloatArray,
    torque: FloatArray,
    value: FloatArray,
    state_rate: FloatArray,
) -> tuple[float, float, float]:
    """Write every rope's rows; return (potential [J], dissipated [W], input [W])."""
    (
        element,
        route_start,
        marker,
        radius,
        sense,
        span_element,
        winch_state,
        length_per_radian,
        tangent_angle,
        reference_axis,
        rest_length,
        axial_stiffness,
        damping,
    ) = ropes
    potential = dissipated = input_power = 0.0
    for r in range(element.shape[0]):
        first, last = route_start[r], route_start[r + 1]
        markers = marker[first:last]
        states = winch_state[first:last]
        X_in, X_out, _, _, length, paid_out = rope_length(
            p_M, R_WM, markers, radius[first:last], sense[first:last], states,
            length_per_radian[first:last], tangent_angle[first:last], x,
        )  # fmt: skip
        paid_out_rate = 0.0
        for k in (0, last - first - 1):
            if states[k] >= 0:
                R = R_WM[markers[k]]
                axle, x_axis = np.ascontiguousarray(R[:, 2]), np.ascontiguousarray(R[:, 0])
                reference = reference_axis[first + k] - (reference_axis[first + k] @ axle) * axle
                measured = np.arctan2(np.cross(reference, x_axis) @ axle, reference @ x_axis)
                lag = (measured - x[states[k]] + np.pi) % (2.0 * np.pi) - np.pi
                rate = w_M[markers[k]] @ axle + lag / WINCH_TRACKING_TIME
                state_rate[states[k]] = rate
                end = 1.0 if k == 0 else -1.0
                paid_out_rate += end * sense[first + k] * length_per_radian[first + k] * rate
        free_rest_length = rest_length[r] + paid_out
        stretch = length - rest_length[r] - paid_out
        C = p_M[markers]
        z = np.empty((last - first, 3))
        for k in range(last - first):
            z[k] = R_WM[markers[k]][:, 2]
        directions, multiplier = span_sensitivity(C, z, radius[first:last], sense[first:last], X_in, X_out)
        stretch_rate = 0.0  # (L - p)' from the bodies' motion (span_sensitivity)
        couple_out = np.zeros((last - first - 1, 3))
        couple_in = np.zeros((last - first - 1, 3))
        for k in range(last - first - 1):
            i, j = markers[k], markers[k + 1]
            delta = X_in[k + 1] - X_out[k]
            couple_out[k] = multiplier[k, 0] * np.cross(X_out[k] - C[k], delta)
            couple_in[k] = multiplier[k, 1] * np.cross(X_in[k + 1] - C[k + 1], delta)
            v_i = v_M[i] + np.cross(w_M[i], X_out[k] - p_M[i])
            v_j = v_M[j] + np.cross(w_M[j], X_in[k + 1] - p_M[j])
            stretch_rate += directions[k] @ (v_j - v_i) + w_M[i] @ couple_out[k] + w_M[j] @ couple_in[k]
        elastic = axial_stiffness[r] * stretch / free_rest_length
        tension = 0.0
        if stretch > 0.0:
            tension = max(0.0, elastic + damping[r] * stretch_rate)
            potential += 0.5 * elastic * stretch
            dissipated += (tension - elastic) * stretch_rate
            input_power -= 0.5 * elastic * stretch / free_rest_length * paid_out_rate
        value[element[r]] = tension
        for k in range(last - first - 1):
            row = span_element[first + k]
            i = markers[k]
            F = tension * directions[k]
            force[row] = F
            torque[row] = np.cross(X_out[k] - p_M[i], F) - tension * couple_out[k]
            value[row] = tension
    return potential, dissipated, input_power


def rope_loads(group: Ropes, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Tension of every rope and the loads of its spans."""
    potential, dissipated, input_power = _rope_loads(
        inputs.p_M,
        inputs.R_WM,
        inputs.v_M,
        inputs.w_M,
        inputs.x,
        (
            group.element,
            group.route_start,
            group.marker,
            group.radius,
            group.sense,
            group.span_element,
            group.winch_state,
            group.length_per_radian,
            group.tangent_angle,
            group.reference_axis,
            group.rest_length,
            group.axial_stiffness,
            group.damping,
        ),
        out.force,
        out.torque,
        out.value,
        out.state_rate,
    )
    out.potential += potential
    out.dissipated += dissipated
    out.input_power += input_power


ROPE = ForceFamily(name="rope", element_types=(Rope, RopeSpan), group=build_ropes, loads=rope_loads)
