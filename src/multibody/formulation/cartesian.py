"""Equations of motion in absolute (Cartesian, ADAMS-style) coordinates with Lagrange multipliers.

    dq/dt = N(q) v
    M dv/dt = Q(q, v, t) - G(q)^T lambda
    Phi(q, t) = 0,   G v = nu,   G dv/dt = gamma

``M`` is constant block-diagonal (m I, J_B) for rigid bodies; the other body kinds present
(``System.body_kinds``: flexible bodies, cables, rope spans) add their blocks (constant, or ``M(q)``)
and their inertial, elastic and damping forces (``BodyKind.body_terms``), so ``M`` is read from each
``Evaluation``. ``Q`` holds gravity, the gyroscopic moment ``-w_B x J_B w_B`` and the
force elements. The pipeline is staged as in the files it calls:
positions (``frames.pose``) -> velocities (``frames.twist``) -> forces (``forces``) ->
constraints (``constraints``) -> accelerations (``accelerations``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from multibody.formulation import constraints, forces
from multibody.formulation import frames as kinematics
from multibody.formulation.blocks import add_entries, block_places
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian_kernel import evaluate_rigid
from multibody.formulation.compilation import announce_first_compilation
from multibody.formulation.forces.family import ForceGroup, LoadInputs
from multibody.formulation.forces.tangents import rigid_load_tangents
from multibody.formulation.frames import Pose, Twist
from multibody.solve.linear import Factorization, Matrix, saddle_point_matrix
from multibody.spatial.rotations import FloatArray, skew
from multibody.system.system import ConstraintRows, IntArray, System

SPARSE_THRESHOLD = 400
"""Models with more unknowns (velocities plus multipliers) use sparse linear algebra."""
MULTIPLIER_ITERATIONS = 50
"""Largest number of fixed-point iterations for loads that read the multipliers."""


@dataclass(frozen=True)
class Evaluation:
    """Everything the formulation computes at one state, for outputs and solvers."""

    frames: Pose
    motion: Twist
    loads: forces.ElementLoads
    generalized_force: FloatArray
    """Q (nv,)"""
    phi: FloatArray
    G: Matrix
    nu: FloatArray
    q: FloatArray
    """(nq,) the positions evaluated at"""
    v: FloatArray
    """(nv,) the velocities evaluated at"""
    x: FloatArray
    """(nx,) the first-order states the loads were evaluated with"""
    lam: FloatArray | None
    """(m,) the multipliers the loads were evaluated with (None: zero)"""
    jacobian: constraints.ConstraintJacobian
    """``G`` as world coefficients of the rows' bodies (for reactions)"""
    element_wrench: FloatArray
    """(nb, 6) the part of ``Q`` on the bodies' frames from force elements (``generalized_force`` adds
    gravity and the gyroscopic moments)"""
    mass_matrix: Matrix
    """(nv, nv) ``M`` at ``q``: the constant ``CartesianFormulation.mass_matrix`` of the rigid bodies,
    plus the flexible bodies' blocks ``M(q)`` when there are any"""

    @property
    def state_rate(self) -> FloatArray:
        """``dx/dt`` (nx,) of the first-order states."""
        return self.loads.state_rate


@dataclass(frozen=True)
class StateCoupling:
    """Derivatives of the generalized forces ``Q`` and of the state rates ``F = dx/dt`` with
    respect to what Newton does not otherwise see: states ``x``, multipliers ``lambda``, and (for
    ``F``) positions (velocity-space increments) and velocities. Dense; ``F_*`` have nx rows."""

    Q_x: FloatArray
    Q_lam: FloatArray
    F_q: FloatArray
    F_v: FloatArray
    F_x: FloatArray
    F_lam: FloatArray


