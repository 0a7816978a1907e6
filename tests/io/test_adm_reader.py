"""Reading ADAMS/Solver datasets: syntax, references, the report of what is left out, the model
built, and the expression-driven elements against the same physics built through the API.

References: the dataset syntax of the ADAMS/Solver statement reference (title line, ``,``
continuation, ``!`` comments, abbreviations, ``D`` degrees, ``END``); closed-form rigid-body
relations (rotated and parallel-axis inertia); and, for the expression forces, the equivalent
API elements (``SpringDamper``, ``TorsionSpring``, ``PointForce``): two independent formulations
of one law, so runs agree to the integration error (tolerance ``AGREE``).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from multibody import (
    AnalysisError,
    Model,
    PointForce,
    Revolute,
    RigidBody,
    Spherical,
    SpringDamper,
    TorsionSpring,
    dynamics,
    kinematics,
)
from multibody.io.adm import AdmError, AdmReferenceError, AdmSyntaxError, parse_adm
from multibody.io.adm.acf import parse_acf
from multibody.model.element import ModelError
from multibody.spatial.rotations import rotation_from_313_angles

AGREE = 1e-7
"""Runs of two formulations of one law at rtol 1e-10 agree to this [m, rad]."""
RTOL = 1e-10


PENDULUM = """\
pendulum
! a comment line
PART/01, GROUND
MARKER/0101, PART = 01
PART/02, MASS = 2, CM = 0201, IP = 0.1, 0.2, 0.3
MARKER/0201, PART = 02, QP = 1, 0, 0
MARKER/0202, PART = 02
, QP = 0, 0, 0   ! continuation line
JOINT/1, REVOLUTE, I = 0202, J = 0101
ACCGRAV/KGRAV = -9.81
END
this text after END is ignored ( ) ! ,
"""


def test_a_simple_dataset() -> None:
    """Title, comments, continuation, leading-zero ids, a keyword right after ``ACCGRAV/`` and
    the text after END."""
    imported = parse_adm(PENDULUM)
    model = imported.model
    assert imported.title == "pendulum"
    assert list(model.bodies) == ["PART/2"]
    body = model.bodies["PART/2"]
    assert body.mass == 2.0
    np.testing.assert_array_equal(body.position, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(body.inertia, np.diag([0.1, 0.2, 0.3]))
    joint = model.joints["JOINT/1"]
    assert isinstance(joint, Revolute)
    assert (joint.i_marker.full_name, joint.j_marker.full_name) == ("PART/2/MARKER/202", "ground/MARKER/101")
    np.testing.assert_array_equal(model.gravity, [0.0, 0.0, -9.81])
    assert imported.report.items == ()
    assert imported.aliases["PART/02"] == "PART/2"


def test_abbreviations_case_and_forward_references() -> None:
    """Keywords shortened to unique prefixes, lower case, and a joint read before its markers."""
    text = """\
