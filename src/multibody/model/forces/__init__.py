"""Force elements: one file per family."""

from multibody.model.forces.applied import MarkerState, PointForce, PointTorque
from multibody.model.forces.base import ForceElement
from multibody.model.forces.bushing import Bushing
from multibody.model.forces.spring_damper import SpringDamper, TorsionSpring

__all__ = ["Bushing", "ForceElement", "MarkerState", "PointForce", "PointTorque", "SpringDamper", "TorsionSpring"]
