"""User forces: a Python law that may read any markers, its own first-order states and the
multipliers of joints, and returns a load and the rates of its states.

This is the engine's general hook for force families that carry state or feel reactions (a
viscoelastic Maxwell element, a bristle friction model loaded by a joint's reaction, a hydraulic
chamber pressure, a controller): the law is called once per evaluation of the equations, and
the integrators advance its states with the mechanical ones (``State.x``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import ModelError
from multibody.model.forces.applied import MarkerState
from multibody.model.forces.base import ForceElement
from multibody.model.joints.base import Joint
from multibody.model.marker import Marker
from multibody.model.motion import Motion

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class UserForceInput:
    """What a ``UserForce`` law is told at one instant.

    ``t`` [s]; ``states`` (n,) the element's own first-order states; ``marker(m)`` the world pose
    and motion of any marker the element reads (its I and J markers and ``reads``);
    ``multipliers(joint)`` the Lagrange multipliers (one per active constraint row of the joint,
    [N] for translational rows, [N m] for rotational ones: the constraint force on the joint's I
    body is ``-G_I^T lambda``).
    """

    t: float
    states: FloatArray
    markers: dict[str, MarkerState]
    """by full marker name (``body/marker``)"""
    joint_multipliers: dict[str, FloatArray]
    """by joint name"""

    def marker(self, marker: Marker | str) -> MarkerState:
        """Pose and motion of ``marker`` (one the element declared it reads), world components."""
        name = marker.full_name if isinstance(marker, Marker) else marker
        try:
            return self.markers[name]
        except KeyError:
            raise ModelError(
                f"the law reads marker '{name}', which its UserForce does not declare (reads= or its I/J markers)"
            ) from None

    def multipliers(self, joint: Joint | Motion | str) -> FloatArray:
        """Multipliers of ``joint``'s active rows (one the element declared in ``joints=``)."""
        name = joint if isinstance(joint, str) else joint.name
        try:
            return self.joint_multipliers[name]
        except KeyError:
            raise ModelError(
                f"the law reads the multipliers of '{name}', which its UserForce does not declare in joints="
            ) from None


UserLaw = Callable[[UserForceInput], tuple]
"""``inputs -> (force (3,) [N], torque (3,) [N m])`` or ``(force, torque, state_rates (n,))``: the
force at the I marker's origin and the torque on I's body, world components."""


class UserForce(ForceElement):
    """A force and torque on ``i_marker`` from ``law`` (see ``UserLaw``); ``j_marker`` (optional)
    takes the reaction at the same point.

    ``reads``: further markers the law reads; ``states``: initial values of the element's
    first-order states (their rates are the law's third return value); ``joints``: joints or
    motions whose multipliers the law reads (the Newton iteration then includes the coupling).
    The law's power is counted as work put in (``energy["input"]``).
    """

    marker_roles = ("i_marker", "j_marker")

    def __init__(
        self,
        name: str,
        i_marker: Marker,
        law: UserLaw,
        j_marker: Marker | None = None,
        reads: Sequence[Marker] = (),
        states: ArrayLike = (),
        joints: Sequence[Joint | Motion] = (),
    ) -> None:
        if j_marker is None:
            self.marker_roles = ("i_marker",)
        super().__init__(name, i_marker, j_marker)
        if not callable(law):
            raise ModelError(f"{self.describe()}: law must be a callable law(inputs) -> (force, torque[, rates])")
        for marker in reads:
            if not isinstance(marker, Marker):
                raise ModelError(f"{self.describe()}: reads= takes markers, got {marker!r}")
        for joint in joints:
            if not isinstance(joint, (Joint, Motion)):
                raise ModelError(f"{self.describe()}: joints= takes joints or motions, got {joint!r}")
        try:
            initial = np.asarray(states, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ModelError(
                f"{self.describe()}: states= must be numbers (initial state values), got {states!r}"
            ) from None
        if not np.all(np.isfinite(initial)):
            raise ModelError(f"{self.describe()}: initial states must be finite, got {states!r}")
        self.law = law
        self.reads = tuple(reads)
        self.initial_states = initial
        self.read_joints = tuple(joints)

    def attached_markers(self) -> tuple[Marker, ...]:
        """The I and J markers, then every other marker the law reads."""
        own = super().attached_markers()
        return own + tuple(m for m in self.reads if m not in own)
