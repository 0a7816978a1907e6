"""Bad model input is refused when it is given, with a ModelError that names the element.

Reference: the rules of the input itself (a mass is positive, an inertia is symmetric positive
definite with principal moments obeying the triangle inequality, a rotation is orthonormal,
names are unique, a joint joins two bodies of its model ...). Every case checks that the
message names the offending element and says what is wrong, on one readable line, so that a
user reading only the last line of a traceback knows what to fix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import multibody as mb

LONGEST_MESSAGE = 300
"""Characters [-]: one line of a terminal or a log, not a wall of text."""


@dataclass
class Parts:
    """A small valid model to break: body 'link' with marker 'pin', ground marker 'anchor'."""

    model: mb.Model
    link: mb.RigidBody
    pin: mb.Marker
    anchor: mb.Marker


@pytest.fixture
def parts() -> Parts:
    model = mb.Model("bench")
    link = model.add(mb.RigidBody("link", mass=2.0, inertia=(0.1, 0.1, 0.02), position=(0.5, 0.0, 0.0)))
    pin = link.add_marker("pin", (-0.5, 0.0, 0.0))
    anchor = model.ground.add_marker("anchor")
    return Parts(model, link, pin, anchor)


def body(**changes: object) -> mb.RigidBody:
    """A body 'slab' with valid defaults except ``changes``."""
    arguments: dict = {"mass": 1.0, "inertia": (1.0, 2.0, 2.5)} | changes
    return mb.RigidBody("slab", **arguments)


def stray_marker() -> mb.Marker:
    """A marker on body 'stray', which no model holds."""
    return mb.RigidBody("stray", 1.0, (1.0, 1.0, 1.0)).add_marker("loose")


def spherical(p: Parts) -> mb.Spherical:
    return p.model.add(mb.Spherical("ball", p.pin, p.anchor))


def cylindrical(p: Parts) -> mb.Cylindrical:
    return p.model.add(mb.Cylindrical("sleeve", p.pin, p.anchor))


# (what is wrong, action on the parts, fragments the message must contain: the element and the fault)
CASES: list[tuple[str, Callable[[Parts], object], tuple[str, ...]]] = [
    (
        "marker of a body not in the model",
        lambda p: p.model.add(mb.Revolute("hinge", stray_marker(), p.anchor)),
        ("joint 'hinge'", "marker 'loose' on body 'stray'", "not in model 'bench'"),
    ),
    (
        "force on a marker of a body not in the model",
        lambda p: p.model.add(mb.PointForce("push", stray_marker(), (0.0, 0.0, 1.0))),
        ("force 'push'", "body 'stray'", "not in model 'bench'"),
    ),
    (
        "marker of another model's ground",
        lambda p: p.model.add(mb.Revolute("hinge", p.pin, mb.Model("other").ground.add_marker("g"))),
        ("joint 'hinge'", "marker 'g' on body 'ground'", "another model's ground"),
    ),
    (
        "joint given a marker name instead of a Marker",
        lambda p: mb.Revolute("hinge", "pin", p.anchor),
        ("joint 'hinge'", "i_marker must be a Marker", "'pin'"),
    ),
    (
        "force given a marker name instead of a Marker",
        lambda p: mb.PointForce("push", "pin", (0.0, 0.0, 1.0)),
        ("force 'push'", "must be a Marker", "'pin'"),
    ),
    (
        "spring given something else as J marker",
        lambda p: mb.SpringDamper("spring", p.pin, 3, 10.0, 0.0, 0.5),
        ("force 'spring'", "j_marker must be a Marker", "3"),
    ),
    ("zero mass", lambda p: body(mass=0.0), ("body 'slab'", "mass must be positive", "0.0")),
    ("negative mass", lambda p: body(mass=-1.5), ("body 'slab'", "mass must be positive", "-1.5")),
    ("negative principal moment", lambda p: body(inertia=(1.0, -2.0, 2.5)), ("body 'slab'", "not positive definite")),
    (
        "indefinite inertia matrix, positive diagonal",
        lambda p: body(inertia=[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ("body 'slab'", "not positive definite", "-1.0"),
    ),
    (
        "principal moments violate the triangle inequality",
        lambda p: body(inertia=(1.0, 1.0, 3.0)),
        ("body 'slab'", "triangle inequality", "1, 1, 3"),
    ),
    # Diagonal (1, 1, 1.5) is admissible; the product Ixy = 0.9 makes the principal moments 0.1, 1.9, 1.5.
    (
        "products of inertia (ADAMS IP) that break the triangle inequality",
        lambda p: body(inertia=(1.0, 1.0, 1.5, 0.9, 0.0, 0.0)),
        ("body 'slab'", "triangle inequality", "0.1, 1.5, 1.9"),
    ),
    (
        "non-symmetric inertia matrix",
        lambda p: body(inertia=[[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ("body 'slab'", "symmetric"),
    ),
    (
        "zero-length z_axis",
        lambda p: p.link.add_marker("tip", z_axis=(0.0, 0.0, 0.0)),
        ("marker 'tip' on body 'link'", "z_axis has zero length"),
    ),
    (
        "x_axis parallel to z_axis",
        lambda p: p.link.add_marker("tip", z_axis=(0.0, 0.0, 1.0), x_axis=(0.0, 0.0, -2.0)),
        ("marker 'tip' on body 'link'", "parallel to z_axis"),
    ),
    (
        "joint named like a body",
        lambda p: p.model.add(mb.Revolute("link", p.pin, p.anchor)),
        ("joint 'link'", "already used by body 'link'", "unique"),
    ),
    (
        "two markers of one name on a body",
        lambda p: p.link.add_marker("pin"),
        ("marker 'pin' on body 'link'", "already has a marker named 'pin'"),
    ),
    (
        "joint between two markers of one body",
        lambda p: mb.Revolute("hinge", p.pin, p.link.add_marker("tip")),
        ("joint 'hinge'", "both on body 'link'", "two different bodies"),
    ),
    (
        "zero distance",
        lambda p: mb.Distance("tether", p.pin, p.anchor, 0.0),
        ("joint primitive 'tether'", "distance must be positive", "0.0 m"),
    ),
    (
        "negative distance",
        lambda p: mb.Distance("tether", p.pin, p.anchor, -0.2),
        ("joint primitive 'tether'", "distance must be positive", "-0.2 m"),
    ),
    (
        "motion on a spherical joint",
        lambda p: mb.Motion("drive", spherical(p), displacement=1.0),
        ("motion 'drive'", "Revolute, Translational or Cylindrical", "Spherical('ball')"),
    ),
    (
        "motion on a cylindrical joint without a coordinate",
        lambda p: mb.Motion("drive", cylindrical(p), velocity=1.0),
        ("motion 'drive'", "joint 'sleeve'", "coordinate='rotation' or 'translation'"),
    ),
    (
        "motion on a coordinate the joint lacks",
        lambda p: mb.Motion("drive", cylindrical(p), velocity=1.0, coordinate="twist"),
        ("motion 'drive'", "joint 'sleeve' has no 'twist' coordinate"),
    ),
    (
        "negative spring stiffness",
        lambda p: mb.SpringDamper("spring", p.pin, p.anchor, -10.0, 0.0, 0.5),
        ("force 'spring'", "stiffness must be a finite number >= 0", "-10.0 N/m"),
    ),
    (
        "reflection as body orientation",
        lambda p: body(orientation=np.diag([1.0, 1.0, -1.0])),
        ("body 'slab'", "not a proper rotation matrix"),
    ),
    (
        "sheared body orientation",
        lambda p: body(orientation=[[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ("body 'slab'", "not a proper rotation matrix"),
    ),
    ("orientation of the wrong shape", lambda p: body(orientation=np.eye(2)), ("body 'slab'", "3x3", "(2, 2)")),
    (
        "non-unit Euler parameters of a body",
        lambda p: body(orientation=(1.0, 0.0, 0.0, 0.1)),
        ("body 'slab'", "unit norm", "1.00499"),
    ),
    (
        "non-unit Euler parameters of a marker",
        lambda p: p.link.add_marker("tip", orientation=(0.5, 0.5, 0.5, 0.6)),
        ("marker 'tip' on body 'link'", "unit norm"),
    ),
]


@pytest.mark.parametrize(("action", "fragments"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_a_one_line_model_error_naming_the_element(
    parts: Parts, action: Callable[[Parts], object], fragments: tuple[str, ...]
) -> None:
    with pytest.raises(mb.ModelError) as raised:
        action(parts)
    message = str(raised.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from: {message}"
    assert message.startswith(fragments[0]), message  # the element comes first, then what is wrong
    assert "\n" not in message and len(message) <= LONGEST_MESSAGE, message


def test_refused_element_leaves_the_model_unchanged(parts: Parts) -> None:
    """A failed ``add`` must not half-register the element: the name stays free for a fixed retry."""
    with pytest.raises(mb.ModelError):
        parts.model.add(mb.Revolute("hinge", stray_marker(), parts.anchor))
    hinge = parts.model.add(mb.Revolute("hinge", parts.pin, parts.anchor))
    assert parts.model.element("hinge") is hinge
