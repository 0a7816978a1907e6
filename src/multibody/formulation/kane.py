"""Equations of motion in relative (joint) coordinates: Kane's equations on a spanning tree.

Coordinates ``q`` (n_q,) and generalized speeds ``u`` (n_u,) are the tree joints' relative
coordinates and rates (layout: ``multibody.formulation.tree``); ``dq/dt = u`` except for the
Euler parameters of ball and free joints (``de/dt = 1/2 L(e)^T w``). The joint coordinates are
zero (Euler parameters (1, 0, 0, 0)) at the reference configuration the formulation is built at.

Kinematics go outwards along the lower-body array: each body's spatial velocity (angular
velocity and the velocity of the body point at the world origin, world components) is its
parent's plus ``S_k u_k``, where the columns of the joint's motion subspace ``S_k`` (6, n_u_k)
are the joint's partial angular velocities and partial velocities. A body's partial velocity
array is therefore the set of columns ``S_j`` of the joints on its path to the ground (Huston's
lower-body array): ``partial_velocities`` returns them as the arrays of Kane's equations.

Kane's equations ``M(q) du/dt = F(q, u, t)`` with ``M = sum_b V_b^T m_b V_b + W_b^T J_b W_b`` and
``F`` the generalized active forces plus the velocity-dependent generalized inertia forces are
evaluated recursively along the tree, world frame, all bodies in one pass each:

* ``evaluate``: one outward pass, five 3x3 products per joint plus the body's spatial inertia
  (about 700 flops per body), then the force elements (vectorized): O(nb).
* ``generalized_force`` / ``inverse_dynamics``: one outward pass (accelerations) and one inward
  pass (subtree forces), about 150 flops per body for a one-speed joint: O(nb).
* ``forward_dynamics`` (trees, no cut constraints): the articulated-body recursion, one inward
  pass (a 6x6 articulated inertia per body and an n_u_k x n_u_k joint solve) and one outward
  pass, about 350 flops per body for a one-speed joint, 1200 for a ball joint: O(nb). It
  solves exactly ``M du/dt = F`` without forming ``M``. Measured on a revolute chain
  (``benchmarks/kane_scaling.py``): about 50 us per body per right-hand side in numpy, the
  cost exponent 0.91 between N = 100 and 400.
* ``mass_matrix``: composite bodies, ``M[j, k] = S_j^T I^c_k S_k`` for every tree joint ``j``
  on the path of ``k``: O(nb * depth) (O(nb^2) for a chain), used for closed loops and impacts.

Closed loops (cut constraints): ``Phi(q, t) = 0`` with Jacobian ``B = G V`` (m, n_u), where ``G``
is the Cartesian constraint Jacobian of the cut rows and ``V`` maps ``u`` to Cartesian body
velocities (``cartesian_velocity_map``): ``B u = nu``, ``B du/dt = gamma``. With ``C`` an
orthonormal basis of the null space of ``B`` (SVD; its orthogonal complement), Maggi's form of
Kane's equations is ``C^T (M du/dt - F) = 0`` (the constraint forces ``B^T lambda`` drop out),
and ``du/dt = a_p + C dw/dt`` with ``a_p`` the minimum-norm solution of ``B a_p = gamma`` and
``(C^T M C) dw/dt = C^T (F - M a_p)``: an ODE in the ``n_u - rank(B)`` independent speeds.
Drift off ``Phi = 0`` is removed by ``project``: Gauss-Newton (minimum-norm increments of the
joint coordinates) on ``Phi``, then the speeds projected onto ``B u = nu``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la

from multibody.formulation import constraints, forces
from multibody.spatial import rotations
from multibody.formulation import frames as kinematics
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray, cross, skew
from multibody.formulation.tree import GROUND, SpanningTree, spanning_tree
from multibody.system.system import System

RANK_TOLERANCE = 1e-9
"""Singular values of the cut-constraint matrix below this fraction of the largest are zero."""


class KaneError(RuntimeError):
    """The relative-coordinate equations cannot be solved at a state (a lock-up, a singular mass)."""


@dataclass(frozen=True)
class KaneState:
    """Everything the Kane formulation evaluates at ``(q, u, t)``; world components throughout."""

    t: float
    q: FloatArray
    """(n_q,) joint coordinates"""
    u: FloatArray
    """(n_u,) generalized speeds"""
    motion_subspace: tuple[FloatArray, ...]
    """per tree joint, (6, n_u_k): partial angular velocities (rows 0-2) and partial velocities of
    the body point at the world origin (rows 3-5) of the joint's speeds"""
    spatial_velocity: FloatArray
    """(nb+1, 6) angular velocity and velocity of the body point at the world origin; ground last"""
    bias_acceleration: FloatArray
    """(n_joints, 6) ``dS_k/dt u_k``: a joint's part of its child's acceleration at ``du/dt = 0``"""
    frames: Pose
    """Cartesian poses of bodies and markers"""
    motion: Twist
    """Cartesian velocities of bodies and markers"""
    loads: forces.ElementLoads
    spatial_inertia: FloatArray
    """(nb, 6, 6) about the world origin"""
    applied_force: FloatArray
    """(nb, 6) moment about the world origin and force of gravity and force elements [N m, N]"""


