"""Screw joint (ADAMS SCREW): a rotation about the common z-axis couples to a translation along it."""

from __future__ import annotations

from multibody.model.element import ModelError
from multibody.model.joints.base import ConstraintRow, Joint
from multibody.model.marker import Marker, real_number


class Screw(Joint):
    """I advances ``pitch`` [m] along z_J for each turn of x_I about z_J (right-handed for a
    positive pitch): one equation, ``sin(theta - 2 pi s / pitch) = 0`` with theta the angle of x_I
    from x_J about z_J and s the displacement of I along z_J. It only couples the two motions: pair
    it with a cylindrical joint (or equivalent) that keeps the axes together."""

    rows = (ConstraintRow("screw", 0, 2, "screw thread"),)

    def __init__(self, name: str, i_marker: Marker, j_marker: Marker, pitch: float) -> None:
        super().__init__(name, i_marker, j_marker)
        pitch = real_number(self.describe(), "pitch [m]", pitch)
        if pitch == 0.0:
            raise ModelError(f"{self.describe()}: pitch must be a finite, non-zero length per turn, got {pitch!r} m")
        self.pitch = float(pitch)
