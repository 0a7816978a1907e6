"""multibody: dynamics of mechanical multibody systems.

The public face: re-exports only, no logic. See README.md for a quick start.

Names load on first use (PEP 562 module ``__getattr__``): ``import multibody`` imports no
numerical library, so command lines and notebooks start fast; ``mb.dynamics`` imports the
analysis (and scipy) the first time it is read. ``dir(multibody)`` lists every public name.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AdmError": "multibody.io.adm",
    "AnalysisError": "multibody.analysis.errors",
    "animate": "multibody.viz",
    "assemble": "multibody.analysis.assemble",
    "AssemblyError": "multibody.analysis.errors",
    "AtPoint": "multibody.model.joints",
    "Beam": "multibody.model.nodal_beam",
    "Box": "multibody.model.geometry",
    "Bushing": "multibody.model.forces",
    "Capsule": "multibody.model.geometry",
    "Collision": "multibody.analysis.impact",
    "Constant": "multibody.model.functions",
    "CONTACT_MODES": "multibody.results",
    "ConstantVelocity": "multibody.model.joints",
    "Contact": "multibody.model.forces.contact",
    "CubicSpline": "multibody.model.functions",
    "Cylinder": "multibody.model.geometry",
    "Cylindrical": "multibody.model.joints",
    "Distance": "multibody.model.joints",
    "dynamics": "multibody.analysis.dynamics",
    "Ellipsoid": "multibody.model.geometry",
    "export_gltf": "multibody.viz",
    "Fixed": "multibody.model.joints",
    "AncfCable": "multibody.model.cable",
    "CableClamp": "multibody.model.cable",
    "FiniteSegmentBeam": "multibody.model.beam",
    "FlexibleBody": "multibody.model.flexible",
    "Frustum": "multibody.model.geometry",
    "functions": "multibody.model",
    "Ground": "multibody.model.body",
    "Harmonic": "multibody.model.functions",
    "Hooke": "multibody.model.joints",
    "Impact": "multibody.analysis.impact",
    "impact": "multibody.analysis.impact",
    "impact_log": "multibody.analysis.events",
    "ImpactRecord": "multibody.analysis.events",
    "InLine": "multibody.model.joints",
    "InPlane": "multibody.model.joints",
    "inverse_dynamics": "multibody.analysis.inverse",
    "InverseDynamics": "multibody.analysis.inverse",
    "JointFriction": "multibody.model.forces.friction",
    "kinematics": "multibody.analysis.kinematics",
    "linearize": "multibody.analysis.linearize",
    "LinearModel": "multibody.results.linear",
    "Link": "multibody.model.geometry",
    "Marker": "multibody.model.marker",
    "Material": "multibody.model.material",
    "MarkerState": "multibody.model.forces",
    "Mesh": "multibody.model.geometry",
    "Model": "multibody.model.model",
    "ModelError": "multibody.model.element",
    "Modes": "multibody.results.linear",
    "Motion": "multibody.model.motion",
    "MovingOperatingPointWarning": "multibody.analysis.linearize",
    "Orientation": "multibody.model.joints",
    "ParallelAxes": "multibody.model.joints",
    "Perpendicular": "multibody.model.joints",
    "PiecewiseLinear": "multibody.model.functions",
    "Plane": "multibody.model.geometry",
    "Planar": "multibody.model.joints",
    "plot": "multibody.viz",
    "plot_hydraulics": "multibody.viz",
    "plot_rope": "multibody.viz",
    "PointForce": "multibody.model.forces",
    "PointPlaneContact": "multibody.model.contact",
    "PointTorque": "multibody.model.forces",
    "Polynomial": "multibody.model.functions",
    "quasi_statics": "multibody.analysis.statics",
    "Ramp": "multibody.model.functions",
    "read_abaqus_matrix": "multibody.fem.matrix_io",
    "read_adm": "multibody.io.adm",
    "read_ansys_matrices": "multibody.fem.matrix_io",
    "read_urdf": "multibody.io.urdf",
    "RedundantConstraintWarning": "multibody.system.compile",
    "report": "multibody.viz",
    "Results": "multibody.results",
    "Revolute": "multibody.model.joints",
    "RigidBody": "multibody.model.body",
    "Screw": "multibody.model.joints",
    "Section": "multibody.model.material",
    "Study": "multibody.studies",
    "StudyError": "multibody.studies",
    "StudyResult": "multibody.studies",
    "Sphere": "multibody.model.geometry",
    "SpherePlaneContact": "multibody.model.contact",
    "SphereSphereContact": "multibody.model.contact",
    "Spherical": "multibody.model.joints",
    "SpringDamper": "multibody.model.forces",
    "State": "multibody.formulation.state",
    "StateDependentLoad": "multibody.model.forces.expression",
    "statics": "multibody.analysis.statics",
    "Step": "multibody.model.functions",
    "System": "multibody.system.system",
    "TorsionSpring": "multibody.model.forces",
    "Translational": "multibody.model.joints",
    "Universal": "multibody.model.joints",
    "UserForce": "multibody.model.forces.user",
    "UserForceInput": "multibody.model.forces.user",
    "UnstableEquilibriumWarning": "multibody.analysis.statics",
    "DifferentialEquation": "multibody.model.states",
    "EffectiveBulkModulus": "multibody.model.forces.hydraulic_fluid",
    "HydraulicCylinder": "multibody.model.forces.hydraulic",
    "HydraulicSupply": "multibody.model.forces.hydraulic",
    "Measure": "multibody.model.states",
    "PID": "multibody.model.states",
    "ProportionalValve": "multibody.model.forces.hydraulic",
    "Pulley": "multibody.model.forces.rope",
    "Rope": "multibody.model.forces.rope",
    "Winch": "multibody.model.forces.rope",
    "StateSpace": "multibody.model.states",
    "TransferFunction": "multibody.model.states",
}
"""Public name -> the module that defines it (a submodule of that module for ``functions``)."""

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> object:
    """Import the module that defines the public name ``name`` on first use, then cache it."""
    try:
        module_name = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'multibody' has no attribute '{name}'") from None
    module = importlib.import_module(module_name)
    value = getattr(module, name) if hasattr(module, name) else importlib.import_module(f"{module_name}.{name}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
