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

With pulleys with friction (``Pulley.friction``) the rope is in segments, each with its own length
``L_j`` (a boundary pulley's arc split at its middle), rest length ``l_j`` (a state, the winches'
paid-out length added at the ends) and tension; a span's loads are its segment's tension times
its sensitivity. At a boundary pulley the rest length flows from the entry segment to the exit
one at ``(slip - r s angle_rate_mid) / (1 + mean strain)``: ``angle_rate_mid`` is the rate of the
arc's middle in the pulley's frame (``tangent_point_rates``; minus the spin under a fixed path),
``slip`` the capstan law's sliding speed (``slip_velocity``, on the elastic tensions), and with
the mean of the two segments' strains the strain energy moved with the rest length equals the
work ``(T_out - T_in) r`` of the loads on the pulley, so that only the sliding dissipates
(``slip (T_out - T_in)``). The damper acts on each segment's material rate of stretch (its
length's rate with the rope stuck to the pulleys, plus the rope sliding out of it).

Energy: ``1/2 EA stretch^2 / (L0 + p)`` per segment while taut; the damper's power is dissipated; the strain
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
from multibody.spatial.wrapping import rope_length, span_sensitivity, tangent_point_rates

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
    friction: FloatArray
    """(np,) a pulley's belt friction coefficient (inf: no slip; 0: frictionless)"""
    slip_speed: FloatArray
    """(np,) [m/s]"""
    rest_length: FloatArray
    """(nr,) [m] (ropes in one segment)"""
    segment_state: IntArray
    """(nr,) where the rest length of a rope's first segment sits in ``x``, the others following
    (-1: a rope in one segment, its rest length constant)"""
    axial_stiffness: FloatArray
    damping: FloatArray


def build_ropes(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> Ropes:
    """The ropes of ``members`` (their spans come along as members too)."""
    span_row = {id(element): k for k, element in members if isinstance(element, RopeSpan)}
    ropes = [(k, element) for k, element in members if isinstance(element, Rope)]
    keys = ("marker", "radius", "sense", "span", "state", "per_radian", "angle", "reference", "friction", "slip")
    columns: dict[str, list] = {key: [] for key in keys}
    route_start, rest_length, segment_state = [0], [], []
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
        columns["friction"] += list(reeving.friction)
        columns["slip"] += list(reeving.slip_speed)
        route_start.append(route_start[-1] + n)
        rest_length.append(reeving.rest_length)
        segment_state.append(next(winches) if rope.has_friction else -1)
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
        friction=np.array(columns["friction"], dtype=float),
        slip_speed=np.array(columns["slip"], dtype=float),
        rest_length=np.array(rest_length, dtype=float),
        segment_state=np.array(segment_state, dtype=np.int64),
        axial_stiffness=np.array([rope.axial_stiffness for _, rope in ropes], dtype=float),
        damping=np.array([rope.damping for _, rope in ropes], dtype=float),
    )


