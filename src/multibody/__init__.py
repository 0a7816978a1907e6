"""multibody: dynamics of mechanical multibody systems.

The public face: re-exports only, no logic. See README.md for a quick start.
"""

from multibody.analysis.assemble import assemble
from multibody.analysis.dynamics import dynamics
from multibody.analysis.errors import AnalysisError, AssemblyError
from multibody.analysis.events import ImpactRecord, impact_log
from multibody.analysis.impact import Collision, Impact, impact
from multibody.analysis.inverse import InverseDynamics, inverse_dynamics
from multibody.analysis.kinematics import kinematics
from multibody.analysis.linearize import MovingOperatingPointWarning, linearize
from multibody.analysis.statics import UnstableEquilibriumWarning, quasi_statics, statics
from multibody.formulation.state import State
from multibody.io.adm import AdmError, read_adm
from multibody.model import functions
from multibody.model.body import Ground, RigidBody
from multibody.model.contact import PointPlaneContact, SpherePlaneContact, SphereSphereContact
from multibody.model.element import ModelError
from multibody.model.forces import Bushing, MarkerState, PointForce, PointTorque, SpringDamper, TorsionSpring
from multibody.model.forces.expression import StateDependentLoad
from multibody.model.functions import (
    Constant,
    CubicSpline,
    Harmonic,
    PiecewiseLinear,
    Polynomial,
    Ramp,
    Step,
)
from multibody.model.geometry import Box, Capsule, Cylinder, Ellipsoid, Frustum, Link, Mesh, Sphere
from multibody.model.joints import (
    AtPoint,
    ConstantVelocity,
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
    Screw,
    Spherical,
    Translational,
    Universal,
)
from multibody.model.marker import Marker
from multibody.model.model import Model
from multibody.model.motion import Motion
from multibody.results import Results
from multibody.results.linear import LinearModel, Modes
from multibody.system.compile import RedundantConstraintWarning
from multibody.system.system import System
from multibody.viz import animate, export_gltf, plot, report

__version__ = "0.1.0"

_LAZY = {
    "Study": "multibody.studies",
    "StudyError": "multibody.studies",
    "StudyResult": "multibody.studies",
    "read_urdf": "multibody.io.urdf",
}
"""Names imported on first use (studies and the URDF reader pull in optional libraries)."""


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'multibody' has no attribute {name!r}")


__all__ = [
    "AdmError",
    "AnalysisError",
    "AssemblyError",
    "AtPoint",
    "Box",
    "Bushing",
    "Capsule",
    "Collision",
    "Constant",
    "ConstantVelocity",
    "CubicSpline",
    "Cylinder",
    "Cylindrical",
    "Distance",
    "Ellipsoid",
    "Fixed",
    "Frustum",
    "Ground",
    "Harmonic",
    "Hooke",
    "Impact",
    "ImpactRecord",
    "InLine",
    "InPlane",
    "InverseDynamics",
    "LinearModel",
    "Link",
    "Marker",
    "MarkerState",
    "Mesh",
    "Model",
    "ModelError",
    "Modes",
    "Motion",
    "MovingOperatingPointWarning",
    "Orientation",
    "ParallelAxes",
    "Perpendicular",
    "PiecewiseLinear",
    "Planar",
    "PointForce",
    "PointPlaneContact",
    "PointTorque",
    "Polynomial",
    "Ramp",
    "RedundantConstraintWarning",
    "Results",
    "Revolute",
    "RigidBody",
    "Screw",
    "Sphere",
    "SpherePlaneContact",
    "SphereSphereContact",
    "Spherical",
    "SpringDamper",
    "State",
    "StateDependentLoad",
    "Step",
    "Study",
    "StudyError",
    "StudyResult",
    "System",
    "TorsionSpring",
    "Translational",
    "Universal",
    "UnstableEquilibriumWarning",
    "animate",
    "assemble",
    "dynamics",
    "export_gltf",
    "functions",
    "impact",
    "impact_log",
    "inverse_dynamics",
    "kinematics",
    "linearize",
    "plot",
    "quasi_statics",
    "read_adm",
    "read_urdf",
    "report",
    "statics",
]
