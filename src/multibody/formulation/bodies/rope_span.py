"""The moving-node rope span kind (Qi, Guo & Zhuo 2019): cubic Hermite rope elements whose nodes
move through the material.

A span (``multibody.model.rope_span.MovingNodeSpan``) is an ANCF cable (``bodies.cable``: node
positions ``r_i`` and slopes ``r'_i = dr/ds``, six coordinates per node) whose two end nodes also
carry their material coordinate ``s_0``, ``s_n`` [m of unstretched rope] as coordinates, the last
two of its block. Node ``i`` of ``n`` elements is at the material coordinate
``s_i = s_0 + i (s_n - s_0) / n``, so every element has the variable rest length
``L = (s_n - s_0) / n``, and a point at the element coordinate ``xi`` is a *spatial* point: its
material coordinate ``s = s_i + xi L`` moves with ``s_0`` and ``s_n``. Rope flows through the
span's ends (onto pulleys and drums) with no remeshing.

Per element, at ``xi``: ``r = N1 r_i + L N2 r'_i + N3 r_j + L N4 r'_j`` (``N``: cubic Hermite
functions of xi), ``r_s = dr/ds``, and the material velocity and acceleration (at fixed ``s``,
the paper's eqs. 1-2):

``v = dr/dt|_xi - r_s ds/dt = B(q) q'``
``a = B q'' + c``,  ``c = 2 L' (N2 r'_i' + N4 r'_j') - 2 (dr_s/dt|_xi) s' + r_ss s'^2``

(``B``'s columns on ``s_0``, ``s_n``: ``-+(N2 r'_i + N4 r'_j) / n - r_s ds/ds_0|_xi``). The
principle of virtual power on the material (whose virtual velocities are material ones) gives
the span's mass matrix ``rho A int B^T B ds`` (configuration dependent) and its inertial force
``-rho A int B^T c ds``; gravity ``rho A int B^T g ds``. Both are d'Alembert's sums over the
particles inside the span at the instant: exact for the moving domain (4-point Gauss: the
integrands are polynomials of degree 6 in xi). The elastic force is the exact gradient of the
strain energy ``1/2 int EA max(eps, 0)^2 ds`` (tension only; ``eps = |r_s| - 1``; 3 points,
reduced against membrane locking as for the cable), so the model conserves energy; the damping
stress ``eta d(eps)/dt|_s`` acts on the material strain rate with its virtual power, never making
the tension compressive (``max(EA eps + eta d(eps)/dt, 0)``, as the massless kind). The paper's
stress smoothing (an option, ``smoothing`` h [s]) averages the stress over h: ``EA (eps + h/2
d(eps)/dt + h^2/6 d2(eps)/dt2)``, its h/2 term more damping, its h^2/6 term a mass on the strain
rate, ``EA h^2/6 int T^T T ds`` (``d(eps)/dt|_s = T q'``), with the rest of the strain acceleration
(``_strain_acceleration_bias``) a force. No bending stiffness (the paper's rope).

The rope wrapped on pulleys and stored on drums (``rim_arcs``) rides with its wheel: its mass,
gravity and inertia are the wheel's, with the belt friction between the two (``add_rim_terms``).
A span's markers are the cable kind's (``bodies.cable``); ``KIND`` registers the span elements'
and the rim arcs' terms and energies (``body_terms``, ``tangent_blocks``, ``kinetic_energy``,
``potential_energy``, the ``BodyKind`` hooks of ``multibody.formulation.bodies.kind``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from multibody.formulation.blocks import block_places
from multibody.formulation.bodies.cable import AXIAL_POINTS, MASS_POINTS, FloatArray, IntArray
from multibody.formulation.bodies.kind import BodyKind, MatrixEntries

if TYPE_CHECKING:
    from multibody.formulation.frames import Pose, Twist
    from multibody.system.system import System

SPAN_ELEMENT_WIDTH = 14
"""Coordinates an element of a span depends on: its two nodes (12) and the span's end material coordinates (2)."""


@njit(cache=True, inline="always")
def _hermite(xi: float, out: FloatArray) -> None:
    """``out`` (3, 4): the cubic Hermite functions of xi on a unit element and their first two
    xi-derivatives, weighting ``(r_i, L r'_i, r_j, L r'_j)``."""
    out[0, 0] = 1.0 - 3.0 * xi**2 + 2.0 * xi**3
    out[0, 1] = xi - 2.0 * xi**2 + xi**3
    out[0, 2] = 3.0 * xi**2 - 2.0 * xi**3
    out[0, 3] = xi**3 - xi**2
    out[1, 0] = 6.0 * xi**2 - 6.0 * xi
    out[1, 1] = 1.0 - 4.0 * xi + 3.0 * xi**2
    out[1, 2] = 6.0 * xi - 6.0 * xi**2
    out[1, 3] = 3.0 * xi**2 - 2.0 * xi
    out[2, 0] = 12.0 * xi - 6.0
    out[2, 1] = 6.0 * xi - 4.0
    out[2, 2] = 6.0 - 12.0 * xi
    out[2, 3] = 6.0 * xi - 2.0


@njit(cache=True, inline="always")
def _combine(weights: FloatArray, L: float, e: FloatArray, out: FloatArray) -> None:
    """``out (3,) = w0 r_i + L w1 r'_i + w2 r_j + L w3 r'_j`` of the element coordinates ``e`` (12,)."""
    for a in range(3):
        out[a] = weights[0] * e[a] + L * weights[1] * e[3 + a] + weights[2] * e[6 + a] + L * weights[3] * e[9 + a]


