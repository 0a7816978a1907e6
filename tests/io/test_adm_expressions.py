"""ADAMS function expressions: the parser's precedence, the run-time functions against their
definitions in the ADAMS/Solver function reference, and the marker measurements against
configurations whose answers are known in closed form.

References: the ADAMS/Solver function reference (STEP: cubic ``h0 + a s^2 (3 - 2 s)``; HAVSIN:
``(h0 + h1)/2 + (h1 - h0)/2 sin(pi s - pi/2)``; IMPACT: ``max(0, k (x1 - x)^e - STEP(x, x1 - d,
cmax, x1, 0) x')`` for x < x1, else 0; POLY, SHF, BISTOP, AKISPL as there); Fortran's operator
precedence. Values computed by hand are exact to round-off, so the tolerance is 1e-12.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from multibody.io.adm import AdmError, AdmSyntaxError
from multibody.io.adm.expressions import UnsupportedFunction, compile_expression
from multibody.io.adm.functions import Curve
from multibody.io.adm.units import Units
from multibody.spatial.measurements import Measurements
from multibody.spatial.rotations import rotation_about_z, rotation_from_313_angles

SI = Units()
EXACT = 1e-12


def value(text: str, t: float = 0.0) -> float:
    """A time-only expression's value at ``t`` [s]."""
    return float(compile_expression(text, SI).of_time()(t))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 - 2 - 3", -4.0),  # left to right
        ("8 / 4 / 2", 1.0),
        ("2 + 3 * 4", 14.0),
        ("-2**2", -4.0),  # Fortran: the power binds tighter than the sign
        ("2**3**2", 512.0),  # and groups from the right
        ("2**-1", 0.5),
        ("(1 + 2) * 3", 9.0),
        ("90D", math.pi / 2),  # D suffix: degrees
        ("PI * RTOD", 180.0),
        ("180 * DTOR", math.pi),
        ("1.5E2 + .5", 150.5),
        ("ATAN2(1, 1) * 4", math.pi),
        ("MAX(1, 2) + MIN(3, 4)", 5.0),
        ("DIM(5, 3) + DIM(3, 5)", 2.0),
        ("SIGN(3, -1)", -3.0),
        ("MOD(-7, 3)", -1.0),  # Fortran MOD keeps the sign of the first argument
        ("AINT(-2.7) + ANINT(2.5)", 1.0),
        ("IF(-1: 10, 20, 30) + IF(0: 10, 20, 30) + IF(1: 10, 20, 30)", 60.0),
        ("abs(-2) + sqrt(16)", 6.0),  # names are case-insensitive
    ],
)
def test_arithmetic_and_precedence(text: str, expected: float) -> None:
    assert value(text) == pytest.approx(expected, abs=EXACT)


def test_time_is_read_in_dataset_units() -> None:
    """TIME is divided by the dataset's time unit: in milliseconds, t = 0.25 s reads 250."""
    in_ms = compile_expression("TIME", Units(time=1e-3))
    assert in_ms.of_time()(0.25) == pytest.approx(250.0)
    assert in_ms.needs == {"time"}


@pytest.mark.parametrize("x", [-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0])
def test_step_and_havsin_follow_their_definitions(x: float) -> None:
    """STEP(x, 0, 1, 1, 3) and HAVSIN(x, 0, 1, 1, 3) against the reference formulas."""
    s = min(max(x, 0.0), 1.0)
    assert value(f"STEP({x}, 0, 1, 1, 3)") == pytest.approx(1.0 + 2.0 * s * s * (3.0 - 2.0 * s), abs=EXACT)
    havsin = 2.0 + 1.0 * math.sin(s * math.pi - math.pi / 2.0)
    assert value(f"HAVSIN({x}, 0, 1, 1, 3)") == pytest.approx(havsin, abs=EXACT)
    assert value(f"STEP5({x}, 0, 1, 1, 3)") == pytest.approx(1.0 + 2.0 * s**3 * (10 - 15 * s + 6 * s * s), abs=EXACT)


def test_step_of_time_in_a_motion_sense() -> None:
    """STEP(TIME, 1, 0, 2, 1) is 0 before 1 s, 1/2 at 1.5 s, 1 after 2 s."""
    f = compile_expression("STEP(TIME, 1, 0, 2, 1)", SI).of_time()
    assert [f(0.5), f(1.5), f(2.5)] == pytest.approx([0.0, 0.5, 1.0], abs=EXACT)


