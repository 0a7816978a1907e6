"""Joint library: one file per family."""

from multibody.model.joints.base import ConstraintRow, Joint
from multibody.model.joints.constant_velocity import ConstantVelocity
from multibody.model.joints.coupler import Screw
from multibody.model.joints.cylindrical import Cylindrical
from multibody.model.joints.fixed import Fixed
from multibody.model.joints.planar import Planar
from multibody.model.joints.primitives import (
    AtPoint,
    Distance,
    InLine,
    InPlane,
    Orientation,
    ParallelAxes,
    Perpendicular,
)
from multibody.model.joints.revolute import Revolute
from multibody.model.joints.spherical import Spherical
from multibody.model.joints.translational import Translational
from multibody.model.joints.universal import Hooke, Universal

__all__ = [
    "AtPoint",
    "ConstantVelocity",
    "ConstraintRow",
    "Cylindrical",
    "Distance",
    "Fixed",
    "Hooke",
    "InLine",
    "InPlane",
    "Joint",
    "Orientation",
    "ParallelAxes",
    "Perpendicular",
    "Planar",
    "Revolute",
    "Screw",
    "Spherical",
    "Translational",
    "Universal",
]
