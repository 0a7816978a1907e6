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
evaluated recursively along the tree, world frame, all bodies in one pass each, by the compiled
kernels of ``multibody.formulation.kane_kernel`` (one call per pass, no Python loop per joint;
joint kinds are integer codes read by one kernel):

* ``evaluate``: one outward pass, five 3x3 products per joint plus the body's inertia in world axes
  (about 700 flops per body), then the force elements (vectorized): O(nb).
* ``generalized_force`` / ``inverse_dynamics``: one outward pass (accelerations) and one inward
  pass (subtree forces), about 150 flops per body for a one-speed joint: O(nb).
* ``forward_dynamics`` (trees, no cut constraints): the articulated-body recursion, one inward
  pass (a 6x6 articulated inertia per body and an n_u_k x n_u_k joint inverse) and one outward
  pass, about 500 flops per body for a one-speed joint: O(nb). It solves exactly
  ``M du/dt = F`` without forming ``M``. Measured on a revolute chain
  (``benchmarks/kane_mujoco.py``): one right-hand side of the tree ODE costs about
  35 us + 0.65 us per body (N = 200: 0.14 ms).
* ``factorized_mass``: ``M`` factorized in the tree's order without forming it (the
  articulated-body recursion's inward pass, ``U``, ``D^-1`` and the passed inertias kept), then
  ``solve(b)`` = ``M^-1 b`` in one inward and one outward pass: O(nb) each for any tree, where
  the sparse ``L^T D L`` of ``M`` in the tree's order costs O(nb * depth^2) (O(nb^3) on a chain,
  whose ``M`` is dense). Used for closed loops (below).
* ``mass_matrix``: composite bodies, ``M[j, k] = S_j^T I^c_k S_k`` for every tree joint ``j``
  on the path of ``k``: O(nb * depth) (O(nb^2) for a chain), used for impacts, linearization
  and closed loops that lock up.

The kinematics (``KaneState``) are about the world origin; the three dynamic recursions run
with each body's quantities about its own CM (world axes), shifted between parent and child.
About the world origin, inertias grow as ``m |p|^2`` and the recursions lose up to
``|p|^2 / l^2`` of the precision: the right-hand side of a 10 m chain was noisy at 1e-8
relative, and 1e-5 at 100 m from the origin; about the CMs it is round-off (1e-12).

Closed loops (cut constraints): ``Phi(q, t) = 0`` with Jacobian ``B = G V`` (m, n_u), where ``G``
is the Cartesian constraint Jacobian of the cut rows and ``V`` maps ``u`` to Cartesian body
velocities (``cartesian_velocity_map``): ``B u = nu``, ``B du/dt = gamma``. With ``C`` an
orthonormal basis of the null space of ``B`` (SVD; its orthogonal complement), Maggi's form of
Kane's equations is ``C^T (M du/dt - F) = 0`` (the constraint forces ``B^T lambda`` drop out),
and ``du/dt = a_p + C dw/dt`` with ``a_p`` the minimum-norm solution of ``B a_p = gamma`` and
``(C^T M C) dw/dt = C^T (F - M a_p)``: an ODE in the ``n_u - rank(B)`` independent speeds.
``accelerations`` solves the same equations in the range space instead: with ``B_r`` (r, n_u)
orthonormal rows spanning those of ``B`` (the same SVD rank decision) and ``gamma_r`` the part
of ``gamma`` they reach, ``du/dt = a_tree + M^-1 B_r^T lambda`` with ``a_tree`` the
articulated-body rates and ``(B_r M^-1 B_r^T) lambda = gamma_r - B_r a_tree``: r solves with
``factorized_mass``, O(nb * r), where the dense null-space form costs O(n_u^3); with ``B``
formed from the touched bodies' paths only, a 400-link chain tethered at its tip
(``benchmarks/kane_scaling.py``) costs 0.85 ms per right-hand side against 13.5 ms, growing as
N^0.55 against N^1.9 over N = 100 .. 400. The null-space form remains for
small mechanisms (``RANGE_SPACE_SPEEDS``) and for a numerically singular ``M`` or
``B_r M^-1 B_r^T`` (a lock-up), whose locking joints it names.
Drift off ``Phi = 0`` is removed by ``project``: Gauss-Newton (minimum-norm increments of the
joint coordinates) on ``Phi``, then the speeds projected onto ``B u = nu``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la

