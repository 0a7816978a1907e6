"""One output frame: everything Results stores about an instant, from a state."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.constraints import ConstraintJacobian, position_level
from multibody.formulation.forces import contact_names, contact_quantities
from multibody.formulation.reactions import row_wrenches
from multibody.results import ResultsLayout
from multibody.results.storage import FramePacking, PackedFrame
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


FRAME_COLUMNS_COMPILED = (
    "body/position",
    "body/velocity",
    "body/acceleration",
    "body/euler_parameters",
    "body/angular_velocity",
    "body/angular_acceleration",
    "joint/reaction_force",
    "joint/reaction_torque",
    "joint/reaction_force_in_j",
    "joint/reaction_torque_in_j",
)
"""The frame entries ``_fill_frame`` writes, in the order of its ``columns`` argument."""


def frame_packing(system: System) -> FramePacking:
    """How the frames of ``system`` are packed (``multibody.results.storage.FramePacking``)."""
    return FramePacking.of(results_layout(system, ""))


def output_frame(
    formulation: CartesianFormulation,
    state: Evaluation,
    acceleration: FloatArray,
    lam: FloatArray,
    dissipated: float,
    input_work: float = 0.0,
    packing: FramePacking | None = None,
) -> PackedFrame:
    """The frame ``ResultsWriter.append`` takes, at an evaluated state with its accelerations
    ``dv/dt`` (n_velocities,), multipliers ``lam`` (m,), net dissipated energy and input work [J].

    The bodies' and joints' entries come from one compiled pass (``_fill_frame``); ``packing``
    (``frame_packing(system)``, default: made here) is passed by callers that make many frames.
    """
    system = formulation.system
    frame = PackedFrame(frame_packing(system) if packing is None else packing)
    frames, motion, jacobian, loads = state.frames, state.motion, state.jacobian, state.loads
    rows, slices = system.rows, frame.packing.slices
    if len(rows) == 0:
        no_rows = np.zeros((0, 4, 3))  # views like a kernel's coefficients: one compiled variant
        jacobian = ConstraintJacobian(no_rows[:, 0], no_rows[:, 1], no_rows[:, 2], no_rows[:, 3])
    elif jacobian is None:
        jacobian = position_level(system, rows, frames)[1]
    rigid_kinetic, rigid_gravity = _fill_frame(
        frame.row,
        _compiled_columns(frame.packing),
        frames.p_WB_W,
        motion.v_WB_W,
        frames.e_WB,
        frames.R_WB,
        motion.w_WB_W,
        kinematics.frame_velocities(system, acceleration),
        frames.R_WM,
        system.constraint_markers[:, 1],
        rows.element,
        rows.i_marker,
        rows.j_marker,
        system.marker_body,
        frames.p_WM_W,
        jacobian.g_vi,
        jacobian.g_wi,
        jacobian.g_vj,
        jacobian.g_wj,
        np.asarray(lam, dtype=float),
        kinematics.frame_velocities(system, state.v),
        system.mass,
        system.inertia,
        system.gravity,
    )
    if system.modal is None and system.cables is None and system.rope_spans is None:
        kinetic, potential = rigid_kinetic, rigid_gravity + loads.potential_energy
    else:
        kinetic = 0.5 * float(state.v @ (state.mass_matrix @ state.v))  # formulation.kinetic_energy, in one product
        potential = formulation.potential_energy(frames, loads)
    row = frame.row
    row[slices["time"].start] = frames.t
    row[slices["energy/kinetic"].start] = kinetic
    row[slices["energy/potential"].start] = potential
    row[slices["energy/total"].start] = kinetic + potential
    row[slices["energy/dissipated"].start] = dissipated
    row[slices["work/input"].start] = input_work
    if len(system.force_names):
        frame["force/force"] = loads.force_W
        frame["force/torque"] = loads.torque_W
        frame["force/value"] = loads.value
    if system.n_states:
        frame["state/x"] = state.x
    if system.modal or system.cables:
        for key, values in _tail_frame(system, frames.q_modal, motion.v_modal).items():
            frame[key] = values
    for key, values in _contact_frame(system, state, lam).items():
        frame[key] = values
    return frame


@njit(cache=True)
def _fill_frame(
    row: FloatArray,
    columns: np.ndarray,
    p_WB_W: FloatArray,
    v_WB_W: FloatArray,
    e_WB: FloatArray,
    R_WB: FloatArray,
    w_WB_W: FloatArray,
    frame_acceleration: FloatArray,
    R_WM: FloatArray,
    j_marker: np.ndarray,
    element: np.ndarray,
    row_i_marker: np.ndarray,
    row_j_marker: np.ndarray,
    marker_body: np.ndarray,
    p_WM_W: FloatArray,
    g_vi: FloatArray,
    g_wi: FloatArray,
    g_vj: FloatArray,
    g_wj: FloatArray,
    lam: FloatArray,
    frame_velocity: FloatArray,
    mass: FloatArray,
    inertia: FloatArray,
    gravity: FloatArray,
) -> tuple[float, float]:
    """Write the entries ``FRAME_COLUMNS_COMPILED`` (starting at ``columns`` of ``row``) in one
    pass: CM positions, velocities and accelerations (world), unit Euler parameters, angular
    velocities and accelerations ``R_WB alpha_B`` in world axes, and the joint reactions
    (``reactions.row_wrenches``) in world and J-marker axes ``R_WM^T f``. The pose and twist
    arrays include ground's last row; ``frame_acceleration`` and ``frame_velocity`` are the
    frames' (6 nb,) blocks of dv/dt and v.

    Returns the rigid frames' kinetic energy ``sum 1/2 m v.v + 1/2 w_B . J w_B`` and gravity
    potential ``-sum m g . p`` [J] (the whole of them for a model of rigid bodies only)."""
    n_bodies, n_elements = e_WB.shape[0], j_marker.shape[0]
    position, velocity, acceleration, euler, angular_velocity, angular_acceleration = columns[:6]
    force_column, torque_column, force_in_j, torque_in_j = columns[6:]
    kinetic, potential = 0.0, 0.0
    for b in range(n_bodies):
        for i in range(3):
            kinetic += 0.5 * mass[b] * frame_velocity[6 * b + i] ** 2
            potential -= mass[b] * gravity[i] * p_WB_W[b, i]
            for j in range(3):
                kinetic += 0.5 * frame_velocity[6 * b + 3 + i] * inertia[b, i, j] * frame_velocity[6 * b + 3 + j]
        norm = np.sqrt(e_WB[b, 0] ** 2 + e_WB[b, 1] ** 2 + e_WB[b, 2] ** 2 + e_WB[b, 3] ** 2)
        for i in range(4):
            row[euler + 4 * b + i] = e_WB[b, i] / norm
        for i in range(3):
            row[position + 3 * b + i] = p_WB_W[b, i]
            row[velocity + 3 * b + i] = v_WB_W[b, i]
            row[angular_velocity + 3 * b + i] = w_WB_W[b, i]
            row[acceleration + 3 * b + i] = frame_acceleration[6 * b + i]
            alpha = 0.0
            for j in range(3):
                alpha += R_WB[b, i, j] * frame_acceleration[6 * b + 3 + j]
            row[angular_acceleration + 3 * b + i] = alpha
    force_W, torque_W = row_wrenches(
        n_elements, element, row_i_marker, row_j_marker, marker_body, p_WM_W, p_WB_W, g_vi, g_wi, g_vj, g_wj, lam
    )
    for k in range(n_elements):
        R = R_WM[j_marker[k]]
        for i in range(3):
            row[force_column + 3 * k + i] = force_W[k, i]
            row[torque_column + 3 * k + i] = torque_W[k, i]
            force_M = 0.0
            torque_M = 0.0
            for j in range(3):
                force_M += R[j, i] * force_W[k, j]
                torque_M += R[j, i] * torque_W[k, j]
            row[force_in_j + 3 * k + i] = force_M
            row[torque_in_j + 3 * k + i] = torque_M
    return kinetic, potential


@lru_cache(maxsize=16)
def _compiled_columns(packing: FramePacking) -> np.ndarray:
    """Where the entries of ``FRAME_COLUMNS_COMPILED`` start in ``packing``'s rows."""
    return np.array([packing.slices[key].start for key in FRAME_COLUMNS_COMPILED])


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
