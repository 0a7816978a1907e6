"""One output frame: everything Results stores about an instant, from a state."""

from __future__ import annotations

import numpy as np

from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.forces import contact_names, contact_quantities
from multibody.formulation.reactions import in_marker_axes, reactions
from multibody.results import ResultsLayout
from multibody.spatial import rotations
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
    R_WB = frames.R_WB[:-1]
    a = rigid.velocity_blocks(kinematics.frame_velocities(system, acceleration))
    force, torque = reactions(system, frames, lam, state.jacobian)
    j_marker = system.constraint_markers[:, 1]
    kinetic = formulation.kinetic_energy(frames, motion)
    potential = formulation.potential_energy(frames, state.loads)
    return (
        {
            "time": np.asarray(frames.t),
            "body/position": frames.p_WB_W[:-1],
            "body/velocity": motion.v_WB_W[:-1],
            "body/acceleration": a[:, rigid.TRANSLATION],
            "body/euler_parameters": rotations.normalize(frames.e_WB),
            "body/angular_velocity": motion.w_WB_W[:-1],
            "body/angular_acceleration": np.einsum("bij,bj->bi", R_WB, a[:, rigid.ROTATION]),
            "joint/reaction_force": force,
            "joint/reaction_torque": torque,
            "joint/reaction_force_in_j": in_marker_axes(frames, j_marker, force),
            "joint/reaction_torque_in_j": in_marker_axes(frames, j_marker, torque),
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