from multibody.formulation import constraints, forces, kane_kernel
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.compilation import announce_first_compilation
from multibody.formulation.frames import Pose, Twist
from multibody.formulation.tree import SpanningTree, spanning_tree
from multibody.spatial import rotations
from multibody.spatial.rotations import FloatArray, cross, skew
from multibody.system.system import System

RANK_TOLERANCE = 1e-9
"""Singular values of the cut-constraint matrix below this fraction of the largest are zero."""


RANGE_SPACE_SPEEDS = 24
"""Generalized speeds from which ``accelerations`` with cut constraints takes the range-space form
on the tree's factorization (O(nb * r)) rather than Maggi's dense null-space form (O(n_u^3), as
cheap on small mechanisms). Small mechanisms keep the null-space form: with the range-space form,
the parallelogram of ``tests/test_robustness_engine.py`` (3 speeds) stopped at rtol 1e-10 at
t = 1.137 s although the two forms' rates agreed to 1e-12 along its trajectory."""


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
    motion_subspace: FloatArray
    """(n_joints, 6, 6) per tree joint, its n_u_k columns first (zeros after): partial angular
    velocities (rows 0-2) and partial velocities of the body point at the world origin (rows 3-5)
    of the joint's speeds"""
    spatial_velocity: FloatArray
    """(nb+1, 6) angular velocity and velocity of the body point at the world origin; ground last"""
    bias_acceleration: FloatArray
    """(n_joints, 6) ``dS_k/dt u_k``: a joint's part of its child's acceleration at ``du/dt = 0``"""
    frames: Pose
    """Cartesian poses of bodies and markers"""
    motion: Twist
    """Cartesian velocities of bodies and markers"""
    loads: forces.ElementLoads
    central_inertia: FloatArray
    """(nb, 3, 3) about the CM, world axes [kg m^2]"""
    applied_force: FloatArray
    """(nb, 6) moment about the world origin and force of gravity and force elements [N m, N]"""


