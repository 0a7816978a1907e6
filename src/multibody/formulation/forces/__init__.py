"""Force elements of the Cartesian formulation: loads, their generalized forces, energy and power.

Every element produces, per instant, a force ``F`` [N] at the origin of its I marker and a
couple ``T`` [N m] (world components) on I's body; a two-marker element puts ``-F`` at the same
point and ``-T`` on J's body (for a spring along the line I-J this equals ``-F`` at J).

Each family is one kernel file in this package (``spring_damper``, ``bushing``, ``applied``,
``expression``, ``user`` ...) holding a ``ForceFamily`` (``family``), registered once in
``registry``; ``element_loads`` calls each family's kernel once per evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from multibody.formulation.bodies import rigid
from multibody.formulation.forces.family import ForceGroup, LoadInputs, LoadOutputs
from multibody.formulation.frames import Pose, Twist
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


@dataclass(frozen=True)
class ElementLoads:
    """Loads of all force elements at one instant, in ``System.force_names`` order."""

    force_W: FloatArray
    """(nf, 3) force on I at I's origin [N]"""
    torque_W: FloatArray
    """(nf, 3) couple on I [N m]"""
    value: FloatArray
    """(nf,) the element's scalar: spring force along the line (+ pushes apart) [N], torsion
    torque [N m], bushing force magnitude [N], applied load magnitude"""
    potential_energy: float
    """energy stored in springs and bushings [J]"""
    dissipated_power: float
    """power taken out of the system by dampers [W] (>= 0 for positive damping)"""
    input_power: float
    """power put into the system by actuators, applied loads and user laws [W]"""
    state_rate: FloatArray
    """(nx,) rates of the first-order states of the elements that carry them"""

    @property
    def nonconservative_power(self) -> float:
        """Net power of everything that is not a potential force [W]: input less dissipation."""
        return self.input_power - self.dissipated_power


def _read_only(array: FloatArray) -> FloatArray:
    array.flags.writeable = False
    return array


NO_LOADS = ElementLoads(
    _read_only(np.zeros((0, 3))),
    _read_only(np.zeros((0, 3))),
    _read_only(np.zeros(0)),
    0.0,
    0.0,
    0.0,
    _read_only(np.zeros(0)),
)
"""The loads of a model without force elements (and so without first-order states)."""


def element_loads(
    system: System,
    frames: Pose,
    motion: Twist,
    x: FloatArray | None = None,
    lam: FloatArray | None = None,
    groups: Sequence[ForceGroup] | None = None,
) -> ElementLoads:
    """Evaluate every force element at ``frames`` / ``motion`` (time ``frames.t``), first-order
    states ``x`` (nx,; default: the initial ones) and multipliers ``lam`` (m,; default zero) of
    the active rows: each family's kernel once (``System.force_groups``; only ``groups`` of them
    when given, the other elements' rows left zero)."""
    nf = len(system.force_names)
    inputs = LoadInputs(
        frames.t,
        system,
        frames,
        motion,
        system.x0 if x is None else x,
        np.zeros(len(system.rows)) if lam is None else lam,
    )
    out = LoadOutputs(np.zeros((nf, 3)), np.zeros((nf, 3)), np.zeros(nf), np.zeros(system.n_states))
    for group in system.force_groups if groups is None else groups:
        group.family.loads(group.arrays, inputs, out)
    return ElementLoads(
        out.force, out.torque, out.value, out.potential, out.dissipated, out.input_power, out.state_rate
    )


def contact_names(system: System) -> tuple[str, ...]:
    """Names of the force elements that report contact quantities (``ForceFamily.contact``), in
    the order ``contact_quantities`` gives them."""
    return tuple(
        system.force_names[k] for group in system.force_groups if group.family.contact for k in group.arrays.element
    )


def contact_quantities(
    system: System, frames: Pose, motion: Twist, x: FloatArray, lam: FloatArray
) -> dict[str, FloatArray]:
    """Contact quantities (``multibody.results.ContactHistory``) of the ``contact_names``
    elements at one instant, each ``(n, ...)``."""
    inputs = LoadInputs(frames.t, system, frames, motion, x, lam)
    parts = [group.family.contact(group.arrays, inputs) for group in system.force_groups if group.family.contact]
    return {quantity: np.concatenate([part[quantity] for part in parts]) for quantity in parts[0]}


def step_limit(system: System, frames: Pose, motion: Twist, x: FloatArray) -> float:
    """The longest time step [s] the force elements allow from this instant (the smallest of the
    families' ``step_limit``; inf when none limits)."""
    inputs = LoadInputs(frames.t, system, frames, motion, x, np.zeros(len(system.rows)))
    limits = [group.family.step_limit(group.arrays, inputs) for group in system.force_groups if group.family.step_limit]
    return min(limits, default=np.inf)


def generalized_element_forces(system: System, frames: Pose, loads: ElementLoads) -> FloatArray:
    """Generalized forces (nb+1, 6) of the element loads: world force and body-axes moment about
    the CM (``J^T`` of each loaded marker's body kind). The I marker's body takes ``(F, T)`` at I's
    origin, the J marker's body ``(-F, -T)`` at the same point; the last row (ground) collects the
    loads on ground and is discarded by callers."""
    element, marker, sign, application = system.force_load_points
    if not element.size:
        return np.zeros((system.n_bodies + 1, 6))
    return rigid.generalized_forces(
        loads.force_W[element],
        loads.torque_W[element],
        marker,
        sign,
        system.marker_body,
        frames.p_BM_W,
        frames.p_WM_W,
        frames.R_WB,
        application,
    )


def add_tail_element_forces(system: System, frames: Pose, loads: ElementLoads, out: FloatArray) -> None:
    """Add to ``out`` (nv,) the generalized forces of the element loads on the coordinates after the
    frames', those of the other body kinds (``BodyKind.load_forces``: flexible bodies' modal
    coordinates, cable nodes); the frames' part is ``generalized_element_forces``."""
    element, marker, sign, application = system.force_load_points
    force, torque = loads.force_W[element], loads.torque_W[element]
    for kind, group in system.body_kinds:
        if kind.load_forces is not None:
            kind.load_forces(group, system, frames, force, torque, marker, sign, application, out)
