"""Issue 17, "No raw exception ever reaches the user": each case of the issue as a regression test,
with the exact error type, the element it names and, for datasets, the line and column.

References: the expected values of the expressions that must now compile are closed forms
(``n`` nested SIN by a loop, sums and products counted by hand); everything else is the error
contract of the package (``ModelError``, ``AdmError``, ``AnalysisError``), checked by type and
by the element, statement or line named in the message.
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.analysis.errors import AssemblyError
from multibody.cli import main
from multibody.io.adm import AdmError, AdmSyntaxError, load_requests, parse_adm
from multibody.io.adm.acf import parse_acf
from multibody.io.adm.expressions import compile_expression
from multibody.io.adm.units import Units

SI = Units()

DECK = """issue 17
PART/1, GROUND
MARKER/1, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 1, 0, 0
MARKER/21, PART = 2, QP = 0, 0, 0
JOINT/1, REVOLUTE, I = 21, J = 1
ACCGRAV/KGRAV = -9.81
"""
"""A pendulum about world z (gravity along the axis: it stays at rest, so the runs are short and
exact). Statements added by a test start on line 9."""


def deck(*lines: str) -> str:
    return DECK + "\n".join(lines) + "\nEND\n"


def value_at(text: str, t: float) -> float:
    return float(compile_expression(text, SI).of_time()(t))


# -- ADAMS expressions: depth and length -------------------------------------------------------


@pytest.mark.parametrize("depth", [150, 1000, 5000])
def test_deeply_nested_expressions_compile_and_evaluate(depth: int) -> None:
    # Before: RecursionError (descent) or SyntaxError "too many nested parentheses" (Python's parser).
    assert value_at("(" * depth + "TIME" + ")" * depth, 0.5) == 0.5
    assert value_at("-" * depth + "TIME", 0.5) == (-1) ** depth * 0.5
    expected = 0.5
    for _ in range(depth):
        expected = math.sin(expected)
    assert value_at("SIN(" * depth + "TIME" + ")" * depth, 0.5) == pytest.approx(expected, rel=1e-14)
    assert value_at("**".join(["1"] * depth), 0.0) == 1.0  # right-associative power tower


@pytest.mark.parametrize("terms", [200, 5000])
def test_long_chains_of_terms_compile_and_evaluate(terms: int) -> None:
    # Before: SyntaxError (the left-grouped chain was one nested Python expression).
    assert value_at(" + ".join(["TIME"] * terms), 0.25) == pytest.approx(0.25 * terms, rel=1e-12)
    assert value_at("*".join(["2"] * 40) + " - " + " - ".join(["1"] * terms), 0.0) == 2.0**40 - terms


def test_a_syntax_error_deep_inside_is_located() -> None:
    text = "(" * 400 + "TIME +" + ")" * 400
    with pytest.raises(AdmSyntaxError, match=r"expected a number, a name or '\('") as caught:
        compile_expression(text, SI)
    assert (caught.value.line, caught.value.column) == (1, 407)  # the ')' after the '+'


class Variables:
    """VARIABLE/k's text is ``texts[k]``, located on line 100 + k."""

    def __init__(self, texts: dict[int, str]) -> None:
        self.texts = texts

    def variable(self, variable_id: int, line: int, column: int):
        return self.texts[variable_id], lambda offset: (100 + variable_id, offset + 1)


def test_a_long_chain_of_variables_compiles_each_once() -> None:
    # Before: RecursionError at about 100 VARIABLEs. Each VARIABLE here uses the next twice, so
    # inlining its text at every use would be 2^200 copies; compiled once each, it is 200.
    count = 200
    texts = {k: f"(VARVAL({k + 1}) + VARVAL({k + 1})) / 2 + 1" for k in range(1, count)}
    texts[count] = "TIME"
    expression = compile_expression("VARVAL(1)", SI, Variables(texts))
    assert float(expression.of_time()(0.5)) == pytest.approx(0.5 + count - 1, rel=1e-14)
    assert len(expression.code.splitlines()) < 5 * count


def test_a_cycle_through_many_variables_is_named() -> None:
    texts = {k: f"VARVAL({k % 300 + 1})" for k in range(1, 301)}
    with pytest.raises(AdmError, match="cycle: VARIABLE/1 -> VARIABLE/2 -> .* -> VARIABLE/300 -> VARIABLE/1") as caught:
        compile_expression("VARVAL(1)", SI, Variables(texts))
    assert caught.value.line == 400  # in VARIABLE/300's text


