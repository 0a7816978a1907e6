"""Force element base: a named law acting through markers."""

from __future__ import annotations

from multibody.model.element import Element
from multibody.model.marker import Marker


class ForceElement(Element):
    """A force element. ``i_marker`` receives the action; ``j_marker`` (if any) the reaction."""

    kind = "force"

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker | None = None) -> None:
        super().__init__(name)
        self.i_marker = i_marker
        self.j_marker = j_marker

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker,) if self.j_marker is None else (self.i_marker, self.j_marker)
