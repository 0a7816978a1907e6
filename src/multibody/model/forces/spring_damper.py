"""Spring-damper-actuators: translational along the line between two markers, and torsional about a revolute axis."""

from __future__ import annotations

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.functions import TimeFunction, as_time_function
from multibody.model.joints.revolute import Revolute
from multibody.model.marker import Marker, real_number


def _non_negative(owner: str, what: str, value: float, unit: str) -> float:
    number = real_number(owner, f"{what} [{unit}]", value)
    if number < 0.0:
        raise ModelError(f"{owner}: {what} must be a finite number >= 0, got {value!r} {unit}")
    return number


class SpringDamper(ForceElement):
    """Translational spring-damper-actuator between the origins of ``i_marker`` and ``j_marker``.

    Scalar force along the line, positive pushing I away from J (ADAMS SPRINGDAMPER):
    ``F = -stiffness (L - free_length) - damping dL/dt + preload + actuator(t)`` [N], with
    ``L`` the distance between the markers [m]. I receives ``F u`` and J ``-F u`` with
    ``u`` the unit vector from J to I.
    """

    def __init__(
        self,
        name: str,
        i_marker: Marker,
        j_marker: Marker,
        stiffness: float,
        damping: float,
        free_length: float,
        preload: float = 0.0,
        actuator: TimeFunction | float | None = None,
    ) -> None:
        super().__init__(name, i_marker, j_marker)
        owner = self.describe()
        self.stiffness = _non_negative(owner, "stiffness", stiffness, "N/m")
        self.damping = _non_negative(owner, "damping", damping, "N s/m")
        self.free_length = _non_negative(owner, "free_length", free_length, "m")
        self.preload = real_number(owner, "preload [N]", preload)
        self.actuator = None if actuator is None else as_time_function(actuator)


class TorsionSpring(ForceElement):
    """Rotational spring-damper about the axis of a revolute ``joint`` (its markers' z-axis).

    Torque on I about z_J: ``T = -stiffness (theta - free_angle) - damping dtheta/dt + preload``
    [N m], theta the angle of x_I from x_J about z_J [rad], taken within (-pi, pi] of
    ``free_angle``; J receives ``-T``.
    """

    def __init__(
        self,
        name: str,
        joint: Revolute,
        stiffness: float,
        damping: float = 0.0,
        free_angle: float = 0.0,
        preload: float = 0.0,
    ) -> None:
        if not isinstance(joint, Revolute):
            raise ModelError(f"force '{name}': a TorsionSpring acts about a Revolute joint's axis, got {joint!r}")
        super().__init__(name, joint.i_marker, joint.j_marker)
        owner = self.describe()
        self.joint = joint
        self.stiffness = _non_negative(owner, "stiffness", stiffness, "N m/rad")
        self.damping = _non_negative(owner, "damping", damping, "N m s/rad")
        self.free_angle = real_number(owner, "free_angle [rad]", free_angle)
        self.preload = real_number(owner, "preload [N m]", preload)