# -- ADAMS dataset: continuation lines -----------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        ("1.0*\n, 2.0", 2.0),  # rejected before: the continued part started with a number
        ("2.0*\n, TIME", 2.0 * 0.5),
        ("STEP(TIME, 0, 0,\n, 1, 3)", 3.0 * 0.5**2 * (3 - 2 * 0.5)),  # inside parentheses
        ("1 + TIME\n, - 3*TIME", 1 - 2 * 0.5),  # a complete expression goes on with an operator
        ("\n, 4 * TIME", 2.0),  # the expression starts on the continuation line
    ],
)
def test_continuation_lines_continue_a_function_expression(function: str, expected: float) -> None:
    # ADAMS/Solver: a line starting with ',' continues the statement; in an expression the comma
    # is only the continuation mark and the text is joined. A keyword after it (I = ...) still
    # starts the next argument.
    imported = parse_adm(deck(f"MOTION/5, JOINT = 1, FUNCTION = {function}\n, ROTATION"))
    motion = imported.model.motions["MOTION/5"]
    assert float(motion.function(0.5)) == pytest.approx(expected, rel=1e-14)


# -- ADAMS dataset: what there is to simulate ----------------------------------------------------


def test_an_empty_dataset_has_nothing_to_simulate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(mb.ModelError, match="no PART besides the ground: nothing to simulate"):
        parse_adm("empty\nEND\n").check()
    empty = tmp_path / "empty.adm"
    empty.write_text("empty\nPART/1, GROUND\nEND\n")
    assert main(["run", str(empty), "-o", str(tmp_path / "empty.h5")]) == 2
    assert "nothing to simulate" in capsys.readouterr().err


def test_a_command_on_the_prefix_line_of_a_command_file_is_reported() -> None:
    # ADAMS: line 1 is the dataset, line 2 the output-file prefix, commands from line 3.
    commands = parse_acf("model.adm\nSIMULATE/DYNAMIC, END = 2, STEPS = 20\nSTOP\n")
    assert commands.settings == {}
    [item] = commands.items
    assert (item.line, item.column) == (2, 1)
    assert "SIMULATE command on line 2" in item.what and "output-file prefix" in item.reason
    assert parse_acf("model.adm\nrun_one\nSIMULATE/DYNAMIC, END = 2, STEPS = 20\n").items == ()


# -- ADAMS dataset: values that are no numbers --------------------------------------------------


@pytest.mark.parametrize("function", ["LOG(TIME)", "ACOS(2)", "10**400"])
def test_a_force_not_finite_at_the_start_fails_like_at_any_time(tmp_path: Path, function: str) -> None:
    # Before: a plain ValueError at t = 0 and no file; later in a run, an AnalysisError and the file.
    output = tmp_path / "run.h5"
    model = parse_adm(deck(f"SFORCE/2, ROTATIONAL, I = 21, J = 1, FUNCTION = {function}")).check()
    with pytest.raises(mb.AnalysisError, match=r"failed at the start: .*SFORCE/2: .* at t = 0 s") as caught:
        mb.dynamics(model, 0.1, 0.01, output=str(output))
    assert caught.value.results_path == str(output)
    saved = mb.Results.load(output)
    assert (saved.status, len(saved)) == ("failed", 0)
    assert "SFORCE/2" in saved.message

    later = parse_adm(deck("SFORCE/2, ROTATIONAL, I = 21, J = 1, FUNCTION = LOG(0.05 - TIME) * 0")).check()
    with pytest.raises(mb.AnalysisError, match=r"failed after t = .*SFORCE/2: .* is nan at t = "):
        mb.dynamics(later, 0.1, 0.01, output=str(output))
    saved = mb.Results.load(output)
    assert saved.status == "failed" and len(saved) >= 2  # the frames before the failure are kept


def test_a_request_that_overflows_is_named_and_the_requests_are_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: a bare OverflowError after the run and no requests in the file.
    dataset = tmp_path / "requests.adm"
    dataset.write_text(deck("REQUEST/3, F2 = 10**400, F3 = TIME"))
    output = tmp_path / "requests.h5"
    assert main(["run", str(dataset), "--t-end", "0.05", "-o", str(output)]) == 1
    error = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(dataset))}:9:\d+: REQUEST/3, component f2: '10\*\*400' overflows", error)
    requests = load_requests(output)["REQUEST/3"]
    assert np.all(np.isnan(requests["f2"]))
    np.testing.assert_allclose(requests["f3"], np.linspace(0.0, 0.05, 6), atol=1e-12)


