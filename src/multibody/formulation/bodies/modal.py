"""The modal body kind: a floating frame of reference (a rigid block) plus m modal coordinates.

A modal flexible body (``multibody.model.flexible.FlexibleBody``) owns two coordinate blocks of
the layout: its floating frame B, which is a block of the rigid kind (origin O = the mesh origin,
mesh axes; ``q = (p_WO_W, e_WB)``, ``v = (v_WO_W, w_WB_B)``), and its modal block (``q_f``, ``v_f =
q_f'``, m each, in sqrt(kg) m). The rigid kind moves the frame and the markers as if rigid; this
kind adds what the deformation does (Shabana's floating-frame formulation, small deformation):

* a marker at node set k sits at ``p_BQ = p_BQ0 + T_k q_f`` with axes turned by the small rotation
  ``theta = A_k q_f`` (``R_BM = exp(skew(theta)) R_BM0``, exact so the axes stay orthonormal);
* its twist gains ``R_WB T_k q_f'`` and ``R_WB A_k q_f'``, its acceleration bias the Coriolis term
  ``2 w x R_WB T_k q_f'`` and its angular acceleration ``w x R_WB A_k q_f'`` (``angular_bias_rhs``);
  the constraint Jacobian gains the modal columns ``a_v . R_WB T_k + a_w . R_WB A_k`` from a row's
  coefficients ``(a_v, a_w)`` on the marker twist;
* spin stiffening (``FlexibleBody.add_spin_stiffening``): the modal stiffness grows by ``Omega^2 K_G``,
  ``Omega`` the body's angular velocity about the spin axis, the prestress a rotating body carries
  (without it a spinning beam's modal model softens and diverges; its energy is not in the books);
* the body's mass matrix ``M(q_f)`` (6+m square, ``multibody.fem.invariants``) in the layout's
  velocity coordinates ``D M D^T`` with ``D = diag(R_WB, I3, I_m)`` (the frame's translation is in
  world components), and the generalized forces ``D (Q_v + M [w x v_B; 0; 0] + Q_g) - [0; K q_f +
  C q_f']``: quadratic velocity terms, gravity, modal stiffness and damping;
* a load ``(F, T)`` at a marker adds ``T_k^T R_WB^T F + A_k^T R_WB^T T`` on the modal coordinates.

The marker angular velocity ``R_WB A_k q_f'`` is the linear (small rotation) one, consistent with
the modes. The per-body inertia terms are compiled (``ModalInvariants.dynamics``), the marker terms
are NumPy passes over all markers at once; the Newton iteration of models holding modal bodies is the NumPy
one of ``multibody.formulation.dae`` (the compiled ``dae_kernel`` covers rigid bodies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from multibody.formulation.bodies import rigid
from multibody.spatial.rotations import cross, skew

if TYPE_CHECKING:
    from multibody.fem.invariants import ModalInvariants

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class ModalBodies:
    """The modal bodies of a System (numbers only), in model order."""

    names: tuple[str, ...]
    frame: IntArray
    """(nf,) the body index of each modal body's floating frame (a rigid block)"""
    q_offset: IntArray
    """(nf,) where each body's modal coordinates start in ``q``"""
    v_offset: IntArray
    """(nf,) where each body's modal velocities start in ``v``"""
    count: IntArray
    """(nf,) number of kept modes m of each body"""
    invariants: tuple[ModalInvariants, ...]
    stiffness: tuple[FloatArray, ...]
    """per body, the modal stiffness (m, m) [1/s^2]"""
    damping: tuple[FloatArray, ...]
    """per body, the modal damping (m, m) [1/s]"""
    spin_stiffness: tuple[FloatArray, ...]
    """per body, the modal geometric stiffness of a unit spin (m, m) [-] (zero without spin stiffening)"""
    spin_axis: FloatArray
    """(nf, 3) per body, the spin axis of its spin stiffening, body axes (zero without)"""
    marker: IntArray
    """(nk,) the markers on modal bodies (System marker indices)"""
    marker_frame: IntArray
    """(nk,) for each, the body index of its modal body's frame"""
    marker_positions: IntArray
    """(nk, mm) for each, where its body's modal coordinates are in ``q`` (mm the most modes of any
    body; the columns past a body's own count point at 0 and carry zero modes)"""
    marker_velocities: IntArray
    """(nk, mm) the same in ``v``"""
    translation_modes: FloatArray
    """(nk, 3, mm) per marker, T [m per unit q_f], body axes (zero-padded)"""
    rotation_modes: FloatArray
    """(nk, 3, mm) per marker, A [rad per unit q_f], body axes (zero-padded)"""
    slot: IntArray
    """(nm,) per System marker, its index into ``marker`` (-1: not on a modal body)"""

    def __len__(self) -> int:
        return len(self.names)

    def positions(self, k: int) -> slice:
        """Where modal body ``k``'s coordinates are in ``q``."""
        return slice(int(self.q_offset[k]), int(self.q_offset[k] + self.count[k]))

    def velocities(self, k: int) -> slice:
        """Where modal body ``k``'s modal velocities are in ``v``."""
        return slice(int(self.v_offset[k]), int(self.v_offset[k] + self.count[k]))

    def tail(self, k: int) -> slice:
        """Where modal body ``k``'s coordinates are among the modal coordinates alone (the tail of ``q``)."""
        start = int(self.q_offset[k] - self.q_offset[0])
        return slice(start, start + int(self.count[k]))

    def velocity_columns(self, k: int) -> IntArray:
        """(6 + m,) the velocity coordinates of modal body ``k``: its frame's, then its modal ones."""
        frame = rigid.body_columns(int(self.frame[k]))
        return np.r_[np.arange(frame.start, frame.stop), np.arange(self.v_offset[k], self.v_offset[k] + self.count[k])]


