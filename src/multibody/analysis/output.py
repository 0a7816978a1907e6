"""One output frame: everything Results stores about an instant, from a state."""

from __future__ import annotations

import numpy as np
from numba import njit

from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.forces import contact_names, contact_quantities
from multibody.formulation.reactions import reactions
from multibody.results import ResultsLayout
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


def results_layout(system: System, analysis: str) -> ResultsLayout:
    """Names of what an analysis of ``system`` records."""
    return ResultsLayout(
        model_name=system.name,
        analysis=analysis,
        body_names=system.body_names,
        joint_names=system.constraint_names,
        force_names=system.force_names,
        scene=system.scene,
        aliases=system.aliases,
        state_sizes=tuple((b.owner, b.nx) for b in system.layout.blocks if b.nx) if system.layout else (),
        contact_names=contact_names(system),
        modal_sizes=tuple((b.owner, b.nv) for b in system.layout.blocks if b.kind == "modal") if system.layout else (),
        cable_sizes=tuple((b.owner, b.nv) for b in system.layout.blocks if b.kind == "ancf_cable")
        if system.layout
        else (),
    )


def output_frame(
    formulation: CartesianFormulation,
    state: Evaluation,
    acceleration: FloatArray,
    lam: FloatArray,
    dissipated: float,
    input_work: float = 0.0,
) -> dict[str, np.ndarray]:
    """The frame dict of ``ResultsWriter.append`` at an evaluated state with its accelerations
    ``dv/dt`` (n_velocities,), multipliers ``lam`` (m,), net dissipated energy and input work [J]."""
    system = formulation.system
    frames, motion = state.frames, state.motion
    a = rigid.velocity_blocks(kinematics.frame_velocities(system, acceleration))
    force, torque = reactions(system, frames, lam, state.jacobian)
    euler_parameters, angular_acceleration, force_in_j, torque_in_j = _rotated(
        frames.e_WB, frames.R_WB, a[:, rigid.ROTATION], frames.R_WM, system.constraint_markers[:, 1], force, torque
    )
    kinetic = 0.5 * float(state.v @ (state.mass_matrix @ state.v))  # formulation.kinetic_energy, in one product
    potential = formulation.potential_energy(frames, state.loads)
    return (
        {
            "time": np.asarray(frames.t),
            "body/position": frames.p_WB_W[:-1],
            "body/velocity": motion.v_WB_W[:-1],
            "body/acceleration": a[:, rigid.TRANSLATION],
            "body/euler_parameters": euler_parameters,
            "body/angular_velocity": motion.w_WB_W[:-1],
            "body/angular_acceleration": angular_acceleration,
            "joint/reaction_force": force,
            "joint/reaction_torque": torque,
            "joint/reaction_force_in_j": force_in_j,
            "joint/reaction_torque_in_j": torque_in_j,
            "force/force": state.loads.force_W,
            "force/torque": state.loads.torque_W,
            "force/value": state.loads.value,
            "energy/kinetic": np.asarray(kinetic),
            "energy/potential": np.asarray(potential),
            "energy/total": np.asarray(kinetic + potential),
            "energy/dissipated": np.asarray(dissipated),
            "work/input": np.asarray(input_work),
        }
        | ({"state/x": state.x} if system.n_states else {})
        | _tail_frame(system, frames.q_modal, motion.v_modal)
        | _contact_frame(system, state, lam)
    )


@njit(cache=True)
def _rotated(
    e_WB: FloatArray,
    R_WB: FloatArray,
    alpha_WB_B: FloatArray,
    R_WM: FloatArray,
    j_marker: np.ndarray,
    force_W: FloatArray,
    torque_W: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The frame's entries that turn vectors between axes, in one compiled pass: unit Euler
    parameters (nb, 4), angular accelerations in world axes ``R_WB alpha_B`` (nb, 3) [rad/s^2], and
    the reactions (nc, 3) in the axes of each element's J marker ``R_WM^T f``."""
    n_bodies, n_elements = e_WB.shape[0], force_W.shape[0]
    unit = np.empty((n_bodies, 4))
    alpha_WB_W = np.zeros((n_bodies, 3))
    for b in range(n_bodies):
        norm = np.sqrt(e_WB[b, 0] ** 2 + e_WB[b, 1] ** 2 + e_WB[b, 2] ** 2 + e_WB[b, 3] ** 2)
        for i in range(4):
            unit[b, i] = e_WB[b, i] / norm
        for i in range(3):
            for j in range(3):
                alpha_WB_W[b, i] += R_WB[b, i, j] * alpha_WB_B[b, j]
    force_M = np.zeros((n_elements, 3))
    torque_M = np.zeros((n_elements, 3))
    for k in range(n_elements):
        R = R_WM[j_marker[k]]
        for i in range(3):
            for j in range(3):
                force_M[k, i] += R[j, i] * force_W[k, j]
                torque_M[k, i] += R[j, i] * torque_W[k, j]
    return unit, alpha_WB_W, force_M, torque_M


def _tail_frame(system: System, q_tail: FloatArray, v_tail: FloatArray) -> dict[str, np.ndarray]:
    """The ``modal/...`` and ``cable/...`` entries of a frame from the coordinates after the frames'
    (modal ones first, then the cables' nodes)."""
    n_modal = int(np.sum(system.modal.count)) if system.modal else 0
    modal = {"modal/coordinates": q_tail[:n_modal], "modal/velocities": v_tail[:n_modal]} if system.modal else {}
    nodes = {"cable/coordinates": q_tail[n_modal:], "cable/velocities": v_tail[n_modal:]} if system.cables else {}
    return modal | nodes


def _contact_frame(system: System, state: Evaluation, lam: FloatArray) -> dict[str, np.ndarray]:
    """The ``contact/...`` entries of a frame (none when no element reports contact)."""
    if not contact_names(system):
        return {}
    quantities = contact_quantities(system, state.frames, state.motion, state.x, lam)
    return {f"contact/{quantity}": values for quantity, values in quantities.items()}
