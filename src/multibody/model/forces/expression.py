"""Force elements whose law reads the state of any markers (ADAMS SFORCE, VFORCE, VTORQUE, GFORCE).

The law is given as a ``StateLaw``: it names the markers it reads and, once the model is
compiled and those markers are numbered, becomes a function of a ``Measurements`` (every
marker's pose and motion at the instant) returning the force [N] at the I origin and the torque
[N m] on I's body, world components. A J marker, when given, receives the opposite force at the
same point and the opposite torque (for ADAMS's JFLOAT, a floating marker, that is exactly its
meaning: the reaction acts where I is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.marker import Marker
from multibody.spatial.measurements import Measurements

BoundLaw = Callable[[Measurements], tuple[NDArray[np.float64], NDArray[np.float64]]]
"""``measurements -> (force (3,) [N], torque (3,) [N m])``, world components."""


class StateLaw(Protocol):
    """A load law that reads marker states."""

    markers: tuple[Marker, ...]
    """The markers the law reads, in the order ``bind`` receives their indices."""

    def bind(self, marker_indices: Sequence[int]) -> BoundLaw:
        """The law for a compiled system in which ``markers`` have indices ``marker_indices``."""
        ...


class StateDependentLoad(ForceElement):
    """A force and torque on ``i_marker`` from ``law``; ``j_marker`` (optional) takes the reaction."""

    marker_roles = ("i_marker", "j_marker")

    def __init__(self, name: str, i_marker: Marker, law: StateLaw, j_marker: Marker | None = None) -> None:
        if j_marker is None:
            self.marker_roles = ("i_marker",)
        super().__init__(name, i_marker, j_marker)
        if not callable(getattr(law, "bind", None)) or not isinstance(getattr(law, "markers", None), tuple):
            raise ModelError(f"{self.describe()}: law must have a markers tuple and a bind(marker_indices) method")
        for marker in law.markers:
            if not isinstance(marker, Marker):
                raise ModelError(f"{self.describe()}: the law reads {marker!r}, which is not a Marker")
        self.law = law

    def attached_markers(self) -> tuple[Marker, ...]:
        """The I and J markers, then every other marker the law reads."""
        own = super().attached_markers()
        return own + tuple(m for m in self.law.markers if m not in own)