def test_poly_shf_cheby_fourier() -> None:
    """POLY(x, x0, a0, a1, a2) = sum a_j (x - x0)^j; SHF = a sin(w (x - x0) - phi) + b; CHEBY with
    T0 = 1, T1 = u, T2 = 2u^2 - 1; FORCOS/FORSIN as Fourier series."""
    assert value("POLY(3, 1, 1, 2, 3)") == pytest.approx(1 + 2 * 2 + 3 * 4, abs=EXACT)
    assert value("SHF(2, 1, 3, 2, 0.5, 4)") == pytest.approx(3 * math.sin(2 * 1 - 0.5) + 4, abs=EXACT)
    assert value("CHEBY(2.5, 0.5, 1, 2, 3)") == pytest.approx(1 + 2 * 2 + 3 * (2 * 4 - 1), abs=EXACT)
    assert value("FORCOS(1, 0, 2, 1, 3)") == pytest.approx(1 + 3 * math.cos(2), abs=EXACT)
    assert value("FORSIN(1, 0, 2, 1, 3)") == pytest.approx(1 + 3 * math.sin(2), abs=EXACT)


@pytest.mark.parametrize(
    ("x", "x_dot"),
    [(1.2, -3.0), (1.0, -3.0), (0.95, -3.0), (0.95, 3.0), (0.8, -3.0), (0.8, 50.0), (0.5, 0.0)],
)
def test_impact_follows_its_definition(x: float, x_dot: float) -> None:
    """IMPACT(x, x', x1 = 1, k = 100, e = 1.5, cmax = 25, d = 0.1) (the reference's example numbers)."""
    x1, k, e, cmax, d = 1.0, 100.0, 1.5, 25.0, 0.1
    s = min(max((x - (x1 - d)) / d, 0.0), 1.0)
    damping = cmax + (0.0 - cmax) * s * s * (3 - 2 * s)
    expected = max(0.0, k * (x1 - x) ** e - damping * x_dot) if x < x1 else 0.0
    assert value(f"IMPACT({x}, {x_dot}, {x1}, {k}, {e}, {cmax}, {d})") == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("x", "x_dot"), [(-0.5, -1.0), (-0.05, 2.0), (0.0, 1.0), (0.5, 5.0), (1.0, 1.0), (1.05, 2.0), (1.5, -1.0)]
)
def test_bistop_is_two_impacts_around_a_gap(x: float, x_dot: float) -> None:
    """BISTOP(x, x', x1 = 0, x2 = 1, k, e, cmax, d): zero in the gap, IMPACT below x1, and the
    mirror image pushing down above x2."""
    x1, x2, k, e, cmax, d = 0.0, 1.0, 1e3, 2.0, 10.0, 0.1
    if x < x1:
        s = min(max((x - (x1 - d)) / d, 0.0), 1.0)
        expected = max(0.0, k * (x1 - x) ** e - cmax * (1 - s * s * (3 - 2 * s)) * x_dot)
    elif x > x2:
        s = min(max((x - x2) / d, 0.0), 1.0)
        expected = min(0.0, -k * (x - x2) ** e - cmax * s * s * (3 - 2 * s) * x_dot)
    else:
        expected = 0.0
    assert value(f"BISTOP({x}, {x_dot}, {x1}, {x2}, {k}, {e}, {cmax}, {d})") == pytest.approx(expected, abs=1e-9)


class Splines:
    """A resolver with one SPLINE (id 7) through the points of y = x^3 and nothing else."""

    x = np.linspace(-2.0, 2.0, 9)

    def curve(self, spline_id: int, method: str, line: int, column: int) -> Curve:
        assert spline_id == 7
        return Curve(self.x, self.x**3, method)


def test_splines_interpolate_their_points_and_track_a_cubic() -> None:
    """AKISPL and CUBSPL pass through the SPLINE's points; CUBSPL with not-a-knot ends reproduces a
    cubic exactly (value, slope, curvature); Akima reproduces it to its own O(h^2) accuracy."""
    for x in Splines.x:
        for name in ("AKISPL", "CUBSPL"):
            assert float(compile_expression(f"{name}({x}, 0, 7)", SI, Splines()).of_time()(0.0)) == pytest.approx(
                x**3, abs=EXACT
            )
    at = 0.7
    cubic = [float(compile_expression(f"CUBSPL({at}, 0, 7, {k})", SI, Splines()).of_time()(0.0)) for k in (0, 1, 2)]
    assert cubic == pytest.approx([at**3, 3 * at**2, 6 * at], abs=1e-10)


