"""Floating-frame inertia invariants of a modal body (Shabana's formulation), computed once.

The body frame B has origin O; a material point at undeformed position x (body axes) moves to
r = x + u with u = Phi(x) q, q the m modal coordinates. Mass-orthonormal modes (Phi^T M Phi = I)
have units 1/sqrt(kg), so q is in sqrt(kg) m. With v the velocity of O and w the angular velocity,
both in body axes, the kinetic energy is T = 1/2 [v; w; q']^T M(q) [v; w; q'] with

    M(q) = [[ m I3,        -skew(s(q)),   S_t      ],
            [ skew(s(q)),   J(q),         M_wf(q)  ],
            [ S_t^T,        M_wf(q)^T,    M_ff     ]]

    s(q)     = s + S_t q                                         first moment [kg m]
    C(q)     = C + sum_j q_j (A_j + A_j^T) + sum_jl q_j q_l B_jl   second moment int rho r r^T [kg m^2]
    J(q)     = tr(C(q)) I3 - C(q)                                inertia about O [kg m^2]
    M_wf(q)  = S_r + sum_j q_j X_j,   (X_j)_:l = int rho Phi_j x Phi_l   rotation-elastic coupling

Invariants (A. A. Shabana, *Dynamics of Multibody Systems*, Cambridge University Press, the chapter
on the floating frame of reference formulation; our names, with the ``ModalInvariants`` field):

    m             int rho dV                  [kg]          mass
    s   (3,)      int rho x dV                [kg m]        first_moment (= m x_cm)
    J_O (3, 3)    int rho (x.x I - x x^T) dV  [kg m^2]      inertia (undeformed body, about O)
    S_t (3, m)    int rho Phi dV              [sqrt(kg)]    translation_coupling
    S_r (3, m)    int rho skew(x) Phi dV      [sqrt(kg) m]  rotation_coupling
    M_ff (m, m)   int rho Phi^T Phi dV = I    [-]           modal_mass
    A (m, 3, 3)   int rho x Phi_j^T dV        [sqrt(kg) m]  position_modes (terms linear in q)
    B (m, m, 3, 3) int rho Phi_j Phi_l^T dV   [-]           mode_products (terms quadratic in q)

m, s, J_O, S_t, S_r and M_ff are exact integrals: quadratic forms of the FE (consistent) mass matrix
with rigid-body fields, which the element interpolates exactly. A and B need products of different
displacement components, which the assembled matrix does not hold; they use HRZ-lumped nodal
masses (Hinton, Rock, Zienkiewicz, Earthq. Eng. Struct. Dyn. 4 (1976) 245: the translational diagonal
scaled to the exact mass), so they carry the lumping's O(h^2) error. Rotational DOFs of beam nodes
enter the exact invariants (rotary inertia of torsion) but not A and B.

Reference condition: the modes of ``multibody.fem.reduction`` are M-orthogonal to the rigid-body
modes, so S_t = 0 and S_r = 0: the body frame is a mean-axes (Buckens) frame to first order, and
``reference_condition`` says which holds. A basis of a body clamped at a node (tied frame) gives
nonzero S_t, S_r; the formulas above hold for any basis.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import NDArray

from multibody.fem.reduction import rigid_body_modes

LEVI_CIVITA = np.zeros((3, 3, 3))
LEVI_CIVITA[0, 1, 2] = LEVI_CIVITA[1, 2, 0] = LEVI_CIVITA[2, 0, 1] = 1.0
LEVI_CIVITA[0, 2, 1] = LEVI_CIVITA[2, 1, 0] = LEVI_CIVITA[1, 0, 2] = -1.0
"""The permutation symbol eps_abc: (a x b)_i = eps_ijk a_j b_k."""


@dataclass(frozen=True)
class ModalInvariants:
    """The inertia invariants of one modal body (see the module docstring for formulas and units)."""

    mass: float
    first_moment: NDArray[np.float64]
    inertia: NDArray[np.float64]
    translation_coupling: NDArray[np.float64]
    rotation_coupling: NDArray[np.float64]
    modal_mass: NDArray[np.float64]
    position_modes: NDArray[np.float64]
    mode_products: NDArray[np.float64]
    nodal_masses: NDArray[np.float64]

    @cached_property
    def cross_products(self) -> NDArray[np.float64]:
        """(m, m, 3) ``X_jl = int rho Phi_j x Phi_l`` [-] (the axial vectors of ``mode_products``): the
        rotation-elastic coupling's rate with the modal coordinates, ``M_wf(q) = S_r + sum_j q_j X_j``."""
        B = self.mode_products
        return np.stack(
            [B[..., 1, 2] - B[..., 2, 1], B[..., 2, 0] - B[..., 0, 2], B[..., 0, 1] - B[..., 1, 0]], axis=-1
        )

    @property
    def kernel_arrays(self) -> tuple:
        """``(mass, first_moment, inertia, translation_coupling, rotation_coupling, modal_mass,
        position_modes, mode_products, cross_products)``: the invariants as the compiled kernels take
        them (``mass_and_quadratic_velocity``)."""
        return (
            self.mass,
            self.first_moment,
            self.inertia,
            self.translation_coupling,
            self.rotation_coupling,
            self.modal_mass,
            self.position_modes,
            self.mode_products,
            self.cross_products,
        )

    @property
    def reference_condition(self) -> str:
        """``"mean_axes"`` when S_t and S_r vanish (modes M-orthogonal to rigid motion), else ``"general"``."""
        scale = np.sqrt(self.mass) * (1.0 + np.linalg.norm(self.first_moment) / self.mass)
        small = max(np.abs(self.translation_coupling).max(initial=0.0), np.abs(self.rotation_coupling).max(initial=0.0))
        return "mean_axes" if small < 1e-8 * scale else "general"

    def first_moment_at(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """s(q) = int rho r dV [kg m] (3,) at modal coordinates q (m,)."""
        return self.first_moment + self.translation_coupling @ q

    def inertia_at(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """J(q) [kg m^2] (3, 3): inertia of the deformed body about O, body axes."""
        return self.mass_matrix(q)[3:6, 3:6]

    def mass_matrix(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """M(q) (6 + m, 6 + m) for velocities (v_O in body axes [m/s], w [rad/s] body axes, q')."""
        q = np.ascontiguousarray(q, dtype=float)
        return body_dynamics(self, q, np.zeros(6 + q.size))[0]

    def quadratic_velocity(
        self, q: NDArray[np.float64], v: NDArray[np.float64], w: NDArray[np.float64], qdot: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Quadratic velocity vector Q_v (6 + m,) [N, N m, sqrt(kg) m/s^2]: M(q) a = Q_applied + Q_v - K q - D q'
        for a = (v', w', q''), the time derivatives of the body-axis components.

        From the Boltzmann-Hamel equations of T = u^T M(q) u / 2, u = (v, w, q'), p = M(q) u:
        p_v' + w x p_v = F, p_w' + w x p_w + v x p_v = tau, p_f' - (1/2) u^T (dM/dq) u = Q_f, so
        Q_v = -(dM/dt) u - [w x p_v; w x p_w + v x p_v; -(1/2) u^T (dM/dq) u]. Derived from M(q) itself,
        it keeps T + q^T K q / 2 exactly conserved by the equations whatever mass model the invariants
        come from; for particles it is -sum m_k J_k^T (w x v + w x (w x r_k) + 2 w x u'_k).
        """
        return self.dynamics(np.asarray(q, float), np.concatenate([v, w, qdot]))[1]

    def dynamics(self, q: NDArray[np.float64], u: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """``(M(q), Q_v)`` at modal coordinates ``q`` (m,) and velocities ``u = (v_O, w, q')`` (6+m,),
        body axes: one compiled pass (``mass_and_quadratic_velocity``)."""
        return body_dynamics(self, np.ascontiguousarray(q, float), np.ascontiguousarray(u, float))


@njit(cache=True)
def mass_and_quadratic_velocity(
    mass: float,
    first_moment: np.ndarray,
    inertia: np.ndarray,
    translation_coupling: np.ndarray,
    rotation_coupling: np.ndarray,
    modal_mass: np.ndarray,
    position_modes: np.ndarray,
    mode_products: np.ndarray,
    cross_products: np.ndarray,
    q: np.ndarray,
    u: np.ndarray,
    M: np.ndarray,
    Q: np.ndarray,
) -> None:
    """Write ``M(q)`` (6+m, 6+m) into ``M`` and the quadratic velocity vector ``Q_v`` (6+m,) into ``Q``
    (see ``ModalInvariants.mass_matrix`` and ``quadratic_velocity``) from the invariants
    (``ModalInvariants.kernel_arrays``), the modal coordinates ``q`` (m,) and the body-axes velocities
    ``u = (v_O, w, q')`` (6+m,); allocates nothing of size m.

    ``Q_v = -sum_j q_j' (dM/dq_j) u - [w x p_v; w x p_w + v x p_v; -(1/2) u^T (dM/dq_j) u]``, ``p = M u``,
    with ``(dM/dq_j) u`` written out block by block: ``(-S_tj x w, S_tj x v + (tr(dC_j) I - dC_j) w +
    sum_l X_jl q_l', X_jl . w)``, ``dC_j = A_j + A_j^T + sum_l q_l (B_jl + B_lj)``."""
    m = q.size
    n = 6 + m
    v, w, qdot = u[:3], u[3:6], u[6:]
    s = np.empty(3)
    C = np.empty((3, 3))
    dC = np.empty((3, 3))
    trace = inertia[0, 0] + inertia[1, 1] + inertia[2, 2]
    for a in range(3):
        s[a] = first_moment[a]
        for j in range(m):
            s[a] += translation_coupling[a, j] * q[j]
        for b in range(3):
            C[a, b] = -inertia[a, b]
        C[a, a] += 0.5 * trace
    # P_j = sum_l q_l B_jl: C(q) = C + sum_j q_j (A_j + A_j^T + P_j), dC/dq_j = A_j + A_j^T + P_j + P_j^T
    # (B_lj = B_jl^T by definition)
    P = np.zeros((m, 3, 3))
    for j in range(m):
        for l in range(m):
            for a in range(3):
                for b in range(3):
                    P[j, a, b] += q[l] * mode_products[j, l, a, b]
        for a in range(3):
            for b in range(3):
                C[a, b] += q[j] * (position_modes[j, a, b] + position_modes[j, b, a] + P[j, a, b])
    M[:, :] = 0.0
    trace = C[0, 0] + C[1, 1] + C[2, 2]
    for a in range(3):
        M[a, a] = mass
        for b in range(3):
            M[3 + a, 3 + b] = -C[a, b]
        M[3 + a, 3 + a] += trace
    # -skew(s) above, skew(s) below the diagonal
    M[0, 4], M[0, 5], M[1, 5] = s[2], -s[1], s[0]
    M[1, 3], M[2, 3], M[2, 4] = -s[2], s[1], -s[0]
    for l in range(m):
        for a in range(3):
            coupling = rotation_coupling[a, l]
            for j in range(m):
                coupling += q[j] * cross_products[j, l, a]
            M[a, 6 + l] = translation_coupling[a, l]
            M[3 + a, 6 + l] = coupling
        for j in range(m):
            M[6 + j, 6 + l] = modal_mass[j, l]
    for i in range(6):
        for l in range(m):
            M[6 + l, i] = M[i, 6 + l]
    for i in range(3):
        for j in range(3):
            M[3 + i, j] = M[j, 3 + i]
    Q[:] = 0.0
    # Q = -sum_j q_j' dM_j u, and (1/2) u^T dM_j u on the modal rows
    dM_u = np.empty(n)
    for j in range(m):
        S = translation_coupling[:, j]
        for a in range(3):
            for b in range(3):
                dC[a, b] = position_modes[j, a, b] + position_modes[j, b, a] + P[j, a, b] + P[j, b, a]
        trace = dC[0, 0] + dC[1, 1] + dC[2, 2]
        dM_u[0] = -(S[1] * w[2] - S[2] * w[1])
        dM_u[1] = -(S[2] * w[0] - S[0] * w[2])
        dM_u[2] = -(S[0] * w[1] - S[1] * w[0])
        dM_u[3] = S[1] * v[2] - S[2] * v[1]
        dM_u[4] = S[2] * v[0] - S[0] * v[2]
        dM_u[5] = S[0] * v[1] - S[1] * v[0]
        for a in range(3):
            dM_u[3 + a] += trace * w[a] - (dC[a, 0] * w[0] + dC[a, 1] * w[1] + dC[a, 2] * w[2])
            for l in range(m):
                dM_u[3 + a] += cross_products[j, l, a] * qdot[l]
        for l in range(m):
            X = cross_products[j, l]
            dM_u[6 + l] = X[0] * w[0] + X[1] * w[1] + X[2] * w[2]
        half_energy_rate = 0.0
        for i in range(n):
            Q[i] -= qdot[j] * dM_u[i]
            half_energy_rate += u[i] * dM_u[i]
        Q[6 + j] += 0.5 * half_energy_rate
    # -[w x p_v; w x p_w + v x p_v; 0], p = M u
    p = np.zeros(6)
    for i in range(6):
        for j in range(n):
            p[i] += M[i, j] * u[j]
    Q[0] -= w[1] * p[2] - w[2] * p[1]
    Q[1] -= w[2] * p[0] - w[0] * p[2]
    Q[2] -= w[0] * p[1] - w[1] * p[0]
    Q[3] -= w[1] * p[5] - w[2] * p[4] + v[1] * p[2] - v[2] * p[1]
    Q[4] -= w[2] * p[3] - w[0] * p[5] + v[2] * p[0] - v[0] * p[2]
    Q[5] -= w[0] * p[4] - w[1] * p[3] + v[0] * p[1] - v[1] * p[0]


def body_dynamics(
    invariants: ModalInvariants, q: NDArray[np.float64], u: NDArray[np.float64]
) -> tuple[NDArray, NDArray]:
    """``(M(q), Q_v)`` of one modal body: the mass matrix (6+m, 6+m) and the quadratic velocity vector
    (6+m,) at modal coordinates ``q`` (m,) and body-axes velocities ``u = (v_O, w, q')`` (6+m,)."""
    n = 6 + q.size
    M, Q = np.empty((n, n)), np.empty(n)
    mass_and_quadratic_velocity(*invariants.kernel_arrays, q, u, M, Q)
    return M, Q


def modal_invariants(
    mass_matrix: sp.spmatrix, modes: NDArray[np.float64], points: NDArray[np.float64], dofs_per_node: int
) -> ModalInvariants:
    """The invariants of a body with FE mass matrix (n, n), mass-orthonormal modes Phi (n, m), nodes
    (N, 3) [m] in body axes, ``dofs_per_node`` 3 (solids) or 6 (beams)."""
    rigid = rigid_body_modes(points, dofs_per_node)
    M_rr = rigid.T @ (mass_matrix @ rigid)
    mass = M_rr[0, 0]
    s_tilde = -M_rr[:3, 3:]
    first_moment = np.array([s_tilde[2, 1], s_tilde[0, 2], s_tilde[1, 0]])
    M_phi = mass_matrix @ modes
    n_nodes = len(points)
    translational = mass_matrix.diagonal().reshape(n_nodes, dofs_per_node)[:, :3].mean(axis=1)
    nodal_masses = mass * translational / translational.sum()
    Phi_k = modes.reshape(n_nodes, dofs_per_node, -1)[:, :3, :]
    return ModalInvariants(
        mass=float(mass),
        first_moment=first_moment,
        inertia=0.5 * (M_rr[3:, 3:] + M_rr[3:, 3:].T),
        translation_coupling=rigid[:, :3].T @ M_phi,
        rotation_coupling=rigid[:, 3:].T @ M_phi,
        modal_mass=modes.T @ M_phi,
        position_modes=np.einsum("k,ka,kbj->jab", nodal_masses, points, Phi_k),
        mode_products=np.einsum("k,kaj,kbl->jlab", nodal_masses, Phi_k, Phi_k),
        nodal_masses=nodal_masses,
    )
