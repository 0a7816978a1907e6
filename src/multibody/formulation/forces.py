"""Force elements of the Cartesian formulation: loads, their generalized forces, energy and power.

Every element produces, per instant, a force ``F`` [N] at the origin of its I marker and a
couple ``T`` [N m] (world components) on I's body; a two-marker element puts ``-F`` at the same
point and ``-T`` on J's body (for a spring along the line I-J this equals ``-F`` at J).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.spatial import rotations
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.measurements import Measurements
from multibody.spatial.rotations import FloatArray, cross
from multibody.model.forces.applied import MarkerState
from multibody.system.system import System


@dataclass(frozen=True)
class ElementLoads:
    """Loads of all force elements at one instant, in ``System.force_names`` order."""

    force_W: FloatArray
    """(nf, 3) force on I at I's origin [N]"""
    torque_W: FloatArray
    """(nf, 3) couple on I [N m]"""
    value: FloatArray
    """(nf,) the element's scalar: spring force along the line (+ pushes apart) [N], torsion
    torque [N m], bushing force magnitude [N], applied load magnitude"""
    potential_energy: float
    """energy stored in springs and bushings [J]"""
    nonconservative_power: float
    """power of damping, actuators, preload-free applied loads into the system [W]"""


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def _spring_damper_law(
    stiffness: FloatArray,
    deflection: FloatArray,
    damping: FloatArray,
    rate: FloatArray,
    preload: FloatArray,
    actuator: FloatArray | float,
) -> tuple[FloatArray, float, float]:
    """Linear law ``-k x - c x' + preload + actuator``: (scalar per element, stored energy
    ``1/2 k x^2 - preload x`` summed, power of damping and actuator summed)."""
    nonconservative = -damping * rate + actuator
    scalar = -stiffness * deflection + preload + nonconservative
    stored = float(np.sum(0.5 * stiffness * deflection**2 - preload * deflection))
    return scalar, stored, float(np.sum(nonconservative * rate))