class KaneFormulation:
    """Kane's equations of ``system`` in the coordinates of its spanning tree.

    ``q_reference`` (7 nb,) is a Cartesian configuration satisfying the tree joints (an
    assembled one): the joint coordinates are measured from it. Holds only data fixed at
    construction (tree layout, joint offsets).
    """

    def __init__(self, system: System, q_reference: FloatArray, t: float = 0.0) -> None:
        self.system = system
        self.tree: SpanningTree = spanning_tree(system)
        self.cut_rows = self.tree.cut_rows
        self._assembler = constraints.JacobianAssembler(system, self.cut_rows, sparse=False)
        frames = kinematics.pose(system, q_reference, t)
        offsets = []
        for joint in self.tree.joints:
            R_WN, p_WN = _frame(frames.R_WB[joint.parent], frames.p_WB_W[joint.parent], joint.R_PN, joint.r_PN)
            R_WO, p_WO = _frame(frames.R_WB[joint.child], frames.p_WB_W[joint.child], joint.R_CO, joint.r_CO)
            offsets.append((R_WN.T @ R_WO, R_WN.T @ (p_WO - p_WN)))
        self._layout = _BatchedJoints(self.tree, offsets)
        plain_q, plain_u, ball_q, ball_u = [], [], [], []
        for joint in self.tree.joints:
            nt = joint.n_translations
            plain = nt + (joint.n_u - nt if joint.rotation != "ball" else 0)
            plain_q += range(joint.q_start, joint.q_start + plain)
            plain_u += range(joint.u_start, joint.u_start + plain)
            if joint.rotation == "ball":
                ball_q.append(np.arange(4) + joint.q_start + nt)
                ball_u.append(np.arange(3) + joint.u_start + nt)
        self._plain_q, self._plain_u = np.array(plain_q, dtype=np.int64), np.array(plain_u, dtype=np.int64)
        self._ball_q = np.array(ball_q, dtype=np.int64).reshape(-1, 4)
        self._ball_u = np.array(ball_u, dtype=np.int64).reshape(-1, 3)

    @property
    def n_q(self) -> int:
        return self.tree.n_q

    @property
    def n_u(self) -> int:
        return self.tree.n_u

    @property
    def has_cuts(self) -> bool:
        """Whether cut constraints (closed loops, primitives, motions) take part."""
        return len(self.cut_rows) > 0

    # -- coordinates ------------------------------------------------------------------------
    def reference_coordinates(self) -> FloatArray:
        """Joint coordinates (n_q,) of the reference configuration: zeros, unit Euler parameters."""
        q = np.zeros(self.n_q)
        q[self._ball_q[:, 0]] = 1.0
        return q

    def speeds_from_cartesian(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """Generalized speeds (n_u,) whose Cartesian velocities are ``v`` (6 nb,) at joint
        coordinates ``q`` (least squares; exact when ``v`` satisfies the tree joints)."""
        V = self.cartesian_velocity_map(self.evaluate(q, np.zeros(self.n_u), t))
        return la.lstsq(V, v, cond=1e-13)[0]

    def position_rate(self, q: FloatArray, u: FloatArray) -> FloatArray:
        """``dq/dt`` (n_q,) for speeds ``u``."""
        rate = np.zeros(self.n_q)
        rate[self._plain_q] = u[self._plain_u]
        if self._ball_q.size:
            rate[self._ball_q] = rotations.euler_parameter_rate(q[self._ball_q], u[self._ball_u])
        return rate

    def displace(self, q: FloatArray, du: FloatArray) -> FloatArray:
        """Coordinates moved by a speed-space increment ``du`` (n_u,): added to angles and
        translations, applied as a finite rotation (O axes) to Euler parameters."""
        out = q.copy()
        out[self._plain_q] += du[self._plain_u]
        if self._ball_q.size:
            out[self._ball_q] = rotations.rotate_by_body_vector(rotations.normalize(q[self._ball_q]), du[self._ball_u])
        return out

    def normalize(self, q: FloatArray) -> FloatArray:
        """``q`` with unit Euler parameters."""
        out = q.copy()
        if self._ball_q.size:
            out[self._ball_q] = rotations.normalize(q[self._ball_q])
        return out

    # -- kinematics and loads ---------------------------------------------------------------
    def evaluate(self, q: FloatArray, u: FloatArray, t: float) -> KaneState:
        """Body poses, velocities, motion subspaces, loads and inertias at ``(q, u, t)``: O(nb)."""
        system = self.system
        nb = system.n_bodies
        R_WB = np.empty((nb + 1, 3, 3))
        p_WB = np.zeros((nb + 1, 3))
        R_WB[GROUND] = np.eye(3)
        layout = self._layout
        R_NO, d_N = layout.joint_transforms(q)
        n_joints = len(self.tree.joints)
        R_WN, R_WO, p_WO = np.empty((n_joints, 3, 3)), np.empty((n_joints, 3, 3)), np.empty((n_joints, 3))
        for k, (parent, child) in enumerate(zip(layout.parent, layout.child)):
            R_WP = R_WB[parent]
            R_WN[k] = R_WP @ layout.R_PN[k]
            R_WO[k] = R_WN[k] @ R_NO[k]
            p_WO[k] = p_WB[parent] + R_WP @ layout.r_PN[k] + R_WN[k] @ d_N[k]
            R_WB[child] = R_WO[k] @ layout.R_CO[k].T
            p_WB[child] = p_WO[k] - R_WB[child] @ layout.r_CO[k]
        S = layout.motion_subspaces(R_WN, R_WO, p_WO)
        u_padded = layout.padded_speeds(u)
        relative = np.einsum("kij,kj->ki", S, u_padded)
        child_fixed_rate = np.einsum("kij,kj->ki", S, u_padded * layout.child_fixed)
        V = np.zeros((nb + 1, 6))
        for k, (parent, child) in enumerate(zip(layout.parent, layout.child)):
            V[child] = V[parent] + relative[k]
        bias = _cross_motion(V[layout.parent], relative - child_fixed_rate) + _cross_motion(
            V[layout.child], child_fixed_rate
        )
        subspaces = tuple(S[k][:, columns] for k, columns in enumerate(layout.columns))
        q_cartesian = np.hstack([p_WB[:nb], rotations.euler_parameters_from_rotation(R_WB[:nb])]).reshape(-1)
        frames = kinematics.pose(system, q_cartesian, t)
        motion = kinematics.twist(system, frames, _cartesian_velocities(R_WB, p_WB, V))
        loads = forces.element_loads(system, frames, motion)
        wrench = forces.generalized_element_forces(system, frames, loads)[:-1]
        force_W = wrench[:, :3] + system.mass[:, None] * system.gravity
        moment_W = np.einsum("bij,bj->bi", R_WB[:nb], wrench[:, 3:]) + cross(p_WB[:nb], force_W)
        return KaneState(
            t=t,
            q=q,
            u=u,
            motion_subspace=subspaces,
            spatial_velocity=V,
            bias_acceleration=bias,
            frames=frames,
            motion=motion,
            loads=loads,
            spatial_inertia=_spatial_inertia(system.mass, system.inertia, R_WB[:nb], p_WB[:nb]),
            applied_force=np.hstack([moment_W, force_W]),
        )

    def _velocity_product_force(self, state: KaneState) -> FloatArray:
        """(nb, 6) ``v x* (I v)`` minus the applied force: what the bodies need at zero acceleration."""
        V = state.spatial_velocity[:-1]
        h = np.einsum("bij,bj->bi", state.spatial_inertia, V)
        return _cross_force(V, h) - state.applied_force

    # -- dynamics ---------------------------------------------------------------------------
    def spatial_accelerations(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """(nb+1, 6) body spatial accelerations for speed rates ``u_dot``: one outward pass."""
        A = np.zeros((self.system.n_bodies + 1, 6))
        for joint, S, c in zip(self.tree.joints, state.motion_subspace, state.bias_acceleration):
            A[joint.child] = A[joint.parent] + c + S @ u_dot[joint.u_slice]
        return A

    def inverse_dynamics(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """Generalized forces ``M u_dot - F`` (n_u,) the joints must add for rates ``u_dot``:
        recursive Newton-Euler, one outward and one inward pass, O(nb)."""
        A = self.spatial_accelerations(state, u_dot)
        f = np.einsum("bij,bj->bi", state.spatial_inertia, A[:-1]) + self._velocity_product_force(state)
        tau = np.zeros(self.n_u)
        for joint, S in zip(reversed(self.tree.joints), reversed(state.motion_subspace)):
            tau[joint.u_slice] = S.T @ f[joint.child]
            if joint.parent != GROUND:
                f[joint.parent] += f[joint.child]
        return tau

    def generalized_force(self, state: KaneState) -> FloatArray:
        """``F`` (n_u,): generalized active forces plus the velocity-dependent generalized inertia
        forces, so that ``M du/dt = F`` on a tree."""
        return -self.inverse_dynamics(state, np.zeros(self.n_u))

    def mass_matrix(self, state: KaneState) -> FloatArray:
        """Generalized mass matrix ``M`` (n_u, n_u) by composite bodies: O(nb * depth)."""
        joints = self.tree.joints
        composite = state.spatial_inertia.copy()
        for joint in reversed(joints):
            if joint.parent != GROUND:
                composite[joint.parent] += composite[joint.child]
        M = np.zeros((self.n_u, self.n_u))
        for joint, S in zip(joints, state.motion_subspace):
            F = composite[joint.child] @ S
            body = joint.child
            while body != GROUND:
                ancestor = joints[self.tree.body_joint[body]]
                block = state.motion_subspace[self.tree.body_joint[body]].T @ F
                M[ancestor.u_slice, joint.u_slice] = block
                M[joint.u_slice, ancestor.u_slice] = block.T
                body = ancestor.parent
        return M

    def forward_dynamics(self, state: KaneState) -> FloatArray:
        """``du/dt`` (n_u,) of the tree (cut constraints ignored) by the articulated-body
        recursion: O(nb), without forming ``M``."""
        joints = self.tree.joints
        articulated = state.spatial_inertia.copy()
        bias_force = self._velocity_product_force(state)
        solves = []
        for joint, S, c in zip(reversed(joints), reversed(state.motion_subspace), reversed(state.bias_acceleration)):
            child = joint.child
            U = articulated[child] @ S
            D_inverse = np.linalg.inv(S.T @ U) if S.shape[1] else np.zeros((0, 0))
            torque = -S.T @ bias_force[child]
            solves.append((U, D_inverse, torque))
            if joint.parent != GROUND:
                UD = U @ D_inverse
                passed_inertia = articulated[child] - UD @ U.T
                articulated[joint.parent] += passed_inertia
                bias_force[joint.parent] += bias_force[child] + passed_inertia @ c + UD @ torque
        A = np.zeros((self.system.n_bodies + 1, 6))
        u_dot = np.zeros(self.n_u)
        for joint, S, c, (U, D_inverse, torque) in zip(
            joints, state.motion_subspace, state.bias_acceleration, reversed(solves)
        ):
            a = A[joint.parent] + c
            rate = D_inverse @ (torque - U.T @ a)
            u_dot[joint.u_slice] = rate
            A[joint.child] = a + S @ rate
        return u_dot

    def accelerations(self, state: KaneState) -> tuple[FloatArray, float]:
        """``(du/dt (n_u,), power of the cut-constraint forces [W])``: the articulated-body
        recursion on a tree, Maggi's null-space form of Kane's equations with cut constraints."""
        if not self.has_cuts:
            return self.forward_dynamics(state), 0.0
        M = self.mass_matrix(state)
        F = self.generalized_force(state)
        _, B, _ = self.cut_constraints(state)
        gamma = self.cut_acceleration_rhs(state)
        particular, complement = _particular_and_complement(B, gamma)
        reduced = complement.T @ M @ complement
        try:
            independent = la.solve(reduced, complement.T @ (F - M @ particular), assume_a="pos")
        except (la.LinAlgError, ValueError):
            # The motion without inertia: the reduced matrix's weakest direction, in joint speeds.
            weakest = complement @ la.eigh(reduced)[1][:, 0] if np.all(np.isfinite(reduced)) else np.zeros(self.n_u)
            share = [float(np.linalg.norm(weakest[joint.u_slice])) for joint in self.tree.joints]
            locking = [j.name for j, w in zip(self.tree.joints, share) if w > 0.1 * max(share, default=0.0) > 0.0]
            cuts = dict.fromkeys(self.system.constraint_names[k] for k in self.cut_rows.element)
            raise KaneError(
                f"model '{self.system.name}' at t = {state.t:.6g} s: the reduced mass matrix C^T M C is singular "
                f"(a lock-up: the cut constraints {', '.join(map(repr, cuts))} leave a motion without inertia"
                + (f" of the joints {', '.join(map(repr, locking))})" if locking else ")")
            ) from None
        u_dot = particular + complement @ independent
        return u_dot, float(state.u @ (M @ u_dot - F))

    # -- partial velocities and constraints (also for impact analysis) -----------------------
    def body_jacobians(self, state: KaneState) -> FloatArray:
        """(nb, 6, n_u) spatial partial velocities of every body (world origin): the joint
        columns ``S_j`` of the body's lower-body path, zeros elsewhere. O(nb * depth) to fill."""
        J = np.zeros((self.system.n_bodies, 6, self.n_u))
        for body in range(self.system.n_bodies):
            for k in self.tree.ancestors(body):
                J[body, :, self.tree.joints[k].u_slice] = state.motion_subspace[k]
        return J

    def partial_velocities(self, state: KaneState) -> tuple[FloatArray, FloatArray]:
        """Kane's arrays ``(V, W)``, each (nb, 3, n_u): partial velocities of the body centres of
        mass and partial angular velocities (world components): ``v_b = V_b u``, ``w_b = W_b u``."""
        J = self.body_jacobians(state)
        W = J[:, :3]
        return J[:, 3:] - skew(state.frames.p_WB_W[:-1]) @ W, W

    def point_partial_velocity(self, state: KaneState, body: int, p_WQ_W: FloatArray) -> FloatArray:
        """(3, n_u) partial velocity of the point of ``body`` at world position ``p_WQ_W`` [m]."""
        J = np.zeros((6, self.n_u))
        for k in self.tree.ancestors(body):
            J[:, self.tree.joints[k].u_slice] = state.motion_subspace[k]
        return J[3:] - skew(np.asarray(p_WQ_W, dtype=float)) @ J[:3]

    def cartesian_velocity_map(self, state: KaneState) -> FloatArray:
        """(6 nb, n_u) map from ``u`` to the Cartesian velocities (CM velocity world, angular
        velocity body axes, per body)."""
        V, W = self.partial_velocities(state)
        W_B = np.einsum("bji,bjk->bik", state.frames.R_WB[:-1], W)
        return np.concatenate([V, W_B], axis=1).reshape(-1, self.n_u)

    def cut_constraints(self, state: KaneState) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(Phi (m,), B (m, n_u), nu (m,))`` of the cut rows: ``dPhi/dt = B u - nu``."""
        phi, jacobian, nu = constraints.position_level(self.system, self.cut_rows, state.frames)
        G = self._assembler.assemble(state.frames, jacobian)
        return phi, G @ self.cartesian_velocity_map(state), nu

    def cut_acceleration_rhs(self, state: KaneState) -> FloatArray:
        """``gamma`` (m,) with ``B du/dt = gamma``: the Cartesian right-hand side minus the
        constraint rows applied to the bodies' accelerations at ``du/dt = 0``."""
        _, jacobian, _ = constraints.position_level(self.system, self.cut_rows, state.frames)
        G = self._assembler.assemble(state.frames, jacobian)
        gamma = constraints.acceleration_rhs(self.system, self.cut_rows, state.frames, state.motion)
        return gamma - G @ self.cartesian_accelerations(state, np.zeros(self.n_u))

    # -- Cartesian view ----------------------------------------------------------------------
    def cartesian_positions(self, state: KaneState) -> FloatArray:
        """(7 nb,) CM positions and Euler parameters of every body."""
        return np.hstack([state.frames.p_WB_W[:-1], state.frames.e_WB]).reshape(-1)

    def cartesian_velocities(self, state: KaneState) -> FloatArray:
        """(6 nb,) CM velocities (world) and angular velocities (body axes)."""
        return np.hstack([state.motion.v_WB_W[:-1], state.motion.w_WB_B]).reshape(-1)

    def cartesian_accelerations(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """(6 nb,) CM accelerations (world) and angular accelerations (body axes) for ``u_dot``."""
        A = self.spatial_accelerations(state, u_dot)[:-1]
        alpha = A[:, :3]
        p = state.frames.p_WB_W[:-1]
        a_cm = A[:, 3:] + cross(alpha, p) + cross(state.motion.w_WB_W[:-1], state.motion.v_WB_W[:-1])
        alpha_B = np.einsum("bji,bj->bi", state.frames.R_WB[:-1], alpha)
        return np.hstack([a_cm, alpha_B]).reshape(-1)

    # -- constraint stabilization ------------------------------------------------------------
    def project(
        self, q: FloatArray, u: FloatArray, t: float, tolerance: float = 1e-12, max_iterations: int = 20
    ) -> tuple[FloatArray, FloatArray]:
        """``(q, u)`` moved onto the cut constraints: Gauss-Newton with minimum-norm increments
        of the joint coordinates until ``max |Phi| < tolerance`` [m, rad], then the speeds'
        minimum-norm correction to ``B u = nu``. Raises ``KaneError`` naming the worst row."""
        q = self.normalize(q)
        if not self.has_cuts:
            return q, u
        for _ in range(max_iterations):
            state = self.evaluate(q, u, t)
            phi, B, nu = self.cut_constraints(state)
            if np.max(np.abs(phi)) < tolerance:
                return q, u - la.lstsq(B, B @ u - nu, cond=1e-12)[0]
            q = self.displace(q, -la.lstsq(B, phi, cond=1e-12)[0])
        worst = int(np.argmax(np.abs(phi)))
        element = self.system.constraint_names[self.cut_rows.element[worst]]
        raise KaneError(
            f"model '{self.system.name}' at t = {t:.6g} s: the cut constraints do not close; "
            f"'{element}' ({self.cut_rows.label[worst]}) is violated by {abs(phi[worst]):.3g}"
        )


def _particular_and_complement(B: FloatArray, rhs: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Minimum-norm solution of ``B x = rhs`` and an orthonormal basis ``C`` of the null space of
    ``B`` (its orthogonal complement, ``B C = 0``), both from one SVD."""
    U, s, Vt = la.svd(B, full_matrices=True)
    rank = int(np.sum(s > RANK_TOLERANCE * max(s[0] if s.size else 0.0, 1.0)))
    particular = Vt[:rank].T @ ((U[:, :rank].T @ rhs) / s[:rank])
    return particular, Vt[rank:].T


def _frame(R_WP: FloatArray, p_WP: FloatArray, R_PM: FloatArray, r_PM: FloatArray) -> tuple[FloatArray, FloatArray]:
    """World rotation and origin of a marker given its body's pose."""
    return R_WP @ R_PM, p_WP + R_WP @ r_PM


class _BatchedJoints:
    """The tree joints as stacked arrays, for the vectorized parts of ``KaneFormulation.evaluate``.

    Motion subspaces are padded to 6 columns per joint: columns 0-2 translations, 3-5 rotation
    axes; ``columns[k]`` picks joint ``k``'s own. ``child_fixed`` marks the columns fixed in the
    child (the others are fixed in the parent), which says how they change: ``dS/dt = v x S``.
    """

    def __init__(self, tree: SpanningTree, offsets: list[tuple[FloatArray, FloatArray]]) -> None:
        joints = tree.joints
        n = len(joints)
        self.parent = np.array([j.parent for j in joints], dtype=np.int64)
        self.child = np.array([j.child for j in joints], dtype=np.int64)
        self.R_PN = np.array([j.R_PN for j in joints]).reshape(n, 3, 3)
        self.r_PN = np.array([j.r_PN for j in joints]).reshape(n, 3)
        self.R_CO = np.array([j.R_CO for j in joints]).reshape(n, 3, 3)
        self.r_CO = np.array([j.r_CO for j in joints]).reshape(n, 3)
        self.A0 = np.array([A0 for A0, _ in offsets]).reshape(n, 3, 3)
        self.d0 = np.array([d0 for _, d0 in offsets]).reshape(n, 3)
        self.translation_axes = np.zeros((n, 3, 3))
        self.axes_N = np.zeros((n, 3, 3))
        """rotation columns turning with N (axis joints, first axis of two-axis joints), N axes"""
        self.axes_O = np.zeros((n, 3, 3))
        """rotation columns turning with O (second axis of two-axis joints, ball), O axes"""
        self.child_fixed = np.zeros((n, 6))
        self.q_index = np.full((n, 7), -1, dtype=np.int64)
        """per joint: translation coordinates in slots 0-2, rotation coordinates from slot 3 (-1: none)"""
        self.u_index = np.full((n, 6), -1, dtype=np.int64)
        self.columns = []
        for k, joint in enumerate(joints):
            nt, nr = joint.n_translations, joint.n_u - joint.n_translations
            self.translation_axes[k, :, :nt] = joint.translation_axes
            self.q_index[k, :nt] = np.arange(nt) + joint.q_start
            self.q_index[k, 3 : 3 + joint.n_q - nt] = np.arange(joint.n_q - nt) + joint.q_start + nt
            self.u_index[k, :nt] = np.arange(nt) + joint.u_start
            self.u_index[k, 3 : 3 + nr] = np.arange(nr) + joint.u_start + nt
            self.columns.append(np.r_[np.arange(nt), 3 + np.arange(nr)])
            if joint.rotation in ("axis", "two_axes"):
                self.axes_N[k, :, 0] = joint.axis_N
            if joint.rotation == "two_axes":
                self.axes_O[k, :, 1] = joint.axis_O
            if joint.rotation == "ball":
                self.axes_O[k] = np.eye(3)
            self.child_fixed[k, 3 : 3 + nr] = 1.0
            if joint.rotation == "two_axes":
                self.child_fixed[k, 3] = 0.0
        self.kinds = {
            kind: np.array([k for k, j in enumerate(joints) if j.rotation == kind], dtype=np.int64)
            for kind in ROTATIONS
        }
        K_N, K_O = skew(self.axes_N[:, :, 0]), skew(self.axes_O[:, :, 1])
        self._turn_N = (K_N, K_N @ K_N)
        self._turn_O = (K_O, K_O @ K_O)

    def joint_transforms(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(R_NO (n, 3, 3), d_N (n, 3))``: each joint's outer frame relative to its inner frame."""
        q_slots = np.append(q, 0.0)[self.q_index]
        d_N = self.d0 + np.einsum("kij,kj->ki", self.translation_axes, q_slots[:, :3])
        R_NO = self.A0.copy()
        axis, two, ball = self.kinds["axis"], self.kinds["two_axes"], self.kinds["ball"]
        if axis.size:
            R_NO[axis] = _axis_rotations(self._turn_N, axis, q_slots[axis, 3]) @ self.A0[axis]
        if two.size:
            R_NO[two] = (
                _axis_rotations(self._turn_N, two, q_slots[two, 3])
                @ self.A0[two]
                @ _axis_rotations(self._turn_O, two, q_slots[two, 4])
            )
        if ball.size:
            e = rotations.normalize(q_slots[ball, 3:7])
            R_NO[ball] = self.A0[ball] @ rotations.rotation_from_euler_parameters(e)
        return R_NO, d_N

    def motion_subspaces(self, R_WN: FloatArray, R_WO: FloatArray, p_WO: FloatArray) -> FloatArray:
        """Padded motion subspaces (n, 6, 6), world components about the world origin."""
        S = np.zeros((len(self.parent), 6, 6))
        axes = R_WN @ self.axes_N + R_WO @ self.axes_O
        S[:, 3:, :3] = R_WN @ self.translation_axes
        S[:, :3, 3:] = axes
        S[:, 3:, 3:] = skew(p_WO) @ axes
        return S

    def padded_speeds(self, u: FloatArray) -> FloatArray:
        """(n, 6) each joint's speeds in its padded columns, zeros elsewhere."""
        return np.append(u, 0.0)[self.u_index]


ROTATIONS = ("none", "axis", "two_axes", "ball")


def _axis_rotations(turn: tuple[FloatArray, FloatArray], joints: np.ndarray, angle: FloatArray) -> FloatArray:
    """Rotations (n, 3, 3) by ``angle`` [rad] about unit axes given by their skew matrices ``K``
    and ``K^2`` (Rodrigues: ``I + sin K + (1 - cos) K^2``)."""
    K, K2 = turn[0][joints], turn[1][joints]
    return np.eye(3) + np.sin(angle)[:, None, None] * K + (1.0 - np.cos(angle))[:, None, None] * K2


def _cross_motion(V: FloatArray, m: FloatArray) -> FloatArray:
    """Spatial cross product ``V x m`` of motion vectors (n, 6) (angular part first)."""
    w, v = V[:, :3], V[:, 3:]
    return np.hstack([cross(w, m[:, :3]), cross(w, m[:, 3:]) + cross(v, m[:, :3])])


def _cross_force(V: FloatArray, f: FloatArray) -> FloatArray:
    """Spatial cross product ``V x* f`` of motion and force vectors (n, 6)."""
    w, v = V[:, :3], V[:, 3:]
    return np.hstack([cross(w, f[:, :3]) + cross(v, f[:, 3:]), cross(w, f[:, 3:])])


def _cartesian_velocities(R_WB: FloatArray, p_WB: FloatArray, V: FloatArray) -> FloatArray:
    """(6 nb,) Cartesian velocities from spatial ones (ground row dropped)."""
    w = V[:-1, :3]
    v_cm = V[:-1, 3:] + cross(w, p_WB[:-1])
    return np.hstack([v_cm, np.einsum("bji,bj->bi", R_WB[:-1], w)]).reshape(-1)


def _spatial_inertia(mass: FloatArray, inertia_B: FloatArray, R_WB: FloatArray, p_WB: FloatArray) -> FloatArray:
    """(nb, 6, 6) spatial inertia of each body about the world origin, world axes."""
    J_W = R_WB @ inertia_B @ np.swapaxes(R_WB, 1, 2)
    C = skew(p_WB)
    m = mass[:, None, None]
    out = np.empty((len(mass), 6, 6))
    out[:, :3, :3] = J_W + m * (C @ np.swapaxes(C, 1, 2))
    out[:, :3, 3:] = m * C
    out[:, 3:, :3] = m * np.swapaxes(C, 1, 2)
    out[:, 3:, 3:] = m * np.eye(3)
    return out