def test_akima_slopes_at_the_knots_follow_akimas_formula() -> None:
    """AKISPL's slope at a knot is Akima's weighted mean of the neighbouring secant slopes
    ``(|m4 - m3| m2 + |m2 - m1| m3) / (|m4 - m3| + |m2 - m1|)`` (m2, m3 the secants left and
    right of the knot), and the curve is the Hermite cubic between knots with those slopes."""
    x, y = Splines.x, Splines.x**3
    secants = np.diff(y) / np.diff(x)
    for knot in (3, 4, 5):  # interior knots with two secants on each side
        m1, m2, m3, m4 = secants[knot - 2 : knot + 2]
        expected = (abs(m4 - m3) * m2 + abs(m2 - m1) * m3) / (abs(m4 - m3) + abs(m2 - m1))
        slope = float(compile_expression(f"AKISPL({x[knot]}, 0, 7, 1)", SI, Splines()).of_time()(0.0))
        assert slope == pytest.approx(expected, abs=EXACT)


def test_linear_extrapolation_continues_the_end_slope() -> None:
    """LINEAR_EXTRAPOLATE: beyond the last point the curve goes on along its end tangent."""
    curve = Curve([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 4.0, 9.0], "cubic", linear_extrapolate=True)
    slope = curve(3.0, 1)
    assert curve(4.0) == pytest.approx(9.0 + slope, abs=EXACT)
    assert curve(4.0, 2) == 0.0


class TwoMarkers:
    """Marker ids 1 (I) and 2 (J, K) as marker slots 0 and 1."""

    def __init__(self) -> None:
        self.markers = {1: "I", 2: "J"}

    def marker(self, marker_id: int, line: int, column: int):
        return self.markers[marker_id]


def measurements() -> Measurements:
    """I at (1, 2, 3) turned by 313 angles (0.3, 0.4, 0.5) moving at (1, 0, 0) and spinning at
    (0, 0, 2); J at (1, 0, 0) turned 90 degrees about z, spinning at (0, 0, 1)."""
    R_I = rotation_from_313_angles(0.3, 0.4, 0.5)
    R_J = rotation_about_z(np.pi / 2)
    return Measurements(
        time=0.0,
        p_WM_W=np.array([[1.0, 2.0, 3.0], [1.0, 0.0, 0.0]]),
        R_WM=np.stack([R_J @ R_I, R_J]),
        v_WM_W=np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
        w_WM_W=np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 1.0]]),
    )


def measure(text: str) -> float:
    expression = compile_expression(text, SI, TwoMarkers())
    slots = {"I": 0, "J": 1}
    return float(expression.bind([slots[m] for m in expression.markers])(measurements()))


def test_displacements_in_ground_and_in_marker_axes() -> None:
    """I from J is (0, 2, 3) in ground; in J's axes (turned 90 deg about z) it is (2, 0, 3)."""
    assert [measure(f"D{c}(1, 2)") for c in "XYZ"] == pytest.approx([0.0, 2.0, 3.0], abs=EXACT)
    assert [measure(f"D{c}(1, 2, 2)") for c in "XYZ"] == pytest.approx([2.0, 0.0, 3.0], abs=EXACT)
    assert measure("DM(1, 2)") == pytest.approx(math.sqrt(13.0), abs=EXACT)
    assert measure("DX(1)") == pytest.approx(1.0, abs=EXACT)  # J left out: the ground origin


def test_velocities_seen_from_a_turning_frame() -> None:
    """Seen in ground, I moves at (1, 0, 0) relative to J; seen in J's frame (spinning at 1 rad/s
    about z) the displacement (0, 2, 3) also sweeps back at -w x d = (2, 0, 0)."""
    assert [measure(f"V{c}(1, 2)") for c in "XYZ"] == pytest.approx([1.0, 0.0, 0.0], abs=EXACT)
    assert [measure(f"V{c}(1, 2, 0, 2)") for c in "XYZ"] == pytest.approx([3.0, 0.0, 0.0], abs=EXACT)
    assert measure("VR(1, 2)") == pytest.approx(0.0, abs=EXACT)  # (1, 0, 0) is across the line (0, 2, 3)
    assert [measure(f"W{c}(1, 2)") for c in "XYZ"] == pytest.approx([0.0, 0.0, 1.0], abs=EXACT)
    assert measure("WM(1)") == pytest.approx(2.0, abs=EXACT)


