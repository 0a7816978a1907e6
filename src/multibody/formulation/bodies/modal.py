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
the modes. Every per-evaluation term is one compiled pass over all modal bodies or all their markers
(``multibody.formulation.bodies.modal_kernel``) on arrays ``ModalBodies`` stacks once (its cached
properties); the functions here pass them on, with the signatures of the ``BodyKind`` hooks
(``multibody.formulation.bodies.kind``), and ``KIND`` registers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from multibody.formulation.bodies import modal_kernel, rigid
from multibody.formulation.bodies.kind import BodyKind, MatrixEntries

if TYPE_CHECKING:
    from multibody.fem.invariants import ModalInvariants
    from multibody.formulation.frames import Pose, Twist
    from multibody.system.system import System

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

    @cached_property
    def marker_count(self) -> IntArray:
        """(nk,) for each marker on a modal body, its body's number of modes."""
        owner = {int(b): k for k, b in enumerate(self.frame)}
        return np.array([self.count[owner[int(b)]] for b in self.marker_frame], dtype=np.int64)

    @cached_property
    def marker_arrays(self) -> tuple:
        """``(slot, marker, marker_frame, marker_positions, marker_velocities, marker_count,
        translation_modes, rotation_modes)`` as the compiled marker kernels (``modal_kernel``) take them."""
        return (
            self.slot,
            self.marker,
            self.marker_frame,
            self.marker_positions,
            self.marker_velocities,
            self.marker_count,
            np.ascontiguousarray(self.translation_modes),
            np.ascontiguousarray(self.rotation_modes),
        )

    @cached_property
    def kernel_arrays(self) -> tuple:
        """The bodies' invariants, stiffness, damping and spin stiffening stacked and zero-padded to the
        most modes ``mm`` of any body, as ``modal_kernel.body_terms`` takes them: ``(mass (nf,),
        first_moment (nf, 3), inertia (nf, 3, 3), translation_coupling (nf, 3, mm), rotation_coupling (nf,
        3, mm), modal_mass (nf, mm, mm), position_modes (nf, mm, 3, 3), mode_products (nf, mm, mm, 3, 3),
        cross_products (nf, mm, mm, 3), stiffness, damping, spin_stiffness (nf, mm, mm each), spin_axis
        (nf, 3))``."""
        most = int(self.count.max())

        def stacked(arrays: list[FloatArray], axes: tuple[int, ...]) -> FloatArray:
            """``arrays`` zero-padded to ``most`` along ``axes`` and stacked."""
            padded = []
            for array in arrays:
                width = [(0, 0)] * array.ndim
                for axis in axes:
                    width[axis] = (0, most - array.shape[axis])
                padded.append(np.pad(array, width))
            return np.ascontiguousarray(np.stack(padded), dtype=float)

        invariants = self.invariants
        return (
            np.array([inv.mass for inv in invariants], dtype=float),
            stacked([inv.first_moment for inv in invariants], ()),
            stacked([inv.inertia for inv in invariants], ()),
            stacked([inv.translation_coupling for inv in invariants], (1,)),
            stacked([inv.rotation_coupling for inv in invariants], (1,)),
            stacked([inv.modal_mass for inv in invariants], (0, 1)),
            stacked([inv.position_modes for inv in invariants], (0,)),
            stacked([inv.mode_products for inv in invariants], (0, 1)),
            stacked([inv.cross_products for inv in invariants], (0, 1)),
            stacked(list(self.stiffness), (0, 1)),
            stacked(list(self.damping), (0, 1)),
            stacked(list(self.spin_stiffness), (0, 1)),
            np.ascontiguousarray(self.spin_axis, dtype=float),
        )

    @cached_property
    def block_entries(self) -> tuple[IntArray, IntArray, IntArray]:
        """``(block_start (nf,), row, column)``: where each body's mass block ``D M D^T`` ((6+m)^2,
        row-major) starts in the flat array of ``body_terms``, and each entry's place in ``M`` (no two
        alike: the bodies' velocity coordinates are disjoint)."""
        columns = [self.velocity_columns(k) for k in range(len(self))]
        sizes = np.array([c.size**2 for c in columns], dtype=np.int64)
        start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
        rows = np.concatenate([np.repeat(c, c.size) for c in columns])
        return start, rows, np.concatenate([np.tile(c, c.size) for c in columns])


