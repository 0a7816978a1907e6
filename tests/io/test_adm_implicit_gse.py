"""ADAMS implicit DIFF (0 = FUNCTION, DIF1 of itself its rate) and GSE (general state equations
with Python functions standing in for their subroutine, ``multibody.io.adm.gse``).

References: the same model built in Python with ``mb.DifferentialEquation(implicit=True)`` and
``mb.DifferentialEquation(output=...)`` (two builds of one model agree to the integration error),
a closed-form first-order lag for the time unit of DIF1, and the element's own histories for what
requests read through ARYVAL.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.io.adm import AdmError, GseFunctions, parse_adm
from multibody.io.adm.requests import request_outputs

RTOL = 1e-8

DECK = """ADAMS/View model name: implicit_gse
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND
PART/1, GROUND
MARKER/1, PART=1
MARKER/11, PART=1, ZP=1,0,0
PART/2, MASS=2, CM=20, IP=1,1,1
MARKER/20, PART=2
MARKER/21, PART=2, ZP=1,0,0
ACCGRAV/KGRAV=0
JOINT/1, TRANSLATIONAL, I=21, J=11
! a nonlinear implicit lag of the part's position pushing the part: 0 = 0.1 x'^3 + 0.5 x' + x - 1 + 4 DX
DIFF/1, IMPLICIT, IC=0, 0.5, FUNCTION=0.1*DIF1(1)**3 + 0.5*DIF1(1) + DIF(1) - 1 + 4*DX(20, 1)
SFORCE/1, TRANSLATIONAL, ACTIONONLY, I=20, J=11, FUNCTION=DIF(1)
! a GSE driven by the part's velocity, its output pushing back
VARIABLE/1, FUNCTION=VX(20, 1)
ARRAY/1, U, VARIABLES=1
ARRAY/2, X, SIZE=2
ARRAY/3, Y, SIZE=1
ARRAY/4, IC, NUMBERS=0.1, 0
GSE/1, NS=2, NO=1, X=2, U=1, Y=3, IC=4, FUNCTION=USER(9.0, 0.6)\\ROUTINE=gse_lib::oscillator
SFORCE/2, TRANSLATIONAL, ACTIONONLY, I=20, J=11, FUNCTION=ARYVAL(3, 1)
REQUEST/1, F2=ARYVAL(3, 1), F3=ARYVAL(2, 2), F4=DIF(1)
END
"""


def oscillator_rate(time: float, x: np.ndarray, u: np.ndarray, parameters: tuple[float, ...]) -> np.ndarray:
    """x1' = x2, x2' = -k x1 - c x2 + u: a damped oscillator driven by u (k, c = USER(k, c))."""
    stiffness, damping = parameters
    return np.array([x[1], -stiffness * x[0] - damping * x[1] + u[0]])


def oscillator_output(time: float, x: np.ndarray, u: np.ndarray, parameters: tuple[float, ...]) -> np.ndarray:
    """y = -k x1 [N]."""
    return np.array([-parameters[0] * x[0]])


GSE = {1: GseFunctions(rate=oscillator_rate, output=oscillator_output)}


@pytest.fixture(scope="module")
def imported() -> tuple[mb.System, mb.Results, object]:
    dataset = parse_adm(DECK, gse=GSE)
    assert not dataset.report.items
    system = dataset.check().compile()
    return system, mb.dynamics(system, 2.0, 0.02, rtol=RTOL), dataset


def python_model() -> mb.Results:
    """The deck built with the Python API."""
    model = mb.Model("python", gravity=(0.0, 0.0, 0.0))
    part = model.add(mb.RigidBody("part", 2.0, (1.0, 1.0, 1.0)))
    along_x = (1.0, 0.0, 0.0)
    push = part.add_marker("push", z_axis=along_x)
    model.add(mb.Translational("slide", push, model.ground.add_marker("slide", z_axis=along_x)))
    model.add(
        mb.DifferentialEquation(
            "lag",
            lambda t, x, x_dot, m: 0.1 * x_dot**3 + 0.5 * x_dot + x - 1.0 + 4.0 * m.displacement(push)[0],
            0.0,
            i_marker=push,
            reads=[push],
            implicit=True,
        )
    )
    parameters = (9.0, 0.6)
    model.add(
        mb.DifferentialEquation(
            "gse",
            lambda t, x, m: oscillator_rate(t, x, [m.velocity(push)[0]], parameters),
            [0.1, 0.0],
            i_marker=push,
            reads=[push],
            output=lambda t, x, m: oscillator_output(t, x, [m.velocity(push)[0]], parameters),
        )
    )
    return mb.dynamics(model, 2.0, 0.02, rtol=RTOL)


def test_implicit_diff_and_gse_match_the_python_model(imported) -> None:
    """The deck's DIFF/IMPLICIT and GSE against the same equations built in Python: the same
    arithmetic, so the runs take the same steps and agree to round-off (measured: bitwise equal).
    The bound 1e-9 leaves room for round-off in the order the loads are summed (the deck's are
    SFORCEs, the Python elements act themselves) and is 100x below the integration error (rtol
    1e-8), so a different equation (a sign, a unit) would fail it."""
    _, res, _ = imported
    python = python_model()
    assert res.state("DIFF/1") == pytest.approx(python.state("lag"), abs=1e-9)
    assert res.state("GSE/1") == pytest.approx(python.state("gse"), abs=1e-9)
    assert res.body("PART/2").position == pytest.approx(python.body("part").position, abs=1e-9)
    assert res.force("GSE/1").value == pytest.approx(-9.0 * res.state("GSE/1")[:, 0], rel=1e-12)
    # not vacuous: the lag, the oscillator and the part all moved
    assert np.ptp(res.state("DIFF/1")) > 0.1 and np.ptp(res.state("GSE/1")[:, 0]) > 0.05
    assert np.ptp(res.body("PART/2").position[:, 0]) > 0.05


def test_implicit_diff_residual_holds_along_the_run(imported) -> None:
    """The rate the integrator followed solves the deck's residual: with x' from the stored
    states by central differences on the 0.02 s output, 0.1 x'^3 + 0.5 x' + x - 1 + 4 DX stays
    within the differences' error of zero (measured 1.9e-4; 1.2e-5 on a 0.005 s output, the h^2
    of the differences, not the solve)."""
    _, res, _ = imported
    x, t = res.state("DIFF/1")[:, 0], res.time
    rate = np.gradient(x, t, edge_order=2)
    residual = 0.1 * rate**3 + 0.5 * rate + x - 1.0 + 4.0 * res.body("PART/2").position[:, 0]
    assert np.max(np.abs(rate)) > 0.5
    assert np.max(np.abs(residual[1:-1])) < 5e-4


def test_requests_read_the_gse_outputs_and_states(imported) -> None:
    """ARYVAL of the Y array calls the output function at every output instant; of the X array
    reads the states: both equal the element's own histories to round-off."""
    system, res, dataset = imported
    outputs = request_outputs(dataset.requests, system, res)["REQUEST/1"]
    assert outputs["f2"] == pytest.approx(res.force("GSE/1").value, abs=1e-12)
    assert outputs["f3"] == pytest.approx(res.state("GSE/1")[:, 1], abs=1e-12)
    assert outputs["f4"] == pytest.approx(res.state("DIFF/1")[:, 0], abs=1e-12)