@njit(cache=True, inline="always")
def _strain_acceleration_bias(
    shapes: FloatArray,
    L: float,
    L_rate: float,
    s_rate: float,
    e: FloatArray,
    de: FloatArray,
    r_s: FloatArray,
    r_ss: FloatArray,
    rs_rate: FloatArray,
    material_rate: FloatArray,
    strain_rate: float,
    norm: float,
    r_xixi_rate: FloatArray,
) -> float:
    """The part of the material strain acceleration ``d2(eps)/dt2|_s = T q'' + bias`` that does not
    hold ``q''``, at an element point (``shapes`` of ``_hermite``; ``r_s``, ``r_ss``, the rate
    ``rs_rate`` of ``r_s`` at fixed xi and its material rate ``material_rate`` = ``w``, the strain
    rate ``u . w``, ``norm`` = ``|r_s|``). With ``u = r_s / |r_s|``: ``d(eps)/dt = u . w`` and ``w = dv/ds`` (``v`` the material
    velocity), so ``d2(eps)/dt2 = u' . w + u . da/ds`` with ``u' = (w - u (u . w)) / |r_s|`` and ``a =
    B q'' + c``: the bias is ``(|w|^2 - (u . w)^2) / |r_s| + u . dc/ds``, ``c`` the convective
    acceleration of ``span_terms`` differentiated along the element (``ds = L dxi``; ``ds'/dxi =
    L'``). ``r_xixi_rate`` (3,) scratch."""
    _combine(shapes[2], L, de, r_xixi_rate)
    third = (12.0, 6.0, -12.0, 6.0)  # the Hermite functions' third xi-derivatives
    along = 0.0
    squared = 0.0
    for a in range(3):
        slope_mix_rate = shapes[1, 1] * de[3 + a] + shapes[1, 3] * de[9 + a]
        slope_curvature = shapes[2, 1] * e[3 + a] + shapes[2, 3] * e[9 + a]
        rs_rate_xi = (r_xixi_rate[a] + L_rate * slope_curvature) / L - L_rate * r_ss[a]
        r_xixixi = third[0] * e[a] + L * third[1] * e[3 + a] + third[2] * e[6 + a] + L * third[3] * e[9 + a]
        convective_xi = (
            2.0 * L_rate * slope_mix_rate
            - 2.0 * rs_rate_xi * s_rate
            - 2.0 * rs_rate[a] * L_rate
            + r_xixixi / (L * L) * s_rate**2
            + 2.0 * r_ss[a] * s_rate * L_rate
        )
        along += r_s[a] / norm * convective_xi / L
        squared += material_rate[a] ** 2
    return (squared - strain_rate**2) / norm + along


