"""The protocol of a force family: how its elements become arrays, and how they give loads.

A family is one model file (``multibody.model.forces.<family>``: the element class the user
writes) and one kernel file (``multibody.formulation.forces.<family>``) holding a
``ForceFamily``, registered once in ``multibody.formulation.forces.registry``. At compile time
``group`` turns the family's elements into a struct of arrays; at every evaluation ``loads``
fills the family's rows of ``LoadOutputs``, vectorized over the group.

First-order states and multiplier reads are declared by the element itself
(``ForceElement.initial_states``, ``ForceElement.read_joints``): the System lays the states out,
the integrators advance them and Newton takes the coupling, whatever the family.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from multibody.formulation.frames import Pose, Twist
from multibody.model.forces.base import ForceElement
from multibody.model.joints.base import Joint
from multibody.model.marker import Marker
from multibody.model.motion import Motion
from multibody.spatial.rotations import FloatArray

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class GroupContext:
    """What a family's ``group`` builder may look up while the model is numbered."""

    marker: Callable[[Marker], int]
    """the index of a marker in ``System.marker_names``"""
    constraint: Callable[[Joint | Motion], int]
    """the index of a joint or motion in ``System.constraint_names``"""
    states: Callable[[ForceElement], slice]
    """where an element's first-order states sit in ``x``"""


@dataclass(frozen=True)
class LoadInputs:
    """One instant as the force kernels see it: time, marker states, first-order states and
    multipliers. Marker arrays are world components, indexed like ``System.marker_names``."""

    t: float
    """[s]"""
    system: Any
    """the ``System``"""
    frames: Pose
    motion: Twist
    x: FloatArray
    """(nx,) first-order states"""
    lam: FloatArray
    """(m,) multipliers of the active rows (``System.active_rows_of`` gives a joint's)"""

    @property
    def p_M(self) -> FloatArray:
        """(nm, 3) marker origins [m]"""
        return self.frames.p_WM_W

    @property
    def R_WM(self) -> FloatArray:
        """(nm, 3, 3) marker orientations"""
        return self.frames.R_WM

    @property
    def v_M(self) -> FloatArray:
        """(nm, 3) marker origin velocities [m/s]"""
        return self.motion.v_WM_W

    @property
    def w_M(self) -> FloatArray:
        """(nm, 3) marker angular velocities [rad/s]"""
        return self.motion.w_WM_W


@dataclass
class LoadOutputs:
    """What the families write at one instant (rows in ``System.force_names`` order)."""

    force: FloatArray
    """(nf, 3) force on I at I's origin [N], world"""
    torque: FloatArray
    """(nf, 3) couple on I's body [N m], world; J takes ``-force`` at the same point and ``-torque``"""
    value: FloatArray
    """(nf,) the element's scalar (spring force along the line, torque, load magnitude ...)"""
    state_rate: FloatArray
    """(nx,) rates of the first-order states"""
    potential: float = 0.0
    """energy stored in the elements [J]"""
    dissipated: float = 0.0
    """power taken out by dampers and friction [W] (>= 0)"""
    input_power: float = 0.0
    """power put in by actuators, applied loads and user laws [W]"""


