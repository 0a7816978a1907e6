"""Force elements of the Cartesian formulation: loads, their generalized forces, energy and power.

Every element produces, per instant, a force ``F`` [N] at the origin of its I marker and a
couple ``T`` [N m] (world components) on I's body; a two-marker element puts ``-F`` at the same
point and ``-T`` on J's body (for a spring along the line I-J this equals ``-F`` at J).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.formulation.frames import Pose, Twist
from multibody.model.element import ModelError
from multibody.model.forces.applied import MarkerState
from multibody.model.forces.user import UserForceInput
from multibody.spatial import rotations
from multibody.spatial.measurements import Measurements
from multibody.spatial.rotations import FloatArray, cross
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
    dissipated_power: float
    """power taken out of the system by dampers [W] (>= 0 for positive damping)"""
    input_power: float
    """power put into the system by actuators, applied loads and user laws [W]"""
    state_rate: FloatArray
    """(nx,) rates of the first-order states of the elements that carry them"""

    @property
    def nonconservative_power(self) -> float:
        """Net power of everything that is not a potential force [W]: input less dissipation."""
        return self.input_power - self.dissipated_power


def _read_only(array: FloatArray) -> FloatArray:
    array.flags.writeable = False
    return array


NO_LOADS = ElementLoads(
    _read_only(np.zeros((0, 3))),
    _read_only(np.zeros((0, 3))),
    _read_only(np.zeros(0)),
    0.0,
    0.0,
    0.0,
    _read_only(np.zeros(0)),
)
"""The loads of a model without force elements (and so without first-order states)."""


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("ij,ij->i", a, b)


def _spring_damper_law(
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


def element_loads(
    system: System, frames: Pose, motion: Twist, x: FloatArray | None = None, lam: FloatArray | None = None
) -> ElementLoads:
    """Evaluate every force element at ``frames`` / ``motion`` (time ``frames.t``), first-order
    states ``x`` (nx,; default: the initial ones) and multipliers ``lam`` (m,; default zero) of
    the active rows, which user laws may read."""
    nf = len(system.force_names)
    force = np.zeros((nf, 3))
    torque = np.zeros((nf, 3))
    value = np.zeros(nf)
    potential = 0.0
    dissipated = 0.0
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
        scalar, stored, damping_power, actuator_power = _spring_damper_law(
            springs.stiffness, length - springs.free_length, springs.damping, length_rate, springs.preload, actuator
        )
        force[springs.element] = scalar[:, None] * u
        value[springs.element] = scalar
        potential += stored
        dissipated += damping_power
        power += actuator_power

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
        scalar, stored, damping_power, _ = _spring_damper_law(
            torsion.stiffness, deflection, torsion.damping, rate, torsion.preload, 0.0
        )
        torque[torsion.element] = scalar[:, None] * axis
        value[torsion.element] = scalar
        potential += stored
        dissipated += damping_power

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
        dissipated -= float(np.sum(damping_force * d_rate_J) + np.sum(damping_torque * w_rel_J))

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
            power += _load_power(F, T, *system.force_markers[element], frames, motion)

    state_rate = np.zeros(system.n_states)
    if system.user_forces.element.size:
        x = system.x0 if x is None else x
        lam = np.zeros(len(system.rows)) if lam is None else lam
        power += _user_forces(system, frames, motion, x, lam, force, torque, value, state_rate)

    return ElementLoads(force, torque, value, potential, dissipated, power, state_rate)


def _user_forces(
    system: System,
    frames: Pose,
    motion: Twist,
    x: FloatArray,
    lam: FloatArray,
    force: FloatArray,
    torque: FloatArray,
    value: FloatArray,
    state_rate: FloatArray,
) -> float:
    """Call every user law once; fill its rows of ``force``, ``torque``, ``value`` and its states'
    rates in place; return the laws' power into the system [W]."""
    group = system.user_forces
    p_M, v_M, R_WM, w_M = frames.p_WM_W, motion.v_WM_W, frames.R_WM, motion.w_WM_W
    power = 0.0
    for element, law, markers, joints, states in zip(
        group.element, group.law, group.markers, group.joints, group.states
    ):
        name = system.force_names[element]
        inputs = UserForceInput(
            frames.t,
            x[states].copy(),
            {system.marker_names[m]: MarkerState(p_M[m], v_M[m], R_WM[m], w_M[m]) for m in markers},
            {system.constraint_names[j]: lam[system.active_rows_of[j]] for j in joints},
        )
        try:
            returned = law(inputs)
            F = np.asarray(returned[0], dtype=float).reshape(3)
            T = np.asarray(returned[1], dtype=float).reshape(3)
            rates = np.asarray(returned[2] if len(returned) > 2 else (), dtype=float).reshape(-1)
        except ModelError:
            raise
        except Exception as error:  # the user's law: say which element and what it must return
            raise ModelError(
                f"force '{name}': its law raised {type(error).__name__}: {error} "
                "(it must return (force (3,), torque (3,)[, state rates]))"
            ) from error
        if rates.size != states.stop - states.start:
            raise ModelError(
                f"force '{name}': its law returned {rates.size} state rates for {states.stop - states.start} states"
            )
        force[element], torque[element], state_rate[states] = F, T, rates
        value[element] = float(np.linalg.norm(F) or np.linalg.norm(T))
        power += _load_power(F, T, *system.force_markers[element], frames, motion)
    return power


def _load_power(F: FloatArray, T: FloatArray, i: int, j: int, frames: Pose, motion: Twist) -> float:
    """Power [W] of force ``F`` at marker ``i``'s origin and torque ``T`` on its body, with marker
    ``j``'s body (``j >= 0``) taking ``-F`` at the same point and ``-T``."""
    p_M, v_M, w_M = frames.p_WM_W, motion.v_WM_W, motion.w_WM_W
    v_rel, w_rel = v_M[i], w_M[i]
    if j >= 0:
        v_rel = v_rel - v_M[j] - np.cross(w_M[j], p_M[i] - p_M[j])
        w_rel = w_rel - w_M[j]
    return float(F @ v_rel + T @ w_rel)


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