@njit(cache=True)
def slip_velocity(tension_in: float, tension_out: float, friction: float, wrap: float, slip_speed: float) -> float:
    """[m/s] the rope's velocity relative to the sheave in its direction of travel (capstan law,
    regularized; see ``Pulley``): 0 while ``T_high / T_low <= exp(mu theta)``, towards the higher
    tension beyond; 0 without slip (``friction`` inf)."""
    if np.isinf(friction) or tension_in + tension_out <= 0.0:
        return 0.0
    grip = np.exp(friction * wrap)
    excess = max(0.0, tension_out - grip * tension_in) - max(0.0, tension_in - grip * tension_out)
    return slip_speed * excess / (tension_in + tension_out)


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
        radius_all,
        sense_all,
        span_element,
        winch_state,
        length_per_radian,
        tangent_angle,
        reference_axis,
        friction_all,
        slip_speed,
        rest_length,
        segment_state,
        axial_stiffness,
        damping,
    ) = ropes
    potential = dissipated = input_power = 0.0
    for r in range(element.shape[0]):
        first, last = route_start[r], route_start[r + 1]
        n = last - first
        markers = marker[first:last]
        states = winch_state[first:last]
        radius, sense, friction = radius_all[first:last], sense_all[first:last], friction_all[first:last]
        X_in, X_out, spans, wraps, end_arc, end_paid_out = rope_length(
            p_M, R_WM, markers, radius, sense, states, length_per_radian[first:last], tangent_angle[first:last], x
        )
        paid_out_rate = np.zeros(2)
        for side in range(2):
            k = 0 if side == 0 else n - 1
            if states[k] >= 0:
                R = R_WM[markers[k]]
                axle, x_axis = np.ascontiguousarray(R[:, 2]), np.ascontiguousarray(R[:, 0])
                reference = reference_axis[first + k] - (reference_axis[first + k] @ axle) * axle
                measured = np.arctan2(np.cross(reference, x_axis) @ axle, reference @ x_axis)
                lag = (measured - x[states[k]] + np.pi) % (2.0 * np.pi) - np.pi
                rate = w_M[markers[k]] @ axle + lag / WINCH_TRACKING_TIME
                state_rate[states[k]] = rate
                end = 1.0 if k == 0 else -1.0
                paid_out_rate[side] = end * sense[k] * length_per_radian[first + k] * rate
        C = p_M[markers]
        z = np.empty((n, 3))
        for k in range(n):
            z[k] = R_WM[markers[k]][:, 2]
        directions, multiplier = span_sensitivity(C, z, radius, sense, X_in, X_out)
        # segments between pulleys with friction: lengths, rates of stretch (material stuck to the sheaves)
        segment = np.zeros(n - 1, dtype=np.int64)
        for k in range(1, n - 1):
            segment[k] = segment[k - 1] + (1 if friction[k] > 0.0 else 0)
        count = segment[n - 2] + 1
        length = np.zeros(count)
        rate = np.zeros(count)
        couple_out = np.zeros((n - 1, 3))
        for k in range(n - 1):
            i, j = markers[k], markers[k + 1]
            delta = X_in[k + 1] - X_out[k]
            couple_out[k] = multiplier[k, 0] * np.cross(X_out[k] - C[k], delta)
            couple_in = multiplier[k, 1] * np.cross(X_in[k + 1] - C[k + 1], delta)
            v_i = v_M[i] + np.cross(w_M[i], X_out[k] - p_M[i])
            v_j = v_M[j] + np.cross(w_M[j], X_in[k + 1] - p_M[j])
            rate[segment[k]] += directions[k] @ (v_j - v_i) + w_M[i] @ couple_out[k] + w_M[j] @ couple_in
            length[segment[k]] += spans[k]
        for k in range(1, n - 1):
            arc = radius[k] * wraps[k]
            if friction[k] > 0.0:
                length[segment[k - 1]] += 0.5 * arc
                length[segment[k]] += 0.5 * arc
            else:
                length[segment[k]] += arc
        length[0] += end_arc[0]
        length[count - 1] += end_arc[1]
        rest = np.full(count, rest_length[r])
        if segment_state[r] >= 0:
            rest = x[segment_state[r] : segment_state[r] + count].copy()
        rest[0] += end_paid_out[0]
        rest[count - 1] += end_paid_out[1]
        EA = axial_stiffness[r]
        elastic = np.zeros(count)
        for s in range(count):
            if length[s] > rest[s]:
                elastic[s] = EA * (length[s] - rest[s]) / rest[s]
                potential += 0.5 * elastic[s] * (length[s] - rest[s])
        # the strain energy of the rope reeled onto (or paid off) a drum
        input_power -= 0.5 * elastic[0] ** 2 / EA * paid_out_rate[0]
        input_power -= 0.5 * elastic[count - 1] ** 2 / EA * paid_out_rate[1]
        material_rate = rate.copy()  # the rope's rate of stretch, less its sliding out of the segment
        if count > 1:  # material flow over the pulleys with friction
            angle_rate = tangent_point_rates(C, z, radius, X_in, X_out, v_M[markers], w_M[markers])
            for k in range(1, n - 1):
                if friction[k] <= 0.0:
                    continue
                s_in, s_out = segment[k - 1], segment[k]
                slip = slip_velocity(elastic[s_in], elastic[s_out], friction[k], wraps[k], slip_speed[first + k])
                middle_rate = 0.5 * (angle_rate[k - 1, 1] + angle_rate[k, 0])
                mean_strain = 0.5 * (elastic[s_in] + elastic[s_out]) / EA
                flow = (slip - radius[k] * sense[k] * middle_rate) / (1.0 + mean_strain)
                state_rate[segment_state[r] + s_in] -= flow
                state_rate[segment_state[r] + s_out] += flow
                material_rate[s_in] += slip
                material_rate[s_out] -= slip
                dissipated += slip * (elastic[s_out] - elastic[s_in])
        tension = np.zeros(count)
        for s in range(count):
            if elastic[s] > 0.0:
                tension[s] = max(0.0, elastic[s] + damping[r] * material_rate[s])
            # the loads' power is -T times the rate with the material stuck to the sheaves
            dissipated += (tension[s] - elastic[s]) * rate[s]
        value[element[r]] = tension.max()
        for k in range(n - 1):
            row = span_element[first + k]
            i = markers[k]
            F = tension[segment[k]] * directions[k]
            force[row] = F
            torque[row] = np.cross(X_out[k] - p_M[i], F) - tension[segment[k]] * couple_out[k]
            value[row] = tension[segment[k]]
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
            group.friction,
            group.slip_speed,
            group.rest_length,
            group.segment_state,
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