def element_loads(system: System, frames: Pose, motion: Twist) -> ElementLoads:
    """Evaluate every force element at ``frames`` / ``motion`` (time ``frames.t``)."""
    nf = len(system.force_names)
    force = np.zeros((nf, 3))
    torque = np.zeros((nf, 3))
    value = np.zeros(nf)
    potential = 0.0
    power = 0.0
    t = frames.t
    p_M, v_M, R_WM = frames.p_WM_W, motion.v_WM_W, frames.R_WM
    w_M = motion.w_WB_W[system.marker_body]

    springs = system.spring_dampers
    if springs.element.size:
        i, j = springs.i_marker, springs.j_marker
        d = p_M[i] - p_M[j]
        length = np.linalg.norm(d, axis=1)
        u = d / np.where(length > 0.0, length, 1.0)[:, None]
        length_rate = _dot(u, v_M[i] - v_M[j])
        actuator = np.array([0.0 if a is None else a.value(t) for a in springs.actuator])
        scalar, stored, dissipating = _spring_damper_law(
            springs.stiffness, length - springs.free_length, springs.damping, length_rate, springs.preload, actuator
        )
        force[springs.element] = scalar[:, None] * u
        value[springs.element] = scalar
        potential += stored
        power += dissipating

    torsion = system.torsion_springs
    if torsion.element.size:
        i, j = torsion.i_marker, torsion.j_marker
        x_I, x_J, y_J = R_WM[i][:, :, 0], R_WM[j][:, :, 0], R_WM[j][:, :, 1]
        sine, cosine = _dot(x_I, y_J), _dot(x_I, x_J)
        angle = np.arctan2(sine, cosine)
        deflection = np.mod(angle - torsion.free_angle + np.pi, 2.0 * np.pi) - np.pi
        # d(angle)/dt = axis . (w_I - w_J); the axis is z_J when the revolute holds, and this exact
        # gradient keeps the spring conservative even while the joint is slightly violated.
        axis = (cosine[:, None] * cross(x_I, y_J) - sine[:, None] * cross(x_I, x_J)) / (sine**2 + cosine**2)[:, None]
        rate = _dot(axis, w_M[i] - w_M[j])
        scalar, stored, dissipating = _spring_damper_law(
            torsion.stiffness, deflection, torsion.damping, rate, torsion.preload, 0.0
        )
        torque[torsion.element] = scalar[:, None] * axis
        value[torsion.element] = scalar
        potential += stored
        power += dissipating

    bushings = system.bushings
    if bushings.element.size:
        i, j = bushings.i_marker, bushings.j_marker
        R_WJ = R_WM[j]
        d_J = np.einsum("nji,nj->ni", R_WJ, p_M[i] - p_M[j])
        # Rate of d in J axes: relative velocity minus the part due to J's rotation.
        d_rate_J = np.einsum("nji,nj->ni", R_WJ, v_M[i] - v_M[j] - cross(w_M[j], p_M[i] - p_M[j]))
        angle_J = rotations.rotation_vector(np.swapaxes(R_WJ, 1, 2) @ R_WM[i])
        w_rel_J = np.einsum("nji,nj->ni", R_WJ, w_M[i] - w_M[j])
        damping_force = -bushings.damping * d_rate_J
        damping_torque = -bushings.rotational_damping * w_rel_J
        F_J = -bushings.stiffness * d_J + bushings.preload_force + damping_force
        T_J = -bushings.rotational_stiffness * angle_J + bushings.preload_torque + damping_torque
        force[bushings.element] = np.einsum("nij,nj->ni", R_WJ, F_J)
        torque[bushings.element] = np.einsum("nij,nj->ni", R_WJ, T_J)
        value[bushings.element] = np.linalg.norm(F_J, axis=1)
        potential += float(
            np.sum(0.5 * bushings.stiffness * d_J**2 + 0.5 * bushings.rotational_stiffness * angle_J**2)
            - np.sum(bushings.preload_force * d_J + bushings.preload_torque * angle_J)
        )
        # Small-rotation power: the rotation-vector rate is taken as the relative angular velocity.
        power += float(np.sum(damping_force * d_rate_J) + np.sum(damping_torque * w_rel_J))

    loads = system.applied_loads
    for element, marker, law, in_marker_axes, is_torque in zip(
        loads.element, loads.marker, loads.law, loads.in_marker_axes, loads.is_torque
    ):
        state = MarkerState(p_M[marker], v_M[marker], R_WM[marker], w_M[marker])
        vector = np.asarray(law(t, state), dtype=float).reshape(3)
        if in_marker_axes:
            vector = R_WM[marker] @ vector
        if is_torque:
            torque[element] = vector
            power += float(vector @ w_M[marker])
        else:
            force[element] = vector
            power += float(vector @ v_M[marker])
        value[element] = float(np.linalg.norm(vector))

    state_dependent = system.state_dependent_loads
    if state_dependent.element.size:
        measurements = Measurements(t, p_M, R_WM, v_M, w_M)
        for element, law in zip(state_dependent.element, state_dependent.law):
            F, T = law(measurements)
            force[element], torque[element] = F, T
            value[element] = float(np.linalg.norm(F) or np.linalg.norm(T))  # the force's size, a torque's if no force
            i, j = system.force_markers[element]
            v_rel, w_rel = v_M[i], w_M[i]
            if j >= 0:  # J's body takes -F at I's origin and -T
                v_rel = v_rel - v_M[j] - np.cross(w_M[j], p_M[i] - p_M[j])
                w_rel = w_rel - w_M[j]
            power += float(F @ v_rel + T @ w_rel)

    return ElementLoads(force, torque, value, potential, power)


def generalized_element_forces(system: System, frames: Pose, loads: ElementLoads) -> FloatArray:
    """Generalized forces (nb+1, 6) of the element loads: world force and body-axes moment about
    the CM (``J^T`` of each loaded marker's body kind). The I marker's body takes ``(F, T)`` at I's
    origin, the J marker's body ``(-F, -T)`` at the same point; the last row (ground) collects the
    loads on ground and is discarded by callers."""
    element, marker, sign, application = system.force_load_points
    if not element.size:
        return np.zeros((system.n_bodies + 1, 6))
    return rigid.generalized_forces(
        loads.force_W[element],
        loads.torque_W[element],
        marker,
        sign,
        system.marker_body,
        frames.p_BM_W,
        frames.p_WM_W,
        frames.R_WB,
        application,
    )