@pytest.mark.parametrize("value", ["1e200", "1e309", "-1e309"])
@pytest.mark.parametrize(
    ("statement", "line", "keyword"),
    [
        ("MARKER/20, PART = 2, QP = {v}, 0, 0", 5, "QP"),
        ("PART/2, MASS = 1, CM = 20, IP = 1, 1, 1, QG = {v}, 0, 0", 4, "QG"),
    ],
)
def test_coordinates_out_of_range_name_their_statement(value: str, statement: str, line: int, keyword: str) -> None:
    # Before: scipy's "array must not contain infs or NaNs" (1e200), or the inertia of PART/2
    # reported for a CM marker at 1e309. The error is located at the keyword's value.
    lines = DECK.splitlines()
    lines[line - 1] = statement.format(v=value)
    text = "\n".join(lines) + "\nEND\n"
    with pytest.raises(AdmError, match=rf"{statement.split(',')[0]}: {keyword} (must be finite|is more than 1e\+12 m)"):
        parse_adm(text)
    with pytest.raises(AdmError) as caught:
        parse_adm(text)
    assert (caught.value.line, caught.value.column) == (line, lines[line - 1].index(value) + 1)


# -- the Python API ------------------------------------------------------------------------------


def pendulum(load: object = None, mass: object = 1.0) -> mb.Model:
    model = mb.Model("pendulum")
    rod = model.add(mb.RigidBody("rod", mass, (1e-3, 0.1, 0.1), position=(0.5, 0.0, 0.0)))
    hinge = rod.add_marker("hinge", (-0.5, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0))
    model.add(mb.Revolute("hinge", hinge, model.ground.add_marker("hinge", z_axis=(0.0, 1.0, 0.0))))
    if load is not None:
        model.add(mb.PointForce("push", rod.add_marker("tip", (0.5, 0.0, 0.0)), load))
    return model


@pytest.mark.parametrize("formulation", ["cartesian", "kane"])
def test_a_load_function_that_raises_at_the_start_is_named(tmp_path: Path, formulation: str) -> None:
    output = tmp_path / "push.h5"
    with pytest.raises(mb.AnalysisError, match=r"force 'push': its load function raised ZeroDivisionError") as caught:
        mb.dynamics(pendulum(lambda t: 1.0 / 0.0), 0.1, 0.01, output=str(output), formulation=formulation)
    assert "at t = 0 s" in str(caught.value)
    assert mb.Results.load(output).status == "failed"


def test_a_load_function_that_raises_later_is_named() -> None:
    with pytest.raises(mb.AnalysisError, match=r"force 'push': its load function raised KeyError"):
        mb.dynamics(pendulum(lambda t: {}["gone"] if t > 0.05 else (0.0, 0.0, 1.0)), 0.1, 0.01)


@pytest.mark.parametrize("returned", [(1.0, 2.0), "abc", None])
def test_a_load_function_returning_no_3_vector_is_named(returned: object) -> None:
    # Before: numpy's "cannot reshape array of size 2 into shape (3,)".
    with pytest.raises(mb.AnalysisError, match=r"force 'push': its load function returned .* at t = 0 s"):
        mb.dynamics(pendulum(lambda t: returned), 0.1, 0.01)


@pytest.mark.parametrize("formulation", ["cartesian", "kane"])
def test_a_load_not_finite_at_the_start_is_named(formulation: str) -> None:
    # Before: the integrator carried the NaN forward and never finished. Later in a run a NaN load
    # makes the integrator retry smaller steps and then fail naming the element (test_cli).
    with pytest.raises(mb.AnalysisError, match=r"force element 'push' returned a non-finite load at t = 0 s"):
        mb.dynamics(pendulum(lambda t: (0.0, np.nan, 0.0)), 0.1, 0.01, formulation=formulation)


