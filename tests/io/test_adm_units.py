"""ADAMS unit systems: one mechanism written in metres, in millimetres, in CGS and in inches and
pounds moves the same, and the unit sizes are those of their definitions.

References: the legal definitions of the units (inch = 0.0254 m, foot = 0.3048 m, pound mass =
0.45359237 kg, pound force = pound mass x 9.80665 m/s^2, dyne = 1e-5 N) and the physics being
independent of the units it is written in. The runs are the same SI model up to the rounding of
the unit conversions, so they agree to the integration tolerance (``SAME`` on rtol 1e-10).
"""

from __future__ import annotations

import numpy as np
import pytest

from multibody import dynamics
from multibody.io.adm import parse_adm
from multibody.io.adm.units import Units, system_units, unit_value

SAME = 1e-7
"""[m, rad/s] between runs of the same SI model written in different units."""

INCH, POUND_MASS, STANDARD_GRAVITY = 0.0254, 0.45359237, 9.80665


def test_unit_sizes_are_their_definitions() -> None:
    assert unit_value("LENGTH", "INCH") == INCH
    assert unit_value("LENGTH", "FOOT") == pytest.approx(12 * INCH, rel=1e-15)
    assert unit_value("LENGTH", "MILLIMETER") == 1e-3
    assert unit_value("MASS", "POUND_MASS") == POUND_MASS
    assert unit_value("FORCE", "POUND_FORCE") == pytest.approx(POUND_MASS * STANDARD_GRAVITY, rel=1e-15)
    assert unit_value("FORCE", "DYNE") == 1e-5
    assert unit_value("MASS", "SLUG") == pytest.approx(14.593902937206364, rel=1e-12)  # lbf s^2 / ft
    assert unit_value("TIME", "MILLISECOND") == 1e-3
    assert unit_value("MASS", "KILOG") == 1.0  # a unique prefix is enough, as for keywords
    assert unit_value("LENGTH", "M") is None  # METER, MILE, MILLIMETER ...: ambiguous
    assert system_units("MMKS") == ("NEWTON", "KILOGRAM", "MILLIMETER", "SECOND")


def test_derived_units() -> None:
    """Stiffness, damping and inertia units follow from the base units."""
    mm = Units(length=1e-3)
    assert mm.factor("stiffness") == 1e3  # 1 N/mm = 1000 N/m
    assert mm.factor("inertia") == pytest.approx(1e-6)  # 1 kg mm^2
    assert mm.factor("acceleration") == 1e-3
    assert Units(time=1e-3).factor("angular_velocity") == 1e3


MECHANISM = """\
spring pendulum in {name}
UNITS/{units}
PART/1, GROUND
MARKER/1, PART = 1
MARKER/3, PART = 1, QP = {anchor}, {anchor}, 0
PART/2, MASS = {mass}, CM = 20, IP = {inertia}, {inertia}, {inertia2}, VZ = {speed}, WZ = {spin}
MARKER/20, PART = 2, QP = {arm}, 0, 0
MARKER/21, PART = 2
JOINT/1, SPHERICAL, I = 21, J = 1
SFORCE/7, TRANSLATIONAL, I = 20, J = 3
, FUNCTION = -{stiffness}*(DM(20,3)-{free}) - {damping}*VR(20,3) + {force}*STEP(TIME, 0, 0, {time}, 1)
SPRINGDAMPER/8, TRANSLATIONAL, I = 20, J = 3, K = {stiffness}, C = {damping}, LENGTH = {free}
ACCGRAV/JGRAV = -{gravity}
"""


def mechanism(name: str, units: str, length: float, mass: float, force: float) -> str:
    """The mechanism with its SI numbers written in units of ``length`` [m], ``mass`` [kg],
    ``force`` [N] (time in seconds)."""
    si = {
        "anchor": 0.5,
        "mass": 2.0,
        "inertia": 0.05,
        "inertia2": 0.07,
        "speed": 0.3,
        "spin": 0.5,
        "arm": 1.0,
        "stiffness": 40.0,
        "free": 0.3,
        "damping": 0.5,
        "force": 2.0,
        "time": 0.5,
        "gravity": 9.81,
    }
    scale = {
        "anchor": length,
        "mass": mass,
        "inertia": mass * length**2,
        "inertia2": mass * length**2,
        "speed": length,
        "spin": 1.0,
        "arm": length,
        "stiffness": force / length,
        "free": length,
        "damping": force / length,
        "force": force,
        "time": 1.0,
        "gravity": length,
    }
    return MECHANISM.format(name=name, units=units, **{k: repr(v / scale[k]) for k, v in si.items()})


SYSTEMS = {
    "metres": mechanism("m", "FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND", 1.0, 1.0, 1.0),
    "millimetres": mechanism(
        "mm", "FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND", 1e-3, 1.0, 1.0
    ),
    "MMKS": mechanism("MMKS", "SYSTEM = MMKS", 1e-3, 1.0, 1.0),
    "CGS": mechanism("CGS", "SYSTEM = CGS", 1e-2, 1e-3, 1e-5),
    # pound force with pound mass: not a consistent set (ADAMS's UCF = 386.1 in/s^2)
    "IPS": mechanism("IPS", "SYSTEM = IPS", INCH, POUND_MASS, POUND_MASS * STANDARD_GRAVITY),
}


@pytest.fixture(scope="module")
def in_metres():
    return dynamics(parse_adm(SYSTEMS["metres"]).check(), 1.0, 0.05, rtol=1e-10)


@pytest.mark.parametrize("system", ["millimetres", "MMKS", "CGS", "IPS"])
def test_same_motion_in_every_unit_system(system: str, in_metres) -> None:
    """The mechanism written in ``system`` moves as the one written in metres (SI results)."""
    results = dynamics(parse_adm(SYSTEMS[system]).check(), 1.0, 0.05, rtol=1e-10)
    for quantity in ("position", "velocity", "angular_velocity"):
        np.testing.assert_allclose(
            getattr(results.body("PART/2"), quantity),
            getattr(in_metres.body("PART/2"), quantity),
            rtol=0,
            atol=SAME,
            err_msg=f"{system} {quantity}",
        )
    np.testing.assert_allclose(results.force("SFORCE/7").force, in_metres.force("SFORCE/7").force, rtol=0, atol=1e-5)
