"""The ANCF cable body kind: node positions and slopes as coordinates, no reference frame.

A cable (``multibody.model.cable.AncfCable``) owns one coordinate block of the layout, six
coordinates per node, ``q = v``-space alike (``dq/dt = v``): node positions ``r_i`` [m] and slopes
``r'_i`` [-]. An element of undeformed length ``L`` interpolates ``r(xi) = S(xi) e`` (xi in [0, 1],
``e`` its 12 coordinates, ``S = [h1 I, h2 I, h3 I, h4 I]`` the cubic Hermite functions), so that:

* a marker at ``xi`` is at ``S e`` with velocity ``S e'`` (no velocity-dependent acceleration
  bias: ``r`` is linear in ``e``); its x-axis is the unit tangent ``t / |t|``, ``t = S_x e``, and
  its angular velocity the tangent's turning rate ``t x t' / |t|^2`` (no torsion), whose
  acceleration bias is ``-2 (t . t') (t x t') / |t|^4`` (``angular_bias_rhs``);
* the constraint Jacobian gains the columns ``a_v . S + a_w . skew(t) S_x / |t|^2``;
* the mass matrix ``rho A L int S^T S dxi`` is constant (4-point Gauss, exact), gravity a
  constant load ``rho A L int S^T g dxi``;
* the elastic forces are the gradient of ``1/2 int (E A eps^2 + E I |kappa|^2) dx`` with the
  axial strain ``eps = |r'| - 1`` and the curvature vector ``kappa = r' x r'' / |r'|^3`` (exact for
  large deflection and stretch), with Kelvin-Voigt damping on the rates of ``eps`` and ``|kappa|``
  (objective: a rigid motion neither stores nor dissipates energy). Gauss quadrature, 3 points on
  the axial strain (reduced, against membrane locking of slender elements) and 5 on the curvature;
  compiled (``numba``), one pass over all elements of all cables. Their tangent stiffness and
  damping for Newton (``element_tangents``) are the exact derivatives of the same element code, by
  complex-step differentiation.

The markers' frames, twists and constraint-Jacobian columns are compiled loops over the markers
on cables (``marker_geometry``, ``add_marker_motion``, ``jacobian_entries``): the per-step path
makes no array per marker. The functions after the kernels have the signatures of the ``BodyKind``
hooks (``multibody.formulation.bodies.kind``), and ``KIND`` registers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from multibody.formulation.blocks import block_places
from multibody.formulation.bodies.kind import BodyKind, MatrixEntries
from multibody.spatial.rotations import cross, skew

if TYPE_CHECKING:
    from multibody.formulation.frames import Pose, Twist
    from multibody.system.system import System

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

ELEMENT_WIDTH = 12
"""Coordinates of one element: both nodes' position and slope."""
AXIAL_POINTS = np.polynomial.legendre.leggauss(3)
BENDING_POINTS = np.polynomial.legendre.leggauss(5)
MASS_POINTS = np.polynomial.legendre.leggauss(4)
AXIAL_WEIGHTS, BENDING_WEIGHTS = AXIAL_POINTS[1], BENDING_POINTS[1]