def test_dif1_of_an_implicit_diff_is_its_rate_in_the_dataset_time_unit() -> None:
    """In milliseconds, DIF1 is dx/dt per ms: 0 = 1000 DIF1 + DIF - 1 is x' = 1 - x per second,
    x = 1 - exp(-t) (closed form; rtol 1e-9 over 1 s: measured 3e-9)."""
    deck = """units
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=MILLISECOND
PART/1, GROUND
PART/2, MASS=1, CM=20, IP=1,1,1
MARKER/20, PART=2
ACCGRAV/KGRAV=0
DIFF/5, IMPLICIT, FUNCTION=1000*DIF1(5) + DIF(5) - 1, STATIC_HOLD
END
"""
    dataset = parse_adm(deck)
    (item,) = dataset.report.items
    assert "DIFF/5: STATIC_HOLD" in item.format() and item.severity == "ignored"
    res = mb.dynamics(dataset.check(), 1.0, 0.05, rtol=1e-9)
    assert res.state("DIFF/5")[:, 0] == pytest.approx(1.0 - np.exp(-res.time), abs=2e-8)


def test_what_cannot_be_read_is_named() -> None:
    # A GSE without its functions: reported, naming the statement and the hook.
    report = parse_adm(DECK).report
    (gse_item,) = [i for i in report.changes_motion if "GSE/1" in i.format() and "GSE_DERIV" in i.format()]
    assert "gse={1: GseFunctions(rate=f, output=g)}" in gse_item.format()
    # ... and what reads its outputs, too
    assert any("SFORCE/2" in i.format() for i in report.changes_motion)
    # Implicit and discrete GSEs are not read.
    for keyword, what in (("IMPLICIT", "an implicit GSE"), ("SAMPLE_PERIOD=0.1", "discrete GSE states")):
        deck = DECK.replace("FUNCTION=USER(9.0, 0.6)", f"{keyword}, FUNCTION=USER(9.0, 0.6)")
        assert what in parse_adm(deck, gse=GSE).report.format()
    # An implicit DIFF whose FUNCTION does not contain its own DIF1 has no rate to solve for.
    with pytest.raises(AdmError, match=r"DIFF/1: the FUNCTION of an implicit DIFF .* must contain DIF1\(1\)"):
        parse_adm(DECK.replace("0.1*DIF1(1)**3 + 0.5*DIF1(1) + ", ""), gse=GSE)
    with pytest.raises(mb.ModelError, match="gse= gives functions for GSE/7, which the dataset does not define"):
        parse_adm(DECK, gse={**GSE, 7: GSE[1]})
    with pytest.raises(mb.ModelError, match="must be a GseFunctions"):
        parse_adm(DECK, gse={1: oscillator_rate})
    with pytest.raises(AdmError, match="GSE/1: NO = 1: its GseFunctions needs an output function"):
        parse_adm(DECK, gse={1: GseFunctions(rate=oscillator_rate)})
    wrong = {1: GseFunctions(rate=oscillator_rate, output=lambda time, x, u, parameters: [1.0, 2.0])}
    system = parse_adm(DECK, gse=wrong).check()
    with pytest.raises(mb.AnalysisError, match="GSE/1: its output function returned 2 values for NO = 1"):
        mb.dynamics(system, 0.1, 0.05)
    failing = {1: GseFunctions(rate=oscillator_rate, output=lambda time, x, u, parameters: 1.0 / 0.0)}
    system = parse_adm(DECK, gse=failing).check()
    with pytest.raises(mb.AnalysisError, match="GSE/1: its output function raised ZeroDivisionError"):
        mb.dynamics(system, 0.1, 0.05)
