"""Equations of motion in absolute (Cartesian, ADAMS-style) coordinates with Lagrange multipliers.

    dq/dt = N(q) v
    M dv/dt = Q(q, v, t) - G(q)^T lambda
    Phi(q, t) = 0,   G v = nu,   G dv/dt = gamma

``M`` is constant block-diagonal (m I, J_B); ``Q`` holds gravity, the gyroscopic moment
``-w_B x J_B w_B`` and the force elements. The pipeline is staged as in the files it calls:
positions (``frames.pose``) -> velocities (``frames.twist``) -> forces (``forces``) ->
constraints (``constraints``) -> accelerations (``accelerations``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from multibody.formulation import constraints, forces
from multibody.formulation.bodies import rigid
from multibody.formulation import frames as kinematics
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray, cross
from multibody.solve.linear import Factorization, Matrix, saddle_point_matrix
from multibody.system.system import ConstraintRows, System

SPARSE_THRESHOLD = 400
"""Models with more unknowns (velocities plus multipliers) use sparse linear algebra."""


@dataclass(frozen=True)
class Evaluation:
    """Everything the formulation computes at one state, for outputs and solvers."""

    frames: Pose
    motion: Twist
    loads: forces.ElementLoads
    generalized_force: FloatArray
    """Q (6 nb,)"""
    phi: FloatArray
    G: Matrix
    nu: FloatArray


class CartesianFormulation:
    """The Cartesian equations of ``system``; holds only layouts fixed at construction."""

    def __init__(self, system: System, rows: ConstraintRows | None = None) -> None:
        self.system = system
        self.rows = system.rows if rows is None else rows
        n_unknowns = system.n_velocities + len(self.rows)
        self.sparse = n_unknowns > SPARSE_THRESHOLD
        self.assembler = constraints.JacobianAssembler(system, self.rows, self.sparse)
        blocks = np.zeros((system.n_bodies, 6, 6))
        blocks[:, :3, :3] = system.mass[:, None, None] * np.eye(3)
        blocks[:, 3:, 3:] = system.inertia
        self.mass_matrix: Matrix = sp.block_diag(blocks, format="csr") if self.sparse else _block_diagonal(blocks)
        self._colors = _distance_two_coloring(system.adjacency)

    # -- positions, velocities, forces ------------------------------------------------------
    def evaluate(self, q: FloatArray, v: FloatArray, t: float) -> Evaluation:
        """Frames, element loads, Q, Phi, G and nu at ``(q, v, t)``."""
        frames = kinematics.pose(self.system, q, t)
        motion = kinematics.twist(self.system, frames, v)
        loads = forces.element_loads(self.system, frames, motion)
        phi, jacobian, nu = constraints.position_level(self.system, self.rows, frames)
        return Evaluation(
            frames,
            motion,
            loads,
            self.generalized_force(frames, motion, loads),
            phi,
            self.assembler.assemble(frames, jacobian),
            nu,
        )

    def generalized_force(self, frames: Pose, motion: Twist, loads: forces.ElementLoads) -> FloatArray:
        """``Q`` (6 nb,): gravity, gyroscopic moments and force elements."""
        s = self.system
        wrench = forces.generalized_element_forces(s, frames, loads)[:-1]
        rigid.inertial_forces(s.mass, s.inertia, s.gravity, motion.w_WB_B, wrench)
        return wrench.reshape(-1)

    def constraint_residual(self, q: FloatArray, t: float) -> tuple[FloatArray, Matrix, FloatArray]:
        """``(Phi, G, nu)`` at positions ``q`` and time ``t``."""
        frames = kinematics.pose(self.system, q, t)
        phi, jacobian, nu = constraints.position_level(self.system, self.rows, frames)
        return phi, self.assembler.assemble(frames, jacobian), nu

    def gamma(self, state: Evaluation) -> FloatArray:
        """Acceleration right-hand side ``gamma`` at an evaluated state."""
        return constraints.acceleration_rhs(self.system, self.rows, state.frames, state.motion)

    # -- accelerations and multipliers ------------------------------------------------------
    def accelerations(self, state: Evaluation) -> tuple[FloatArray, FloatArray]:
        """``(dv/dt (6 nb,), lambda (m,))`` from ``[M G^T; G 0] [a; lambda] = [Q; gamma]``."""
        matrix = saddle_point_matrix(self.mass_matrix, state.G)
        solution = Factorization(matrix).solve(np.concatenate([state.generalized_force, self.gamma(state)]))
        n = self.system.n_velocities
        return solution[:n], solution[n:]

    def kinetic_energy(self, motion: Twist) -> float:
        """``1/2 m v.v + 1/2 w_B . J w_B`` summed over bodies [J]."""
        s = self.system
        translational = 0.5 * np.sum(s.mass * np.sum(motion.v_WB_W[:-1] ** 2, axis=1))
        rotational = 0.5 * np.einsum("bi,bij,bj->", motion.w_WB_B, s.inertia, motion.w_WB_B)
        return float(translational + rotational)

    def potential_energy(self, frames: Pose, loads: forces.ElementLoads) -> float:
        """Gravity (``-m g . p``) plus stored element energy [J]."""
        gravity = -float(np.sum(self.system.mass * (frames.p_WB_W[:-1] @ self.system.gravity)))
        return gravity + loads.potential_energy

    def nonconservative_power(self, state: Evaluation, lam: FloatArray) -> float:
        """Power [W] into the system from dampers, actuators, applied loads and motions
        (``-lambda . nu`` of the driver rows: the work done to keep a prescribed motion)."""
        return state.loads.nonconservative_power - float(lam @ state.nu)

    # -- linearization for Newton -----------------------------------------------------------
    def force_jacobians(self, q: FloatArray, v: FloatArray, t: float, lam: FloatArray) -> tuple[Matrix, Matrix]:
        """``K = d(Q - G^T lambda)/dx`` and ``C = dQ/dv`` (6 nb x 6 nb) by finite differences.

        Bodies that share no neighbour are perturbed together (distance-2 colouring of the
        body coupling graph), so the cost is 12 evaluations per colour whatever the number
        of bodies. ``x`` is the velocity-space position increment (``frames.displace``).
        """
        s = self.system
        n = s.n_velocities

        def residual(q_: FloatArray, v_: FloatArray) -> FloatArray:
            state = self.evaluate(q_, v_, t)
            return state.generalized_force - state.G.T @ lam

        base = residual(q, v)
        rows, cols, stiffness, damping = [], [], [], []
        for color in self._colors:
            for k in range(6):
                step = np.zeros(n)
                index = 6 * np.asarray(color) + k
                position_step = 1e-7 * (1.0 + (np.abs(q.reshape(-1, 7)[color, k]) if k < 3 else 0.0))
                velocity_step = 1e-7 * (1.0 + np.abs(v[index]))
                step[index] = position_step
                dK = residual(kinematics.displace(s, q, step), v) - base
                dv = np.zeros(n)
                dv[index] = velocity_step
                dC = residual(q, v + dv) - base
                for b, hx, hv in zip(color, np.broadcast_to(position_step, len(color)), velocity_step):
                    affected = np.concatenate([6 * a + np.arange(6) for a in s.adjacency[b]])
                    rows.append(affected)
                    cols.append(np.full(affected.size, 6 * b + k))
                    stiffness.append(dK[affected] / hx)
                    damping.append(dC[affected] / hv)
        if not rows:
            empty = sp.csr_matrix((n, n)) if self.sparse else np.zeros((n, n))
            return empty, empty
        r, c = np.concatenate(rows), np.concatenate(cols)
        K = sp.csr_matrix((np.concatenate(stiffness), (r, c)), shape=(n, n))
        C = sp.csr_matrix((np.concatenate(damping), (r, c)), shape=(n, n))
        return (K, C) if self.sparse else (K.toarray(), C.toarray())


def _block_diagonal(blocks: FloatArray) -> FloatArray:
    n = blocks.shape[0]
    matrix = np.zeros((6 * n, 6 * n))
    for b in range(n):
        matrix[6 * b : 6 * b + 6, 6 * b : 6 * b + 6] = blocks[b]
    return matrix


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