@njit(cache=True)
def hermite_shapes(xi: float, length: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Cubic Hermite functions of an element of length ``length`` [m] at ``xi`` in [0, 1]:
    ``(h (4,), dh/dx (4,) [1/m], d2h/dx2 (4,) [1/m^2])``, weighting ``(r_A, r'_A, r_B, r'_B)``."""
    L = length
    h = np.array(
        [
            1.0 - 3.0 * xi**2 + 2.0 * xi**3,
            L * (xi - 2.0 * xi**2 + xi**3),
            3.0 * xi**2 - 2.0 * xi**3,
            L * (xi**3 - xi**2),
        ]
    )
    dh = np.array(
        [
            (6.0 * xi**2 - 6.0 * xi) / L,
            1.0 - 4.0 * xi + 3.0 * xi**2,
            (6.0 * xi - 6.0 * xi**2) / L,
            3.0 * xi**2 - 2.0 * xi,
        ]
    )
    ddh = np.array([(12.0 * xi - 6.0) / L**2, (6.0 * xi - 4.0) / L, (6.0 - 12.0 * xi) / L**2, (6.0 * xi - 2.0) / L])
    return h, dh, ddh


def locate(node_arc_lengths: FloatArray, arc_length: float) -> tuple[int, float]:
    """``(element, xi)`` of the point at undeformed ``arc_length`` [m] of a cable whose nodes are at
    ``node_arc_lengths`` (n+1,) [m] (clipped to the cable: the caller checks the range)."""
    lengths = np.diff(node_arc_lengths)
    element = int(np.clip(np.searchsorted(node_arc_lengths, arc_length, side="right") - 1, 0, lengths.size - 1))
    return element, float(np.clip((arc_length - node_arc_lengths[element]) / lengths[element], 0.0, 1.0))


def _shape_table(points: FloatArray) -> tuple[FloatArray, FloatArray]:
    """At quadrature points on [-1, 1]: the xi-derivatives (np, 4) and second xi-derivatives (np, 4)
    of ``(h1, h2 / L, h3, h4 / L)``, the Hermite functions of a unit-length element; an element of
    length L scales them by ``(1/L, 1, 1/L, 1)`` and ``(1/L^2, 1/L, 1/L^2, 1/L)`` into x-derivatives."""
    rows = [hermite_shapes.py_func(0.5 * (point + 1.0), 1.0) for point in points]  # at import: no compilation
    return np.array([dh for _, dh, _ in rows]), np.array([ddh for _, _, ddh in rows])


AXIAL_SLOPES, _ = _shape_table(AXIAL_POINTS[0])
BENDING_SLOPES, BENDING_CURVATURES = _shape_table(BENDING_POINTS[0])


@njit(cache=True, inline="always")
def _cross(a0: float, a1: float, a2: float, b0: float, b1: float, b2: float) -> tuple[float, float, float]:
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True)
def _element_load(
    e: FloatArray, de: FloatArray, L: float, EA: float, EI: float, beta: float, force: FloatArray
) -> tuple[float, float]:
    """Add one element's elastic and damping forces to ``force`` (12,) at its coordinates ``e`` and
    rates ``de`` (12,); return ``(strain energy [J], dissipated power [W])``. Real or complex
    arrays alike: with complex ones the imaginary parts carry a complex-step derivative
    (``element_tangents``), so every step is analytic in ``e`` and ``de`` where the force is
    differentiable and branches look at magnitudes only. With ``a = r'``, ``b = r''``, ``c = a x b``:
    the axial load is ``E A (eps + beta eps') a / |a|`` on ``S_x``; the curvature ``kappa = c / |a|^3``
    has the Jacobians ``J_a^T m = (b x m) / |a|^3 - 3 a (c . m) / |a|^5`` and ``J_b^T m = (m x a) / |a|^3``."""
    energy = 0.0 * e[0]
    dissipated = 0.0 * e[0]
    dh = np.empty(4)
    ddh = np.empty(4)
    for g in range(AXIAL_WEIGHTS.size):
        w = 0.5 * L * AXIAL_WEIGHTS[g]
        a0 = a1 = a2 = r0 = r1 = r2 = 0.0 * e[0]
        for i in range(4):
            dh[i] = AXIAL_SLOPES[g, i] / L if i % 2 == 0 else AXIAL_SLOPES[g, i]
            a0 += dh[i] * e[3 * i]
            a1 += dh[i] * e[3 * i + 1]
            a2 += dh[i] * e[3 * i + 2]
            r0 += dh[i] * de[3 * i]
            r1 += dh[i] * de[3 * i + 1]
            r2 += dh[i] * de[3 * i + 2]
        norm = np.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        strain = norm - 1.0
        strain_rate = (a0 * r0 + a1 * r1 + a2 * r2) / norm
        stress = EA * (strain + beta * strain_rate)
        energy += 0.5 * w * EA * strain * strain
        dissipated += w * EA * beta * strain_rate * strain_rate
        scale = w * stress / norm
        for i in range(4):
            force[3 * i] -= scale * dh[i] * a0
            force[3 * i + 1] -= scale * dh[i] * a1
            force[3 * i + 2] -= scale * dh[i] * a2
    for g in range(BENDING_WEIGHTS.size):
        w = 0.5 * L * BENDING_WEIGHTS[g]
        a0 = a1 = a2 = b0 = b1 = b2 = ra0 = ra1 = ra2 = rb0 = rb1 = rb2 = 0.0 * e[0]
        for i in range(4):
            dh[i] = BENDING_SLOPES[g, i] / L if i % 2 == 0 else BENDING_SLOPES[g, i]
            ddh[i] = BENDING_CURVATURES[g, i] / (L * L if i % 2 == 0 else L)
            a0 += dh[i] * e[3 * i]
            a1 += dh[i] * e[3 * i + 1]
            a2 += dh[i] * e[3 * i + 2]
            b0 += ddh[i] * e[3 * i]
            b1 += ddh[i] * e[3 * i + 1]
            b2 += ddh[i] * e[3 * i + 2]
            ra0 += dh[i] * de[3 * i]
            ra1 += dh[i] * de[3 * i + 1]
            ra2 += dh[i] * de[3 * i + 2]
            rb0 += ddh[i] * de[3 * i]
            rb1 += ddh[i] * de[3 * i + 1]
            rb2 += ddh[i] * de[3 * i + 2]
        squared = a0 * a0 + a1 * a1 + a2 * a2
        cube = squared * np.sqrt(squared)
        c0, c1, c2 = _cross(a0, a1, a2, b0, b1, b2)
        k0, k1, k2 = c0 / cube, c1 / cube, c2 / cube
        m0, m1, m2 = EI * k0, EI * k1, EI * k2
        energy += 0.5 * w * EI * (k0 * k0 + k1 * k1 + k2 * k2)
        if beta != 0.0:
            # the rate of kappa: (a' x b + a x b') / |a|^3 - 3 c (a . a') / |a|^5
            x0, x1, x2 = _cross(ra0, ra1, ra2, b0, b1, b2)
            y0, y1, y2 = _cross(a0, a1, a2, rb0, rb1, rb2)
            stretch = 3.0 * (a0 * ra0 + a1 * ra1 + a2 * ra2) / squared
            kr0 = (x0 + y0) / cube - stretch * k0
            kr1 = (x1 + y1) / cube - stretch * k1
            kr2 = (x2 + y2) / cube - stretch * k2
            size = np.sqrt(k0 * k0 + k1 * k1 + k2 * k2)
            # Kelvin-Voigt on |kappa|: its rate along kappa's direction (the rate's own where kappa = 0)
            if abs(size) > 1e-12 / L:
                u0, u1, u2 = k0 / size, k1 / size, k2 / size
            else:
                rate_size = np.sqrt(kr0 * kr0 + kr1 * kr1 + kr2 * kr2)
                if not abs(rate_size) > 1e-300:
                    rate_size = 0.0 * rate_size + 1e-300
                u0, u1, u2 = kr0 / rate_size, kr1 / rate_size, kr2 / rate_size
            magnitude_rate = u0 * kr0 + u1 * kr1 + u2 * kr2
            m0 += EI * beta * magnitude_rate * u0
            m1 += EI * beta * magnitude_rate * u1
            m2 += EI * beta * magnitude_rate * u2
            dissipated += w * EI * beta * magnitude_rate * magnitude_rate
        p0, p1, p2 = _cross(b0, b1, b2, m0, m1, m2)
        along = 3.0 * (c0 * m0 + c1 * m1 + c2 * m2) / (squared * cube)
        on_a0, on_a1, on_a2 = p0 / cube - along * a0, p1 / cube - along * a1, p2 / cube - along * a2
        n0, n1, n2 = _cross(m0, m1, m2, a0, a1, a2)
        on_b0, on_b1, on_b2 = n0 / cube, n1 / cube, n2 / cube
        for i in range(4):
            force[3 * i] -= w * (dh[i] * on_a0 + ddh[i] * on_b0)
            force[3 * i + 1] -= w * (dh[i] * on_a1 + ddh[i] * on_b1)
            force[3 * i + 2] -= w * (dh[i] * on_a2 + ddh[i] * on_b2)
    return energy, dissipated


@njit(cache=True)
def element_forces(
    coordinates: FloatArray,
    rates: FloatArray,
    position_columns: IntArray,
    velocity_columns: IntArray,
    length: FloatArray,
    axial_stiffness: FloatArray,
    bending_stiffness: FloatArray,
    damping: FloatArray,
    out: FloatArray,
) -> tuple[float, float]:
    """Add the elastic and damping forces of every element (``_element_load``) to ``out`` (nv,) at
    positions ``coordinates`` (nq,) and velocities ``rates`` (nv,), each element's 12 coordinates
    being at ``position_columns`` and ``velocity_columns`` (ne, 12); return ``(strain energy [J],
    dissipated power [W])``."""
    energy = 0.0
    dissipated = 0.0
    e = np.empty(ELEMENT_WIDTH)
    de = np.empty(ELEMENT_WIDTH)
    force = np.empty(ELEMENT_WIDTH)
    for k in range(position_columns.shape[0]):
        for j in range(ELEMENT_WIDTH):
            e[j] = coordinates[position_columns[k, j]]
            de[j] = rates[velocity_columns[k, j]]
            force[j] = 0.0
        stored, lost = _element_load(e, de, length[k], axial_stiffness[k], bending_stiffness[k], damping[k], force)
        energy += stored
        dissipated += lost
        for j in range(ELEMENT_WIDTH):
            out[velocity_columns[k, j]] += force[j]
    return energy, dissipated


COMPLEX_STEP = 1e-30
"""Imaginary step of ``element_tangents`` (relative to a coordinate's size): the derivative is the
imaginary part over the step, free of cancellation, so any step far below round-off will do."""


@njit(cache=True)
def element_tangents(
    coordinates: FloatArray,
    rates: FloatArray,
    position_columns: IntArray,
    velocity_columns: IntArray,
    length: FloatArray,
    axial_stiffness: FloatArray,
    bending_stiffness: FloatArray,
    damping: FloatArray,
    stiffness: FloatArray,
    damping_matrix: FloatArray,
) -> None:
    """Write every element's tangent stiffness ``d f / d e`` and damping ``d f / d e'`` (ne, 12, 12)
    of its elastic and damping forces ``f`` (``_element_load``; arguments as ``element_forces``
    takes them) into ``stiffness`` and ``damping_matrix``: the exact derivatives, by complex-step
    differentiation (Squire & Trapp 1998: ``Im f(e + i h u) / h``, no difference taken, so exact to
    round-off for any small ``h``), 24 complex evaluations of the element."""
    e = np.empty(ELEMENT_WIDTH, np.complex128)
    de = np.empty(ELEMENT_WIDTH, np.complex128)
    force = np.empty(ELEMENT_WIDTH, np.complex128)
    for k in range(position_columns.shape[0]):
        for j in range(ELEMENT_WIDTH):
            e[j] = coordinates[position_columns[k, j]]
            de[j] = rates[velocity_columns[k, j]]
        for derivative in range(2):
            varied = e if derivative == 0 else de
            out = stiffness if derivative == 0 else damping_matrix
            for column in range(ELEMENT_WIDTH):
                real = varied[column].real
                step = COMPLEX_STEP * (1.0 + abs(real))
                varied[column] = complex(real, step)
                force[:] = 0.0
                _element_load(e, de, length[k], axial_stiffness[k], bending_stiffness[k], damping[k], force)
                varied[column] = real
                for row in range(ELEMENT_WIDTH):
                    out[k, row, column] = force[row].imag / step


@dataclass(frozen=True)
class CableBodies:
    """The ANCF cables of a System (numbers only), in model order; column indices are the same in
    ``q`` and ``v`` past the frames (``nq = nv`` for this kind)."""

    names: tuple[str, ...]
    q_offset: IntArray
    """(nc,) where each cable's coordinates start in ``q``"""
    v_offset: IntArray
    """(nc,) where they start in ``v``"""
    count: IntArray
    """(nc,) coordinates of each cable (6 per node; a moving-node rope span 2 more: its ends' material
    coordinates, last)"""
    n_nodes: IntArray
    """(nc,) nodes of each cable"""
    shortest_element: FloatArray
    """(nc,) each cable's shortest element in the input configuration [m]"""
    element_positions: IntArray
    """(ne, 12) each element's coordinates in ``q`` (the elements of the cables proper: a moving-node
    rope span's are its own kind's, ``bodies.rope_span``)"""
    element_velocities: IntArray
    """(ne, 12) the same in ``v``"""
    length: FloatArray
    """(ne,) undeformed element lengths [m]"""
    axial_stiffness: FloatArray
    """(ne,) ``E A`` [N]"""
    bending_stiffness: FloatArray
    """(ne,) ``E I`` [N m^2]"""
    damping: FloatArray
    """(ne,) Kelvin-Voigt coefficient [s]"""
    element_mass: FloatArray
    """(ne, 4, 4) ``rho A L int h h^T dxi`` [kg] (times I3: the element's mass matrix)"""
    element_dead_load: FloatArray
    """(ne, 12) ``L int S^T (rho A g + w) dxi`` [N]: each element's weight and dead line load ``w`` on its
    coordinates (constant, computed once)"""
    marker: IntArray
    """(nk,) the markers on cables (System marker indices)"""
    marker_positions: IntArray
    """(nk, 12) each marker's element coordinates in ``q``"""
    marker_velocities: IntArray
    """(nk, 12) the same in ``v``"""
    marker_shapes: FloatArray
    """(nk, 4) the Hermite functions at each marker"""
    marker_slopes: FloatArray
    """(nk, 4) their x-derivatives [1/m] (the tangent ``t = sum_i dh_i e_i``)"""
    slot: IntArray
    """(nm,) per System marker, its index into ``marker`` (-1: not on a cable)"""

    def __len__(self) -> int:
        return len(self.names)


def _element_sums(weights_of: FloatArray, e: FloatArray) -> FloatArray:
    """``sum_i w[k, i] e[k, 3i:3i+3]`` (nk, 3) for per-marker weights (nk, 4) and coordinates (nk, 12)."""
    return np.einsum("ki,kij->kj", weights_of, e.reshape(-1, 4, 3))


def _shape_matrices(weights_of: FloatArray) -> FloatArray:
    """``[w_1 I, w_2 I, w_3 I, w_4 I]`` (nk, 3, 12) for per-marker weights (nk, 4)."""
    return np.einsum("ki,ab->kaib", weights_of, np.eye(3)).reshape(-1, 3, ELEMENT_WIDTH)


def tangents(cables: CableBodies, q: FloatArray, offset: int = 0) -> FloatArray:
    """(nk, 3) the tangents ``t = r'`` at the markers on cables, from positions ``q`` (or, with
    ``offset`` the number of frame positions, from the coordinates after the frames')."""
    return _element_sums(cables.marker_slopes, q[cables.marker_positions - offset])


@njit(cache=True)
def _weighted_sum(weights: FloatArray, values: FloatArray, columns: IntArray, offset: int) -> FloatArray:
    """``sum_i weights[i] values[columns[3i:3i+3] - offset]`` (3,): a point or tangent of an element
    from its Hermite weights (4,) and its coordinates' ``columns`` (12,) in ``values``."""
    out = np.zeros(3)
    for i in range(4):
        for a in range(3):
            out[a] += weights[i] * values[columns[3 * i + a] - offset]
    return out


@njit(cache=True)
def _smallest_rotation(u: FloatArray, w: FloatArray) -> FloatArray:
    """The smallest rotation (3, 3) taking the unit vector ``u`` (3,) to the unit vector ``w`` (3,):
    ``I + K + K^2 / (1 + u . w)``, ``K = skew(u x w)``."""
    axis0, axis1, axis2 = _cross(u[0], u[1], u[2], w[0], w[1], w[2])
    factor = 1.0 / max(1.0 + u[0] * w[0] + u[1] * w[1] + u[2] * w[2], 1e-12)
    K = np.array([[0.0, -axis2, axis1], [axis2, 0.0, -axis0], [-axis1, axis0, 0.0]])
    return np.eye(3) + K + factor * (K @ K)


@njit(cache=True)
def _smallest_rotations(u: FloatArray, w: FloatArray) -> FloatArray:
    """``_smallest_rotation`` of each row of ``u``, ``w`` (k, 3): (k, 3, 3)."""
    out = np.empty((u.shape[0], 3, 3))
    for k in range(u.shape[0]):
        out[k] = _smallest_rotation(u[k], w[k])
    return out


def smallest_rotations(u: FloatArray, w: FloatArray) -> FloatArray:
    """The smallest rotations (k, 3, 3) taking unit vectors ``u`` to unit vectors ``w`` (k, 3)."""
    return _smallest_rotations(np.ascontiguousarray(u, dtype=float), np.ascontiguousarray(w, dtype=float))


@njit(cache=True)
def _place_markers(
    q: FloatArray,
    marker: IntArray,
    marker_positions: IntArray,
    marker_shapes: FloatArray,
    marker_slopes: FloatArray,
    positions: FloatArray,
    orientations: FloatArray,
) -> None:
    """``marker_geometry``'s loop over the markers on cables, in place on ``positions`` (nm, 3) and
    ``orientations`` (nm, 3, 3) (which hold the markers' input frames)."""
    for n in range(marker.size):
        k = marker[n]
        positions[k] = _weighted_sum(marker_shapes[n], q, marker_positions[n], 0)
        t = _weighted_sum(marker_slopes[n], q, marker_positions[n], 0)
        reference = orientations[k].copy()
        turn = _smallest_rotation(np.ascontiguousarray(reference[:, 0]), t / np.sqrt(t @ t))
        orientations[k] = turn @ reference


def marker_geometry(
    cables: CableBodies, q: FloatArray, marker_position: FloatArray, marker_orientation: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The markers' positions (nm, 3) [m] and orientations (nm, 3, 3) with the markers on cables
    moved to ``S e`` (world: their body index is the ground's) and turned by the smallest rotation
    taking their undeformed tangent (x-axis) to the current one (compiled, one pass)."""
    positions, orientations = marker_position.copy(), marker_orientation.copy()
    _place_markers(
        q, cables.marker, cables.marker_positions, cables.marker_shapes, cables.marker_slopes, positions, orientations
    )
    return positions, orientations


def rotation_jacobians(cables: CableBodies, q: FloatArray, offset: int = 0) -> FloatArray:
    """(nk, 3, 12) ``d w / d e'`` of the markers on cables: ``skew(t) S_x / |t|^2`` (``q`` and
    ``offset`` as ``tangents`` takes them)."""
    t = tangents(cables, q, offset)
    return skew(t) @ _shape_matrices(cables.marker_slopes) / np.einsum("ki,ki->k", t, t)[:, None, None]


@njit(cache=True)
def _marker_motion(
    q: FloatArray,
    v: FloatArray,
    offset: int,
    marker: IntArray,
    marker_positions: IntArray,
    marker_velocities: IntArray,
    marker_shapes: FloatArray,
    marker_slopes: FloatArray,
    v_WM_W: FloatArray,
    w_WM_W: FloatArray,
) -> None:
    """``add_marker_motion``'s loop over the markers on cables."""
    for n in range(marker.size):
        k = marker[n]
        t = _weighted_sum(marker_slopes[n], q, marker_positions[n], offset)
        t_rate = _weighted_sum(marker_slopes[n], v, marker_velocities[n], 0)
        v_WM_W[k] += _weighted_sum(marker_shapes[n], v, marker_velocities[n], 0)
        squared = t @ t
        w0, w1, w2 = _cross(t[0], t[1], t[2], t_rate[0], t_rate[1], t_rate[2])
        w_WM_W[k, 0] += w0 / squared
        w_WM_W[k, 1] += w1 / squared
        w_WM_W[k, 2] += w2 / squared


def add_marker_motion(
    cables: CableBodies,
    system: System,
    frames: Pose,
    v: FloatArray,
    w_WB_W: FloatArray,
    v_WM_W: FloatArray,
    w_WM_W: FloatArray,
    bias_WM_W: FloatArray,
) -> None:
    """Add the cables' motion to their markers' velocities and angular velocities (nm, 3, world,
    in place) at ``frames`` and velocities ``v`` (n_velocities,): ``S e'`` and ``t x t' / |t|^2`` (no
    acceleration bias on the origins; the angular one is ``angular_bias_rhs``'s)."""
    _marker_motion(
        frames.q_modal,
        v,
        system.n_frame_positions,
        cables.marker,
        cables.marker_positions,
        cables.marker_velocities,
        cables.marker_shapes,
        cables.marker_slopes,
        v_WM_W,
        w_WM_W,
    )


def _marker_twist_coefficients(
    body_coefficients: FloatArray, side: int, rows: IntArray, markers: IntArray, p_BM_W: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``(a_v, a_w)`` (r, 3) of rows ``rows`` on their ``side`` (0: I, 2: J) marker's twist, from the
    world body coefficients (m, 4, 3) (``rigid.body_coefficients``)."""
    a_v = body_coefficients[rows, side]
    return a_v, body_coefficients[rows, side + 1] - cross(p_BM_W[markers], a_v)


@njit(cache=True)
def _jacobian_entries(
    q: FloatArray,
    offset: int,
    slot: IntArray,
    marker_positions: IntArray,
    marker_velocities: IntArray,
    marker_shapes: FloatArray,
    marker_slopes: FloatArray,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
    p_BM_W: FloatArray,
) -> tuple[IntArray, IntArray, FloatArray]:
    """``jacobian_entries``' loop over the rows and their two sides: per row side on a cable, the
    12 entries ``a_v h_i + (a_w x t) dh_i / |t|^2`` on its element's coordinates."""
    count = 0
    for r in range(i_marker.size):
        count += (slot[i_marker[r]] >= 0) + (slot[j_marker[r]] >= 0)
    rows = np.empty(count * ELEMENT_WIDTH, np.int64)
    columns = np.empty(count * ELEMENT_WIDTH, np.int64)
    values = np.empty(count * ELEMENT_WIDTH)
    entry = 0
    for side in (0, 2):
        markers = i_marker if side == 0 else j_marker
        for r in range(markers.size):
            n = slot[markers[r]]
            if n < 0:
                continue
            a_v = body_coefficients[r, side]
            p = p_BM_W[markers[r]]
            # a_w = g_w - p x a_v: the row's coefficients on the marker's own angular velocity
            c0, c1, c2 = _cross(p[0], p[1], p[2], a_v[0], a_v[1], a_v[2])
            g_w = body_coefficients[r, side + 1]
            t = _weighted_sum(marker_slopes[n], q, marker_positions[n], offset)
            squared = t @ t
            g0, g1, g2 = _cross(g_w[0] - c0, g_w[1] - c1, g_w[2] - c2, t[0], t[1], t[2])
            g = (g0 / squared, g1 / squared, g2 / squared)
            for i in range(4):
                for a in range(3):
                    rows[entry] = r
                    columns[entry] = marker_velocities[n, 3 * i + a]
                    values[entry] = marker_shapes[n, i] * a_v[a] + marker_slopes[n, i] * g[a]
                    entry += 1
    return rows, columns, values


def jacobian_entries(
    cables: CableBodies,
    system: System,
    frames: Pose,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
) -> MatrixEntries:
    """``(row, column, value)`` of the cables' columns of ``G`` for rows with markers ``i_marker``,
    ``j_marker`` (m,) and world body coefficients (m, 4, 3): ``a_v . S + a_w . skew(t) S_x / |t|^2``
    at ``frames`` (compiled, one pass over the rows)."""
    return _jacobian_entries(
        frames.q_modal,
        system.n_frame_positions,
        cables.slot,
        cables.marker_positions,
        cables.marker_velocities,
        cables.marker_shapes,
        cables.marker_slopes,
        i_marker,
        j_marker,
        np.ascontiguousarray(body_coefficients),
        frames.p_BM_W,
    )


def angular_bias_rhs(
    cables: CableBodies,
    system: System,
    frames: Pose,
    motion: Twist,
    q: FloatArray,
    v: FloatArray,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
) -> FloatArray:
    """The part of ``gamma`` (m,) from the angular acceleration bias of markers on cables,
    ``-2 (t . t') (t x t') / |t|^4``: ``-(a_wI . bias_I + a_wJ . bias_J)``, at positions ``q``
    (n_positions,) and velocities ``v`` (n_velocities,)."""
    t = tangents(cables, q)
    t_rate = _element_sums(cables.marker_slopes, v[cables.marker_velocities])
    squared = np.einsum("ki,ki->k", t, t)
    bias = -2.0 * (np.einsum("ki,ki->k", t, t_rate) / squared**2)[:, None] * cross(t, t_rate)
    gamma = np.zeros(len(i_marker))
    for side, markers in ((0, i_marker), (2, j_marker)):
        on_cable = np.flatnonzero(cables.slot[markers] >= 0)
        n = cables.slot[markers[on_cable]]
        _, a_w = _marker_twist_coefficients(body_coefficients, side, on_cable, markers[on_cable], frames.p_BM_W)
        gamma[on_cable] -= np.einsum("ri,ri->r", a_w, bias[n])
    return gamma


def load_forces(
    cables: CableBodies,
    system: System,
    frames: Pose,
    force_W: FloatArray,
    torque_W: FloatArray,
    marker: IntArray,
    sign: FloatArray,
    application: IntArray,
    out: FloatArray,
) -> None:
    """Add to ``out`` (nv,) the cables' generalized forces of loads ``sign[k] (force_W[k],
    torque_W[k])`` carried by markers ``marker`` and applied at the origins of ``application``
    (``rigid.generalized_forces``' arguments): ``S^T F + (skew(t) S_x / |t|^2)^T (T + r x F)``
    at ``frames``. The torque's component along the tangent does no work: a cable has no torsion."""
    loaded = np.flatnonzero(cables.slot[marker] >= 0)
    if not loaded.size:
        return
    n = cables.slot[marker[loaded]]
    force = sign[loaded, None] * force_W[loaded]
    p_WM_W = frames.p_WM_W
    torque = sign[loaded, None] * torque_W[loaded] + cross(p_WM_W[application[loaded]] - p_WM_W[marker[loaded]], force)
    generalized = np.einsum("ki,kim->km", force, _shape_matrices(cables.marker_shapes)[n]) + np.einsum(
        "ki,kim->km", torque, rotation_jacobians(cables, frames.q_modal, system.n_frame_positions)[n]
    )
    np.add.at(out, cables.marker_velocities[n], generalized)


def element_integrals(length: FloatArray, mass_per_length: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per element of ``length`` (ne,) [m] and ``mass_per_length`` (ne,) [kg/m] (or any density per
    length): ``(rho A L int h h^T dxi (ne, 4, 4) [kg], rho A L int h dxi (ne, 4) [kg])`` by 4-point
    Gauss (exact)."""
    points, weights = MASS_POINTS
    outer = np.zeros((len(length), 4, 4))
    first = np.zeros((len(length), 4))
    for point, weight in zip(points, weights):
        for k, L in enumerate(length):
            h = hermite_shapes(0.5 * (point + 1.0), float(L))[0]
            outer[k] += 0.5 * weight * np.outer(h, h)
            first[k] += 0.5 * weight * h
    scale = mass_per_length * length
    return scale[:, None, None] * outer, scale[:, None] * first


def mass_matrix(cables: CableBodies, system: System) -> sp.csr_matrix:
    """The cables' constant mass matrix (nv, nv) [kg], zero outside their coordinates."""
    n_velocities = system.n_velocities
    blocks = np.einsum("kij,ab->kiajb", cables.element_mass, np.eye(3)).reshape(-1, ELEMENT_WIDTH, ELEMENT_WIDTH)
    rows, cols = block_places(cables.element_velocities)
    return sp.csr_matrix((blocks.reshape(-1), (rows, cols)), shape=(n_velocities, n_velocities))


def body_terms(
    cables: CableBodies,
    system: System,
    frames: Pose,
    motion: Twist,
    q: FloatArray,
    v: FloatArray,
    elements: bool,
    out: FloatArray,
) -> tuple[tuple[()], float]:
    """Add to ``out`` (nv,) the cables' gravity, line loads, elastic and damping forces at ``(q, v)``
    (n_positions,), (n_velocities,); return no mass entries (the cables' mass is constant:
    ``mass_matrix``) and the power their damping dissipates [W]. Nothing without ``elements``: every
    term is an element's (``element_tangents``; the dead loads have none)."""
    if not elements:
        return (), 0.0
    np.add.at(out, cables.element_velocities, cables.element_dead_load)
    _, dissipated = element_forces(
        q,
        v,
        cables.element_positions,
        cables.element_velocities,
        cables.length,
        cables.axial_stiffness,
        cables.bending_stiffness,
        cables.damping,
        out,
    )
    return (), float(dissipated)


def tangent_blocks(
    cables: CableBodies, system: System, q: FloatArray, v: FloatArray
) -> list[tuple[IntArray, FloatArray, FloatArray]]:
    """``[(columns (ne, 12), d f / d x (ne, 12, 12), d f / d v (ne, 12, 12))]`` of the cable elements'
    elastic and damping forces at ``(q, v)`` (exact: ``element_tangents``); none without elements
    (a model of moving-node spans alone). Their gravity and line loads are constant."""
    count = cables.length.size
    if not count:
        return []
    shape = (count, ELEMENT_WIDTH, ELEMENT_WIDTH)
    stiffness, damping = np.empty(shape), np.empty(shape)
    element_tangents(
        q,
        v,
        cables.element_positions,
        cables.element_velocities,
        cables.length,
        cables.axial_stiffness,
        cables.bending_stiffness,
        cables.damping,
        stiffness,
        damping,
    )
    return [(cables.element_velocities, stiffness, damping)]


def kinetic_energy(cables: CableBodies, system: System, frames: Pose, motion: Twist) -> float:
    """``1/2 e'^T M e'`` [J] summed over the cables' elements."""
    de = motion.v_modal[cables.element_velocities - system.n_frame_velocities].reshape(-1, 4, 3)
    return 0.5 * float(np.einsum("kia,kij,kja->", de, cables.element_mass, de))


def potential_energy(cables: CableBodies, system: System, frames: Pose) -> float:
    """The cables' potential of gravity and line loads ``-int (rho A g + w) . r dx`` plus strain
    energy [J] at ``frames``."""
    q = frames.q_modal
    positions = cables.element_positions - system.n_frame_positions
    weight = -float(np.einsum("kj,kj->", cables.element_dead_load, q[positions]))
    # the strain energy alone: at rest, without damping, the forces into a scratch vector
    scratch = np.zeros(q.size)
    strain, _ = element_forces(
        q,
        scratch,
        positions,
        positions,
        cables.length,
        cables.axial_stiffness,
        cables.bending_stiffness,
        np.zeros_like(cables.damping),
        scratch.copy(),
    )
    return weight + float(strain)


def add_velocity_groups(cables: CableBodies, columns: list[IntArray]) -> None:
    """Append to ``columns`` (in place) a coupling group per node of every cable in order, its six
    velocity coordinates (and after a moving-node span's nodes one for its ends' two material
    coordinates)."""
    for k in range(len(cables)):
        first, nodes_end = int(cables.v_offset[k]), int(cables.v_offset[k] + 6 * cables.n_nodes[k])
        columns += [np.arange(start, start + 6) for start in range(first, nodes_end, 6)]
        if cables.count[k] > nodes_end - first:
            columns.append(np.arange(nodes_end, first + int(cables.count[k])))


def coordinate_scale(cables: CableBodies, length: float) -> list[FloatArray]:
    """Per cable, a typical size of its coordinates: on node positions (and a span's material
    coordinates) the shorter of ``length`` [m] and the cable's shortest element, 1 on slopes."""
    # a node moves on the scale of its cable's elements: a step of the whole length would strain
    # a short element far past a rope's strain (and across a tension-only rope's kink at slack)
    return [
        np.r_[np.tile([size] * 3 + [1.0] * 3, int(nodes)), np.full(int(n - 6 * nodes), size)]
        for n, nodes, size in zip(cables.count, cables.n_nodes, np.minimum(length, cables.shortest_element))
    ]


def marker_coupling(cables: CableBodies, system: System, group_of: IntArray) -> dict[int, set[int]]:
    """Per marker on a cable (System marker index), the coupling groups whose coordinates move it: its
    element's two nodes (and a moving-node span's end coordinates), ``group_of`` (nv,) being the group
    of each velocity coordinate."""
    ends_of = {}  # per cable with end coordinates (a span), their group
    for k in range(len(cables)):
        nodes_end = int(cables.v_offset[k] + 6 * cables.n_nodes[k])
        if cables.count[k] > 6 * cables.n_nodes[k]:
            ends_of[k] = int(group_of[nodes_end])
    coupling = {}
    for marker, columns in zip(cables.marker, cables.marker_velocities):
        owner = int(np.searchsorted(cables.v_offset, columns[0], side="right") - 1)
        coupling[int(marker)] = {int(g) for g in group_of[columns]} | ({ends_of[owner]} if owner in ends_of else set())
    return coupling


NODE_COORDINATES = ("x", "y", "z", "slope x", "slope y", "slope z")
"""The six coordinates of a node, in order."""


def coordinate_names(cables: CableBodies, balance: bool) -> list[str]:
    """Per coordinate of the cables (and moving-node rope spans), "cable 'c' node k x", or a span's
    "material coordinate of its start / end" (``balance``: "force on" before the coordinate)."""
    prefix = "force on " if balance else ""
    names = []
    for cable, nodes, count in zip(cables.names, cables.n_nodes, cables.count):
        names += [f"cable '{cable}' node {k // 6} {prefix}{NODE_COORDINATES[k % 6]}" for k in range(6 * nodes)]
        names += [f"cable '{cable}' {prefix}material coordinate of its {end}" for end in ("start", "end")][
            : count - 6 * nodes
        ]
    return names


KIND = BodyKind(
    name="cable",
    system_field="cables",
    description="ANCF cables",
    slackens=True,
    marker_geometry=marker_geometry,
    add_marker_motion=add_marker_motion,
    jacobian_entries=jacobian_entries,
    angular_bias_rhs=angular_bias_rhs,
    load_forces=load_forces,
    constant_mass_matrix=mass_matrix,
    body_terms=body_terms,
    element_tangents=tangent_blocks,
    kinetic_energy=kinetic_energy,
    potential_energy=potential_energy,
    add_velocity_groups=add_velocity_groups,
    marker_coupling=marker_coupling,
    coordinate_scale=coordinate_scale,
    coordinate_names=coordinate_names,
)