abbreviated
joint/1, rev, i = 202, j = 101
par/1, gro
mar/101, pa = 1
part/2, mas = 2, cm = 201, ip = 0.1, 0.2, 0.3
mark/201, part = 2, qp = 1, 0, 0, reu = 90d, 0, 0
mark/202, part = 2
"""
    model = parse_adm(text).model
    assert isinstance(model.joints["JOINT/1"], Revolute)
    np.testing.assert_allclose(
        model.bodies["PART/2"].orientation, rotation_from_313_angles(math.pi / 2, 0, 0), atol=1e-15
    )


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("t\nPART/1, GROUND\nMARKER/2, PART = \n", 3, 17, "an integer id for PART"),
        ("t\nPART/1, GROUND\nMARKER/2, PART 1\n", 3, 16, "'=' after MARKER keyword PART"),
        ("t\nPART/1, GROUND\nMARKER/2, PART=1, QP = 1, 2 3, 0\n", 3, 27, "a keyword of MARKER, found '2 3, 0'"),
        ("t\n, QP = 1\n", 2, 1, "continuation line"),
        ("t\nPART/-1\n", 2, 6, "an integer id after 'PART/'"),
        ("t\nPART/1, GROUND\nSFORCE/1, I=1, J=1, TRANS, FUNCTION = (1 + 2\n", 3, 45, "')' to close the expression"),
        (
            "t\nPART/1, GROUND\nMARKER/1, PART=1, QP=0,0,0\nREQUEST/1, D, I=1, J=1, C\n",
            4,
            26,
            "'=' after REQUEST keyword COMMENT",
        ),
        ("t\nPART/1, GROUND\nJOINT/1, P, I=1, J=1\n", 3, 10, "abbreviates several keywords of JOINT"),
        ("t\n3 PART\n", 2, 1, "a statement name"),
    ],
)
def test_syntax_errors_name_line_column_and_what_was_expected(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(AdmSyntaxError, match=re.escape(message)) as caught:
        parse_adm(text, "model.adm")
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)
    assert str(caught.value).startswith(f"model.adm:{line}:{column}: ")


def test_expression_errors_point_into_the_file() -> None:
    """An error inside a FUNCTION points at its line and column in the file."""
    text = PENDULUM.replace("ACCGRAV", "SFORCE/5, ROTATIONAL, I=0202, J=0101\n, FUNCTION = 2 * STEP(TIME, 0)\nACCGRAV")
    with pytest.raises(AdmSyntaxError, match="5 arguments for STEP") as caught:
        parse_adm(text)
    assert (caught.value.line, caught.value.column) == (11, 18)


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        ("I = 0202, J = 0101", "MARKER/999 is not defined"),
        ("PART = 02\n, QP = 0, 0, 0", "PART=7 is not defined"),
        ("CM = 0201", "CM=101 is on PART/1, not on this part"),
    ],
)
def test_reference_errors(replace: str, message: str) -> None:
    wrong = {
        "I = 0202, J = 0101": "I = 0202, J = 999",
        "PART = 02\n, QP = 0, 0, 0": "PART = 7",
        "CM = 0201": "CM = 0101",
    }
    with pytest.raises(AdmError, match=message):
        parse_adm(PENDULUM.replace(replace, wrong[replace]))


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(AdmReferenceError, match="already used by the statement on line 5"):
        parse_adm(PENDULUM.replace("END", "PART/2, MASS = 1\nEND"))


def test_unsupported_items_are_reported_with_their_lines() -> None:
    """Unknown statements and keywords, unsupported joint types and GCON forms are listed; those
    that change the motion make ``check`` refuse the model, naming them."""
    text = PENDULUM.replace(
        "ACCGRAV",
        "FIELD/1, I = 0201, J = 0101\n"  # line 10: an unknown statement
        "JOINT/2, RACKPIN, I = 0201, J = 0101, PD = 1\n"
        "GCON/3, I = 0201, FUNCTION = DX(0201)\n"
        "REQUEST/4, D, I = 0201, RESULTS_NAME = r\n"
        "DEBUG/EPRINT\n"
        "ACCGRAV",
    )
    imported = parse_adm(text, "m.adm")
    found = [(item.line, item.what, item.severity) for item in imported.report.items]
    assert found == [
        (10, "statement FIELD", "not simulated"),
        (11, "JOINT/2, RACKPIN", "not simulated"),
        (12, "GCON/3, FUNCTION = DX(0201)", "not simulated"),
        (13, "REQUEST keyword RESULTS_NAME", "ignored"),
        (14, "statement DEBUG", "ignored"),
    ]
    with pytest.raises(ModelError, match="3 items that change the motion") as caught:
        imported.check()
    assert "line 11, column 1: JOINT/2, RACKPIN" in str(caught.value)
    assert "line 13" not in str(caught.value)


def test_inertia_about_a_turned_and_offset_im_marker() -> None:
    """IP about an IM marker turned by R and placed at r from the CM: about the CM in CM axes the
    inertia is ``R J R^T - m (|r|^2 I - r r^T)`` (rotation, then parallel axes back to the CM)."""
    text = """\