GroupBuilder = Callable[[Sequence[tuple[int, ForceElement]], GroupContext], Any]
"""``(members as (element index, element), context) -> group``: a frozen struct of arrays that
has ``element`` (IntArray, indices into ``System.force_names``)."""
LoadKernel = Callable[[Any, LoadInputs, LoadOutputs], None]
"""``(group, inputs, outputs)``: write the group's rows of ``outputs`` and add its energies."""
StepLimit = Callable[[Any, LoadInputs], float]
"""``(group, inputs) -> step [s]``: the longest time step the family's elements allow from this
instant (contact: the time in which no pair that is apart can go more than a fraction of its
smaller body into the other, so that no step jumps over a touch)."""
LoadTangents = Callable[[Any, LoadInputs], tuple[FloatArray, FloatArray]]
"""``(group, inputs) -> (load_displacement, load_velocity)``, each (ne, 6, 12), per element of the group
in the order of its ``element``: the derivatives of the element's load as ``loads`` writes it, rows
``(F (3) [N], T (3) [N m])`` (the force at I's origin and the couple on I's body, world; J takes their
negatives), with respect to its two markers' motion, the markers moved independently of their bodies:

- ``load_displacement``, columns ``(dp_I, dtheta_I, dp_J, dtheta_J)``: world displacement [m] of a
  marker's origin and world small rotation [rad] of its frame (``R_WM -> exp(skew(dtheta)) R_WM``),
  units N/m, N/rad, N m/m, N m/rad;
- ``load_velocity``, columns ``(v_I, w_I, v_J, w_J)``: the markers' origin velocities [m/s] and
  angular velocities [rad/s] (``LoadInputs.v_M``, ``w_M``), units N s/m, N s/rad, N m s/m, N m s/rad.

A one-marker element leaves J's columns zero. The formulation chains them through the bodies'
kinematics and ``J^T`` (``multibody.formulation.forces.tangents``)."""
ContactKernel = Callable[[Any, LoadInputs], dict[str, FloatArray]]
"""``(group, inputs) -> {quantity: (n, ...) array}``: what a contact-like family reports per
element at an output instant (the quantities of ``multibody.results.ContactHistory``)."""


@dataclass(frozen=True)
class ForceFamily:
    """A force family: the element classes it takes, its compile step and its load kernel."""

    name: str
    """snake case, unique ("spring_damper")"""
    element_types: tuple[type[ForceElement], ...]
    group: GroupBuilder
    loads: LoadKernel
    contact: ContactKernel | None = None
    """for families whose elements touch or slide (contact, friction): their contact quantities,
    recorded in the results as ``res.contact(name)``"""
    step_limit: StepLimit | None = None
    """for families whose elements must not be stepped over (contact): the integrators' step
    size is held below it"""
    tangents: LoadTangents | None = None
    """for families whose loads read only their markers' motion (``LoadInputs.p_M``, ``R_WM``, ``v_M``,
    ``w_M``) and time: the analytic derivatives of the loads, which the Newton matrices take instead of
    finite differences when every marker of the group is on a rigid body or on ground"""


@dataclass(frozen=True)
class ForceGroup:
    """A family's compiled elements, as stored in the System."""

    family: ForceFamily
    arrays: Any
    """the family's struct of arrays (has ``element``)"""


def load_power(F: FloatArray, T: FloatArray, i: int, j: int, inputs: LoadInputs) -> float:
    """Power [W] of force ``F`` (3,) at marker ``i``'s origin and torque ``T`` (3,) on its body,
    with marker ``j``'s body (``j >= 0``) taking ``-F`` at the same point and ``-T``."""
    p_M, v_M, w_M = inputs.p_M, inputs.v_M, inputs.w_M
    v_rel, w_rel = v_M[i], w_M[i]
    if j >= 0:
        v_rel = v_rel - v_M[j] - np.cross(w_M[j], p_M[i] - p_M[j])
        w_rel = w_rel - w_M[j]
    return float(F @ v_rel + T @ w_rel)


def element_indices(members: Sequence[tuple[int, ForceElement]]) -> IntArray:
    """The ``element`` array of a group: indices into ``System.force_names``."""
    return np.array([k for k, _ in members], dtype=np.int64)


def marker_indices(members: Sequence[tuple[int, ForceElement]], context: GroupContext, role: str) -> IntArray:
    """Per member, the index of the marker in attribute ``role`` (``"i_marker"``, ``"j_marker"``)."""
    return np.array([context.marker(getattr(f, role)) for _, f in members], dtype=np.int64)


def parameters(members: Sequence[tuple[int, ForceElement]], attribute: str, shape: tuple[int, ...] = ()) -> FloatArray:
    """Per member, the float parameter ``attribute`` stacked to ``(n, *shape)``."""
    return np.array([getattr(f, attribute) for _, f in members], dtype=float).reshape((-1, *shape))
