"""One output frame: everything Results stores about an instant, from a state."""

from __future__ import annotations

import weakref
from functools import lru_cache

import numpy as np
from numba import njit

from multibody.formulation import constraints, forces
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.cartesian_kernel import evaluate_rigid
from multibody.formulation.constraints import ConstraintJacobian, acceleration_kernels, position_level
from multibody.formulation.dae_kernel import dense_iteration_matrices
from multibody.formulation.forces import contact_names, contact_quantities
from multibody.formulation.frames import Pose, Twist
from multibody.formulation.reactions import row_wrenches
from multibody.results import ResultsLayout
from multibody.results.storage import FramePacking, PackedFrame
from multibody.solve.linear import Matrix, dense_lu, lu_solve
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


_PACKINGS: dict[int, tuple[weakref.ref[System], FramePacking]] = {}
"""``frame_packing``'s, by ``id`` of the live System they were made for"""


def frame_packing(system: System) -> FramePacking:
    """How the frames of ``system`` are packed (``multibody.results.storage.FramePacking``); made
    once per System (``output_frame`` is called per frame by some analyses)."""
    known = _PACKINGS.get(id(system))
    if known is not None and known[0]() is system:
        return known[1]
    packing = FramePacking.of(results_layout(system, ""))
    key = id(system)
    _PACKINGS[key] = (weakref.ref(system, lambda _: _PACKINGS.pop(key, None)), packing)
    return packing


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
    return _packed_frame(
        formulation,
        state.frames,
        state.motion,
        state.loads,
        state.jacobian,
        state.v,
        state.x,
        state.mass_matrix,
        acceleration,
        lam,
        dissipated,
        input_work,
        frame_packing(formulation.system) if packing is None else packing,
    )


class RigidFrames:
    """The frames of a model of rigid bodies (``System.rigid_only``) at its DAE variables, as
    ``output_frame`` gives them at ``formulation.evaluate(q, v, t, x, lam)``, the same to the bit,
    without evaluating what a frame does not read: one compiled pass (``rigid_frame_pass``) computes
    the frames, twists and constraint coefficients as ``evaluate`` does (but no ``Phi``, ``G`` or
    ``Q``) and writes the bodies', joints' and energies' entries; the force elements' loads are then
    evaluated as in ``evaluate``. What the pass reads of the System is gathered once, here: a run
    makes one and writes every frame with it (``EventDrivenIntegrator.frame_at``)."""

    def __init__(self, formulation: CartesianFormulation, packing: FramePacking) -> None:
        system, rows = formulation.system, formulation.rows
        self.formulation, self.packing = formulation, packing
        slices = packing.slices
        self.model = (
            _compiled_columns(packing),
            np.array([slices[key].start for key in ENERGY_COLUMNS]),
            system.marker_body,
            system.marker_position,
            system.marker_orientation,
            rows.kernel_arrays,
            np.ascontiguousarray(system.constraint_markers[:, 1]),
            system.rows.element,
            system.rows.i_marker,
            system.rows.j_marker,
            system.mass,
            system.inertia,
            system.gravity,
        )
        """what the compiled pass reads of the System (``rigid_frame_pass``'s ``model``)"""
        self.n_reactions = len(system.rows)
        """the multipliers of the system's rows, the first of the formulation's, are the reactions"""
        self._no_drivers = (np.zeros(len(rows)), np.zeros(len(rows)))
        """the driver values of rows without prescribed values (``ConstraintRows.prescribed``)"""
        self.plain = not (len(system.force_names) or system.n_states or formulation.has_loads)
        """whether the compiled pass writes the whole frame (no force elements or states: nothing for
        ``_write_elements``)"""

    def frame(
        self,
        q: FloatArray,
        v: FloatArray,
        t: float,
        x: FloatArray,
        lam: FloatArray,
        acceleration: FloatArray,
        dissipated: float,
        input_work: float,
    ) -> PackedFrame:
        """The frame at positions ``q`` (7 nb,), velocities ``v`` and accelerations ``acceleration``
        (6 nb,), time ``t`` [s], states ``x`` (nx,), the multipliers ``lam`` of the formulation's rows
        (m,; the reactions are those of the system's, the first, rows), the net dissipated energy and
        the input work [J]."""
        formulation = self.formulation
        system = formulation.system
        f, f_dot = (
            constraints.driver_values(formulation.rows, t, 1, q[system.n_frame_positions :])
            if formulation.rows.prescribed
            else self._no_drivers
        )
        frame = PackedFrame(self.packing)
        reaction_multipliers = np.asarray(lam[: self.n_reactions], dtype=float)
        p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM, v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W = rigid_frame_pass(
            frame.row, q, v, acceleration, reaction_multipliers, f, f_dot, (t, dissipated, input_work), self.model
        )
        if self.plain:
            return frame
        frames, motion, loads = None, None, forces.NO_LOADS
        if formulation.has_loads:
            no_tail = q[system.n_frame_positions :]
            frames = Pose(t, p_WB_W, R_WB, kinematics.split_positions(system, q)[1], p_WM_W, p_BM_W, R_WM, no_tail)
            w_WB_B = kinematics.split_velocities(system, v)[1]
            motion = Twist(v_WB_W, w_WB_W, w_WB_B, v_WM_W, w_WM_W, bias_WM_W, v[system.n_frame_velocities :])
            loads = forces.element_loads(system, frames, motion, x, lam)
            row, (_, kinetic, potential, total) = frame.row, self.model[1][:4]
            row[potential] += loads.potential_energy
            row[total] = row[kinetic] + row[potential]
        _write_elements(frame, formulation, frames, motion, loads, x, reaction_multipliers)
        return frame