def marker_geometry(
    modal: ModalBodies, q: FloatArray, marker_position: FloatArray, marker_orientation: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The markers' positions from their body's frame origin (nm, 3) [m] and ``R_BM`` (nm, 3, 3) at
    positions ``q``: the undeformed ones, with the markers on modal bodies deformed (compiled,
    ``modal_kernel.deform_markers``)."""
    positions, orientations = marker_position.copy(), marker_orientation.copy()
    _, markers, _, marker_positions, _, count, translation_modes, rotation_modes = modal.marker_arrays
    modal_kernel.deform_markers(
        q, markers, marker_positions, count, translation_modes, rotation_modes, positions, orientations
    )
    return positions, orientations


def add_marker_motion(
    modal: ModalBodies,
    system: System,
    frames: Pose,
    v: FloatArray,
    w_WB_W: FloatArray,
    v_WM_W: FloatArray,
    w_WM_W: FloatArray,
    bias_WM_W: FloatArray,
) -> None:
    """Add the elastic motion of the markers on modal bodies to their twists and acceleration
    biases (nm, 3 each, world, in place) for velocities ``v`` (n_velocities,) at ``frames``, the
    frames' angular velocities ``w_WB_W`` (nb+1, 3) [rad/s] (compiled, ``modal_kernel.add_marker_motion``)."""
    _, markers, marker_frame, _, marker_velocities, count, translation_modes, rotation_modes = modal.marker_arrays
    modal_kernel.add_marker_motion(
        v,
        markers,
        marker_frame,
        marker_velocities,
        count,
        translation_modes,
        rotation_modes,
        frames.R_WB,
        w_WB_W,
        v_WM_W,
        w_WM_W,
        bias_WM_W,
    )


def jacobian_entries(
    modal: ModalBodies,
    system: System,
    frames: Pose,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
) -> MatrixEntries:
    """``(row, column, value)`` of the modal columns of ``G`` for rows with markers ``i_marker``,
    ``j_marker`` (m,) and world body coefficients (m, 4, 3) (``rigid.body_coefficients``):
    ``a_v . R_WB T + a_w . R_WB A`` per row side on a modal body's marker, ``(a_v, a_w)`` the row's
    coefficients on the marker twist; duplicates are to be summed (compiled, ``modal_kernel.jacobian_entries``)."""
    slot, _, marker_frame, _, marker_velocities, count, translation_modes, rotation_modes = modal.marker_arrays
    return modal_kernel.jacobian_entries(
        slot,
        marker_frame,
        marker_velocities,
        count,
        translation_modes,
        rotation_modes,
        i_marker,
        j_marker,
        np.ascontiguousarray(body_coefficients),
        frames.p_BM_W,
        frames.R_WB,
    )


def angular_bias_rhs(
    modal: ModalBodies,
    system: System,
    frames: Pose,
    motion: Twist,
    q: FloatArray,
    v: FloatArray,
    i_marker: IntArray,
    j_marker: IntArray,
    body_coefficients: FloatArray,
) -> FloatArray:
    """The part of ``gamma`` (m,) from the angular acceleration bias of markers on modal bodies,
    ``w_WB x R_WB A q_f'`` (their axes turn relative to the frame), which the rows' kernels, written
    for markers that turn with their body, leave out: ``-(a_wI . bias_I + a_wJ . bias_J)`` (compiled,
    ``modal_kernel.angular_bias_rhs``)."""
    return modal_kernel.angular_bias_rhs(
        modal.slot,
        i_marker,
        j_marker,
        np.ascontiguousarray(body_coefficients),
        frames.p_BM_W,
        motion.w_WB_W,
        motion.w_WM_W,
        system.marker_body,
    )


def body_terms(
    modal: ModalBodies,
    system: System,
    frames: Pose,
    motion: Twist,
    q: FloatArray,
    v: FloatArray,
    elements: bool,
    out: FloatArray,
) -> tuple[tuple[MatrixEntries], float]:
    """Add to ``out`` (nv,) the modal bodies' quadratic velocity terms, gravity and modal stiffness
    and damping forces at ``(q, v)`` (n_positions,), (n_velocities,) and ``frames``; return their mass
    matrix blocks ``D M(q_f) D^T`` in the layout's coordinates as ``(row, column, value)`` entries of
    ``M`` and the power dissipated by the modal damping [W] (``q_f'^T C q_f'``). One compiled pass over
    the bodies (``modal_kernel.body_terms``); the kind has no element terms (``elements`` is not read)."""
    start, rows, columns = modal.block_entries
    values = np.empty(rows.size)
    dissipated = modal_kernel.body_terms(
        q,
        v,
        frames.R_WB,
        system.gravity,
        modal.frame,
        modal.q_offset,
        modal.v_offset,
        modal.count,
        *modal.kernel_arrays,
        start,
        out,
        values,
    )
    return ((rows, columns, values),), dissipated


def load_forces(
    modal: ModalBodies,
    system: System,
    frames: Pose,
    force_W: FloatArray,
    torque_W: FloatArray,
    marker: IntArray,
    sign: FloatArray,
    application: IntArray,
    out: FloatArray,
) -> None:
    """Add to ``out`` (nv,) the modal generalized forces of loads ``sign[k] (force_W[k], torque_W[k])``
    (world) carried by the bodies of markers ``marker`` and applied at the origins of ``application``
    (the arguments of ``rigid.generalized_forces``): ``T^T R^T F + A^T R^T (T + r x F)``, ``r`` from the
    carrying marker to the application point (compiled, ``modal_kernel.load_forces``)."""
    slot, _, marker_frame, _, marker_velocities, count, translation_modes, rotation_modes = modal.marker_arrays
    modal_kernel.load_forces(
        slot,
        marker_frame,
        marker_velocities,
        count,
        translation_modes,
        rotation_modes,
        np.ascontiguousarray(force_W, dtype=float),
        np.ascontiguousarray(torque_W, dtype=float),
        marker,
        np.ascontiguousarray(sign, dtype=float),
        application,
        frames.p_WM_W,
        frames.R_WB,
        out,
    )


def kinetic_energy(modal: ModalBodies, system: System, frames: Pose, motion: Twist) -> float:
    """``1/2 u^T M(q_f) u`` [J] summed over the modal bodies, ``u = (v_O, w, q_f')`` in body axes, from
    the modal coordinates and velocities and the frames' velocities."""
    total = 0.0
    for k, invariants in enumerate(modal.invariants):
        b, tail = modal.frame[k], modal.tail(k)
        u = np.concatenate([frames.R_WB[b].T @ motion.v_WB_W[b], motion.w_WB_B[b], motion.v_modal[tail]])
        total += 0.5 * float(u @ invariants.mass_matrix(frames.q_modal[tail]) @ u)
    return total


def potential_energy(modal: ModalBodies, system: System, frames: Pose) -> float:
    """Strain energy ``1/2 q_f^T K q_f`` plus the gravity potential ``-g . (m p_WO + R_WB s(q_f))`` [J],
    from the modal coordinates and the frames."""
    total = 0.0
    for k, invariants in enumerate(modal.invariants):
        b, q_f = modal.frame[k], frames.q_modal[modal.tail(k)]
        first_moment_W = invariants.mass * frames.p_WB_W[b] + frames.R_WB[b] @ invariants.first_moment_at(q_f)
        total += 0.5 * float(q_f @ modal.stiffness[k] @ q_f) - float(system.gravity @ first_moment_W)
    return total


def add_velocity_groups(modal: ModalBodies, columns: list[IntArray]) -> None:
    """Join each modal body's modal velocities to its frame's coupling group in ``columns`` (in place):
    the group becomes ``ModalBodies.velocity_columns``."""
    for k, b in enumerate(modal.frame):
        columns[b] = modal.velocity_columns(k)


def coordinate_scale(modal: ModalBodies, length: float) -> list[FloatArray]:
    """Per modal body, a typical size of its modal coordinates: ``sqrt(m) length`` [sqrt(kg) m], a
    deflection of ``length`` [m] over the body."""
    return [np.full(int(n), np.sqrt(inv.mass) * length) for n, inv in zip(modal.count, modal.invariants)]


def coordinate_names(modal: ModalBodies, balance: bool) -> list[str]:
    """Per modal coordinate, "body 'b' mode k" (``balance``: "body 'b' modal force k")."""
    word = "modal force" if balance else "mode"
    return [f"body '{name}' {word} {k + 1}" for name, count in zip(modal.names, modal.count) for k in range(count)]


KIND = BodyKind(
    name="modal",
    system_field="modal",
    description="flexible bodies",
    marker_geometry=marker_geometry,
    add_marker_motion=add_marker_motion,
    jacobian_entries=jacobian_entries,
    angular_bias_rhs=angular_bias_rhs,
    load_forces=load_forces,
    body_terms=body_terms,
    kinetic_energy=kinetic_energy,
    potential_energy=potential_energy,
    add_velocity_groups=add_velocity_groups,
    coordinate_scale=coordinate_scale,
    coordinate_names=coordinate_names,
)
