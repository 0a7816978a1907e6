"""Force element base: a named law acting through markers."""

from __future__ import annotations

from multibody.model.element import Element, ModelError
from multibody.model.marker import Marker


class ForceElement(Element):
    """A force element. ``i_marker`` receives the action; ``j_marker`` (if any) the reaction."""

    kind = "force"
    marker_roles: tuple[str, ...] = ("i_marker", "j_marker")
    """The constructor's names for the markers it takes: one (action only) or two (I and J)."""

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker | None = None) -> None:
        super().__init__(name)
        for role, marker in zip(self.marker_roles, (i_marker, j_marker)):
            if not isinstance(marker, Marker):
                raise ModelError(f"{self.describe()}: {role} must be a Marker (from body.add_marker), got {marker!r}")
        if len(self.marker_roles) == 2 and i_marker.body is j_marker.body:
            raise ModelError(
                f"{self.describe()}: both markers are on {i_marker.body.describe()}; connect two different bodies"
            )
        self.i_marker = i_marker
        self.j_marker = j_marker

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker,) if self.j_marker is None else (self.i_marker, self.j_marker)
