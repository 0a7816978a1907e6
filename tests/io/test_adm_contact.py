"""ADAMS CONTACT statements become ``mb.Contact`` between the GRAPHICS solids as drawn.

Reference: the same model written in Python. A ball of 1 kg, radius 50 mm, dropped from 10 mm
above a floor plane, in a dataset in millimetres (so every contact parameter is converted:
STIFFNESS in N/mm^EXPONENT, DAMPING in N s/mm, DMAX and the friction velocities in mm, mm/s);
the imported model and the Python one, given the SI values directly, must run the same motion.
The physics of the laws themselves is checked against closed forms in tests/test_contact.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.io.adm import AdmError, AdmReferenceError, parse_adm
from multibody.model.element import ModelError

MM = 1e-3
RADIUS, MASS, HEIGHT = 0.05, 1.0, 0.06
"""Ball radius [m], mass [kg], and the height [m] of its centre at the start (10 mm drop)."""

DECK = """ADAMS/View model name: ball_drop
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND
PART/1, GROUND
MARKER/1, PART = 1
{floor_graphics}
PART/2, MASS = 1, CM = 3, IP = 1000, 1000, 1000, QG = 0, 0, 60, VX = 200
MARKER/3, PART = 2
{ball_graphics}
ACCGRAV/KGRAV = -9810
"""
FLOOR = "GRAPHICS/1, PLANE, RM = 1, XMIN = -300, XMAX = 300, YMIN = -200, YMAX = 200"
BALL = "GRAPHICS/2, ELLIPSOID, CM = 3, XSCALE = 100, YSCALE = 100, ZSCALE = 100"
IMPACT = (
    "CONTACT/7, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 30, EXPONENT = 1.5, DAMPING = 0.02, DMAX = 0.1,"
    " COULOMB_FRICTION = ON, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, STICTION_TRANSITION_VELOCITY = 1,"
    " FRICTION_TRANSITION_VELOCITY = 2"
)
POISSON = "CONTACT/8, IGEOM = 2, JGEOM = 1, POISSON, PENALTY = 1000, RESTITUTION_COEFFICIENT = 0.6"

IMPACT_SI = {
    "law": "impact",
    "stiffness": 30.0 * MM**-1.5,  # N/mm^1.5 -> N/m^1.5
    "exponent": 1.5,
    "damping": 0.02 / MM,  # N s/mm -> N s/m
    "penetration_depth": 0.1 * MM,
    "mu_static": 0.3,
    "mu_dynamic": 0.2,
    "stiction_velocity": 1.0 * MM,
    "transition_velocity": 2.0 * MM,
}
POISSON_SI = {"law": "poisson", "stiffness": 1000.0 / MM, "exponent": 1.0, "restitution": 0.6}


def python_model(**law: object) -> mb.Model:
    """The dataset's ball and floor written directly in SI."""
    model = mb.Model("ball_drop", gravity=(0.0, 0.0, -9.81))
    ball = model.add(mb.RigidBody("ball", MASS, (1e-3,) * 3, position=(0.0, 0.0, HEIGHT), velocity=(0.2, 0.0, 0.0)))
    sphere = ball.add_shape(mb.Sphere(RADIUS), ball.add_marker("centre"))
    floor = model.ground.add_shape(mb.Plane(0.6), model.ground.add_marker("floor"))
    model.add(mb.Contact("touch", sphere, floor, **law))
    return model


def motion(model: mb.Model, body: str) -> tuple[np.ndarray, np.ndarray]:
    results = mb.dynamics(model, 0.15, 1e-3, rtol=1e-8)
    return results.body(body).position, results.body(body).velocity


