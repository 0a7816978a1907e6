"""The force-family registry: every element class the package exports has exactly one family,
and an element no family takes is a ModelError naming it at compile time."""

import numpy as np
import pytest

import multibody as mb
from multibody.formulation.forces.registry import FAMILIES, family_of
from multibody.model.forces.base import ForceElement


def test_every_exported_force_class_has_one_family():
    names = [family.name for family in FAMILIES]
    assert len(names) == len(set(names))
    for cls in (mb.SpringDamper, mb.TorsionSpring, mb.Bushing, mb.PointForce, mb.PointTorque, mb.UserForce):
        takers = [family for family in FAMILIES if issubclass(cls, family.element_types)]
        assert len(takers) == 1, cls


def test_an_unregistered_force_class_is_named_at_compile():
    class Magnet(ForceElement):
        marker_roles = ("i_marker",)

    model = mb.Model("unregistered")
    body = model.add(mb.RigidBody("block", mass=1.0, inertia=np.eye(3)))
    magnet = Magnet("magnet", body.add_marker("m"))
    assert family_of(magnet) is None
    model.add(magnet)
    with pytest.raises(mb.ModelError, match="'magnet'.*no force family takes a Magnet"):
        model.compile()
