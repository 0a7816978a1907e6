"""Model: what the user writes. Editable, named, validated as elements are added."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from multibody.model.beam import FiniteSegmentBeam
from multibody.model.body import Body, Ground, RigidBody
from multibody.model.cable import AncfCable
from multibody.model.contact import ImpactPair
from multibody.model.element import Element, ModelError
from multibody.model.flexible import FlexibleBody
from multibody.model.forces.base import ForceElement
from multibody.model.joints.base import Joint
from multibody.model.marker import finite_vector
from multibody.model.motion import Motion
from multibody.model.nodal_beam import Beam

if TYPE_CHECKING:
    from multibody.system.system import System

AnyElement = TypeVar("AnyElement", bound=Element)


class Model:
    """A mechanical system: ground, gravity [m/s^2], bodies, joints, motions and forces.

    >>> model = Model("pendulum")
    >>> rod = model.add(RigidBody("rod", mass=1.0, inertia=(0.1, 0.1, 0.01), position=(0.5, 0, 0)))
    """

    def __init__(self, name: str, gravity: ArrayLike = (0.0, 0.0, -9.81)) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ModelError(f"model name must be a non-empty string, got {name!r}")
        self.name = name
        self.gravity = finite_vector(f"model '{name}'", "gravity", gravity)
        self.ground = Ground()
        self.bodies: dict[str, RigidBody] = {}
        self.joints: dict[str, Joint] = {}
        self.motions: dict[str, Motion] = {}
        self.forces: dict[str, ForceElement] = {}
        self.contacts: dict[str, ImpactPair] = {}
        self.cables: dict[str, AncfCable] = {}
        """ANCF cables (bodies of node coordinates, without a reference frame)"""
        self.beams: dict[str, FiniteSegmentBeam | Beam] = {}
        """beams made of parts (their segments and springs are in ``bodies`` and ``forces``)"""
        self.ropes: dict[str, ForceElement] = {}
        """moving-node ropes (``Rope(kind="moving_node")``: their spans are in ``cables``, their contacts in ``joints``)"""
        self._names: dict[str, Element] = {self.ground.name: self.ground}
        self.aliases: dict[str, str] = {}
        """Other names of elements, alias -> element name (an imported file's ids); results accept them too."""

    def add(self, element: AnyElement) -> AnyElement:
        """Add a body, joint, motion, force, contact pair or beam (its segments and springs) and
        return it; raises ``ModelError`` naming the problem."""
        if element.name in self._names:
            raise ModelError(
                f"{element.describe()}: the name '{element.name}' is already used by "
                f"{self._names[element.name].describe()}; names must be unique within a model"
            )
        taken = [part.name for part in element.parts if part.name in self._names]
        if taken:
            raise ModelError(
                f"{element.describe()}: the names of its parts {', '.join(map(repr, taken))} are already used; "
                f"rename the {element.kind} or those elements"
            )
        if isinstance(element, (FiniteSegmentBeam, Beam)):
            collection: dict = self.beams
        elif isinstance(element, (RigidBody, FlexibleBody)):
            collection = self.bodies
        elif isinstance(element, AncfCable):
            collection = self.cables
        elif isinstance(element, Joint):
            collection = self.joints
        elif isinstance(element, Motion):
            if element.joint.name not in self.joints or self.joints[element.joint.name] is not element.joint:
                raise ModelError(
                    f"{element.describe()}: {element.joint.describe()} is not in model '{self.name}'; add the joint first"
                )
            collection = self.motions
        elif getattr(element, "rope_kind", None) == "moving_node":
            collection = self.ropes
        elif isinstance(element, ForceElement):
            collection = self.forces
        elif isinstance(element, ImpactPair):
            collection = self.contacts
        else:
            raise ModelError(
                f"model '{self.name}': cannot add {element!r}; expected a RigidBody, FlexibleBody, AncfCable, Joint, "
                "Motion, force, contact element or beam"
            )
        for marker in getattr(element, "attached_markers", tuple)():
            if not self._owns(marker.body):
                remedy = (
                    "it is another model's ground; put the marker on this model's ground (model.ground.add_marker)"
                    if isinstance(marker.body, Ground)
                    else f"add body '{marker.body.name}' to the model first"
                )
                raise ModelError(f"{element.describe()}: {marker.describe()} is not in model '{self.name}'; {remedy}")
        collection[element.name] = element
        self._names[element.name] = element
        if isinstance(element, Beam):
            element.model_name = self.name  # its elements can no longer be split
        for part in element.parts:
            self.add(part)
        return element

    def _owns(self, body: Body) -> bool:
        return body is self.ground or self.bodies.get(body.name) is body or self.cables.get(body.name) is body

    def element(self, name: str) -> Element:
        """Any element by name (``KeyError`` lists what exists)."""
        try:
            return self._names[name]
        except KeyError:
            raise KeyError(f"model '{self.name}' has no element '{name}'; it has: {', '.join(self._names)}") from None

    def constraints(self) -> list[Joint | Motion]:
        """Joints, joint primitives and motions, in the order added (joints first)."""
        return [*self.joints.values(), *self.motions.values()]

    def compile(self) -> System:
        """Freeze the model into a ``System`` of flat arrays (see ``multibody.system``)."""
        from multibody.system.compile import compile_model

        return compile_model(self)

    def __repr__(self) -> str:
        return (
            f"Model({self.name!r}: {len(self.bodies)} bodies, {len(self.joints)} joints, "
            f"{len(self.motions)} motions, {len(self.forces)} forces, gravity {np.round(self.gravity, 6).tolist()})"
        )