inertia
PART/1, GROUND
PART/2, MASS = 3, CM = 20, IM = 21, IP = 10, 11, 12, 0.1, 0.2, 0.3
MARKER/20, PART = 2, QP = 1, 2, 3
MARKER/21, PART = 2, QP = 1.5, 2, 3.2, REULER = 30D, 40D, 50D
"""
    body = parse_adm(text).model.bodies["PART/2"]
    J_IM = np.array([[10, 0.1, 0.2], [0.1, 11, 0.3], [0.2, 0.3, 12]])
    R = rotation_from_313_angles(*np.radians([30, 40, 50]))
    r = np.array([0.5, 0.0, 0.2])
    expected = R @ J_IM @ R.T - 3.0 * (r @ r * np.eye(3) - np.outer(r, r))
    np.testing.assert_allclose(body.inertia, expected, atol=1e-14)


def test_part_frame_initial_velocities_and_exact() -> None:
    """QG/REULER place the part, markers sit in its frame; VX.. are in ground axes, WX.. in the
    CM marker's axes; EXACT marks coordinates that assembly keeps."""
    text = """\
frames
PART/1, GROUND
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1, QG = 0, 0, 1, REULER = 90D, 0, 0
, VX = 1, WZ = 2, WX = 3, EXACT = X:Z:PSI
MARKER/20, PART = 2, QP = 1, 0, 0, REULER = 0, 90D, 0
"""
    body = parse_adm(text).model.bodies["PART/2"]
    np.testing.assert_allclose(body.position, [0.0, 1.0, 1.0], atol=1e-15)  # part x is ground y
    R_CM = rotation_from_313_angles(math.pi / 2, 0, 0) @ rotation_from_313_angles(0, math.pi / 2, 0)
    np.testing.assert_allclose(body.orientation, R_CM, atol=1e-15)
    np.testing.assert_allclose(body.velocity, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(body.angular_velocity, R_CM @ [3.0, 0.0, 2.0], atol=1e-15)
    assert body.exact == ("x", "z", "orientation")


SPRING_PENDULUM = """\
spring pendulum
PART/1, GROUND
MARKER/1, PART = 1
MARKER/3, PART = 1, QP = 0.5, 0.5, 0
PART/2, MASS = 2, CM = 20, IP = 0.05, 0.06, 0.07, WZ = 0.5
MARKER/20, PART = 2, QP = 1, 0, 0
MARKER/21, PART = 2
JOINT/1, SPHERICAL, I = 21, J = 1
{force}
ACCGRAV/JGRAV = -9.81
"""


def spring_pendulum_by_hand(force: str) -> Model:
    """The SPRING_PENDULUM through the API, with ``force`` built from API elements."""
    model = Model("by hand", gravity=(0.0, -9.81, 0.0))
    ground_origin = model.ground.add_marker("1")
    anchor = model.ground.add_marker("3", position=(0.5, 0.5, 0.0))
    body = model.add(
        RigidBody("b", 2.0, (0.05, 0.06, 0.07), position=(1, 0, 0), velocity=(0, 0, 0), angular_velocity=(0, 0, 0.5))
    )
    cm = body.add_marker("20")
    pin = body.add_marker("21", position=(-1.0, 0.0, 0.0))
    model.add(Spherical("j", pin, ground_origin))
    if force == "spring":
        model.add(SpringDamper("s", cm, anchor, stiffness=40.0, damping=0.5, free_length=0.3, preload=2.0))
    elif force == "load":
        model.add(PointForce("f", cm, (1.0, 2.0, -3.0), frame="marker"))
    return model


def spring_pendulum_imported(force: str) -> Model:
    statements = {
        "spring": "SFORCE/7, TRANSLATIONAL, I = 20, J = 3, FUNCTION = -40*(DM(20,3)-0.3) - 0.5*VR(20,3) + 2",
        "springdamper": "SPRINGDAMPER/7, TRANSLATIONAL, I = 20, J = 3, K = 40, C = 0.5, LENGTH = 0.3, FORCE = 2",
        "load": "VFORCE/7, I = 20, JFLOAT = 1, RM = 20, FX = 1 \\ FY = 2 \\ FZ = -3",
        "gforce": "GFORCE/7, I = 20, JFLOAT = 1, RM = 20, FX = 1\\FY = 2\\FZ = -3\\TX = 0\\TY = 0\\TZ = 0",
    }
    return parse_adm(SPRING_PENDULUM.format(force=statements[force])).check()


@pytest.mark.parametrize(
    ("imported", "by_hand"), [("spring", "spring"), ("springdamper", "spring"), ("load", "load"), ("gforce", "load")]
)
def test_expression_forces_match_api_elements(imported: str, by_hand: str) -> None:
    """An SFORCE with a spring-damper expression (and SPRINGDAMPER) moves the pendulum as the
    API's SpringDamper does; a VFORCE / GFORCE in the CM marker's axes as a PointForce in marker
    axes (JFLOAT on ground: the reaction goes to ground)."""
    a = dynamics(spring_pendulum_imported(imported), 1.0, 0.05, rtol=RTOL)
    b = dynamics(spring_pendulum_by_hand(by_hand), 1.0, 0.05, rtol=RTOL)
    np.testing.assert_allclose(a.body("PART/2").position, b.body("b").position, rtol=0, atol=AGREE)
    np.testing.assert_allclose(a.body("PART/2").angular_velocity, b.body("b").angular_velocity, rtol=0, atol=10 * AGREE)


def test_rotational_sforce_and_springdamper_match_a_torsion_spring() -> None:
    """A torsional spring about a revolute axis three ways: SFORCE/ROTATIONAL with
    ``-k AZ - c WZ``, SPRINGDAMPER/ROTATIONAL, and the API's TorsionSpring."""
    base = """\
torsion
PART/1, GROUND
MARKER/1, PART = 1
PART/2, MASS = 1, CM = 20, IP = 0.1, 0.1, 0.2, WZ = 3
MARKER/20, PART = 2, QP = 0.2, 0, 0
MARKER/21, PART = 2
JOINT/1, REVOLUTE, I = 21, J = 1
{force}
"""
    forces = [
        "SFORCE/2, ROTATIONAL, I = 21, J = 1, FUNCTION = -5 * (AZ(21, 1) - 0.1) - 0.2 * WZ(21, 1, 1)",
        "SPRINGDAMPER/2, ROTATIONAL, I = 21, J = 1, KT = 5, CT = 0.2, ANGLE = 0.1",
    ]
    model = Model("by hand", gravity=(0.0, 0.0, 0.0))
    origin = model.ground.add_marker("1")
    body = model.add(
        RigidBody("b", 1.0, (0.1, 0.1, 0.2), position=(0.2, 0, 0), velocity=(0, 0, 0), angular_velocity=(0, 0, 3))
    )
    joint = model.add(Revolute("j", body.add_marker("21", position=(-0.2, 0, 0)), origin))
    model.add(TorsionSpring("t", joint, stiffness=5.0, damping=0.2, free_angle=0.1))
    reference = dynamics(model, 2.0, 0.05, rtol=RTOL).body("b").euler_parameters
    for force in forces:
        ours = (
            dynamics(parse_adm(base.format(force=force)).check(), 2.0, 0.05, rtol=RTOL).body("PART/2").euler_parameters
        )
        np.testing.assert_allclose(ours, reference, rtol=0, atol=AGREE)


def test_motion_follows_its_step_function() -> None:
    """MOTION/1, JOINT = 1, FUNCTION = STEP(TIME, 0, 0, 1, 90D): the crank angle is the STEP."""
    text = """\
driven crank
PART/1, GROUND
MARKER/1, PART = 1
PART/2, MASS = 1, CM = 20, IP = 0.1, 0.1, 0.1
MARKER/20, PART = 2, QP = 0.5, 0, 0
MARKER/21, PART = 2
JOINT/1, REVOLUTE, I = 21, J = 1
MOTION/1, JOINT = 1, ROTATION, FUNCTION = STEP(TIME, 0, 0, 1, 90D)
"""
    results = kinematics(parse_adm(text).check(), 1.5, 0.125)
    p = results.body("PART/2").position
    s = np.clip(results.time, 0.0, 1.0)
    angle = 0.5 * math.pi * s**2 * (3 - 2 * s)
    np.testing.assert_allclose(np.arctan2(p[:, 1], p[:, 0]), angle, atol=1e-9)


def test_aliases_reach_elements_in_results() -> None:
    """Results answer to the id as written and to the ADAMS/View name as well as to ``PART/2``."""
    text = PENDULUM.replace("PART/02, MASS", "!adams_view_name='rod'\nPART/02, MASS")
    results = dynamics(parse_adm(text).check(), 0.1, 0.05)
    for name in ("PART/2", "PART/02", "rod"):
        np.testing.assert_array_equal(results.body(name).position, results.body("PART/2").position)
    assert results.joint("JOINT/1").reaction_force.shape == (3, 3)


def test_command_file_settings() -> None:
    """SIMULATE END / DURATION with DTOUT / STEPS (times in the dataset's unit), INTEGRATOR form
    and ERROR; further SIMULATE commands are reported."""
    acf = (
        "model.adm\nout\nINTEGRATOR/I3, ERROR = 1E-5\nSIM/DYN, END = 2000, STEPS = 100\nSIMULATE/DYNAMIC, END=3\nSTOP\n"
    )
    commands = parse_acf(acf, time_unit=1e-3)
    assert commands.dataset == "model.adm"
    assert commands.settings == {
        "method": "I3",
        "rtol": 1e-5,
        "analysis": "dynamics",
        "t_end": 2.0,
        "output_step": 0.02,
    }
    assert [item.what for item in commands.items] == ["a second SIMULATE command"]
    assert parse_acf("\n\nSIMULATE/KINEMATIC, DURATION = 1, DTOUT = 0.1\n").settings == {
        "analysis": "kinematics",
        "t_end": 1.0,
        "output_step": 0.1,
    }
    with pytest.raises(AdmSyntaxError, match="END or DURATION"):
        parse_acf("\n\nSIMULATE/DYNAMIC, STEPS = 3\n")


def test_screw_and_convel_statements() -> None:
    """JOINT/.., SCREW with its PITCH (dataset length units) and JOINT/.., CONVEL are built."""
    text = PENDULUM.replace(
        "ACCGRAV",
        "UNITS/LENGTH = MILLIMETER\nJOINT/2, SCREW, I = 0201, J = 0101, PITCH = 5\n"
        "JOINT/3, CONVEL, I = 0201, J = 0101\nACCGRAV",
    )
    model = parse_adm(text).model
    assert model.joints["JOINT/2"].pitch == pytest.approx(5e-3)
    assert type(model.joints["JOINT/3"]).__name__ == "ConstantVelocity"


def test_integrator_statement() -> None:
    """INTEGRATOR/SI2 or I3 and ERROR map to the DAE form and tolerance; step-size settings are
    reported as ignored (our BDF controls the step by the error)."""
    imported = parse_adm("t\nPART/1, GROUND\nINTEGRATOR/GSTIFF, I3, ERROR = 1E-5, HMAX = 0.01\n")
    assert (imported.integrator.method, imported.integrator.rtol) == ("I3", 1e-5)
    assert [(i.what, i.severity) for i in imported.report.items] == [("INTEGRATOR keyword HMAX", "ignored")]


def test_a_force_that_is_not_a_number_names_its_statement() -> None:
    """SQRT of a negative distance change is no force: the error names the statement and time. At
    t = 0 as at any other time it is the run's failure, an ``AnalysisError`` (issue 17)."""
    text = SPRING_PENDULUM.format(force="SFORCE/7, TRANSLATIONAL, I = 20, J = 3, FUNCTION = SQRT(0.5 - DM(20, 3))")
    with pytest.raises(AnalysisError, match=r"SFORCE/7: 'SQRT\(0.5 - DM\(20, 3\)\)' is nan at t = 0 s"):
        dynamics(parse_adm(text).check(), 0.1, 0.05)


def test_graphics_become_display_shapes_where_adams_draws_them() -> None:
    """A CYLINDER from its CM marker's origin along the marker's z (here world x, 4 m long) is
    centred 2 m along it; a BOX from its CORNER marker spans X, Y, Z along the marker's axes; an
    OUTLINE is kept but not drawn (reported)."""
    text = """\
graphics
PART/1, GROUND
MARKER/1, PART = 1, QP = -1, -1, -1
MARKER/2, PART = 1
GRAPHICS/1, BOX, CORNER = 1, X = 2, Y = 2, Z = 2
GRAPHICS/2, OUTLINE = 1, 2
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 2, 0, 0
MARKER/21, PART = 2, REULER = 90D, 90D, 0
GRAPHICS/3, CYLINDER, CM = 21, LENGTH = 4, RADIUS = 0.1
"""
    imported = parse_adm(text)
    (box,) = imported.model.ground.shapes
    np.testing.assert_allclose(box.position, [0.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(box.shape.size, [2.0, 2.0, 2.0])
    (cylinder,) = imported.model.bodies["PART/2"].shapes
    np.testing.assert_allclose(cylinder.position, [0.0, 0.0, 0.0], atol=1e-15)  # the body frame is the CM
    np.testing.assert_allclose(cylinder.orientation[:, 2], [1.0, 0.0, 0.0], atol=1e-15)
    assert (cylinder.shape.radius, cylinder.shape.length) == (0.1, 4.0)
    assert [(item.line, item.what, item.reason) for item in imported.report.items] == [
        (6, "GRAPHICS/2, OUTLINE", "kept, not displayed")
    ]