@pytest.mark.parametrize("mass", ["1", None, [1.0], float("nan"), object()])
def test_a_mass_that_is_not_a_number_is_named(mass: object) -> None:
    # Before: numpy's ufunc TypeError for the string '1'.
    with pytest.raises(mb.ModelError, match=r"body 'rod': mass \[kg\] must be a finite number"):
        pendulum(mass=mass)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: mb.RigidBody("b", 1.0, [[1, 2], [3]]), "body 'b': inertia must be numbers"),
        (lambda: mb.RigidBody("b", 1.0, (1, 1, 1), position="abc"), "body 'b': position must be numbers"),
        (lambda: mb.RigidBody("b", 1.0, (1, 1, 1), position=(1e200, 0, 0)), "body 'b': position .* more than 1e\\+12"),
        (lambda: mb.Ground().add_marker("m", (0, 1e13, 0)), "marker 'm' on body 'ground': position .* more than"),
    ],
)
def test_numbers_that_are_not_usable_are_named(make, message: str) -> None:
    with pytest.raises(mb.ModelError, match=message):
        make()


def test_too_many_exact_velocities_names_the_bodies() -> None:
    # The crank's vz is exact, but a translational joint along x leaves it none: the bodies whose
    # exact velocities enter the violated rows are named with their components.
    model = mb.Model("exact")
    crank = model.add(mb.RigidBody("crank", 1.0, (1, 1, 1), position=(1, 0, 0), velocity=(0, 0, 1), exact=("vz",)))
    model.add(mb.RigidBody("loose", 1.0, (1, 1, 1), position=(3, 0, 0), velocity=(0, 0, 1), exact=("vx",)))
    pin = crank.add_marker("pin", (-1, 0, 0), z_axis=(0, 1, 0))
    model.add(mb.Revolute("pin", pin, model.ground.add_marker("pin", z_axis=(0, 1, 0))))
    guide = crank.add_marker("guide", (1, 0, 0), z_axis=(1, 0, 0))
    model.add(mb.Translational("slide", guide, model.ground.add_marker("guide", (2, 0, 0), z_axis=(1, 0, 0))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        with pytest.raises(AssemblyError, match=r"too many velocities are marked exact: body 'crank' \(vz\) cannot"):
            mb.dynamics(model, 0.1, 0.01)


def rhombus(theta: float) -> mb.Model:
    """A planar four-bar with all four links 1 m long (ground pivots A at the origin and D at
    (1, 0, 0), pins B and C), its crank at ``theta`` [rad] above the ground link, released at rest
    under gravity along -y. At theta = 0 every link lies on the x-axis: a change point, where the
    in-plane constraint rows of the loop become dependent."""
    model = mb.Model("rhombus", gravity=(0.0, -9.81, 0.0))
    z = np.array([0.0, 0.0, 1.0])
    A, D = np.zeros(3), np.array([1.0, 0.0, 0.0])
    B = np.array([np.cos(theta), np.sin(theta), 0.0])
    C = B + D

    def link(name: str, start: np.ndarray, end: np.ndarray) -> mb.RigidBody:
        along = end - start
        R_WB = np.column_stack([along, np.cross(z, along), z])
        return model.add(mb.RigidBody(name, 1.0, (1e-3, 1 / 12, 1 / 12), position=(start + end) / 2, orientation=R_WB))

    def pin(name: str, first: mb.RigidBody | mb.Ground, second: mb.RigidBody | mb.Ground, at: np.ndarray) -> None:
        on_first = first.add_marker(name, at, z_axis=z, frame="world")
        model.add(mb.Revolute(name, on_first, second.add_marker(name, at, z_axis=z, frame="world")))

    crank, coupler, rocker = link("crank", A, B), link("coupler", B, C), link("rocker", D, C)
    pin("A", crank, model.ground, A)
    pin("B", crank, coupler, B)
    pin("C", coupler, rocker, C)
    pin("D", rocker, model.ground, D)
    return model


def test_a_lock_up_names_the_constraints_that_lock_not_a_round_off_violation() -> None:
    # Released 1e-6 rad from the change point, the index-3 run cannot take a step (SI2 goes through:
    # it takes the loop's weak direction as I3 only while its round-off is large, and falls as a
    # parallelogram, test_robustness_engine). Before: the diagnosis named 'C' for a violation of
    # 3e-14 (round-off). The constraints hold; the rows that lock are the loop's, all four pins (the
    # smallest singular value's direction of G).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        with pytest.raises(mb.AnalysisError, match="dependent here") as caught:
            mb.dynamics(rhombus(1e-6), 0.1, 0.01, method="I3")
    message = str(caught.value)
    assert "largest constraint violation" not in message
    assert all(f"'{name}'" in message for name in "ABCD"), message