@njit(cache=True)
def span_terms(
    q: FloatArray,
    v: FloatArray,
    node_positions: IntArray,
    node_velocities: IntArray,
    end_positions: IntArray,
    end_velocities: IntArray,
    element_index: IntArray,
    element_count: IntArray,
    mass_per_length: FloatArray,
    axial_stiffness: FloatArray,
    damping: FloatArray,
    smoothing: FloatArray,
    gravity: FloatArray,
    force: FloatArray,
    mass_blocks: FloatArray,
) -> tuple[float, float, float, float]:
    """Every span element's terms at ``(q, v)``: add the gravity, inertial (``-rho A int B^T c``),
    elastic and damping forces to ``force`` (nv,) and write each element's mass matrix
    ``rho A int B^T B ds`` to ``mass_blocks`` (ne, 14, 14) over its columns ``(node_velocities[k],
    end_velocities[k])``. Element ``k`` is number ``element_index[k]`` of ``element_count[k]`` in
    its span, its node coordinates at ``node_positions`` (ne, 12) in ``q`` and its span's
    ``s_0, s_n`` at ``end_positions`` (ne, 2). ``mass_per_length`` [kg/m], ``axial_stiffness``
    EA [N], ``damping`` eta [N s], ``smoothing`` h [s] (the paper's stress smoothing: the stress
    ``EA (eps + h/2 d(eps)/dt + h^2/6 d2(eps)/dt2)``, material rates; its last term adds
    ``EA h^2/6 int T^T T ds`` to the mass and ``1/2 EA h^2/6 int (d(eps)/dt)^2 ds`` to the kinetic
    energy) per element; ``gravity`` (3,) [m/s^2].

    Returns ``(kinetic energy [J], gravity potential -int rho A g . r ds [J], strain energy [J],
    dissipated power [W])`` of the material inside the spans."""
    kinetic = potential = strain = dissipated = 0.0
    e = np.empty(12)
    de = np.empty(12)
    shapes = np.empty((3, 4))
    B = np.empty((3, SPAN_ELEMENT_WIDTH))
    local = np.empty(SPAN_ELEMENT_WIDTH)
    slope_mix = np.empty(3)
    slope_mix_rate = np.empty(3)
    slope_slope = np.empty(3)
    r = np.empty(3)
    r_xi = np.empty(3)
    r_s = np.empty(3)
    r_ss = np.empty(3)
    r_xi_rate = np.empty(3)
    rs_rate = np.empty(3)
    convective = np.empty(3)
    velocity = np.empty(3)
    material_rate = np.empty(3)
    strain_gradient = np.empty(SPAN_ELEMENT_WIDTH)
    scratch = np.empty(3)
    mass_points, mass_weights = MASS_POINTS
    axial_points, axial_weights = AXIAL_POINTS
    for k in range(node_positions.shape[0]):
        for j in range(12):
            e[j] = q[node_positions[k, j]]
            de[j] = v[node_velocities[k, j]]
        s0, sn = q[end_positions[k, 0]], q[end_positions[k, 1]]
        s0_rate, sn_rate = v[end_velocities[k, 0]], v[end_velocities[k, 1]]
        n = element_count[k]
        L = (sn - s0) / n
        L_rate = (sn_rate - s0_rate) / n
        rho = mass_per_length[k]
        for j in range(SPAN_ELEMENT_WIDTH):
            local[j] = 0.0
        block = mass_blocks[k]
        block[:, :] = 0.0
        for g in range(mass_points.size):
            xi = 0.5 * (mass_points[g] + 1.0)
            w = 0.5 * mass_weights[g] * L * rho
            _hermite(xi, shapes)
            share_n = (element_index[k] + xi) / n  # d s / d s_n at the point; 1 - share_n on s_0
            share_0 = 1.0 - share_n
            s_rate = share_0 * s0_rate + share_n * sn_rate
            for a in range(3):
                slope_mix[a] = shapes[0, 1] * e[3 + a] + shapes[0, 3] * e[9 + a]
                slope_mix_rate[a] = shapes[0, 1] * de[3 + a] + shapes[0, 3] * de[9 + a]
                slope_slope[a] = shapes[1, 1] * e[3 + a] + shapes[1, 3] * e[9 + a]
            _combine(shapes[0], L, e, r)
            _combine(shapes[1], L, e, r_xi)
            _combine(shapes[2], L, e, r_ss)
            _combine(shapes[1], L, de, r_xi_rate)
            for a in range(3):
                r_s[a] = r_xi[a] / L
                r_ss[a] /= L * L
                rs_rate[a] = (r_xi_rate[a] + L_rate * slope_slope[a]) / L - L_rate / L * r_s[a]
                convective[a] = 2.0 * L_rate * slope_mix_rate[a] - 2.0 * rs_rate[a] * s_rate + r_ss[a] * s_rate**2
            # B: node columns are (N1, L N2, N3, L N4) times I; then s_0 and s_n
            for a in range(3):
                for j in range(12):
                    B[a, j] = 0.0
                for i in range(4):
                    B[a, 3 * i + a] = shapes[0, i] * (L if i % 2 == 1 else 1.0)
                B[a, 12] = -slope_mix[a] / n - share_0 * r_s[a]
                B[a, 13] = slope_mix[a] / n - share_n * r_s[a]
            for a in range(3):
                velocity[a] = 0.0
                for j in range(SPAN_ELEMENT_WIDTH):
                    velocity[a] += B[a, j] * (de[j] if j < 12 else (s0_rate if j == 12 else sn_rate))
            for a in range(3):
                kinetic += 0.5 * w * velocity[a] ** 2
                potential -= w * gravity[a] * r[a]
            for j in range(SPAN_ELEMENT_WIDTH):
                along = 0.0
                for a in range(3):
                    along += B[a, j] * (gravity[a] - convective[a])
                local[j] += w * along
                for m in range(SPAN_ELEMENT_WIDTH):
                    block[j, m] += w * (B[0, j] * B[0, m] + B[1, j] * B[1, m] + B[2, j] * B[2, m])
        EA, eta = axial_stiffness[k], damping[k]
        for g in range(axial_points.size):
            xi = 0.5 * (axial_points[g] + 1.0)
            w = 0.5 * axial_weights[g] * L
            _hermite(xi, shapes)
            share_n = (element_index[k] + xi) / n
            share_0 = 1.0 - share_n
            s_rate = share_0 * s0_rate + share_n * sn_rate
            _combine(shapes[1], L, e, r_xi)
            _combine(shapes[2], L, e, r_ss)
            _combine(shapes[1], L, de, r_xi_rate)
            norm = 0.0
            for a in range(3):
                r_s[a] = r_xi[a] / L
                r_ss[a] /= L * L
                slope_slope[a] = shapes[1, 1] * e[3 + a] + shapes[1, 3] * e[9 + a]
                norm += r_s[a] ** 2
            norm = np.sqrt(norm)
            stretch = norm - 1.0
            if stretch <= 0.0:  # slack: a rope takes no compression
                continue
            # strain energy L w 1/2 EA eps^2: gradient on the nodes and on L (through r_s and the weight)
            strain += 0.5 * w * EA * stretch**2
            on_r_s = w * EA * stretch / norm  # times r_s: dU/dr_s
            dU_dL = 0.5 * (w / L) * EA * stretch**2
            for a in range(3):
                dU_dL -= on_r_s * r_s[a] * (shapes[1, 0] * e[a] + shapes[1, 2] * e[6 + a]) / L**2
            # the material strain rate u . w (u = r_s / |r_s|, w the material rate of r_s) and its
            # velocity gradient T (14,): d(eps)/dt|_s = T q'
            strain_rate = 0.0
            on_L_rate = 0.0  # u . d(r_s rate)/dL'
            on_s_rate = 0.0  # u . r_ss
            for a in range(3):
                rs_rate[a] = (r_xi_rate[a] + L_rate * slope_slope[a]) / L - L_rate / L * r_s[a]
                material_rate[a] = rs_rate[a] - r_ss[a] * s_rate
                strain_rate += r_s[a] * material_rate[a] / norm
                on_L_rate += r_s[a] * (slope_slope[a] - r_s[a]) / (L * norm)
                on_s_rate += r_s[a] * r_ss[a] / norm
            for i in range(4):
                factor = shapes[1, i] / L if i % 2 == 0 else shapes[1, i]
                for a in range(3):
                    strain_gradient[3 * i + a] = factor * r_s[a] / norm
                    local[3 * i + a] -= on_r_s * factor * r_s[a]
            strain_gradient[12] = -on_L_rate / n - share_0 * on_s_rate
            strain_gradient[13] = on_L_rate / n - share_n * on_s_rate
            local[12] += dU_dL / n
            local[13] -= dU_dL / n
            # the damping stress (with the smoothing's EA h/2) may relax the tension to zero but never
            # push (as the massless kind): a compressive one would hold a slackening rope at eps = 0 (a
            # sliding mode BDF crawls along)
            stress_rate_part = w * max((eta + 0.5 * EA * smoothing[k]) * strain_rate, -EA * stretch)
            dissipated += stress_rate_part * strain_rate
            for j in range(SPAN_ELEMENT_WIDTH):
                local[j] -= stress_rate_part * strain_gradient[j]
            if smoothing[k] > 0.0:  # the smoothed stress's EA h^2/6 d2(eps)/dt2 = EA h^2/6 (T q'' + bias)
                strain_inertia = w * EA * smoothing[k] ** 2 / 6.0
                bias = _strain_acceleration_bias(
                    shapes, L, L_rate, s_rate, e, de, r_s, r_ss, rs_rate, material_rate, strain_rate, norm, scratch
                )
                kinetic += 0.5 * strain_inertia * strain_rate**2
                for j in range(SPAN_ELEMENT_WIDTH):
                    local[j] -= strain_inertia * bias * strain_gradient[j]
                    for m in range(SPAN_ELEMENT_WIDTH):
                        block[j, m] += strain_inertia * strain_gradient[j] * strain_gradient[m]
        for j in range(12):
            force[node_velocities[k, j]] += local[j]
        force[end_velocities[k, 0]] += local[12]
        force[end_velocities[k, 1]] += local[13]
    return kinetic, potential, strain, dissipated


