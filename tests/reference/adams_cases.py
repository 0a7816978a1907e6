"""The ADAMS/Solver joint test models of ``tests/data/adams_joint_cases``, built through the Python API.

Each builder transcribes the numbers of ``adams_models/test_<Case>_Case01.adm`` (PART MASS, CM,
IP; MARKER QP, REULER; JOINT I, J; GCON; ACCGRAV). The .adm files are not parsed here: an .adm
importer is a separate piece of work, and these builders are what it will be checked against.

Transcription rules:

- Every part is at its input position, so a marker's QP/REULER (given in its PART's frame) is
  in ground axes: markers are added with ``frame="world"``.
- The body frame of PART/02 is its CM marker 0201 (``R_WB`` = that marker's axes), because IP is
  about the CM marker's axes and the ADAMS Euler parameters are those of marker 0201.
- REULER is body-fixed 3-1-3 in degrees.
- Only the markers that the joint or the outputs use are transcribed (0101 is the ground frame;
  0203 and 0204 only place graphics).

``read_table`` reads the ADAMS result tables (``results/<Case>_Case01_ADAMS_<Quantity>.txt``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody import (
    Cylindrical,
    Distance,
    Ground,
    Hooke,
    Marker,
    Model,
    Revolute,
    RigidBody,
    Spherical,
    Translational,
)
from multibody.spatial.rotations import rotation_from_313_angles

REFERENCE_DIR = Path(__file__).resolve().parents[1] / "data" / "adams_joint_cases"
"""``tests/data/adams_joint_cases``: the models and ADAMS tables, with their SOURCE.md."""

GRAVITY = (0.0, 0.0, -9.80665)
"""ACCGRAV KGRAV = -9.80665 [m/s^2] (all six models)."""

BODY = "PART/02"
"""The pendulum part, the only moving body of every case."""

QUANTITIES = ("Pos", "Vel", "Acc", "Quat", "Avel", "Aacc", "Rforce", "Rtorque")
"""The ADAMS result tables of every case."""


def reuler(psi_deg: float, theta_deg: float, phi_deg: float) -> NDArray[np.float64]:
    """ADAMS ``REULER = psi D, theta D, phi D`` (body-fixed 3-1-3, degrees) as radians."""
    return np.radians([psi_deg, theta_deg, phi_deg])


def add_marker(
    body: Ground | RigidBody, name: str, qp: ArrayLike, euler_deg: tuple[float, float, float] = (0.0, 0.0, 0.0)
) -> Marker:
    """ADAMS ``MARKER/name, QP = qp [m], REULER = euler_deg`` given in ground axes at input."""
    return body.add_marker(name, position=qp, euler_angles=reuler(*euler_deg), frame="world")


def pendulum_part(
    model: Model, cm_qp: ArrayLike, cm_euler_deg: tuple[float, float, float], ip: tuple[float, float, float]
) -> RigidBody:
    """``PART/02, MASS = 1, CM = 0201, IP = ip`` [kg m^2] with CM marker 0201 at ``cm_qp`` [m] and
    ``REULER = cm_euler_deg``; the body frame is marker 0201. Starts at rest (no VX.. / WX.. given,
    ADAMS's default is zero)."""
    part = model.add(
        RigidBody(
            BODY,
            mass=1.0,
            inertia=ip,
            position=cm_qp,
            orientation=rotation_from_313_angles(*reuler(*cm_euler_deg)),
            velocity=(0.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, 0.0),
        )
    )
    add_marker(part, "0201", cm_qp, cm_euler_deg)
    return part


def joint_case(
    title: str,
    joint: type,
    cm_qp: tuple[float, float, float],
    turned: tuple[float, float, float],
    ip: tuple[float, float, float],
) -> Model:
    """A pendulum part whose CM marker 0201 (at ``cm_qp``) and joint markers 0102 (ground) and
    0202 (part), both at the origin, share the REULER angles ``turned`` [deg]: ``JOINT/1`` of
    class ``joint`` between I = 0102 and J = 0202."""
    model = Model(title, gravity=GRAVITY)
    part = pendulum_part(model, cm_qp, turned, ip)
    i = add_marker(model.ground, "0102", (0.0, 0.0, 0.0), turned)
    j = add_marker(part, "0202", (0.0, 0.0, 0.0), turned)
    model.add(joint("JOINT/1", i, j))
    return model


def revolute_case() -> Model:
    """test_Revolute_Case01: revolute about ground y (markers turned -90 deg about x), CM 2 m along x."""
    return joint_case("test_Revolute_Case01", Revolute, (2.0, 0.0, 0.0), (180.0, 90.0, 180.0), (0.04, 0.1, 0.1))


def spherical_case() -> Model:
    """test_Spherical_Case01: ball joint at the origin, CM 2 m along x, all markers along ground axes."""
    return joint_case("test_Spherical_Case01", Spherical, (2.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.04, 0.1, 0.1))


def universal_case() -> Model:
    """test_Universal_Case01: ``JOINT/1, HOOKE`` (x_I perpendicular to y_J) at the origin, markers
    turned 90 deg about x, CM 2 m along y. The .adm's HOOKE is our ``Hooke``: ADAMS UNIVERSAL
    (z_I perpendicular to z_J) could not even assemble here, since z_I and z_J start parallel."""
    return joint_case("test_Universal_Case01", Hooke, (0.0, 2.0, 0.0), (0.0, 90.0, 0.0), (0.1, 0.1, 0.04))


def prismatic_case() -> Model:
    """test_Prismatic_Case01: ``JOINT/1, TRANSLATIONAL`` along ground z (along gravity), CM 2 m along x."""
    return joint_case("test_Prismatic_Case01", Translational, (2.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.04, 0.1, 0.1))


def cylindrical_case() -> Model:
    """test_Cylindrical_Case01: cylindrical joint along ground z (along gravity), CM 2 m along x."""
    return joint_case("test_Cylindrical_Case01", Cylindrical, (2.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.04, 0.1, 0.1))


def distance_case() -> Model:
    """test_Distance_Case01: ``GCON/1, I = 0102, FUNCTION = DM(0202, 0102) - 2``: marker 0202 (at
    the CM, 2 m along y) kept 2 m from the ground origin."""
    model = Model("test_Distance_Case01", gravity=GRAVITY)
    part = pendulum_part(model, (0.0, 2.0, 0.0), (0.0, 0.0, 0.0), (0.04, 0.1, 0.1))
    i = add_marker(model.ground, "0102", (0.0, 0.0, 0.0))
    j = add_marker(part, "0202", (0.0, 2.0, 0.0))
    model.add(Distance("GCON/1", i, j, distance=2.0))
    return model


BUILDERS: dict[str, Callable[[], Model]] = {
    "Revolute": revolute_case,
    "Spherical": spherical_case,
    "Universal": universal_case,
    "Prismatic": prismatic_case,
    "Cylindrical": cylindrical_case,
    "Distance": distance_case,
}
"""Case name (as in the .adm and table file names) -> builder."""

CONSTRAINT = {case: "GCON/1" if case == "Distance" else "JOINT/1" for case in BUILDERS}
"""The constraint whose reaction the Rforce/Rtorque tables report."""


def read_table(case: str, quantity: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(time (501,) [s], values (501, 3 or 4))`` of ``results/<case>_Case01_ADAMS_<quantity>.txt``.

    The files are tab-separated: two ``#`` lines, a line of column names, then one row per
    output time. Values are printed to 7 significant digits.
    """
    path = REFERENCE_DIR / "results" / f"{case}_Case01_ADAMS_{quantity}.txt"
    with path.open() as table:
        lines = [line for line in table if not line.startswith("#")]
    columns = lines[0].split()
    data = np.loadtxt(lines[1:], ndmin=2)
    if columns[0] != "Time" or data.shape[1] != len(columns):
        raise ValueError(f"{path}: expected a Time column and {len(columns)} values a row, got columns {columns}")
    return data[:, 0], data[:, 1:]
