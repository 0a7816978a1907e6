"""ADAMS statements with first-order states: DIFF, LSE (with MATRIX), TFSISO, ARRAY and
VARIABLE, and the DIF, DIF1 and ARYVAL functions (``multibody.io.adm``).

References: closed forms (a first-order lag 1 - exp(-t / tau), the unit step response of
wn^2 / (s^2 + 2 zeta wn s + wn^2), a mass pushed by the lag's output), and the same model built
in Python with ``mb.DifferentialEquation`` / ``mb.StateSpace`` (two builds of one model agree
to the integration error).
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.io.adm import parse_adm
from multibody.io.adm.requests import request_outputs

RTOL = 1e-8
CLOSED_FORM = 2e-6
"""Some hundred steps at rtol 1e-8 on O(1) signals: global errors of a few 1e-7."""

DECK = """ADAMS/View model name: states
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND
PART/1, GROUND
MARKER/1, PART=1
MARKER/11, PART=1, ZP=1,0,0
PART/2, MASS=2, CM=20, IP=1,1,1
MARKER/20, PART=2
MARKER/21, PART=2, ZP=1,0,0
ACCGRAV/KGRAV=0
JOINT/1, TRANSLATIONAL, I=21, J=11
VARIABLE/1, FUNCTION=1.0
! a first-order lag of VARIABLE/1, pushing the part along x
DIFF/1, IC=0, FUNCTION=(VARVAL(1) - DIF(1)) / 0.2
SFORCE/1, TRANSLATIONAL, ACTIONONLY, I=20, J=11, FUNCTION=DIF(1)
! the rate of the lag, integrated again: the same lag
DIFF/2, FUNCTION=DIF1(1)
! a second-order transfer function of VARIABLE/1 (coefficients in ascending powers of s)
ARRAY/1, U, VARIABLES=1
ARRAY/2, X, SIZE=2
ARRAY/3, Y, SIZE=1
TFSISO/1, U=1, X=2, Y=3, NUMERATOR=4, DENOMINATOR=4, 0.8, 1
VARIABLE/2, FUNCTION=ARYVAL(3, 1)
! an LSE x' = A x + B u, y = C x, u = the part's x position, x(0) from an IC array
MATRIX/1, FULL=RORDER, ROWS=2, COLUMNS=2, VALUES=0, 1, -4, -1
MATRIX/2, FULL=RORDER, ROWS=2, COLUMNS=1, VALUES=0, 1
MATRIX/3, FULL=CORDER, ROWS=1, COLUMNS=2, VALUES=1, 0.5
VARIABLE/3, FUNCTION=DX(20, 1)
ARRAY/4, U, VARIABLES=3
ARRAY/5, X, SIZE=2
ARRAY/6, Y, SIZE=1
ARRAY/7, IC, NUMBERS=0.3, -0.1
LSE/1, X=5, U=4, Y=6, A=1, B=2, C=3, IC=7
REQUEST/1, F2=DIF(1), F3=ARYVAL(5, 2), F4=ARYVAL(6, 1), F5=VARVAL(2)
END
"""


@pytest.fixture(scope="module")
def imported() -> tuple[mb.System, mb.Results, object]:
    dataset = parse_adm(DECK)
    assert not dataset.report.items
    system = dataset.check().compile()
    return system, mb.dynamics(system, 2.0, 0.1, rtol=RTOL), dataset


def test_diff_and_dif1_are_the_lag(imported) -> None:
    _, res, _ = imported
    lag = 1 - np.exp(-res.time / 0.2)
    assert res.state("DIFF/1")[:, 0] == pytest.approx(lag, abs=CLOSED_FORM)
    assert res.state("DIFF/2")[:, 0] == pytest.approx(lag, abs=CLOSED_FORM)


def test_sforce_reading_dif_pushes_the_part(imported) -> None:
    """m v' = 1 - exp(-t / tau): v = (t - tau (1 - exp(-t / tau))) / m."""
    _, res, _ = imported
    t, tau = res.time, 0.2
    assert res.body("PART/2").velocity[:, 0] == pytest.approx((t - tau * (1 - np.exp(-t / tau))) / 2, abs=CLOSED_FORM)


def test_tfsiso_step_response(imported) -> None:
    _, res, _ = imported
    t, wn, zeta = res.time, 2.0, 0.2
    wd = wn * np.sqrt(1 - zeta**2)
    step = 1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * t))
    assert res.force("TFSISO/1").value == pytest.approx(step, abs=CLOSED_FORM)


def test_lse_matches_the_python_state_space(imported) -> None:
    """The same part, lag and LSE built with the Python API: the same states to round-off."""
    _, res, _ = imported
    model = mb.Model("python", gravity=(0.0, 0.0, 0.0))
    part = model.add(mb.RigidBody("part", 2.0, (1.0, 1.0, 1.0)))
    along_x = (1.0, 0.0, 0.0)
    push = part.add_marker("push", z_axis=along_x)
    model.add(mb.Translational("slide", push, model.ground.add_marker("slide", z_axis=along_x)))
    center = part.add_marker("center")
    model.add(mb.DifferentialEquation("lag", lambda t, x, m: (1.0 - x) / 0.2, i_marker=push))
    model.add(
        mb.StateSpace(
            "lse",
            [[0.0, 1.0], [-4.0, -1.0]],
            [[0.0], [1.0]],
            [[1.0, 0.5]],
            input=lambda m: m.displacement(center)[0],
            initial=[0.3, -0.1],
            reads=[center],
        )
    )
    python = mb.dynamics(model, 2.0, 0.1, rtol=RTOL)
    # The deck carries two more equations (DIFF/2, TFSISO/1) whose error estimates steer its steps:
    # the runs differ by integration error, a few 1e-8 here.
    assert res.state("LSE/1") == pytest.approx(python.state("lse"), abs=CLOSED_FORM)
    assert res.body("PART/2").position == pytest.approx(python.body("part").position, abs=CLOSED_FORM)
    assert np.max(np.abs(res.state("LSE/1"))) > 0.1  # it moved


def test_requests_read_states_and_outputs(imported) -> None:
    system, res, dataset = imported
    outputs = request_outputs(dataset.requests, system, res)["REQUEST/1"]
    assert outputs["f2"] == pytest.approx(res.state("DIFF/1")[:, 0], abs=1e-12)
    assert outputs["f3"] == pytest.approx(res.state("LSE/1")[:, 1], abs=1e-12)
    assert outputs["f4"] == pytest.approx(res.force("LSE/1").value, abs=1e-12)
    assert outputs["f5"] == pytest.approx(res.force("TFSISO/1").value, abs=1e-12)


def test_unsupported_forms_are_reported() -> None:
    # An implicit DIFF is read (test_adm_implicit_gse.py), but its rate only inside its own FUNCTION.
    implicit = "DIFF/2, IMPLICIT, FUNCTION=DIF1(2) - 1\nDIFF/3, FUNCTION=DIF1(2)"
    deck = DECK.replace("DIFF/2, FUNCTION=DIF1(1)", implicit).replace("END", "GSE/1, NS=1, FUNCTION=USER(1)\nEND")
    report = parse_adm(deck).report
    reported = " ".join(item.format() for item in report.changes_motion)
    assert "implicit DIFF" in reported
    assert "GSE" in reported