@dataclass(frozen=True)
class RopeSpans:
    """The moving-node spans of a System (numbers only), their elements in model order. Each span is
    also in ``CableBodies`` (for its markers), with zero mass and stiffness there."""

    names: tuple[str, ...]
    node_positions: IntArray
    """(ne, 12) each element's node coordinates in ``q``"""
    node_velocities: IntArray
    """(ne, 12) the same in ``v``"""
    end_positions: IntArray
    """(ne, 2) its span's ``s_0, s_n`` in ``q``"""
    end_velocities: IntArray
    """(ne, 2) the same in ``v``"""
    element_index: IntArray
    """(ne,) the element's number in its span"""
    element_count: IntArray
    """(ne,) elements in its span"""
    mass_per_length: FloatArray
    axial_stiffness: FloatArray
    damping: FloatArray
    smoothing: FloatArray
    """(ne,) [s] the stress smoothing's time (``span_terms``)"""
    gravity: FloatArray
    """(3,) [m/s^2]"""
    span: IntArray
    """(ne,) the element's span (index into ``names``)"""
    diameter: FloatArray
    """(ns,) each span's rope diameter [m]: the shortest element it may shrink to (``check_lengths``)"""
    arc_marker: IntArray
    """(na,) per arc of rope on a rim (a pulley's wrap, a drum's stored rope), its wheel's marker
    (origin the centre, z the axle)"""
    arc_body: IntArray
    """(na,) the wheel's body"""
    arc_radius: FloatArray
    """(na,) [m]"""
    arc_sense: FloatArray
    """(na,) +1/-1 (see ``multibody.model.forces.rope``)"""
    arc_mass_per_radian: FloatArray
    """(na,) [kg/rad] the rope on a radian of the wheel (its rest length per radian times its mass
    per length)"""
    arc_material_per_radian: FloatArray
    """(na,) [m/rad] the rope's rest length on a radian of the wheel (``r / stretch``, a grooved
    drum's helix ``sqrt(r^2 + (p / 2 pi)^2) / stretch``)"""
    arc_kind: IntArray
    """(na,) ``WRAP``: from the entry to the exit node; ``STORED_BEFORE`` / ``STORED_AFTER``: a drum's
    stored rope, ending / starting at the contact node (a winch at the route's start / end)"""
    arc_first: IntArray
    """(na, 3) the entry node's (or the contact node's) position in ``q``"""
    arc_second: IntArray
    """(na, 3) the exit node's (or the contact node's) position in ``q``"""
    arc_material: IntArray
    """(na,) a drum's contact node's material coordinate in ``q`` (-1 on a pulley)"""
    arc_stored: FloatArray
    """(na,) a drum's stored length [m] when its contact node's material coordinate is 0"""
    friction_ring: IntArray
    """(nf,) per pulley with belt friction, the ring the rope sticks to (``model.rope_span.RimRing``)"""
    friction_wheel: IntArray
    """(nf,) the pulley's body (-1: ground)"""
    friction_axle: IntArray
    """(nf,) the ring's axle marker (z the axle)"""
    friction_arc: IntArray
    """(nf,) the pulley's wrap among the arcs"""
    friction_radius: FloatArray
    """(nf,) [m]"""
    friction_coefficient: FloatArray
    """(nf,) belt friction coefficient mu"""
    friction_slip_speed: FloatArray
    """(nf,) [m/s] the capstan law's regularization (``Pulley.slip_speed``)"""
    friction_stiffness: FloatArray
    """(nf,) the rope's EA [N]"""
    friction_in: IntArray
    """(nf, 3) the slope of the arriving span's last node in ``q`` (its strain: the entry tension)"""
    friction_out: IntArray
    """(nf, 3) the slope of the leaving span's first node in ``q``"""

    @cached_property
    def element_columns(self) -> IntArray:
        """(ne, 14) the velocity columns of each element's mass block."""
        return np.hstack([self.node_velocities, self.end_velocities])

    @cached_property
    def element_places(self) -> tuple[IntArray, IntArray]:
        """``(rows, columns)`` (ne 14^2,) in ``M`` of the elements' mass blocks' entries (``block_places``)."""
        return block_places(self.element_columns)

    @cached_property
    def arc_columns(self) -> IntArray:
        """(na, 6) the velocity columns of each arc's wheel (its mass block)."""
        from multibody.formulation.bodies.rigid import VELOCITY_WIDTH

        return VELOCITY_WIDTH * self.arc_body[:, None] + np.arange(VELOCITY_WIDTH)

    @cached_property
    def arc_places(self) -> tuple[IntArray, IntArray]:
        """``(rows, columns)`` (na 6^2,) in ``M`` of the arcs' mass blocks' entries (``block_places``)."""
        return block_places(self.arc_columns)

    @cached_property
    def friction_columns(self) -> tuple[IntArray, IntArray]:
        """(nf, 3) each ring's and (nf, 3) each pulley's rotation columns (the pulley's meaningless on
        ground, where ``friction_wheel`` is -1)."""
        from multibody.formulation.bodies.rigid import ROTATION, VELOCITY_WIDTH

        rotation = np.arange(VELOCITY_WIDTH)[ROTATION]
        return (
            VELOCITY_WIDTH * self.friction_ring[:, None] + rotation,
            VELOCITY_WIDTH * self.friction_wheel[:, None] + rotation,
        )


