"""Motion: a joint coordinate prescribed as a function of time (a driver constraint)."""

from __future__ import annotations

from multibody.model.element import Element, ModelError
from multibody.model.functions import TimeFunction, as_time_function
from multibody.model.joints.base import ConstraintRow, Joint
from multibody.model.marker import Marker


class Motion(Element):
    """Prescribe a revolute, translational or cylindrical joint coordinate versus time.

    Give exactly one of ``displacement`` (angle [rad] of x_I from x_J about z_J, or translation
    [m] of I along z_J), ``velocity`` or ``acceleration``: a number, a ``TimeFunction`` or a
    Python callable of time. Velocity and acceleration motions are integrated from the joint
    coordinate (and its rate) in the input configuration. ``coordinate`` picks "rotation" or
    "translation"; it is required for a cylindrical joint only.
    """

    kind = "motion"
    family = "motion"
    """The constraint family the compiled System records."""

    def __init__(
        self,
        name: str,
        joint: Joint,
        displacement: TimeFunction | float | None = None,
        velocity: TimeFunction | float | None = None,
        acceleration: TimeFunction | float | None = None,
        coordinate: str | None = None,
    ) -> None:
        super().__init__(name)
        given = {
            k: v
            for k, v in (("displacement", displacement), ("velocity", velocity), ("acceleration", acceleration))
            if v is not None
        }
        if len(given) != 1:
            raise ModelError(f"{self.describe()}: give exactly one of displacement, velocity or acceleration")
        if not isinstance(joint, Joint) or not joint.coordinates:
            raise ModelError(
                f"{self.describe()}: a motion drives a Revolute, Translational or Cylindrical joint, got {joint!r}"
            )
        if coordinate is None:
            if len(joint.coordinates) > 1:
                raise ModelError(
                    f"{self.describe()}: {joint.describe()} has coordinates {joint.coordinates}; "
                    "say which one with coordinate='rotation' or 'translation'"
                )
            coordinate = joint.coordinates[0]
        if coordinate not in joint.coordinates:
            raise ModelError(
                f"{self.describe()}: {joint.describe()} has no '{coordinate}' coordinate; it has {joint.coordinates}"
            )
        self.joint = joint
        self.coordinate = coordinate
        ((self.level, function),) = given.items()
        self.function = as_time_function(function)

    @property
    def i_marker(self) -> Marker:
        """The driven joint's I marker."""
        return self.joint.i_marker

    @property
    def j_marker(self) -> Marker:
        """The driven joint's J marker."""
        return self.joint.j_marker

    def constraint_rows(self) -> tuple[ConstraintRow, ...]:
        """One driver row on the joint's coordinate."""
        return (ConstraintRow(f"{self.coordinate}_driver", label=f"{self.coordinate} driver"),)

    def attached_markers(self) -> tuple[Marker, ...]:
        """Markers this element attaches to."""
        return (self.i_marker, self.j_marker)