@pytest.mark.parametrize(("statement", "law"), [(IMPACT, IMPACT_SI), (POISSON, POISSON_SI)])
def test_contact_statement_runs_as_the_python_model(statement: str, law: dict[str, object]) -> None:
    # The CONTACT comes before its GRAPHICS here: the reader takes it once they are read.
    imported = parse_adm(DECK.format(floor_graphics=f"{statement}\n{FLOOR}", ball_graphics=BALL))
    model = imported.check()
    (contact,) = model.forces.values()
    assert isinstance(contact, mb.Contact)
    for key, value in law.items():
        expected = value if isinstance(value, str) else pytest.approx(value, rel=1e-15)
        assert getattr(contact, key) == expected, key
    # One geometry for display and contact: the shapes the contact touches are the bodies' shapes.
    assert contact.i_geometry in model.bodies["PART/2"].shapes
    assert contact.j_geometry in model.ground.shapes
    assert isinstance(contact.i_geometry.shape, mb.Sphere) and contact.i_geometry.shape.radius == pytest.approx(RADIUS)
    position, velocity = motion(model, "PART/2")
    expected_position, expected_velocity = motion(python_model(**law), "ball")
    # The ball falls 10 mm, strikes at 0.44 m/s and rebounds (IMPACT: with rolling friction).
    assert np.min(position[:, 2]) < RADIUS
    # The same equations from the same SI numbers (the reader's mm -> m conversions give the very
    # values written above): the runs take the same ~580 steps and were measured bit-identical.
    # 1e-12 m and 1e-10 m/s leave room for round-off only: runs from a start height one bit
    # apart took other steps and differed by 1.4e-10 m.
    np.testing.assert_allclose(position, expected_position, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(velocity, expected_velocity, rtol=0.0, atol=1e-10)


def test_contact_on_an_unsupported_geometry_is_reported_and_refused() -> None:
    """A FRUSTUM is a GRAPHICS solid the contact does not take: the pair is reported as not
    simulated, and ``check`` refuses the model naming the CONTACT and the geometry."""
    frustum = "GRAPHICS/2, FRUSTUM, CM = 3, LENGTH = 50, TOP = 20, BOTTOM = 50"
    imported = parse_adm(DECK.format(floor_graphics=FLOOR, ball_graphics=f"{frustum}\n{POISSON}"))
    assert not imported.model.forces
    (item,) = imported.report.changes_motion
    assert item.what.startswith("CONTACT/8, IGEOM = GRAPHICS/2 is a FRUSTUM, no solid contact takes (SPHERE")
    with pytest.raises(ModelError, match=r"CONTACT/8, IGEOM = GRAPHICS/2 is a FRUSTUM, no solid contact takes"):
        imported.check()


def test_contact_errors_name_the_statement() -> None:
    """A pair ``mb.Contact`` does not take is reported; a missing law parameter or an undefined
    GRAPHICS is an error located at the CONTACT."""
    box = "GRAPHICS/2, BOX, CORNER = 3, X = 10, Y = 10, Z = 10"
    sphere_on_box = POISSON.replace("JGEOM = 1", "JGEOM = 4")
    text = DECK.format(
        floor_graphics=FLOOR,
        ball_graphics=f"{box}\nMARKER/4, PART = 1\nGRAPHICS/4, SPHERE, CM = 4, RADIUS = 5\n{sphere_on_box}",
    )
    (item,) = parse_adm(text).report.changes_motion
    assert item.what == "CONTACT/8, GRAPHICS/2 - GRAPHICS/4: contact between a Box and a Sphere is not supported"
    with pytest.raises(AdmError, match=r"CONTACT/8: PENALTY is required"):
        parse_adm(DECK.format(floor_graphics=FLOOR, ball_graphics=f"{BALL}\n{POISSON.replace('PENALTY = 1000,', '')}"))
    with pytest.raises(AdmReferenceError, match=r"GRAPHICS/9 is not defined"):
        parse_adm(
            DECK.format(floor_graphics=FLOOR, ball_graphics=f"{BALL}\n{POISSON.replace('JGEOM = 1', 'JGEOM = 9')}")
        )


def test_each_pair_of_listed_geometries_is_one_contact() -> None:
    """IGEOM and JGEOM may list several GRAPHICS: every I-J pair is a contact, CONTACT/id.k."""
    wall = (
        "MARKER/4, PART = 1, QP = 300, 0, 0, REULER = 90D, -90D, 0\n"
        "GRAPHICS/4, PLANE, RM = 4, XMIN = -1, XMAX = 1, YMIN = -1, YMAX = 1"
    )
    statement = POISSON.replace("JGEOM = 1", "JGEOM = 1, 4")
    model = parse_adm(DECK.format(floor_graphics=f"{FLOOR}\n{wall}", ball_graphics=f"{BALL}\n{statement}")).check()
    assert list(model.forces) == ["CONTACT/8.1", "CONTACT/8.2"]
    floor, wall_shape = model.ground.shapes
    assert model.forces["CONTACT/8.1"].j_geometry is floor
    assert model.forces["CONTACT/8.2"].j_geometry is wall_shape
    # The wall's plane faces the ball: its normal (RM's z) is world -x.
    np.testing.assert_allclose(wall_shape.orientation[:, 2], [-1.0, 0.0, 0.0], atol=1e-15)