def element_terms(
    spans: RopeSpans, q: FloatArray, v: FloatArray, out: FloatArray
) -> tuple[FloatArray, tuple[float, float, float, float]]:
    """Add the spans' gravity, inertial, elastic and damping forces to ``out`` (nv,) at ``(q, v)``.
    Returns ``(mass blocks (ne, 14, 14) [kg] on ``RopeSpans.element_columns``, (kinetic [J], gravity
    potential [J], strain energy [J], dissipated power [W]))``."""
    check_lengths(spans, q)
    blocks = np.empty((spans.node_positions.shape[0], SPAN_ELEMENT_WIDTH, SPAN_ELEMENT_WIDTH))
    energies = span_terms(
        q,
        v,
        spans.node_positions,
        spans.node_velocities,
        spans.end_positions,
        spans.end_velocities,
        spans.element_index,
        spans.element_count,
        spans.mass_per_length,
        spans.axial_stiffness,
        spans.damping,
        spans.smoothing,
        spans.gravity,
        out,
        blocks,
    )
    return blocks, energies


def check_lengths(spans: RopeSpans, q: FloatArray) -> None:
    """``ModelError`` naming the span whose elements have shrunk below the rope's diameter at
    positions ``q``: the rope has run out there (reeled onto a drum, or a hook block pulled up to
    its sheave: two-blocking), and a rope element shorter than its rope is no model of it."""
    from multibody.model.element import ModelError

    rest = q[spans.end_positions[:, 1]] - q[spans.end_positions[:, 0]]
    short = np.flatnonzero(rest < spans.element_count * spans.diameter[spans.span])
    if short.size:
        k = short[0]
        raise ModelError(
            f"rope span '{spans.names[spans.span[k]]}' has run out of rope: its rest length fell to {rest[k]:.4g} m, "
            f"less than its {spans.element_count[k]} elements' rope diameter each (the rope reeled onto a drum or a "
            "block pulled up to its sheave); stop the winch earlier or lay the route with more rope"
        )


def material_energies(spans: RopeSpans, system: System, frames: Pose, v_tail: FloatArray) -> tuple[float, float, float]:
    """``(kinetic [J], gravity potential [J], strain energy [J])`` of the material in the spans at
    ``frames`` and the velocities after the frames' ``v_tail``."""
    q = np.concatenate([np.zeros(system.n_frame_positions), frames.q_modal])
    v = np.concatenate([np.zeros(system.n_frame_velocities), v_tail])
    _, (kinetic, potential, strain, _) = element_terms(spans, q, v, np.zeros(v.size))
    return kinetic, potential, strain


@dataclass(frozen=True)
class RimArcs:
    """The rope wrapped on the pulleys at an instant, each arc a rigid part of its pulley (stuck to
    the rim, at its rest length): per arc (na,) its mass [kg], first moment ``h`` (na, 3) [kg m]
    about its pulley body's CM and inertia ``J`` (na, 3, 3) [kg m^2] about that CM, world axes."""

    mass: FloatArray
    first_moment: FloatArray
    inertia: FloatArray
    angle: FloatArray
    """(na,) [rad] each arc's angle"""


WRAP, STORED_BEFORE, STORED_AFTER = 0, 1, -1