def _rotations_from_vectors(theta: FloatArray) -> FloatArray:
    """``exp(skew(theta_k))`` (k, 3, 3) for rotation vectors (k, 3), by Rodrigues' formula."""
    angle = np.linalg.norm(theta, axis=1)
    K = skew(theta)
    small = angle < 1e-8
    safe = np.where(small, 1.0, angle)
    first = np.where(small, 1.0, np.sin(safe) / safe)
    second = np.where(small, 0.5, (1.0 - np.cos(safe)) / safe**2)
    return np.eye(3) + first[:, None, None] * K + second[:, None, None] * (K @ K)


def marker_geometry(
    modal: ModalBodies, q: FloatArray, marker_position: FloatArray, marker_orientation: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The markers' positions from their body's frame origin (nm, 3) [m] and ``R_BM`` (nm, 3, 3) at
    positions ``q``: the undeformed ones, with the markers on modal bodies deformed."""
    positions, orientations = marker_position.copy(), marker_orientation.copy()
    q_f = q[modal.marker_positions]
    markers = modal.marker
    positions[markers] += np.einsum("kim,km->ki", modal.translation_modes, q_f)
    turn = _rotations_from_vectors(np.einsum("kim,km->ki", modal.rotation_modes, q_f))
    orientations[markers] = turn @ marker_orientation[markers]
    return positions, orientations


def add_marker_motion(
    modal: ModalBodies,
    v: FloatArray,
    R_WB: FloatArray,
    w_WB_W: FloatArray,
    v_WM_W: FloatArray,
    w_WM_W: FloatArray,
    bias_WM_W: FloatArray,
) -> None:
    """Add the elastic motion of the markers on modal bodies to their twists and acceleration
    biases (nm, 3 each, world, in place) for velocities ``v``."""
    qdot = v[modal.marker_velocities]
    R = R_WB[modal.marker_frame]
    elastic_velocity = np.einsum("kij,kjm,km->ki", R, modal.translation_modes, qdot)
    markers = modal.marker
    v_WM_W[markers] += elastic_velocity
    w_WM_W[markers] += np.einsum("kij,kjm,km->ki", R, modal.rotation_modes, qdot)
    bias_WM_W[markers] += 2.0 * cross(w_WB_W[modal.marker_frame], elastic_velocity)


def jacobian_entries(
    modal: ModalBodies,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
    p_BM_W: FloatArray,
    R_WB: FloatArray,
) -> tuple[IntArray, IntArray, FloatArray]:
    """``(row, column, value)`` of the modal columns of ``G`` for rows with markers ``i_marker``,
    ``j_marker`` (m,) and world body coefficients (m, 4, 3) (``rigid.body_coefficients``);
    duplicates are to be summed (padding entries are zeros at column 0)."""
    rows, columns, values = [], [], []
    for side, markers in ((0, i_marker), (2, j_marker)):
        slots = modal.slot[markers]
        on_modal = np.flatnonzero(slots >= 0)
        n = slots[on_modal]
        R = R_WB[modal.marker_frame[n]]
        a_v = body_coefficients[on_modal, side]
        a_w = body_coefficients[on_modal, side + 1] - cross(p_BM_W[markers[on_modal]], a_v)  # on the marker twist
        value = np.einsum("rij,ri,rjm->rm", R, a_v, modal.translation_modes[n]) + np.einsum(
            "rij,ri,rjm->rm", R, a_w, modal.rotation_modes[n]
        )
        rows.append(np.repeat(on_modal, value.shape[1]))
        columns.append(modal.marker_velocities[n].reshape(-1))
        values.append(value.reshape(-1))
    return np.concatenate(rows), np.concatenate(columns), np.concatenate(values)


def angular_bias_rhs(
    modal: ModalBodies,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
    p_BM_W: FloatArray,
    w_WB_W: FloatArray,
    w_WM_W: FloatArray,
    marker_body: IntArray,
) -> FloatArray:
    """The part of ``gamma`` (m,) from the angular acceleration bias of markers on modal bodies,
    ``w_WB x R_WB A q_f'`` (their axes turn relative to the frame), which the rows' kernels, written
    for markers that turn with their body, leave out: ``-(a_wI . bias_I + a_wJ . bias_J)``."""
    gamma = np.zeros(len(i_marker))
    for side, markers in ((0, i_marker), (2, j_marker)):
        on_modal = np.flatnonzero(modal.slot[markers] >= 0)
        if not on_modal.size:
            continue
        marker = markers[on_modal]
        w_WB = w_WB_W[marker_body[marker]]
        bias = cross(w_WB, w_WM_W[marker] - w_WB)
        a_v = body_coefficients[on_modal, side]
        a_w = body_coefficients[on_modal, side + 1] - cross(p_BM_W[marker], a_v)  # back to the marker twist
        gamma[on_modal] -= np.einsum("ri,ri->r", a_w, bias)
    return gamma


def _body_velocities(modal: ModalBodies, k: int, v: FloatArray, R_WB: FloatArray) -> tuple[FloatArray, ...]:
    """``(v_O in body axes, w in body axes, q_f')`` of modal body ``k`` whose frame is at ``R_WB`` (3, 3)."""
    frame = v[rigid.body_columns(int(modal.frame[k]))]
    return R_WB.T @ frame[rigid.TRANSLATION], frame[rigid.ROTATION], v[modal.velocities(k)]


def _to_layout(R_WB: FloatArray, m: int) -> FloatArray:
    """``D = diag(R_WB, I3, I_m)``: body-axes velocity coordinates -> the layout's."""
    D = np.eye(6 + m)
    D[:3, :3] = R_WB
    return D


def body_terms(
    modal: ModalBodies, q: FloatArray, v: FloatArray, R_WB: FloatArray, gravity: FloatArray, out: FloatArray
) -> tuple[list[tuple[IntArray, FloatArray]], float]:
    """Add to ``out`` (nv,) the modal bodies' quadratic velocity terms, gravity and modal stiffness
    and damping forces at ``(q, v)``; return per body ``(velocity columns (6+m,), D M(q_f) D^T)`` (its
    mass matrix block in the layout's coordinates) and the power dissipated by the modal damping [W]
    (``q_f'^T C q_f'``)."""
    blocks, dissipated = [], 0.0
    for k, invariants in enumerate(modal.invariants):
        R = R_WB[modal.frame[k]]
        q_f = q[modal.positions(k)]
        v_B, w_B, qdot = _body_velocities(modal, k, v, R)
        u = np.concatenate([v_B, w_B, qdot])
        M, quadratic = invariants.dynamics(q_f, u)
        g_B = R.T @ gravity
        moment_of_weight = cross(invariants.first_moment_at(q_f), g_B)
        weight = np.concatenate([invariants.mass * g_B, moment_of_weight, invariants.translation_coupling.T @ g_B])
        transport = M[:, :3] @ cross(w_B, v_B)  # M [w x v_B; 0; 0]: the world-axes translation's rate
        body_axes = quadratic + transport + weight
        damping_force = modal.damping[k] @ qdot
        spin = float(w_B @ modal.spin_axis[k])
        body_axes[6:] -= (modal.stiffness[k] + spin**2 * modal.spin_stiffness[k]) @ q_f + damping_force
        D = _to_layout(R, qdot.size)
        columns = modal.velocity_columns(k)
        out[columns] += D @ body_axes
        blocks.append((columns, D @ M @ D.T))
        dissipated += float(qdot @ damping_force)
    return blocks, dissipated


def add_mass_matrix(
    blocks: list[tuple[IntArray, FloatArray]], base: np.ndarray | sp.spmatrix
) -> np.ndarray | sp.csr_matrix:
    """``base`` (the rigid bodies' constant mass matrix, zero on modal bodies) plus the modal
    bodies' ``blocks`` (``body_terms``): a new dense array or CSR matrix of the same kind."""
    if sp.issparse(base):
        rows = np.concatenate([np.repeat(columns, columns.size) for columns, _ in blocks])
        cols = np.concatenate([np.tile(columns, columns.size) for columns, _ in blocks])
        values = np.concatenate([block.reshape(-1) for _, block in blocks])
        return (base + sp.csr_matrix((values, (rows, cols)), shape=base.shape)).tocsr()
    M = base.copy()
    for columns, block in blocks:
        M[np.ix_(columns, columns)] += block
    return M


def load_forces(
    modal: ModalBodies,
    force_W: FloatArray,
    torque_W: FloatArray,
    marker: IntArray,
    sign: FloatArray,
    application: IntArray,
    p_WM_W: FloatArray,
    R_WB: FloatArray,
    out: FloatArray,
) -> None:
    """Add to ``out`` (nv,) the modal generalized forces of loads ``sign[k] (force_W[k], torque_W[k])``
    (world) carried by the bodies of markers ``marker`` and applied at the origins of ``application``
    (the arguments of ``rigid.generalized_forces``): ``T^T R^T F + A^T R^T (T + r x F)``, ``r`` from the
    carrying marker to the application point."""
    loaded = np.flatnonzero(modal.slot[marker] >= 0)
    n = modal.slot[marker[loaded]]
    R = R_WB[modal.marker_frame[n]]
    force = sign[loaded, None] * force_W[loaded]
    torque = sign[loaded, None] * torque_W[loaded] + cross(p_WM_W[application[loaded]] - p_WM_W[marker[loaded]], force)
    generalized = np.einsum("kij,ki,kjm->km", R, force, modal.translation_modes[n]) + np.einsum(
        "kij,ki,kjm->km", R, torque, modal.rotation_modes[n]
    )
    np.add.at(out, modal.marker_velocities[n], generalized)


def kinetic_energy(
    modal: ModalBodies,
    q_modal: FloatArray,
    v_WB_W: FloatArray,
    w_WB_B: FloatArray,
    v_modal: FloatArray,
    R_WB: FloatArray,
) -> float:
    """``1/2 u^T M(q_f) u`` [J] summed over the modal bodies, ``u = (v_O, w, q_f')`` in body axes, from
    the modal coordinates and velocities (n_modal,) and the frames' velocities (nb+1, 3) and (nb, 3)."""
    total = 0.0
    for k, invariants in enumerate(modal.invariants):
        b, tail = modal.frame[k], modal.tail(k)
        u = np.concatenate([R_WB[b].T @ v_WB_W[b], w_WB_B[b], v_modal[tail]])
        total += 0.5 * float(u @ invariants.mass_matrix(q_modal[tail]) @ u)
    return total


def potential_energy(
    modal: ModalBodies, q_modal: FloatArray, p_WB_W: FloatArray, R_WB: FloatArray, gravity: FloatArray
) -> float:
    """Strain energy ``1/2 q_f^T K q_f`` plus the gravity potential ``-g . (m p_WO + R_WB s(q_f))`` [J],
    from the modal coordinates (n_modal,) and the frames."""
    total = 0.0
    for k, invariants in enumerate(modal.invariants):
        b, q_f = modal.frame[k], q_modal[modal.tail(k)]
        first_moment_W = invariants.mass * p_WB_W[b] + R_WB[b] @ invariants.first_moment_at(q_f)
        total += 0.5 * float(q_f @ modal.stiffness[k] @ q_f) - float(gravity @ first_moment_W)
    return total
