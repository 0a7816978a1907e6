"""Kernel of the geometrically exact beam element family (``multibody.model.forces.beam_element``).

Per element, with node A the J marker and node B the I marker (world frames ``R_A``, ``R_B``):
``d = x_B - x_A``, ``phi = log(R_A^T R_B)``, ``R_M = R_A exp(phi / 2)``, ``g = R_M^T d``, strains
``Gamma = g / L0 - Gamma0``, ``kappa = phi / L0 - kappa0``, section force ``n = C_N Gamma`` and
moment ``m = C_M kappa`` (midpoint axes, plus the damping terms on the strain rates).

The loads are the exact gradient of the strain energy ``W``. With world virtual rotations
``dtheta`` of the nodes (``delta R = skew(dtheta) R``) and ``J_r`` the right Jacobian of SO(3):

    delta phi = J_r(phi)^-1 R_B^T (dtheta_B - dtheta_A)
    R_M^T delta R_M = skew(dpsi),  dpsi = R_M^T dtheta_A + J_r(phi / 2) delta phi / 2
    delta Gamma = (R_M^T delta d + g x dpsi) / L0,  delta kappa = delta phi / L0

so that ``delta W = n . (R_M^T delta d + g x dpsi) + m . delta phi`` and node B takes

    F_B = -R_M n,   M_B = -R_B J_r(phi)^-T (m + J_r(phi / 2)^T (n x g) / 2).

The family protocol gives node A the opposite force at x_B and the opposite couple, which is
node A's load by the element's equilibrium (its virtual work vanishes on rigid motions).
Strain rates follow from the same variations with the nodes' velocities and angular velocities.
"""

from __future__ import annotations

import math
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
    element_indices,
    marker_indices,
    parameters,
)
from multibody.model.forces.base import ForceElement
from multibody.model.forces.beam_element import BeamElement
from multibody.spatial.rotations import FloatArray

SERIES_BELOW = 1e-2
"""[rad] angle below which the SO(3) coefficients use their Taylor series (truncation < 1e-16)"""


@dataclass(frozen=True)
class BeamElements:
    """Geometrically exact beam elements (see ``BeamElement``)."""

    element: IntArray
    i_marker: IntArray
    """(n,) node B"""
    j_marker: IntArray
    """(n,) node A"""
    reference_length: FloatArray
    reference_strain: FloatArray
    """(n, 3)"""
    reference_curvature: FloatArray
    """(n, 3) [1/m]"""
    axial_shear_stiffness: FloatArray
    """(n, 3) [N]"""
    bending_torsion_stiffness: FloatArray
    """(n, 3) [N m^2]"""
    damping: FloatArray
    """(n,) [s]"""


def build_beam_elements(members: Sequence[tuple[int, ForceElement]], context: GroupContext) -> BeamElements:
    """The group's arrays (``ForceFamily.group``)."""
    return BeamElements(
        element_indices(members),
        marker_indices(members, context, "i_marker"),
        marker_indices(members, context, "j_marker"),
        parameters(members, "reference_length"),
        parameters(members, "reference_strain", (3,)),
        parameters(members, "reference_curvature", (3,)),
        parameters(members, "axial_shear_stiffness", (3,)),
        parameters(members, "bending_torsion_stiffness", (3,)),
        parameters(members, "damping"),
    )


@njit(cache=True)
def _matmul(A: FloatArray, B: FloatArray) -> FloatArray:
    """``A B`` of two (3, 3) matrices, without BLAS (whose call costs more than the product here)."""
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
    return C


@njit(cache=True)
def _transpose_matmul(A: FloatArray, B: FloatArray) -> FloatArray:
    """``A^T B`` of two (3, 3) matrices."""
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]
    return C


@njit(cache=True)
def _matvec(A: FloatArray, v: FloatArray) -> FloatArray:
    """``A v``, (3, 3) by (3,)."""
    return np.array(
        [
            A[0, 0] * v[0] + A[0, 1] * v[1] + A[0, 2] * v[2],
            A[1, 0] * v[0] + A[1, 1] * v[1] + A[1, 2] * v[2],
            A[2, 0] * v[0] + A[2, 1] * v[1] + A[2, 2] * v[2],
        ]
    )


@njit(cache=True)
def _transpose_matvec(A: FloatArray, v: FloatArray) -> FloatArray:
    """``A^T v``, (3, 3) by (3,)."""
    return np.array(
        [
            A[0, 0] * v[0] + A[1, 0] * v[1] + A[2, 0] * v[2],
            A[0, 1] * v[0] + A[1, 1] * v[1] + A[2, 1] * v[2],
            A[0, 2] * v[0] + A[1, 2] * v[1] + A[2, 2] * v[2],
        ]
    )