ENERGY_COLUMNS = (
    "time",
    "energy/kinetic",
    "energy/potential",
    "energy/total",
    "energy/dissipated",
    "work/input",
)
"""The scalar entries ``rigid_frame_pass`` writes, in the order of its energy columns."""


@njit(cache=True)
def rigid_frame_pass(
    row: FloatArray,
    q: FloatArray,
    v: FloatArray,
    acceleration: FloatArray,
    lam: FloatArray,
    f: FloatArray,
    f_dot: FloatArray,
    scalars: tuple,
    model: tuple,
) -> tuple:
    """``RigidFrames.frame``'s compiled part: the frames, twists and body coefficients at ``(q (7 nb,),
    v (6 nb,))`` for the formulation's rows with driver values ``f``, ``f_dot``
    (``cartesian_kernel.evaluate_rigid``), and ``_fill_frame`` with them (reactions of the
    system's rows at multipliers ``lam``); then the time, energies and work (``ENERGY_COLUMNS``, from
    ``scalars = (t [s], dissipated [J], input work [J])``, the potential energy gravity's). ``model``:
    ``RigidFrames.model``. Returns ``(p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM, v_WB_W, w_WB_W, v_WM_W,
    w_WM_W, bias_WM_W)``."""
    (
        columns,
        energy_columns,
        marker_body,
        marker_position,
        marker_orientation,
        rows,
        j_marker,
        element,
        row_i_marker,
        row_j_marker,
        mass,
        inertia,
        gravity,
    ) = model
    n_frames = rigid.POSITION_WIDTH * mass.size
    frame_velocity = v[: rigid.VELOCITY_WIDTH * mass.size]
    evaluated = evaluate_rigid(
        q[:n_frames],
        frame_velocity,
        marker_body,
        marker_position,
        marker_orientation,
        rows,
        f,
        f_dot,
        mass,
        inertia,
        gravity,
    )
    p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM, v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W = evaluated[:10]
    coefficients = evaluated[12]
    kinetic, potential = _fill_frame(
        row,
        columns,
        p_WB_W,
        v_WB_W,
        q[:n_frames].reshape(-1, rigid.POSITION_WIDTH)[:, 3:],
        R_WB,
        w_WB_W,
        acceleration[: rigid.VELOCITY_WIDTH * mass.size],
        R_WM,
        j_marker,
        element,
        row_i_marker,
        row_j_marker,
        marker_body,
        p_WM_W,
        coefficients[:, 0],
        coefficients[:, 1],
        coefficients[:, 2],
        coefficients[:, 3],
        lam,
        frame_velocity,
        mass,
        inertia,
        gravity,
    )
    t, dissipated, input_work = scalars
    time, kinetic_energy, potential_energy, total_energy, dissipated_energy, work = energy_columns
    row[time], row[kinetic_energy], row[potential_energy] = t, kinetic, potential
    row[total_energy], row[dissipated_energy], row[work] = kinetic + potential, dissipated, input_work
    return p_WB_W, R_WB, p_WM_W, p_BM_W, R_WM, v_WB_W, w_WB_W, v_WM_W, w_WM_W, bias_WM_W


