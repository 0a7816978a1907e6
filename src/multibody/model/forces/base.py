"""Force element base: a named law acting through markers."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from multibody.model.element import Element
from multibody.model.marker import Marker, check_marker_pair

NO_STATES = np.zeros(0)
NO_STATES.flags.writeable = False


class ForceElement(Element):
    """A force element. ``i_marker`` receives the action; ``j_marker`` (if any) the reaction."""

    kind = "force"
    marker_roles: tuple[str, ...] = ("i_marker", "j_marker")
    """The constructor's names for the markers it takes: one (action only) or two (I and J)."""
    initial_states: NDArray[np.float64] = NO_STATES
    """(n,) initial values of the element's first-order states (none by default); the integrators
    advance them with the mechanical ones and the element's kernel gives their rates."""
    read_joints: tuple = ()
    """joints and motions whose multipliers the element's kernel reads (Newton takes the coupling)"""

    @property
    def state_scales(self) -> NDArray[np.float64]:
        """(n,) a typical size of each first-order state, in its units: the size below which a
        change is small (finite-difference steps, statics' scaling). Default ``max(|initial|, 1)``;
        an element whose states live on another scale (a bristle deflection of micrometres) says so."""
        return np.maximum(np.abs(self.initial_states), 1.0)

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker | None = None) -> None:
        super().__init__(name)
        markers = dict(zip(self.marker_roles, (i_marker, j_marker)))
        check_marker_pair(self, markers, "connect two different bodies" if len(markers) == 2 else None)
        self.i_marker = i_marker
        self.j_marker = j_marker

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker,) if self.j_marker is None else (self.i_marker, self.j_marker)