class KaneFormulation:
    """Kane's equations of ``system`` in the coordinates of its spanning tree.

    ``q_reference`` (n_positions,) is a Cartesian configuration satisfying the tree joints (an
    assembled one): the joint coordinates are measured from it. Holds only data fixed at
    construction (tree layout, joint offsets).
    """

    def __init__(self, system: System, q_reference: FloatArray, t: float = 0.0) -> None:
        announce_first_compilation("kane_kernel", "tree_kinematics")
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
    def position_rate_blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(plain_q, plain_u, ball_q (k, 4), ball_u (k, 3))``: the coordinates whose rate is a
        speed (angles, translations) and those speeds, then the Euler parameters of each ball or
        free joint and its angular-velocity speeds. ``dq/dt`` of a joint depends on its own
        coordinates and speeds only (``position_rate``)."""
        return self._plain_q, self._plain_u, self._ball_q, self._ball_u

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
        """Generalized speeds (n_u,) whose Cartesian velocities are ``v`` (n_velocities,) at joint
        coordinates ``q`` (least squares; exact when ``v`` satisfies the tree joints)."""
        V = self.cartesian_velocity_map(self.evaluate(q, np.zeros(self.n_u), t))
        # QR with column pivoting: the same minimum-norm solution as the SVD, ten times faster.
        return la.lstsq(V, v, cond=1e-13, lapack_driver="gelsy")[0]

    def position_rate(self, q: FloatArray, u: FloatArray) -> FloatArray:
        """``dq/dt`` (n_q,) for speeds ``u``."""
        return kane_kernel.position_rate(
            np.ascontiguousarray(q, dtype=float),
            np.ascontiguousarray(u, dtype=float),
            self._plain_q,
            self._plain_u,
            self._ball_q,
            self._ball_u,
        )

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
    def evaluate(self, q: FloatArray, u: FloatArray, t: float, x: FloatArray | None = None) -> KaneState:
        """Body poses, velocities, motion subspaces, loads and inertias at ``(q, u, t)`` with the
        first-order states ``x`` (nx,; default: the initial ones) the loads read: O(nb). The
        states' rates are ``loads.state_rate``."""
        system = self.system
        joints = self._layout
        R_WB, p_WB, S, V, bias, central_inertia, q_cartesian, v_cartesian = kane_kernel.tree_kinematics(
            np.ascontiguousarray(q, dtype=float),
            np.ascontiguousarray(u, dtype=float),
            joints.parent,
            joints.child,
            joints.rotation,
            joints.n_translations,
            joints.q_start,
            joints.u_start,
            joints.R_PN,
            joints.r_PN,
            joints.R_CO,
            joints.r_CO,
            joints.R_NO_reference,
            joints.d_N_reference,
            joints.translation_axes,
            joints.axis_N,
            joints.axis_O,
            system.mass,
            system.inertia,
        )
        frames = kinematics.pose(system, q_cartesian, t)
        motion = kinematics.twist(system, frames, v_cartesian)
        loads = forces.element_loads(system, frames, motion, x)
        wrench = forces.generalized_element_forces(system, frames, loads)
        return KaneState(
            t=t,
            q=q,
            u=u,
            motion_subspace=S,
            spatial_velocity=V,
            bias_acceleration=bias,
            frames=frames,
            motion=motion,
            loads=loads,
            central_inertia=central_inertia,
            applied_force=kane_kernel.applied_spatial_forces(wrench, system.mass, system.gravity, R_WB, p_WB),
        )

    # -- dynamics ---------------------------------------------------------------------------
    def spatial_accelerations(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """(nb+1, 6) body spatial accelerations for speed rates ``u_dot``: one outward pass."""
        joints = self._layout
        return kane_kernel.spatial_accelerations(
            joints.parent,
            joints.child,
            joints.n_speeds,
            joints.u_start,
            state.motion_subspace,
            state.bias_acceleration,
            np.ascontiguousarray(u_dot, dtype=float),
            self.system.n_bodies,
        )

    def inverse_dynamics(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """Generalized forces ``M u_dot - F`` (n_u,) the joints must add for rates ``u_dot``:
        recursive Newton-Euler, one outward and one inward pass, O(nb)."""
        joints = self._layout
        return kane_kernel.inverse_dynamics(
            joints.parent,
            joints.child,
            joints.n_speeds,
            joints.u_start,
            state.motion_subspace,
            state.bias_acceleration,
            state.spatial_velocity,
            state.applied_force,
            state.frames.p_WB_W,
            self.system.mass,
            state.central_inertia,
            np.ascontiguousarray(u_dot, dtype=float),
        )

    def generalized_force(self, state: KaneState) -> FloatArray:
        """``F`` (n_u,): generalized active forces plus the velocity-dependent generalized inertia
        forces, so that ``M du/dt = F`` on a tree."""
        return -self.inverse_dynamics(state, np.zeros(self.n_u))

    def mass_matrix(self, state: KaneState) -> FloatArray:
        """Generalized mass matrix ``M`` (n_u, n_u) by composite bodies: O(nb * depth)."""
        joints = self._layout
        return kane_kernel.mass_matrix(
            joints.parent,
            joints.child,
            joints.n_speeds,
            joints.u_start,
            self.tree.body_joint,
            state.motion_subspace,
            state.frames.p_WB_W,
            self.system.mass,
            state.central_inertia,
            self.n_u,
        )

    def forward_dynamics(self, state: KaneState) -> FloatArray:
        """``du/dt`` (n_u,) of the tree (cut constraints ignored) by the articulated-body
        recursion: O(nb), without forming ``M``. Raises ``KaneError`` naming the joint whose
        articulated inertia about its own axes is singular (nothing to accelerate)."""
        joints = self._layout
        u_dot, singular = kane_kernel.forward_dynamics(
            joints.parent,
            joints.child,
            joints.n_speeds,
            joints.u_start,
            state.motion_subspace,
            state.bias_acceleration,
            state.spatial_velocity,
            state.applied_force,
            state.frames.p_WB_W,
            self.system.mass,
            state.central_inertia,
            self.n_u,
        )
        if singular >= 0:
            raise KaneError(
                f"model '{self.system.name}' at t = {state.t:.6g} s: joint '{self.tree.joints[singular].name}' "
                "moves nothing with inertia (its outer bodies have no mass or inertia along its axes)"
            )
        return u_dot

    def factorized_mass(self, state: KaneState) -> ArticulatedFactorization:
        """The generalized mass matrix ``M`` at ``state`` factorized in the tree's order (the
        articulated-body recursion's inward pass, no matrix formed): O(nb) to factorize and per
        solve, where a dense ``M`` costs O(nb * depth) to form and O(n_u^3) to factorize. Raises
        ``KaneError`` naming a joint whose articulated inertia about its axes is singular."""
        joints = self._layout
        *factors, singular = kane_kernel.articulated_factorization(
            joints.parent,
            joints.child,
            joints.n_speeds,
            state.motion_subspace,
            state.frames.p_WB_W,
            self.system.mass,
            state.central_inertia,
        )
        if singular >= 0:
            raise KaneError(
                f"model '{self.system.name}' at t = {state.t:.6g} s: joint '{self.tree.joints[singular].name}' "
                "moves nothing with inertia (its outer bodies have no mass or inertia along its axes)"
            )
        return ArticulatedFactorization(joints, state.frames.p_WB_W, *factors)

    def accelerations(self, state: KaneState) -> tuple[FloatArray, float]:
        """``(du/dt (n_u,), power of the cut-constraint forces [W])``: the articulated-body
        recursion on a tree; with cut constraints, the range-space form on the tree's
        factorization, or Maggi's null-space form on small mechanisms and when the range-space
        form is singular (module docstring)."""
        if not self.has_cuts:
            return self.forward_dynamics(state), 0.0
        _, B, _ = self.cut_constraints(state)
        gamma = self.cut_acceleration_rhs(state)
        if self.n_u >= RANGE_SPACE_SPEEDS:
            try:
                return self._range_space_accelerations(state, B, gamma)
            except (KaneError, la.LinAlgError):
                # M or B_r M^-1 B_r^T numerically singular (a lock-up): the null-space form needs
                # only C^T M C regular, and names the locking joints when it is not.
                pass
        return self._null_space_accelerations(state, B, gamma)

    def _range_space_accelerations(
        self, state: KaneState, B: FloatArray, gamma: FloatArray
    ) -> tuple[FloatArray, float]:
        """``accelerations`` with cut constraints from the tree's factorization of ``M``: the tree's
        ``du/dt`` (articulated bodies) plus ``M^-1 B_r^T lambda`` for the independent rows
        ``B_r`` of ``B`` (the leading right singular vectors: the same rank decision as the
        null-space form, and the same solution), ``(B_r M^-1 B_r^T) lambda = gamma_r - B_r du/dt``.
        O(nb * r) for r independent rows, where the null-space form costs O(n_u^3). Raises
        ``KaneError`` when ``M`` is singular, ``LinAlgError`` when ``B_r M^-1 B_r^T`` is."""
        rows, rows_rhs = _independent_rows(B, gamma)
        factors = self.factorized_mass(state)
        tree_rates = self.forward_dynamics(state)
        if not len(rows):
            return tree_rates, 0.0
        response = np.zeros((self.n_u, len(rows)))
        for k, row in enumerate(rows):
            response[:, k] = factors.solve(row)
        multipliers = la.solve(rows @ response, rows_rhs - rows @ tree_rates, assume_a="pos")
        return tree_rates + response @ multipliers, float((rows @ state.u) @ multipliers)

    def _null_space_accelerations(self, state: KaneState, B: FloatArray, gamma: FloatArray) -> tuple[FloatArray, float]:
        """``accelerations`` with cut constraints by Maggi's null-space form (module docstring);
        raises ``KaneError`` naming the locking joints when ``C^T M C`` is singular."""
        M = self.mass_matrix(state)
        F = self.generalized_force(state)
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
    def body_jacobians(self, state: KaneState, bodies: np.ndarray | None = None) -> FloatArray:
        """(k, 6, n_u) spatial partial velocities (world origin) of ``bodies`` (k,) (default: all):
        the joint columns ``S_j`` of each body's lower-body path, zeros elsewhere. O(k * depth)
        to fill."""
        joints = self._layout
        chosen = np.arange(self.system.n_bodies) if bodies is None else np.asarray(bodies, dtype=np.int64)
        return kane_kernel.body_jacobians(
            joints.parent,
            joints.n_speeds,
            joints.u_start,
            self.tree.body_joint,
            state.motion_subspace,
            chosen,
            self.n_u,
        )

    def partial_velocities(self, state: KaneState, bodies: np.ndarray | None = None) -> tuple[FloatArray, FloatArray]:
        """Kane's arrays ``(V, W)``, each (k, 3, n_u), of ``bodies`` (k,) (default: all): partial
        velocities of the body centres of mass and partial angular velocities (world
        components): ``v_b = V_b u``, ``w_b = W_b u``."""
        chosen = np.arange(self.system.n_bodies) if bodies is None else np.asarray(bodies, dtype=np.int64)
        J = self.body_jacobians(state, chosen)
        W = J[:, :3]
        return J[:, 3:] - skew(state.frames.p_WB_W[chosen]) @ W, W

    def point_partial_velocity(self, state: KaneState, body: int, p_WQ_W: FloatArray) -> FloatArray:
        """(3, n_u) partial velocity of the point of ``body`` at world position ``p_WQ_W`` [m]."""
        J = np.zeros((6, self.n_u))
        for k in self.tree.ancestors(body):
            joint = self.tree.joints[k]
            J[:, joint.u_slice] = state.motion_subspace[k, :, : joint.n_u]
        return J[3:] - skew(np.asarray(p_WQ_W, dtype=float)) @ J[:3]

    def cartesian_velocity_map(self, state: KaneState, bodies: np.ndarray | None = None) -> FloatArray:
        """(6 k, n_u) map from ``u`` to the Cartesian velocities (CM velocity world, angular
        velocity body axes, per body) of ``bodies`` (k,) (default: all, (n_velocities, n_u))."""
        chosen = np.arange(self.system.n_bodies) if bodies is None else np.asarray(bodies, dtype=np.int64)
        V, W = self.partial_velocities(state, chosen)
        W_B = np.einsum("bji,bjk->bik", state.frames.R_WB[chosen], W)
        return np.concatenate([V, W_B], axis=1).reshape(-1, self.n_u)

    def cut_constraints(self, state: KaneState) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(Phi (m,), B (m, n_u), nu (m,))`` of the cut rows: ``dPhi/dt = B u - nu``, ``B = G V``
        formed from the bodies the cut rows touch only (O(m * depth), not O(m * nb * n_u))."""
        phi, jacobian, nu = constraints.position_level(self.system, self.cut_rows, state.frames)
        G = self._assembler.assemble(state.frames, jacobian)
        bodies = np.flatnonzero(np.any(G.reshape(G.shape[0], -1, 6) != 0.0, axis=(0, 2)))
        columns = (6 * bodies[:, None] + np.arange(6)).reshape(-1)
        return phi, G[:, columns] @ self.cartesian_velocity_map(state, bodies), nu

    def cut_acceleration_rhs(self, state: KaneState) -> FloatArray:
        """``gamma`` (m,) with ``B du/dt = gamma``: the Cartesian right-hand side minus the
        constraint rows applied to the bodies' accelerations at ``du/dt = 0``."""
        _, jacobian, _ = constraints.position_level(self.system, self.cut_rows, state.frames)
        G = self._assembler.assemble(state.frames, jacobian)
        gamma = constraints.acceleration_rhs(self.system, self.cut_rows, state.frames, state.motion)
        return gamma - G @ self.cartesian_accelerations(state, np.zeros(self.n_u))

    # -- Cartesian view ----------------------------------------------------------------------
    def cartesian_positions(self, state: KaneState) -> FloatArray:
        """(n_positions,) Cartesian positions: CM positions and Euler parameters of every body."""
        return rigid.positions(state.frames.p_WB_W[:-1], state.frames.e_WB)

    def cartesian_velocities(self, state: KaneState) -> FloatArray:
        """(n_velocities,) Cartesian velocities: CM velocities (world) and angular velocities (body axes)."""
        return rigid.velocities(state.motion.v_WB_W[:-1], state.motion.w_WB_B)

    def cartesian_accelerations(self, state: KaneState, u_dot: FloatArray) -> FloatArray:
        """(n_velocities,) CM accelerations (world) and angular accelerations (body axes) for ``u_dot``."""
        A = self.spatial_accelerations(state, u_dot)[:-1]
        alpha = A[:, :3]
        p = state.frames.p_WB_W[:-1]
        a_cm = A[:, 3:] + cross(alpha, p) + cross(state.motion.w_WB_W[:-1], state.motion.v_WB_W[:-1])
        alpha_B = np.einsum("bji,bj->bi", state.frames.R_WB[:-1], alpha)
        return rigid.velocities(a_cm, alpha_B)

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


class ArticulatedFactorization:
    """``M`` of a tree factorized by ``KaneFormulation.factorized_mass``: ``solve(rhs)`` costs one
    inward and one outward pass (O(nb))."""

    def __init__(
        self,
        joints: _BatchedJoints,
        p_WB_W: FloatArray,
        S_C: FloatArray,
        U: FloatArray,
        D_inverse: FloatArray,
        passed: FloatArray,
        rigid: np.ndarray,
    ) -> None:
        self._joints, self._p_WB_W = joints, p_WB_W
        self._factors = (S_C, U, D_inverse, passed, rigid)

    def solve(self, rhs: FloatArray) -> FloatArray:
        """``x`` (n_u,) [m/s^2, rad/s^2] with ``M x = rhs`` (n_u,) [N, N m]."""
        joints = self._joints
        return kane_kernel.articulated_solve(
            joints.parent,
            joints.child,
            joints.n_speeds,
            joints.u_start,
            self._factors[0],
            self._p_WB_W,
            *self._factors[1:],
            np.ascontiguousarray(rhs, dtype=float),
        )


def _particular_and_complement(B: FloatArray, rhs: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Minimum-norm solution of ``B x = rhs`` and an orthonormal basis ``C`` of the null space of
    ``B`` (its orthogonal complement, ``B C = 0``), both from one SVD."""
    U, s, Vt = la.svd(B, full_matrices=True)
    rank = _numerical_rank(s)
    particular = Vt[:rank].T @ ((U[:, :rank].T @ rhs) / s[:rank])
    return particular, Vt[rank:].T


def _numerical_rank(singular_values: FloatArray) -> int:
    """Singular values (descending) above ``RANK_TOLERANCE`` of the largest (at least 1)."""
    largest = singular_values[0] if singular_values.size else 0.0
    return int(np.sum(singular_values > RANK_TOLERANCE * max(largest, 1.0)))


def _independent_rows(B: FloatArray, rhs: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(B_r (r, n), rhs_r (r,))``: orthonormal rows spanning the row space of ``B`` (m, n) and
    the right side they take from ``B x = rhs``, the part of ``rhs`` in the range of ``B`` (one
    thin SVD, the rank that of ``_particular_and_complement``)."""
    U, s, Vt = la.svd(B, full_matrices=False)
    rank = _numerical_rank(s)
    return Vt[:rank], (U[:, :rank].T @ rhs) / s[:rank]


def _frame(R_WP: FloatArray, p_WP: FloatArray, R_PM: FloatArray, r_PM: FloatArray) -> tuple[FloatArray, FloatArray]:
    """World rotation and origin of a marker given its body's pose."""
    return R_WP @ R_PM, p_WP + R_WP @ r_PM


class _BatchedJoints:
    """The tree joints as stacked arrays, in the tree's order, for the compiled recursions
    (``multibody.formulation.kane_kernel``, where the fields are described)."""

    def __init__(self, tree: SpanningTree, offsets: list[tuple[FloatArray, FloatArray]]) -> None:
        joints = tree.joints
        n = len(joints)
        self.parent = np.array([j.parent for j in joints], dtype=np.int64)
        self.child = np.array([j.child for j in joints], dtype=np.int64)
        self.rotation = np.array([kane_kernel.ROTATION_CODES[j.rotation] for j in joints], dtype=np.int64)
        self.n_translations = np.array([j.n_translations for j in joints], dtype=np.int64)
        self.n_speeds = np.array([j.n_u for j in joints], dtype=np.int64)
        self.q_start = np.array([j.q_start for j in joints], dtype=np.int64)
        self.u_start = np.array([j.u_start for j in joints], dtype=np.int64)
        self.R_PN = np.array([j.R_PN for j in joints], dtype=float).reshape(n, 3, 3)
        self.r_PN = np.array([j.r_PN for j in joints], dtype=float).reshape(n, 3)
        self.R_CO = np.array([j.R_CO for j in joints], dtype=float).reshape(n, 3, 3)
        self.r_CO = np.array([j.r_CO for j in joints], dtype=float).reshape(n, 3)
        self.R_NO_reference = np.array([R_NO for R_NO, _ in offsets], dtype=float).reshape(n, 3, 3)
        self.d_N_reference = np.array([d_N for _, d_N in offsets], dtype=float).reshape(n, 3)
        self.translation_axes = np.zeros((n, 3, 3))
        for k, joint in enumerate(joints):
            self.translation_axes[k, :, : joint.n_translations] = joint.translation_axes
        self.axis_N = np.array([j.axis_N for j in joints], dtype=float).reshape(n, 3)
        self.axis_O = np.array([j.axis_O for j in joints], dtype=float).reshape(n, 3)