@njit(cache=True)
def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _identity_plus(a: float, b: float, theta: FloatArray) -> FloatArray:
    """``I + a skew(theta) + b skew(theta)^2`` (3, 3), with skew(t)^2 = t t^T - |t|^2 I."""
    t0, t1, t2 = theta[0], theta[1], theta[2]
    square = t0 * t0 + t1 * t1 + t2 * t2
    M = np.empty((3, 3))
    M[0, 0] = 1.0 + b * (t0 * t0 - square)
    M[1, 1] = 1.0 + b * (t1 * t1 - square)
    M[2, 2] = 1.0 + b * (t2 * t2 - square)
    M[0, 1] = -a * t2 + b * t0 * t1
    M[1, 0] = a * t2 + b * t0 * t1
    M[0, 2] = a * t1 + b * t0 * t2
    M[2, 0] = -a * t1 + b * t0 * t2
    M[1, 2] = -a * t0 + b * t1 * t2
    M[2, 1] = a * t0 + b * t1 * t2
    return M


@njit(cache=True)
def rotation_log(R: FloatArray) -> FloatArray:
    """Rotation vector (3,) [rad], angle in [0, pi], of the rotation matrix ``R`` (3, 3), through
    its unit quaternion (Shepperd's choice of the largest component)."""
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    if trace >= R[0, 0] and trace >= R[1, 1] and trace >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + trace)
        w, x, y, z = 0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] >= R[1, 1] and R[0, 0] >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + 2.0 * R[0, 0] - trace)
        w, x, y, z = (R[2, 1] - R[1, 2]) / s, 0.25 * s, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] >= R[2, 2]:
        s = 2.0 * math.sqrt(1.0 + 2.0 * R[1, 1] - trace)
        w, x, y, z = (R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, 0.25 * s, (R[1, 2] + R[2, 1]) / s
    else:
        s = 2.0 * math.sqrt(1.0 + 2.0 * R[2, 2] - trace)
        w, x, y, z = (R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, 0.25 * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    sin_half = math.sqrt(x * x + y * y + z * z)
    scale = 2.0 * math.atan2(sin_half, w) / sin_half if sin_half > 0.0 else 2.0
    return np.array([scale * x, scale * y, scale * z])


@njit(cache=True)
def rotation_exp(theta: FloatArray) -> FloatArray:
    """``exp(skew(theta))`` (3, 3) of a rotation vector (3,) [rad] (Rodrigues)."""
    angle2 = theta[0] ** 2 + theta[1] ** 2 + theta[2] ** 2
    angle = math.sqrt(angle2)
    if angle < SERIES_BELOW:
        sinc = 1.0 - angle2 / 6.0 + angle2**2 / 120.0
        versine = 0.5 - angle2 / 24.0 + angle2**2 / 720.0
    else:
        sinc = math.sin(angle) / angle
        versine = (1.0 - math.cos(angle)) / angle2
    return _identity_plus(sinc, versine, theta)


@njit(cache=True)
def right_jacobian(theta: FloatArray) -> FloatArray:
    """Right Jacobian (3, 3) of SO(3) at ``theta`` (3,): ``exp(theta)^T d exp(theta) = skew(J_r dtheta)``."""
    angle2 = theta[0] ** 2 + theta[1] ** 2 + theta[2] ** 2
    angle = math.sqrt(angle2)
    if angle < SERIES_BELOW:
        a = 0.5 - angle2 / 24.0 + angle2**2 / 720.0
        b = 1.0 / 6.0 - angle2 / 120.0 + angle2**2 / 5040.0
    else:
        a = (1.0 - math.cos(angle)) / angle2
        b = (angle - math.sin(angle)) / (angle2 * angle)
    return _identity_plus(-a, b, theta)


@njit(cache=True)
def right_jacobian_inverse(theta: FloatArray) -> FloatArray:
    """The inverse (3, 3) of ``right_jacobian(theta)``, closed form (angle below pi)."""
    angle2 = theta[0] ** 2 + theta[1] ** 2 + theta[2] ** 2
    angle = math.sqrt(angle2)
    if angle < SERIES_BELOW:
        c = 1.0 / 12.0 + angle2 / 720.0 + angle2**2 / 30240.0
    else:
        c = 1.0 / angle2 - (1.0 + math.cos(angle)) / (2.0 * angle * math.sin(angle))
    return _identity_plus(0.5, c, theta)


@njit(cache=True)
def element_kinematics(
    p_A: FloatArray, p_B: FloatArray, R_A: FloatArray, R_B: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(d, phi, R_M, g, J_r(phi)^-1, J_r(phi / 2))`` of an element with nodes at ``p_A``, ``p_B``
    (3,) [m] with frames ``R_A``, ``R_B`` (3, 3) (module docstring)."""
    d = p_B - p_A
    phi = rotation_log(_transpose_matmul(R_A, R_B))
    half = 0.5 * phi
    R_M = _matmul(R_A, rotation_exp(half))
    g = _transpose_matvec(R_M, d)
    return d, phi, R_M, g, right_jacobian_inverse(phi), right_jacobian(half)


@njit(cache=True)
def node_b_loads(
    n: FloatArray,
    m: FloatArray,
    R_M: FloatArray,
    R_B: FloatArray,
    g: FloatArray,
    jr_inv: FloatArray,
    jr_half: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Force [N] and couple [N m] (world) on node B of section force ``n`` and moment ``m``
    (midpoint axes): ``-dW/dx_B`` and ``-dW/dtheta_B`` when ``n``, ``m`` are the energy's."""
    moment = m + 0.5 * _transpose_matvec(jr_half, _cross(n, g))
    return -_matvec(R_M, n), -_matvec(R_B, _transpose_matvec(jr_inv, moment))


@njit(cache=True)
def section_resultants(
    F_B: FloatArray, M_B: FloatArray, p_A: FloatArray, p_B: FloatArray, R_A: FloatArray, R_B: FloatArray
) -> FloatArray:
    """Section force and moment (6,) (midpoint axes: axial force, two shears [N], torsion, two
    bending moments [N m]) of an element whose node B carries ``F_B``, ``M_B`` (world); the
    inverse of ``node_b_loads``."""
    _, _, R_M, g, jr_inv, jr_half = element_kinematics(p_A, p_B, R_A, R_B)
    n = -_transpose_matvec(R_M, F_B)
    moment = -np.linalg.solve(jr_inv.T.copy(), _transpose_matvec(R_B, M_B))
    out = np.empty(6)
    out[:3] = n
    out[3:] = moment - 0.5 * _transpose_matvec(jr_half, _cross(n, g))
    return out


@njit(cache=True)
def _beam_loads(
    element: IntArray,
    i_marker: IntArray,
    j_marker: IntArray,
    reference_length: FloatArray,
    reference_strain: FloatArray,
    reference_curvature: FloatArray,
    C_N: FloatArray,
    C_M: FloatArray,
    damping: FloatArray,
    p_M: FloatArray,
    v_M: FloatArray,
    R_WM: FloatArray,
    w_M: FloatArray,
    force: FloatArray,
    torque: FloatArray,
    value: FloatArray,
) -> tuple[float, float]:
    potential = 0.0
    dissipated = 0.0
    for k in range(element.size):
        a, b = j_marker[k], i_marker[k]
        L0 = reference_length[k]
        R_A, R_B = R_WM[a], R_WM[b]
        _, phi, R_M, g, jr_inv, jr_half = element_kinematics(p_M[a], p_M[b], R_A, R_B)
        strain = g / L0 - reference_strain[k]
        curvature = phi / L0 - reference_curvature[k]
        # rates: the variations with the nodes' velocities
        phi_rate = _matvec(jr_inv, _transpose_matvec(R_B, w_M[b] - w_M[a]))
        psi_rate = _transpose_matvec(R_M, w_M[a]) + 0.5 * _matvec(jr_half, phi_rate)
        strain_rate = (_transpose_matvec(R_M, v_M[b] - v_M[a]) + _cross(g, psi_rate)) / L0
        curvature_rate = phi_rate / L0
        n = C_N[k] * (strain + damping[k] * strain_rate)
        m = C_M[k] * (curvature + damping[k] * curvature_rate)
        F_B, M_B = node_b_loads(n, m, R_M, R_B, g, jr_inv, jr_half)
        row = element[k]
        force[row] = F_B
        torque[row] = M_B
        value[row] = n[0]
        potential += 0.5 * L0 * (np.sum(C_N[k] * strain**2) + np.sum(C_M[k] * curvature**2))
        dissipated += L0 * damping[k] * (np.sum(C_N[k] * strain_rate**2) + np.sum(C_M[k] * curvature_rate**2))
    return potential, dissipated


def beam_element_loads(group: BeamElements, inputs: LoadInputs, out: LoadOutputs) -> None:
    """Node B's force and couple of every element (``ForceFamily.loads``); ``value`` the axial force [N]."""
    potential, dissipated = _beam_loads(
        group.element,
        group.i_marker,
        group.j_marker,
        group.reference_length,
        group.reference_strain,
        group.reference_curvature,
        group.axial_shear_stiffness,
        group.bending_torsion_stiffness,
        group.damping,
        np.ascontiguousarray(inputs.p_M),
        np.ascontiguousarray(inputs.v_M),
        np.ascontiguousarray(inputs.R_WM),
        np.ascontiguousarray(inputs.w_M),
        out.force,
        out.torque,
        out.value,
    )
    out.potential += potential
    out.dissipated += dissipated


BEAM_ELEMENT = ForceFamily("beam_element", (BeamElement,), build_beam_elements, beam_element_loads)