def rim_arcs(spans: RopeSpans, q: FloatArray, p_WM_W: FloatArray, R_WM: FloatArray, p_WB_W: FloatArray) -> RimArcs:
    """The rope on the rims at positions ``q`` and marker and body frames (world): each pulley's
    wrap from the entry to the exit node in the pulley's sense, each drum's stored rope (its
    length from the contact's material coordinate, none once paid out), ``rho`` the mass per length
    of rim (a helix taken in the drum's plane). With ``e1`` towards the arc's start,
    ``e2 = sense z x e1`` and its angle ``phi``: mass ``rho r phi``, first moment about
    the centre ``rho r^2 (sin phi e1 + (1 - cos phi) e2)``, second moment ``rho r^3 int n n^T``
    (``n = cos t e1 + sin t e2``, t in [0, phi]); compiled, one pass over the arcs."""
    count = spans.arc_body.size
    mass, first_moment, inertia = np.empty(count), np.empty((count, 3)), np.empty((count, 3, 3))
    angle = np.empty(count)
    _arc_properties(
        q, p_WM_W, R_WM, p_WB_W, spans.arc_marker, spans.arc_body, spans.arc_radius, spans.arc_sense,
        spans.arc_mass_per_radian, spans.arc_material_per_radian, spans.arc_kind, spans.arc_first,
        spans.arc_second, spans.arc_material, spans.arc_stored, mass, first_moment, inertia, angle,
    )  # fmt: skip
    return RimArcs(mass, first_moment, inertia, angle)


@njit(cache=True)
def _arc_properties(
    q: FloatArray,
    p_WM_W: FloatArray,
    R_WM: FloatArray,
    p_WB_W: FloatArray,
    marker: IntArray,
    body: IntArray,
    radius: FloatArray,
    sense: FloatArray,
    mass_per_radian: FloatArray,
    material_per_radian: FloatArray,
    kind: IntArray,
    first: IntArray,
    second: IntArray,
    material: IntArray,
    stored_offset: FloatArray,
    mass: FloatArray,
    first_moment: FloatArray,
    inertia: FloatArray,
    angle: FloatArray,
) -> None:
    """``rim_arcs``' loop: mass (na,), first moment (na, 3) and inertia (na, 3, 3) about each
    arc's body's CM, world axes, and its angle (na,) [rad], written into the last four arguments."""
    start, leave, across, e1, e2 = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    a, about = np.empty(3), np.empty(3)
    for k in range(body.size):
        axle = R_WM[marker[k], :, 2].copy()  # contiguous, for the dot products
        centre = p_WM_W[marker[k]]
        for i in range(3):
            start[i] = q[first[k, i]] - centre[i]
            leave[i] = q[second[k, i]] - centre[i]
        along_start, along_leave = start @ axle, leave @ axle
        start -= along_start * axle
        leave -= along_leave * axle
        start /= np.sqrt(start @ start)
        across[:] = sense[k] * np.cross(axle, start)
        if kind[k] == WRAP:
            phi = np.arctan2(leave @ across, leave @ start) % (2.0 * np.pi)
        else:
            phi = max(stored_offset[k] + kind[k] * q[material[k]], 0.0) / material_per_radian[k]
        if kind[k] == STORED_BEFORE:  # ends at the contact: starts phi back from it
            e1[:] = np.cos(phi) * start - np.sin(phi) * across
        else:
            e1[:] = start
        e2[:] = sense[k] * np.cross(axle, e1)
        r, per_radian = radius[k], mass_per_radian[k]
        m = per_radian * phi
        sine, cosine = np.sin(phi), np.cos(phi)
        about[:] = per_radian * r * (sine * e1 + (1.0 - cosine) * e2)
        a[:] = centre - p_WB_W[body[k]]  # the centre from the body's CM
        c11 = per_radian * r * r * (phi / 2 + np.sin(2 * phi) / 4)
        c22 = per_radian * r * r * (phi / 2 - np.sin(2 * phi) / 4)
        c12 = per_radian * r * r * sine * sine / 2
        # P = sum dm (a + r n)(a + r n)^T about the CM; the inertia tr(P) I - P
        for i in range(3):
            for j in range(3):
                inertia[k, i, j] = -(
                    m * a[i] * a[j]
                    + a[i] * about[j]
                    + about[i] * a[j]
                    + c11 * e1[i] * e1[j]
                    + c22 * e2[i] * e2[j]
                    + c12 * (e1[i] * e2[j] + e2[i] * e1[j])
                )
        trace = -(inertia[k, 0, 0] + inertia[k, 1, 1] + inertia[k, 2, 2])
        for i in range(3):
            inertia[k, i, i] += trace
            first_moment[k, i] = m * a[i] + about[i]
        mass[k] = m
        angle[k] = phi


def add_rim_terms(
    spans: RopeSpans,
    arcs: RimArcs,
    q: FloatArray,
    R_WM: FloatArray,
    R_WB: FloatArray,
    w_WB_W: FloatArray,
    force: FloatArray,
) -> tuple[FloatArray, float]:
    """Add the rim arcs' gravity and velocity-dependent inertia to their pulleys' generalized forces
    in ``force`` (nv,), and the belt friction between the rings and their pulleys
    (``add_sheave_friction``) at positions ``q`` and marker orientations ``R_WM``; return the arcs'
    mass blocks (na, 6, 6) on the pulleys' velocity coordinates ``RopeSpans.arc_columns`` (CM
    velocity in world, angular velocity in body axes) and the power the friction dissipates [W]:
    with the first moment ``h`` and inertia ``J`` about the CM, ``[[m I, -skew(h) R], [R^T skew(h),
    R^T J R]]``, forces ``-(w x (w x h), R^T (w x J w)) + (m g, R^T (h x g))``."""
    columns = spans.arc_columns
    blocks = np.empty((*columns.shape, columns.shape[1]))
    _rim_loads(
        arcs.mass, arcs.first_moment, arcs.inertia, R_WB, w_WB_W, spans.arc_body, spans.gravity, columns, force, blocks
    )
    power = 0.0
    if spans.friction_ring.size:
        power = add_sheave_friction(
            q, R_WM, R_WB, w_WB_W, arcs.angle, spans.friction_ring, spans.friction_wheel, *spans.friction_columns,
            spans.friction_axle,
            spans.friction_arc, spans.friction_radius, spans.friction_coefficient, spans.friction_slip_speed,
            spans.friction_stiffness, spans.friction_in, spans.friction_out, force,
        )  # fmt: skip
    return blocks, power


