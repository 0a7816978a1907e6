"""Joint base: a joint is a named set of constraint primitives between an I and a J marker.

The meaning of I and J is ADAMS's: the joint axis is the markers' z-axis, and displacements
are of I relative to J, ``d = p_I - p_J``. Each constraint row is one of a few primitive kinds
evaluated in vectorized groups by the formulation:

``coincident``   ``d . e_k = 0`` for world axis ``k`` (3 rows make a spherical joint)
``perpendicular`` ``a_I . b_J = 0`` for axis ``a`` of marker I and axis ``b`` of marker J
``in_plane``      ``b_J . d = 0`` for axis ``b`` of marker J
``distance``      ``|d| - L = 0``
``rim_tangent``   ``a_I . d_r = 0`` for axis ``a`` of marker I, ``d_r`` the part of ``d`` normal to J's z-axis
                  (a rope leaving a rim or a drum's helix tangentially)
``on_cylinder``   ``|d_r| - r = 0``: I's origin on the cylinder of radius ``r`` about J's z-axis
``rim_material``  ``s - s_ref - k psi = 0``: a material coordinate ``s`` of marker I's body against the
                  angle ``psi`` of I's origin about J's z-axis (``k = sense r``; ``k = 0`` holds ``s``)
``groove``        ``z_J . d - c (s - s_ref) = 0``: I's origin along J's z-axis following a material
                  coordinate (a drum's helical groove: ``c`` its axial advance per length of rope)
``rotation_driver`` / ``translation_driver``  joint coordinates prescribed by a ``Motion``
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from multibody.model.element import Element
from multibody.model.marker import Marker, check_marker_pair

AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class ConstraintRow:
    """One scalar constraint: its primitive kind, the marker axes it uses and a readable label."""

    kind: str
    i_axis: int = -1
    j_axis: int = -1
    label: str = ""
    parameter: float = 0.0
    """the row's constant (a distance [m]; ``sense * radius`` [m] of a ``rim_material`` row)"""
    coordinate_owner: object = None
    """the body whose coordinate the row reads besides its markers (a moving-node rope span)"""
    coordinate: int = -1
    """which of the owner's extra coordinates (a span's material coordinate: 0 start, 1 end)"""
    reference: float = 0.0
    """the coordinate's offset in the row (``s - reference``) [m]"""


def coincident() -> tuple[ConstraintRow, ...]:
    """I origin on J origin: three rows, world components."""
    return tuple(
        ConstraintRow("coincident", j_axis=k, label=f"translation along world {c}") for c, k in AXIS_INDEX.items()
    )


def perpendicular(i_axis: str, j_axis: str, label: str) -> ConstraintRow:
    """Axis ``i_axis`` of marker I perpendicular to axis ``j_axis`` of marker J."""
    return ConstraintRow("perpendicular", AXIS_INDEX[i_axis], AXIS_INDEX[j_axis], label)


def in_plane(j_axis: str) -> ConstraintRow:
    """I origin in the plane through J origin normal to J's ``j_axis``: no translation along it."""
    return ConstraintRow("in_plane", j_axis=AXIS_INDEX[j_axis], label=f"translation along J {j_axis}")


PARALLEL_Z = (perpendicular("y", "z", "rotation about x"), perpendicular("x", "z", "rotation about y"))
"""z_I parallel to z_J: the two rows that leave only rotation about the common z-axis."""

NO_ROTATION_ABOUT_Z = perpendicular("x", "y", "rotation about z")


class Joint(Element):
    """A constraint between marker ``i_marker`` and marker ``j_marker`` on two different bodies."""

    kind = "joint"
    rows: tuple[ConstraintRow, ...] = ()
    """The joint's constraint rows; subclasses set this as class data."""
    coordinates: tuple[str, ...] = ()
    """Joint coordinates a Motion can drive: "rotation" (about z_J) and/or "translation" (along z_J)."""

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker) -> None:
        super().__init__(name)
        check_marker_pair(self, {"i_marker": i_marker, "j_marker": j_marker}, "a joint connects two different bodies")
        self.i_marker = i_marker
        self.j_marker = j_marker

    @property
    def family(self) -> str:
        """The joint family in snake case ("revolute", "at_point", "constant_velocity"), as the
        compiled System records it."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    def constraint_rows(self) -> tuple[ConstraintRow, ...]:
        """The scalar constraints this joint imposes, in order."""
        return self.rows

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker, self.j_marker)
