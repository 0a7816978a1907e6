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

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from multibody.fem.reduction import rigid_body_modes
from multibody.spatial.rotations import skew

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

    @property
    def kernel_arrays(self) -> tuple:
        """``(mass, first_moment, inertia, translation_coupling, rotation_coupling, modal_mass,
        position_modes, mode_products)``: the invariants as the compiled modal kind takes them
        (``multibody.formulation.bodies.modal.body_dynamics``)."""
        return (
            self.mass,
            self.first_moment,
            self.inertia,
            self.translation_coupling,
            self.rotation_coupling,
            self.modal_mass,
            self.position_modes,
            self.mode_products,
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
        C0 = 0.5 * np.trace(self.inertia) * np.eye(3) - self.inertia
        linear = np.einsum("j,jab->ab", q, self.position_modes)
        C = C0 + linear + linear.T + np.einsum("j,l,jlab->ab", q, q, self.mode_products)
        return np.trace(C) * np.eye(3) - C

    def rotation_coupling_at(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """M_wf(q) (3, m) = int rho skew(r) Phi dV."""
        cross = np.einsum("abc,jlbc->jla", LEVI_CIVITA, self.mode_products)  # int rho Phi_j x Phi_l
        return self.rotation_coupling + np.einsum("j,jla->al", q, cross)

    def mass_matrix(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """M(q) (6 + m, 6 + m) for velocities (v_O in body axes [m/s], w [rad/s] body axes, q')."""
        m = len(q)
        s_tilde = skew(self.first_moment_at(q))
        M = np.zeros((6 + m, 6 + m))
        M[:3, :3] = self.mass * np.eye(3)
        M[:3, 3:6], M[3:6, :3] = -s_tilde, s_tilde
        M[:3, 6:] = self.translation_coupling
        M[3:6, 3:6] = self.inertia_at(q)
        M[3:6, 6:] = self.rotation_coupling_at(q)
        M[6:, :6] = M[:6, 6:].T
        M[6:, 6:] = self.modal_mass
        return M

    def mass_matrix_derivatives(self, q: NDArray[np.float64]) -> NDArray[np.float64]:
        """dM/dq_j (m, 6 + m, 6 + m) at q: -skew(S_t e_j) and its transpose, dJ/dq_j from
        dC/dq_j = A_j + A_j^T + sum_l q_l (B_jl + B_lj), and the columns int rho Phi_j x Phi_l."""
        m = len(q)
        dM = np.zeros((m, 6 + m, 6 + m))
        s_tilde = skew(self.translation_coupling.T)  # (m, 3, 3)
        dM[:, :3, 3:6], dM[:, 3:6, :3] = -s_tilde, s_tilde
        A = self.position_modes
        dC = A + np.transpose(A, (0, 2, 1)) + np.einsum("l,jlab->jab", q, self.mode_products)
        dC += np.einsum("l,ljab->jab", q, self.mode_products)
        dM[:, 3:6, 3:6] = np.trace(dC, axis1=1, axis2=2)[:, None, None] * np.eye(3) - dC
        coupling = np.transpose(np.einsum("abc,jlbc->jla", LEVI_CIVITA, self.mode_products), (0, 2, 1))
        dM[:, 3:6, 6:], dM[:, 6:, 3:6] = coupling, np.transpose(coupling, (0, 2, 1))
        return dM

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
        u = np.concatenate([v, w, qdot])
        p = self.mass_matrix(q) @ u
        dM = self.mass_matrix_derivatives(q)
        rate = np.einsum("j,jab,b->a", qdot, dM, u)
        gyroscopic = np.concatenate(
            [np.cross(w, p[:3]), np.cross(w, p[3:6]) + np.cross(v, p[:3]), -0.5 * np.einsum("a,jab,b->j", u, dM, u)]
        )
        return -(rate + gyroscopic)


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