STICKING_SPEED = 1e-4
"""The sliding speed, as a fraction of a pulley's ``slip_speed``, below which the capstan law's
friction force is regularized (ADAMS's stiction transition velocity, 0.1 mm/s at the default 1 m/s):
a rope held within the capstan limit creeps at that speed times atanh of the tension difference's
share of the limit (under 1.5 times it up to 90 % of the limit)."""


@njit(cache=True)
def add_sheave_friction(
    q: FloatArray,
    R_WM: FloatArray,
    R_WB: FloatArray,
    w_WB_W: FloatArray,
    wrap: FloatArray,
    ring: IntArray,
    wheel: IntArray,
    ring_columns: IntArray,
    wheel_columns: IntArray,
    axle_marker: IntArray,
    arc: IntArray,
    radius: FloatArray,
    coefficient: FloatArray,
    slip_speed: FloatArray,
    stiffness: FloatArray,
    slope_in: IntArray,
    slope_out: IntArray,
    force: FloatArray,
) -> float:
    """Add the belt friction between each ring (the rope on a pulley's rim) and its pulley to
    ``force`` (nv,): about the axle, ``-r F`` on the ring and ``r F`` on the pulley (body axes, at
    their rotation columns ``ring_columns``, ``wheel_columns`` (nf, 3); a ``wheel`` of -1 is ground),
    with ``u = r (w_ring - w_pulley) . axle`` the rope's sliding speed and the capstan law of the
    massless kind regularized, ``F = (e^(mu theta) - 1) T_low tanh(u / u_s) + (T_in + T_out) u /
    slip_speed`` (``u_s = STICKING_SPEED slip_speed``): within the capstan limit the rope creeps (at
    ``u_s atanh(share of the limit)``); beyond it slides so that ``T_high - e^(mu theta) T_low = (T_in + T_out) u /
    slip_speed``, as the massless kind's. ``T`` the elastic tensions at the entry and exit nodes
    (``EA max(|r'| - 1, 0)``), ``theta`` the wrap (``wrap[arc]``). Returns the power dissipated
    ``F u`` [W]."""
    power = 0.0
    for k in range(ring.size):
        axle = R_WM[axle_marker[k], :, 2].copy()
        spin = w_WB_W[ring[k]] @ axle - (w_WB_W[wheel[k]] @ axle if wheel[k] >= 0 else 0.0)
        sliding = radius[k] * spin
        tension_in = stiffness[k] * max(np.sqrt(q[slope_in[k]] @ q[slope_in[k]]) - 1.0, 0.0)
        tension_out = stiffness[k] * max(np.sqrt(q[slope_out[k]] @ q[slope_out[k]]) - 1.0, 0.0)
        limit = (np.exp(coefficient[k] * wrap[arc[k]]) - 1.0) * min(tension_in, tension_out)
        friction = limit * np.tanh(sliding / (STICKING_SPEED * slip_speed[k]))
        friction += (tension_in + tension_out) * sliding / slip_speed[k]
        power += friction * sliding
        torque = -radius[k] * friction * axle
        on_ring = np.ascontiguousarray(R_WB[ring[k]].T) @ torque
        for i in range(3):
            force[ring_columns[k, i]] += on_ring[i]
        if wheel[k] >= 0:
            on_wheel = np.ascontiguousarray(R_WB[wheel[k]].T) @ torque
            for i in range(3):
                force[wheel_columns[k, i]] -= on_wheel[i]
    return power


@njit(cache=True)
def _rim_loads(
    mass: FloatArray,
    first_moment: FloatArray,
    inertia: FloatArray,
    R_WB: FloatArray,
    w_WB_W: FloatArray,
    body: IntArray,
    gravity: FloatArray,
    columns: IntArray,
    force: FloatArray,
    blocks: FloatArray,
) -> None:
    """``add_rim_terms``' loop over the arcs."""
    coupling = np.empty((3, 3))
    for k in range(body.size):
        R, w, h, J, m = R_WB[body[k]].copy(), w_WB_W[body[k]].copy(), first_moment[k].copy(), inertia[k].copy(), mass[k]
        R_T = np.ascontiguousarray(R.T)
        translation = -np.cross(w, np.cross(w, h)) + m * gravity
        rotation = R_T @ (-np.cross(w, J @ w) + np.cross(h, gravity))
        for i in range(3):
            force[columns[k, i]] += translation[i]
            force[columns[k, 3 + i]] += rotation[i]
        coupling[:, :] = 0.0
        coupling[0, 1], coupling[0, 2], coupling[1, 2] = -h[2], h[1], -h[0]
        coupling[1, 0], coupling[2, 0], coupling[2, 1] = h[2], -h[1], h[0]
        blocks[k, :, :] = 0.0
        for i in range(3):
            blocks[k, i, i] = m
        blocks[k, :3, 3:] = -coupling @ R
        blocks[k, 3:, :3] = R_T @ coupling
        blocks[k, 3:, 3:] = R_T @ J @ R