def test_angles_recover_the_relative_rotation() -> None:
    """I is J turned by 313 angles (0.3, 0.4, 0.5): PSI, THETA, PHI give them back, and ORIENT(27)
    the Euler parameters of that rotation; J is ground turned 0.5 pi about z, which AZ(2) reads."""
    assert [measure(f"{a}(1, 2)") for a in ("PSI", "THETA", "PHI")] == pytest.approx([0.3, 0.4, 0.5], abs=EXACT)
    R = rotation_from_313_angles(0.3, 0.4, 0.5)
    e0 = 0.5 * math.sqrt(1.0 + np.trace(R))
    assert measure("ORIENT(27, 1, 1, 2)") == pytest.approx(e0, abs=EXACT)
    assert measure("ORIENT(27, 4, 1, 2)") == pytest.approx((R[1, 0] - R[0, 1]) / (4 * e0), abs=EXACT)
    assert measure("AZ(2)") == pytest.approx(math.pi / 2, abs=EXACT)


def test_single_axis_rotations_read_by_ax_ay_az() -> None:
    """A rotation by 0.3 rad about one of J's axes is read back by AX, AY or AZ, the others zero."""
    from multibody.spatial.rotations import rotation_about_x

    for axis, rotation in (("AX", rotation_about_x(0.3)), ("AZ", rotation_about_z(0.3))):
        m = Measurements(0.0, np.zeros((2, 3)), np.stack([rotation, np.eye(3)]), np.zeros((2, 3)), np.zeros((2, 3)))
        expression = compile_expression(f"{axis}(1, 2)", SI, TwoMarkers())
        assert float(expression.bind([0, 1])(m)) == pytest.approx(0.3, abs=EXACT)


def test_units_scale_measurements_into_dataset_units() -> None:
    """In millimetres DX reads 1000 times the metres the measurements hold."""
    expression = compile_expression("DY(1, 2)", Units(length=1e-3), TwoMarkers())
    assert float(expression.bind([0, 1])(measurements())) == pytest.approx(2000.0)


def test_forces_may_not_read_accelerations_when_evaluated_live() -> None:
    """Accelerations are known only after a run: reading one live is a clear error."""
    expression = compile_expression("ACCX(1, 2)", SI, TwoMarkers())
    assert expression.needs == {"acceleration"}
    with pytest.raises(ValueError, match="output requests only"):
        expression.bind([0, 1])(measurements())


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("1 + ", 5, "a number, a name or '('"),
        ("(1 + 2", 7, "')'"),
        ("STEP(TIME, 0, 1)", 1, "5 arguments for STEP"),
        ("1 2", 3, "an operator or the end"),
        ("IF(1, 2, 3, 4)", 5, "':' or ')'"),
        ("2 $ 3", 3, "a number, a name or an operator"),
        ("STEP(TIME, 1, 0, 1, 2)", 18, "x1 > x0 in STEP(x, x0, h0, x1, h1), got x0 = 1, x1 = 1"),
    ],
)
def test_syntax_errors_are_located(text: str, column: int, message: str) -> None:
    with pytest.raises(AdmSyntaxError, match=re.escape(message)) as caught:
        compile_expression(text, SI)
    assert (caught.value.line, caught.value.column) == (1, column)


def test_unknown_functions_are_reported_not_guessed() -> None:
    with pytest.raises(UnsupportedFunction, match="function USER") as caught:
        compile_expression("3 + USER(1, 2)", SI)
    assert caught.value.column == 5
    with pytest.raises(UnsupportedFunction, match="name MODE"):
        compile_expression("MODE", SI)


def test_variables_are_inlined_and_cycles_refused() -> None:
    """VARVAL(id) compiles the VARIABLE's own expression in place; a cycle is an error naming it."""

    texts = {1: "2 * VARVAL(2)", 2: "DX(1, 2) + 1", 3: "VARVAL(4)", 4: "VARVAL(3)"}

    class Variables(TwoMarkers):
        def variable(self, variable_id: int, line: int, column: int) -> tuple[str, object]:
            return texts[variable_id], lambda offset: (10, offset + 1)

    expression = compile_expression("VARVAL(1) + DY(1, 2)", SI, Variables())
    assert float(expression.bind([0, 1])(measurements())) == pytest.approx(2 * (0.0 + 1.0) + 2.0)
    with pytest.raises(AdmError, match="VARIABLE/3 -> VARIABLE/4 -> VARIABLE/3"):
        compile_expression("VARVAL(3)", SI, Variables())


def test_an_expression_evaluates_a_whole_history_at_once() -> None:
    """The compiled code is numpy arithmetic: times given as an array give an array back."""
    f = compile_expression("STEP(TIME, 0, 0, 1, 2) + IF(TIME - 0.5: 0, 0, 1)", SI).of_time()
    t = np.array([0.0, 0.25, 0.75, 2.0])
    expected = [0.0, 2 * 0.0625 * 2.5, 2 * 0.5625 * 1.5 + 1, 3.0]
    np.testing.assert_allclose(f(t), expected, atol=EXACT)
