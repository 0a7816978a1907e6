"""ADAMS joint primitives (JPRIM) and the distance constraint."""

from __future__ import annotations

from multibody.model.element import ModelError
from multibody.model.joints.base import (
    NO_ROTATION_ABOUT_Z,
    PARALLEL_Z,
    ConstraintRow,
    Joint,
    coincident,
    in_plane,
    perpendicular,
)
from multibody.model.marker import Marker, real_number


class AtPoint(Joint):
    """I origin on J origin (three translations locked)."""

    kind = "joint primitive"
    rows = coincident()


class InLine(Joint):
    """I origin on J's z-axis (two translations locked)."""

    kind = "joint primitive"
    rows = (in_plane("x"), in_plane("y"))


class InPlane(Joint):
    """I origin in J's xy-plane (one translation locked)."""

    kind = "joint primitive"
    rows = (in_plane("z"),)


class Orientation(Joint):
    """I and J frames keep their relative orientation (three rotations locked)."""

    kind = "joint primitive"
    rows = PARALLEL_Z + (NO_ROTATION_ABOUT_Z,)


class ParallelAxes(Joint):
    """z_I parallel to z_J (two rotations locked)."""

    kind = "joint primitive"
    rows = PARALLEL_Z


class Perpendicular(Joint):
    """z_I perpendicular to z_J (one rotation locked)."""

    kind = "joint primitive"
    rows = (perpendicular("z", "z", "rotation about z_I x z_J"),)


class Distance(Joint):
    """The distance between the I and J origins is held at ``distance`` [m] > 0."""

    kind = "joint primitive"
    rows = (ConstraintRow("distance", label="distance"),)

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker, distance: float) -> None:
        super().__init__(name, i_marker, j_marker)
        distance = real_number(self.describe(), "distance [m]", distance)
        if distance <= 0.0:
            raise ModelError(
                f"{self.describe()}: distance must be positive, got {distance!r} m (use AtPoint for coincident origins)"
            )
        self.distance = float(distance)