def rim_energies(
    arcs: RimArcs, spans: RopeSpans, v_WB_W: FloatArray, w_WB_W: FloatArray, p_WB_W: FloatArray
) -> tuple[float, float]:
    """``(kinetic, gravity potential)`` [J] of the rope on the rims: ``1/2 m v^2 + v . (w x h) +
    1/2 w . J w`` and ``-g . (m p + h)``."""
    body = spans.arc_body
    v, w = v_WB_W[body], w_WB_W[body]
    kinetic = (
        0.5 * arcs.mass @ np.einsum("ki,ki->k", v, v)
        + np.einsum("ki,ki->", v, np.cross(w, arcs.first_moment))
        + 0.5 * np.einsum("ki,kij,kj->", w, arcs.inertia, w)
    )
    potential = -float(spans.gravity @ (arcs.mass @ p_WB_W[body] + arcs.first_moment.sum(axis=0)))
    return float(kinetic), potential


def body_terms(
    spans: RopeSpans,
    system: System,
    frames: Pose,
    motion: Twist,
    q: FloatArray,
    v: FloatArray,
    elements: bool,
    out: FloatArray,
) -> tuple[list[MatrixEntries], float]:
    """Add to ``out`` (nv,) the span elements' forces (``element_terms``; only with ``elements``) and
    the rim arcs' loads on their wheels with the belt friction (``add_rim_terms``) at ``(q, v)``
    (n_positions,), (n_velocities,) and ``frames``, ``motion``; return their mass blocks as entries
    of ``M`` (the elements', then the arcs') and the power their damping and friction dissipate [W]."""
    entries: list[MatrixEntries] = []
    dissipated = 0.0
    if elements:
        blocks, (*_, damping_power) = element_terms(spans, q, v, out)
        entries.append((*spans.element_places, blocks.reshape(-1)))
        dissipated += damping_power
    if spans.arc_body.size:
        arcs = rim_arcs(spans, q, frames.p_WM_W, frames.R_WM, frames.p_WB_W)
        blocks, friction_power = add_rim_terms(spans, arcs, q, frames.R_WM, frames.R_WB, motion.w_WB_W, out)
        entries.append((*spans.arc_places, blocks.reshape(-1)))
        dissipated += friction_power
    return entries, dissipated


def tangent_blocks(
    spans: RopeSpans, system: System, q: FloatArray, v: FloatArray
) -> list[tuple[IntArray, FloatArray, FloatArray]]:
    """``[(columns (ne, 14), d f / d x (ne, 14, 14), d f / d v (ne, 14, 14))]`` of the span elements'
    terms at ``(q, v)`` (``span_tangents.element_tangents``)."""
    from multibody.formulation.bodies import span_tangents

    return [(spans.element_columns, *span_tangents.element_tangents(spans, q, v))]


def _rim_arcs_at(spans: RopeSpans, system: System, frames: Pose) -> RimArcs:
    """The rope on the rims at ``frames`` (``rim_arcs``)."""
    q = np.concatenate([np.zeros(system.n_frame_positions), frames.q_modal])
    return rim_arcs(spans, q, frames.p_WM_W, frames.R_WM, frames.p_WB_W)


def kinetic_energy(spans: RopeSpans, system: System, frames: Pose, motion: Twist) -> float:
    """The kinetic energy [J] of the material in the spans and of the rope on the rims."""
    kinetic = material_energies(spans, system, frames, motion.v_modal)[0]
    if spans.arc_body.size:
        arcs = _rim_arcs_at(spans, system, frames)
        kinetic += rim_energies(arcs, spans, motion.v_WB_W, motion.w_WB_W, frames.p_WB_W)[0]
    return kinetic


def potential_energy(spans: RopeSpans, system: System, frames: Pose) -> float:
    """The gravity potential and strain energy [J] of the material in the spans, and the gravity
    potential of the rope on the rims."""
    _, gravity, strain = material_energies(
        spans, system, frames, np.zeros(system.n_velocities - system.n_frame_velocities)
    )
    potential = gravity + strain
    if spans.arc_body.size:
        zero = np.zeros_like(frames.p_WB_W)
        potential += rim_energies(_rim_arcs_at(spans, system, frames), spans, zero, zero, frames.p_WB_W)[1]
    return potential


def coupling_sets(
    spans: RopeSpans, system: System, group_of: IntArray, marker_groups: Callable[[int], set[int]]
) -> list[set[int]]:
    """Per rim arc, the coupling groups it couples outside the span elements (its terms are its
    wheel's: ``add_rim_terms``): its wheel's, its wheel marker's (``marker_groups``) and those of the
    nodes (and a drum's material coordinate) that bound it, ``group_of`` (nv,) being the group of each
    velocity coordinate."""
    tail = system.n_frame_positions - system.n_frame_velocities  # q and v columns differ by this past the frames
    sets = []
    for a in range(spans.arc_body.size):
        material = [spans.arc_material[a]] if spans.arc_material[a] >= 0 else []
        columns = [*spans.arc_first[a], *spans.arc_second[a], *material]
        found = {int(g) for g in group_of[np.array(columns, np.int64) - tail]} | {int(spans.arc_body[a])}
        sets.append(found | marker_groups(int(spans.arc_marker[a])))
    return sets


KIND = BodyKind(
    name="rope_span",
    system_field="rope_spans",
    description="moving-node rope spans",
    slackens=True,
    body_terms=body_terms,
    element_tangents=tangent_blocks,
    kinetic_energy=kinetic_energy,
    potential_energy=potential_energy,
    coupling_sets=coupling_sets,
)