class CartesianFormulation:
    """The Cartesian equations of ``system``; holds only layouts fixed at construction."""

    def __init__(self, system: System, rows: ConstraintRows | None = None) -> None:
        announce_first_compilation("cartesian_kernel", "evaluate_rigid")
        self.system = system
        self.rows = system.rows if rows is None else rows
        n_unknowns = system.n_velocities + len(self.rows)
        self.sparse = n_unknowns > SPARSE_THRESHOLD
        self.assembler = constraints.JacobianAssembler(system, self.rows, self.sparse)
        blocks = list(rigid.mass_blocks(system.mass, system.inertia))
        blocks += (
            [sp.csr_matrix((n_modal, n_modal))] if (n_modal := system.n_velocities - system.n_frame_velocities) else []
        )
        mass_matrix = sp.block_diag(blocks, format="csr") if len(blocks) else sp.csr_matrix((0, 0))
        for kind, group in system.body_kinds:
            if kind.constant_mass_matrix is not None:
                mass_matrix = (mass_matrix + kind.constant_mass_matrix(group, system)).tocsr()
        self.mass_matrix: Matrix = mass_matrix if self.sparse else mass_matrix.toarray()
        self._body_columns = kinematics.body_velocity_columns(system)
        """per body, its velocity coordinates in ``v`` (a flexible body's frame and modal ones)"""
        self._tangent_groups = _groups_with_tangents(system, self._body_columns)
        """the force groups whose loads ``force_jacobians`` differentiates analytically (``ForceFamily.tangents``)"""
        self._differenced_groups = (
            tuple(group for group in system.force_groups if group not in self._tangent_groups)
            if self._tangent_groups
            else None
        )
        """the force groups left to finite differences (None: all)"""
        self._velocities_analytic = system.rigid_only and self._differenced_groups == ()
        """whether ``C`` is all analytic (the loads' tangents and the gyroscopic moments): no finite differences
        of velocities"""
        self._coupling, self._velocity_coupling = (
            (system.adjacency,) * 2 if system.rigid_only else _attachment_coupling(system, self._body_columns)
        )
        """per coupling group, the groups whose residual its positions (velocities) change outside the
        cable and span elements (whose tangents ``_element_tangents`` gives): ``System.adjacency`` less
        those elements (and, for velocities, less the constraints, which do not read them); rigid
        models keep ``System.adjacency`` for both"""
        self._colors = _distance_two_coloring(self._coupling)
        self._velocity_colors = [
            members
            for members in (
                [b for b in color if self._velocity_coupling[b]]
                for color in _distance_two_coloring(self._velocity_coupling)
            )
            if members
        ]
        self._time_values: tuple[float, tuple[FloatArray, FloatArray]] | None = None
        """``(t, driver_values at t)`` of the latest time evaluated (``_driver_values``)"""
        self.reads_multipliers = system.reads_multipliers
        """Whether any load depends on the multipliers of the constraint rows."""
        self.limits_steps = any(group.family.step_limit for group in system.force_groups)
        """Whether a force family limits the step size (``step_limit``)"""
        self.has_loads = bool(len(system.force_names))
        """Whether the model has force elements (whose loads and state rates are evaluated in Python)"""
        self._no_wrench = np.zeros((system.n_bodies, rigid.VELOCITY_WIDTH))
        self.kernel_system = (
            system.marker_body,
            system.marker_position,
            system.marker_orientation,
            system.mass,
            system.inertia,
            system.gravity,
            rigid.mass_blocks(system.mass, system.inertia),
        )
        """the System's arrays as ``multibody.formulation.dae_kernel`` takes them"""

    # -- positions, velocities, forces ------------------------------------------------------
    def evaluate(
        self, q: FloatArray, v: FloatArray, t: float, x: FloatArray | None = None, lam: FloatArray | None = None
    ) -> Evaluation:
        """Frames, element loads, Q, Phi, G and nu at ``(q, v, t)``, with first-order states ``x``
        (default: the initial ones) and multipliers ``lam`` (default zero) for the laws that read
        them: one compiled pass (``cartesian_kernel.evaluate_rigid``) plus the force elements."""
        return self._evaluate(q, v, t, x, lam, elements=True)

    def _evaluate(
        self, q: FloatArray, v: FloatArray, t: float, x: FloatArray | None, lam: FloatArray | None, elements: bool
    ) -> Evaluation:
        """``evaluate``; with ``elements`` False, without the terms ``force_jacobians`` takes analytically:
        the cable and span elements' (their forces, mass blocks and energies) and the loads of the force
        groups with tangents (``_tangent_groups``)."""
        s, rows = self.system, self.rows
        q = np.ascontiguousarray(q, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        f, f_dot = self._driver_values(t, q[s.n_frame_positions :])
        (
            p_WB_W,
            R_WB,
            p_WM_W,
            p_BM_W,
            R_WM,
            v_WB_W,
            w_WB_W,
            v_WM_W,
            w_WM_W,
            bias_WM_W,
            phi,
            nu,
            coefficients,
            values,
            wrench,
        ) = evaluate_rigid(
            kinematics.frame_positions(s, q),
            kinematics.frame_velocities(s, v),
            s.marker_body,
            *kinematics.marker_geometry(s, q),
            rows.kernel_arrays,
            f,
            f_dot,
            s.mass,
            s.inertia,
            s.gravity,
        )
        tail_q, tail_v = q[s.n_frame_positions :], v[s.n_frame_velocities :]
        frames = Pose(t, p_WB_W, R_WB, kinematics.split_positions(s, q)[1], p_WM_W, p_BM_W, R_WM, tail_q)
        kinematics.add_marker_motion(s, frames, v, w_WB_W, v_WM_W, w_WM_W, bias_WM_W)
        motion = Twist(v_WB_W, w_WB_W, kinematics.split_velocities(s, v)[1], v_WM_W, w_WM_W, bias_WM_W, tail_v)
        x = s.x0 if x is None else x
        if self.has_loads:
            loads = forces.element_loads(s, frames, motion, x, lam, None if elements else self._differenced_groups)
            element_wrench = forces.generalized_element_forces(s, frames, loads)[:-1]
            wrench += element_wrench
        else:
            loads, element_wrench = forces.NO_LOADS, self._no_wrench
        G = self.assembler.with_kind_columns(self.assembler.from_values(values), frames, coefficients)
        jacobian = constraints.ConstraintJacobian(
            coefficients[:, 0], coefficients[:, 1], coefficients[:, 2], coefficients[:, 3]
        )
        generalized_force, mass_matrix = wrench.reshape(-1), self.mass_matrix
        if tail_v.size:
            generalized_force = np.concatenate([generalized_force, np.zeros(tail_v.size)])
            damping_power = 0.0
            for kind, group in s.body_kinds:
                if kind.body_terms is None:
                    continue
                mass_entries, dissipated = kind.body_terms(group, s, frames, motion, q, v, elements, generalized_force)
                for entries in mass_entries:
                    mass_matrix = self._with_mass_entries(mass_matrix, *entries)
                damping_power += dissipated
            if self.has_loads:
                forces.add_tail_element_forces(s, frames, loads, generalized_force)
            loads = dataclasses.replace(loads, dissipated_power=loads.dissipated_power + damping_power)
        return Evaluation(
            frames, motion, loads, generalized_force, phi, G, nu, q, v, x, lam, jacobian, element_wrench, mass_matrix
        )

    def _driver_values(self, t: float, q_tail: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``constraints.driver_values(rows, t, 1, q_tail)``, the drivers' functions of time called once
        per time ``t`` (Newton and the finite differences of a step evaluate many states at one ``t``)."""
        rows = self.rows
        if self._time_values is None or self._time_values[0] != t:
            self._time_values = (t, constraints.driver_values(rows, t, 1))
        f, f_dot = (values.copy() for values in self._time_values[1])
        constraints.set_coordinate_values(rows, f, q_tail)
        return f, f_dot

    def _with_mass_entries(self, mass_matrix: Matrix, rows: IntArray, columns: IntArray, values: FloatArray) -> Matrix:
        """``mass_matrix`` plus the entries ``values`` [kg] at ``(rows, columns)`` (k,) (a body kind's
        ``body_terms``' mass; repeated places add up): sparse, a new matrix; dense, added in place, into a
        copy when ``mass_matrix`` is the constant ``self.mass_matrix``."""
        if self.sparse:
            return (mass_matrix + sp.csr_matrix((values, (rows, columns)), shape=mass_matrix.shape)).tocsr()
        if mass_matrix is self.mass_matrix:
            mass_matrix = mass_matrix.copy()
        add_entries(mass_matrix, rows, columns, values)
        return mass_matrix

    def step_limit(self, q: FloatArray, v: FloatArray, t: float, x: FloatArray) -> float:
        """The longest time step [s] the force elements allow from ``(q, v, t, x)``, so that no
        step jumps over a contact (``forces.step_limit``); inf for models without such elements."""
        if not self.limits_steps:
            return np.inf
        frames = kinematics.pose(self.system, q, t)
        return forces.step_limit(self.system, frames, kinematics.twist(self.system, frames, v), x)

    def constraint_residual(self, q: FloatArray, t: float) -> tuple[FloatArray, Matrix, FloatArray]:
        """``(Phi, G, nu)`` at positions ``q`` and time ``t``."""
        frames = kinematics.pose(self.system, q, t)
        phi, jacobian, nu = constraints.position_level(self.system, self.rows, frames)
        return phi, self.assembler.assemble(frames, jacobian), nu

    def gamma(self, state: Evaluation) -> FloatArray:
        """Acceleration right-hand side ``gamma`` at an evaluated state."""
        gamma = constraints.acceleration_rhs(self.system, self.rows, state.frames, state.motion)
        s = self.system
        if s.rigid_only:
            return gamma
        j = state.jacobian
        coefficients = np.stack([j.g_vi, j.g_wi, j.g_vj, j.g_wj], axis=1)
        rows = self.rows
        for kind, group in s.body_kinds:
            if kind.angular_bias_rhs is not None:
                gamma = gamma + kind.angular_bias_rhs(
                    group, s, state.frames, state.motion, state.q, state.v, rows.i_marker, rows.j_marker, coefficients
                )
        return gamma

    # -- accelerations and multipliers ------------------------------------------------------
    def accelerations(self, state: Evaluation) -> tuple[FloatArray, FloatArray]:
        """``(dv/dt (6 nb,), lambda (m,))`` from ``[M G^T; G 0] [a; lambda] = [Q; gamma]``
        (``solve_accelerations`` without its evaluation)."""
        return self.solve_accelerations(state)[1:]

    def solve_accelerations(self, state: Evaluation) -> tuple[Evaluation, FloatArray, FloatArray]:
        """``(evaluation, dv/dt (6 nb,), lambda (m,))`` from ``[M G^T; G 0] [a; lambda] = [Q; gamma]``
        at ``state``, the evaluation being at the multipliers found (``settle_multipliers``)."""
        factorization = Factorization(saddle_point_matrix(state.mass_matrix, state.G))
        gamma = self.gamma(state)
        n = self.system.n_velocities

        def solve(evaluation: Evaluation) -> tuple[FloatArray, FloatArray]:
            solution = factorization.solve(np.concatenate([evaluation.generalized_force, gamma]))
            return solution[:n], solution[n:]

        return self.settle_multipliers(state, solve)

    def settle_multipliers(
        self, state: Evaluation, solve: Callable[[Evaluation], tuple[FloatArray, FloatArray]]
    ) -> tuple[Evaluation, FloatArray, FloatArray]:
        """``(evaluation, a, lambda)`` from ``solve(evaluation) -> (a, lambda)`` at ``state``. When
        loads read multipliers, ``Q`` depends on ``lambda``: fixed-point iteration, evaluating
        again at each ``lambda`` (at most ``MULTIPLIER_ITERATIONS``, to round-off)."""
        acceleration, lam = solve(state)
        for _ in range(MULTIPLIER_ITERATIONS if self.reads_multipliers else 0):
            state = self.evaluate(state.q, state.v, state.frames.t, state.x, lam)
            previous = lam
            acceleration, lam = solve(state)
            if np.max(np.abs(lam - previous), initial=0.0) <= 1e-13 * (1.0 + np.max(np.abs(previous), initial=0.0)):
                break
        return state, acceleration, lam

    def kinetic_energy(self, frames: Pose, motion: Twist) -> float:
        """``1/2 m v.v + 1/2 w_B . J w_B`` summed over rigid bodies, plus the other body kinds' (a
        flexible body's ``1/2 u^T M(q) u``, ``BodyKind.kinetic_energy``) [J]."""
        s = self.system
        translational = 0.5 * np.sum(s.mass * np.sum(motion.v_WB_W[:-1] ** 2, axis=1))
        rotational = 0.5 * np.einsum("bi,bij,bj->", motion.w_WB_B, s.inertia, motion.w_WB_B)
        elastic = 0.0
        for kind, group in s.body_kinds:
            if kind.kinetic_energy is not None:
                elastic += kind.kinetic_energy(group, s, frames, motion)
        return float(translational + rotational + elastic)

    def potential_energy(self, frames: Pose, loads: forces.ElementLoads) -> float:
        """Gravity (``-m g . p``) plus stored element energy, plus the other body kinds' gravity and
        strain energy (``BodyKind.potential_energy``) [J]."""
        s = self.system
        gravity = -float(np.sum(s.mass * (frames.p_WB_W[:-1] @ s.gravity)))
        for kind, group in s.body_kinds:
            if kind.potential_energy is not None:
                gravity += kind.potential_energy(group, s, frames)
        return gravity + loads.potential_energy

    @staticmethod
    def quadrature_rates(loads: forces.ElementLoads, nu: FloatArray, lam: FloatArray) -> FloatArray:
        """``(dE/dt, dW/dt)`` [W]: the rates of the energy taken out by non-conservative forces
        and motions (``E``, net: dampers less what actuators, applied loads and motions put in) and
        of the work put in (``W``), from the element ``loads``, the velocity right-hand side ``nu``
        (m,) and the multipliers ``lam`` (m,); a motion's power is ``-lambda . nu`` of its rows."""
        motion_power = -float(lam @ nu)
        return np.array([-(loads.nonconservative_power + motion_power), loads.input_power + motion_power])

    # -- linearization for Newton -----------------------------------------------------------
    def force_jacobians(
        self, q: FloatArray, v: FloatArray, t: float, lam: FloatArray, x: FloatArray | None = None
    ) -> tuple[Matrix, Matrix]:
        """``K = d(Q - G^T lambda)/dx`` and ``C = dQ/dv`` (nv x nv) at first-order states ``x``
        (default: the initial ones); ``x`` is the velocity-space position increment
        (``frames.displace``).

        Analytic parts: the cable and span elements' (``_element_tangents``) and the loads of the force
        groups with tangents (``_load_tangents``); when those are all the loads of a rigid model, ``C``
        is theirs plus the gyroscopic moments' (``_gyroscopic_damping``). The rest comes by finite
        differences of the residual without them, the coupling groups that share no neighbour outside
        the cable and span elements (``_coupling``) perturbed together (distance-2 colouring), so the
        cost is one evaluation per colour and coordinate of its largest group whatever the number of
        groups, for positions and for velocities (whose colouring leaves out the groups no load reads
        the velocities of: a cable node's, unless a force element is attached to it).
        """
        s = self.system
        n = s.n_velocities

        def residual(q_: FloatArray, v_: FloatArray) -> tuple[FloatArray, Evaluation]:
            state = self._evaluate(q_, v_, t, x, lam, elements=False)
            return state.generalized_force - state.G.T @ lam, state

        base, state = residual(q, v)
        size = kinematics.position_scale(s, q)
        columns = self._body_columns
        # per derivative (positions: K, velocities: C): rows, columns, values
        entries: tuple[tuple[list, list, list], ...] = (([], [], []), ([], [], []))
        passes = ((True, self._colors, self._coupling), (False, self._velocity_colors, self._velocity_coupling))
        for (positions, colors, coupling), (rows, cols, values) in zip(passes, entries):
            if not positions and self._velocities_analytic:
                continue
            for color in colors:
                for k in range(max(columns[b].size for b in color)):
                    members = [b for b in color if columns[b].size > k]
                    index = np.array([columns[b][k] for b in members])
                    step = np.zeros(n)
                    if positions:
                        step[index] = steps = 1e-7 * (1.0 + size[index])
                        change = residual(kinematics.displace(s, q, step), v)[0] - base
                    else:
                        step[index] = steps = 1e-7 * (1.0 + np.abs(v[index]))
                        change = residual(q, v + step)[0] - base
                    for b, column, h in zip(members, index, steps):
                        affected = np.concatenate([columns[a] for a in coupling[b]])
                        rows.append(affected)
                        cols.append(np.full(affected.size, column))
                        values.append(change[affected] / h)
        analytic = self._element_tangents(q, v) + self._load_tangents(state.frames, state.motion, state.x, lam)
        if self._velocities_analytic:
            analytic.append(_gyroscopic_damping(s, state.motion))
        for element_columns, *tangents in analytic:
            element_rows, element_cols = block_places(element_columns)
            kept = (element_rows >= 0) & (element_cols >= 0)  # ground's rows and columns dropped
            for (rows, cols, values), tangent in zip(entries, tangents):
                rows.append(element_rows[kept])
                cols.append(element_cols[kept])
                values.append(tangent.reshape(-1)[kept])
        K, C = (
            sp.csr_matrix(
                (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))) if rows else ([], ([], [])),
                shape=(n, n),
            )
            for rows, cols, values in entries
        )
        return (K, C) if self.sparse else (K.toarray(), C.toarray())

    def _element_tangents(self, q: FloatArray, v: FloatArray) -> list[tuple[IntArray, FloatArray, FloatArray]]:
        """Per element kind, ``(columns (ne, w), d f / d x (ne, w, w), d f / d v (ne, w, w))`` of the
        element terms ``_evaluate`` leaves out without ``elements`` (``BodyKind.element_tangents``: the
        cable elements' elastic and damping forces, the span elements' terms) at ``(q, v)``."""
        s = self.system
        tangents = []
        for kind, group in s.body_kinds:
            if kind.element_tangents is not None:
                tangents += kind.element_tangents(group, s, q, v)
        return tangents

    def _load_tangents(
        self, frames: Pose, motion: Twist, x: FloatArray, lam: FloatArray
    ) -> list[tuple[IntArray, FloatArray, FloatArray]]:
        """Per force group with tangents, ``(columns (ne, 12), K (ne, 12, 12), C (ne, 12, 12))`` of its
        elements' generalized forces on their two rigid bodies (``forces.tangents.rigid_load_tangents``;
        ``-1`` columns are ground's) at ``frames``, ``motion``, states ``x`` (nx,) and multipliers ``lam``."""
        if not self._tangent_groups:
            return []
        s = self.system
        loads = forces.element_loads(s, frames, motion, x, lam, self._tangent_groups)
        inputs = LoadInputs(frames.t, s, frames, motion, x, lam)
        tangents = []
        for group in self._tangent_groups:
            element = group.arrays.element
            tangents.append(
                rigid_load_tangents(
                    s,
                    frames,
                    motion,
                    element,
                    loads.force_W[element],
                    loads.torque_W[element],
                    *group.family.tangents(group.arrays, inputs),
                )
            )
        return tangents

    def coupling_jacobians(
        self, q: FloatArray, v: FloatArray, x: FloatArray, t: float, lam: FloatArray
    ) -> StateCoupling | None:
        """``StateCoupling`` by forward differences at ``(q, v, x, lam)``, or None when no element
        carries first-order states or reads multipliers. Position and velocity columns of ``F``
        are taken only for the bodies the stateful elements attach to."""
        s = self.system
        if not s.n_states and not self.reads_multipliers:
            return None
        nv, nx, m = s.n_velocities, s.n_states, len(self.rows)
        base = self.evaluate(q, v, t, x, lam)
        Q0, F0 = base.generalized_force, base.state_rate
        coupling = StateCoupling(
            np.zeros((nv, nx)),
            np.zeros((nv, m)),
            np.zeros((nx, nv)),
            np.zeros((nx, nv)),
            np.zeros((nx, nx)),
            np.zeros((nx, m)),
        )

        def column(step: float, **changed: FloatArray) -> tuple[FloatArray, FloatArray]:
            state = self.evaluate(
                changed.get("q", q), changed.get("v", v), t, changed.get("x", x), changed.get("lam", lam)
            )
            return (state.generalized_force - Q0) / step, (state.state_rate - F0) / step

        for k in range(nx):
            step = 1e-7 * max(abs(x[k]), s.x_scale[k])
            coupling.Q_x[:, k], coupling.F_x[:, k] = column(step, x=x + step * np.eye(nx)[k])
        read_rows = np.unique(
            np.concatenate([s.active_rows_of[j] for joints in s.force_joints for j in joints] or [np.zeros(0, int)])
        )
        for r in read_rows.astype(int):
            step = 1e-7 * (1.0 + abs(lam[r]))
            coupling.Q_lam[:, r], coupling.F_lam[:, r] = column(step, lam=lam + step * np.eye(m)[r])
        if nx:
            stateful = [
                markers for markers, states in zip(s.force_attachments, s.force_states) if states.stop > states.start
            ]
            bodies = {int(b) for markers in stateful for b in s.marker_body[markers] if b >= 0}
            size = kinematics.position_scale(s, q)
            for b in sorted(bodies):
                for index in self._body_columns[b]:
                    unit = np.eye(nv)[index]
                    step = 1e-7 * (1.0 + size[index])
                    _, coupling.F_q[:, index] = column(step, q=kinematics.displace(s, q, step * unit))
                    step = 1e-7 * (1.0 + abs(v[index]))
                    _, coupling.F_v[:, index] = column(step, v=v + step * unit)
        return coupling


def _gyroscopic_damping(system: System, motion: Twist) -> tuple[IntArray, FloatArray, FloatArray]:
    """``(columns (nb, 3), K (nb, 3, 3) = 0, C (nb, 3, 3))`` of the rigid bodies' gyroscopic moments
    ``-w_B x J w_B`` (``rigid.inertial_forces``) on their body-axes angular velocities ``w_B`` [rad/s]:
    ``C = skew(J w_B) - skew(w_B) J`` [N m s]; gravity and these moments do not change with positions."""
    w_WB_B = motion.w_WB_B
    momentum = np.einsum("bij,bj->bi", system.inertia, w_WB_B)
    damping = skew(momentum) - skew(w_WB_B) @ system.inertia
    columns = rigid.VELOCITY_WIDTH * np.arange(system.n_bodies)[:, None] + np.arange(3, 6)
    return columns, np.zeros_like(damping), damping


def _groups_with_tangents(system: System, group_columns: tuple[IntArray, ...]) -> tuple[ForceGroup, ...]:
    """The force groups whose family has ``tangents`` and whose markers are all on rigid bodies (whose
    velocity coordinates ``group_columns`` are their frame's six) or ground, and not moved by another
    body kind's coordinates (``BodyKind.marker_coupling``)."""
    moved = _moved_markers(system, _group_of(system, group_columns))

    def on_rigid_body(marker: int) -> bool:
        body = int(system.marker_body[marker])
        return marker not in moved and (body < 0 or group_columns[body].size == rigid.VELOCITY_WIDTH)

    return tuple(
        group
        for group in system.force_groups
        if group.family.tangents is not None
        and all(on_rigid_body(int(m)) for m in system.force_markers[group.arrays.element].reshape(-1) if m >= 0)
    )


def _group_of(system: System, group_columns: tuple[IntArray, ...]) -> IntArray:
    """(nv,) the coupling group of each velocity coordinate, from the groups' columns ``group_columns``."""
    group_of = np.empty(system.n_velocities, np.int64)
    for g, columns in enumerate(group_columns):
        group_of[columns] = g
    return group_of


def _moved_markers(system: System, group_of: IntArray) -> dict[int, set[int]]:
    """The markers other body kinds' coordinates move (``BodyKind.marker_coupling``: a marker on a cable, a
    span's end), with the coupling groups (``group_of`` each velocity coordinate) that move them."""
    moved_by: dict[int, set[int]] = {}
    for kind, group in system.body_kinds:
        if kind.marker_coupling is not None:
            moved_by.update(kind.marker_coupling(group, system, group_of))
    return moved_by


def _distance_two_coloring(adjacency: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    """Greedy colouring in which bodies of one colour have disjoint neighbourhoods."""
    color_of = [-1] * len(adjacency)
    colors: list[list[int]] = []
    for b, neighbours in enumerate(adjacency):
        taken = {color_of[c] for a in neighbours for c in adjacency[a]}
        color = next(k for k in range(len(colors) + 1) if k not in taken)
        if color == len(colors):
            colors.append([])
        colors[color].append(b)
        color_of[b] = color
    return colors


def _attachment_coupling(
    system: System, group_columns: tuple[IntArray, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per coupling group (``System.adjacency``'s: each body, then each cable node and span's end
    coordinates, their velocity columns ``group_columns``), the groups coupled to it by a constraint,
    a force element, a contact or a body kind's own attachments (a rope's arc on a rim;
    ``BodyKind.coupling_sets``) (itself included): the adjacency without the cable and span elements.
    A marker couples its body's group, or those whose coordinates move it (``BodyKind.marker_coupling``:
    a marker on a cable, its element's two nodes and a span's end coordinates); a row reading a
    coordinate, that coordinate's group. Second, the groups whose residual its velocities change: a
    body's own (gyroscopic, modal and rim terms) and those of the force elements attached to it (none
    for a cable node without one: constraints read no velocities)."""
    group_of = _group_of(system, group_columns)
    moved_by = _moved_markers(system, group_of)

    def marker_groups(marker: int) -> set[int]:
        if marker in moved_by:
            return moved_by[marker]
        body = int(system.marker_body[marker])
        return {body} if body >= 0 else set()

    sets: dict[tuple[str, int], set[int]] = {}
    rows = system.all_rows
    read = rows.read_coordinates
    for r in range(len(rows)):
        found = sets.setdefault(("constraint", int(rows.element[r])), set())
        found |= marker_groups(int(rows.i_marker[r])) | marker_groups(int(rows.j_marker[r]))
        if read[r] >= 0:
            found.add(int(group_of[system.n_frame_velocities + read[r]]))
    for f, markers in enumerate(system.force_attachments):
        sets[("force", f)] = set().union(*(marker_groups(int(m)) for m in markers))
    if system.contacts is not None:
        contact_rows = system.contacts.rows
        for r in range(len(contact_rows)):
            sets[("contact", r)] = marker_groups(int(contact_rows.i_marker[r])) | marker_groups(
                int(contact_rows.j_marker[r])
            )
    for kind, group in system.body_kinds:
        if kind.coupling_sets is not None:
            for k, groups in enumerate(kind.coupling_sets(group, system, group_of, marker_groups)):
                sets[(kind.name, k)] = groups
    neighbours = [{g} for g in range(len(group_columns))]
    for groups in sets.values():
        for g in groups:
            neighbours[g] |= groups
    # velocities: a body's own terms (gyroscopic, modal, a rim's rope), and the force elements
    readers = [{g} if g < system.n_bodies else set() for g in range(len(group_columns))]
    for (kind, _), groups in sets.items():
        for g in groups if kind == "force" else ():
            readers[g] |= groups
    return tuple(tuple(sorted(n)) for n in neighbours), tuple(tuple(sorted(n)) for n in readers)