@njit(cache=True)
def solved_frame_pass(
    row: FloatArray,
    q: FloatArray,
    v: FloatArray,
    f: FloatArray,
    f_dot: FloatArray,
    scalars: tuple,
    model: tuple,
    equations: tuple,
    n_reactions: int,
) -> bool:
    """``rigid_frame_pass`` with the accelerations and multipliers solved at ``(q (7 nb,), v (6 nb,))``
    from ``[M G^T; G 0] [dv/dt; lambda] = [Q; gamma]`` as ``CartesianFormulation.solve_accelerations``
    solves them (the frames of the index-3 forms, ``EventDrivenIntegrator.frame_at``), for rows without
    driven values (``f``, ``f_dot`` and the second rates zero); ``equations = (system, rows, pattern,
    K, C)`` as ``dae_kernel.dense_iteration_matrices`` takes them, ``n_reactions`` the system's rows.
    Returns whether ``[M G^T; G 0]`` is regular (the frame is written either way)."""
    system, rows, pattern, stiffness, damping = equations
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, _ = system
    nv = v.size
    matrix, _ = dense_iteration_matrices(q, v, system, rows, f, f_dot, pattern, stiffness, damping, 0.0, 0.0, False)
    evaluated = evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )
    p_WM_W, R_WM, v_WM_W, w_WM_W, bias_WM_W = evaluated[2], evaluated[4], evaluated[7], evaluated[8], evaluated[9]
    gamma = acceleration_kernels(*rows, f, f_dot, np.zeros(f.size), R_WM, p_WM_W, v_WM_W, w_WM_W, bias_WM_W)
    lu, pivots, regular = dense_lu(matrix)
    rhs = np.empty(matrix.shape[0])
    rhs[:nv] = evaluated[14].reshape(-1)
    rhs[nv:] = gamma
    solution = lu_solve(lu, pivots, rhs)
    rigid_frame_pass(row, q, v, solution[:nv], solution[nv : nv + n_reactions], f, f_dot, scalars, model)
    return regular


def _packed_frame(
    formulation: CartesianFormulation,
    frames: Pose,
    motion: Twist,
    loads: forces.ElementLoads,
    jacobian: ConstraintJacobian | None,
    v: FloatArray,
    x: FloatArray,
    mass_matrix: Matrix,
    acceleration: FloatArray,
    lam: FloatArray,
    dissipated: float,
    input_work: float,
    packing: FramePacking,
) -> PackedFrame:
    """``output_frame`` from the parts of an evaluation it reads."""
    system = formulation.system
    frame = PackedFrame(packing)
    rows = system.rows
    if len(rows) == 0:
        no_rows = np.zeros((0, 4, 3))  # views like a kernel's coefficients: one compiled variant
        jacobian = ConstraintJacobian(no_rows[:, 0], no_rows[:, 1], no_rows[:, 2], no_rows[:, 3])
    elif jacobian is None:
        jacobian = position_level(system, rows, frames)[1]
    lam = np.asarray(lam, dtype=float)
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
        lam,
        kinematics.frame_velocities(system, v),
        system.mass,
        system.inertia,
        system.gravity,
    )
    if system.rigid_only:
        kinetic, potential = rigid_kinetic, rigid_gravity + loads.potential_energy
    else:
        kinetic = 0.5 * float(v @ (mass_matrix @ v))  # formulation.kinetic_energy, in one product
        potential = formulation.potential_energy(frames, loads)
    slices = frame.packing.slices
    energies = (frames.t, kinetic, potential, kinetic + potential, dissipated, input_work)
    for key, value in zip(ENERGY_COLUMNS, energies, strict=True):
        frame.row[slices[key].start] = value
    _write_elements(frame, formulation, frames, motion, loads, x, lam)
    return frame


def _write_elements(
    frame: PackedFrame,
    formulation: CartesianFormulation,
    frames: Pose | None,
    motion: Twist | None,
    loads: forces.ElementLoads,
    x: FloatArray,
    lam: FloatArray,
) -> None:
    """Write the entries neither ``_fill_frame`` nor the energies are: the force elements' loads, the
    first-order states, the modal and cable coordinates and the contact quantities (``frames`` and
    ``motion`` are read for the last two only: None will do for a model of rigid bodies without
    force elements)."""
    system = formulation.system
    if len(system.force_names):
        frame["force/force"] = loads.force_W
        frame["force/torque"] = loads.torque_W
        frame["force/value"] = loads.value
    if system.n_states:
        frame["state/x"] = x
    if system.modal or system.cables:
        for key, values in _tail_frame(system, frames.q_modal, motion.v_modal).items():
            frame[key] = values
    if formulation.has_loads:  # contacts are force elements
        for key, values in _contact_frame(system, frames, motion, x, lam).items():
            frame[key] = values


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


def _contact_frame(
    system: System, frames: Pose, motion: Twist, x: FloatArray, lam: FloatArray
) -> dict[str, np.ndarray]:
    """The ``contact/...`` entries of a frame (none when no element reports contact)."""
    if not contact_names(system):
        return {}
    quantities = contact_quantities(system, frames, motion, x, lam)
    return {f"contact/{quantity}": values for quantity, values in quantities.items()}
