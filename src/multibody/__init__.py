"""multibody: dynamics of mechanical multibody systems.

The public face: re-exports only, no logic. See README.md for a quick start.
"""

from multibody.analysis.assemble import assemble
from multibody.analysis.dynamics import dynamics
from multibody.analysis.errors import AnalysisError, AssemblyError
from multibody.analysis.kinematics import kinematics
from multibody.formulation.state import State
from multibody.model import functions
from multibody.model.body import Ground, RigidBody
from multibody.model.element import ModelError
from multibody.model.forces import Bushing, MarkerState, PointForce, PointTorque, SpringDamper, TorsionSpring
from multibody.model.functions import (
    Constant,
    CubicSpline,
    Harmonic,
    PiecewiseLinear,
    Polynomial,
    Ramp,
    Step,
)
from multibody.model.joints import (
    AtPoint,
    Cylindrical,
    Distance,
    Fixed,
    Hooke,
    InLine,
    InPlane,
    Orientation,
    ParallelAxes,
    Perpendicular,
    Planar,
    Revolute,
    Spherical,
    Translational,
    Universal,
)
from multibody.model.marker import Marker
from multibody.model.model import Model
from multibody.model.motion import Motion
from multibody.results import Results
from multibody.system.compile import RedundantConstraintWarning
from multibody.system.system import System

__version__ = "0.1.0"

__all__ = [
    "AnalysisError", "AssemblyError", "AtPoint", "Bushing", "Constant", "CubicSpline", "Cylindrical",
    "Distance", "Fixed", "Ground", "Harmonic", "Hooke", "InLine", "InPlane", "Marker", "MarkerState",
    "Model", "ModelError", "Motion", "Orientation", "ParallelAxes", "Perpendicular", "PiecewiseLinear",
    "Planar", "PointForce", "PointTorque", "Polynomial", "Ramp", "RedundantConstraintWarning", "Results",
    "Revolute", "RigidBody", "Spherical", "SpringDamper", "State", "Step", "System", "TorsionSpring",
    "Translational", "Universal", "assemble", "dynamics", "functions", "kinematics",
]
