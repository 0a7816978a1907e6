"""The six ADAMS/Solver joint test models imported from their .adm files, unchanged.

References (``tests/data/adams_joint_cases``, see ``test_adams_joint_cases``):

1. The ADAMS tables. The imported models are simulated 0-5 s with the settings of
   ``test_adams_joint_cases`` (SI2, rtol 1e-9) and compared quantity by quantity with the same
   tolerance, ``ADAMS_ERROR + OUR_ERROR_BUDGET``: ADAMS's own measured distance from the exact
   solution plus our integration budget (triangle inequality; no other margin). The comparison
   code is that module's (``quantity_of``, ``error``).
2. The same models built by hand through the Python API (``adams_cases``). Import must give the
   very same System, so the runs agree to round-off: ``IDENTICAL`` (1e-12 natural units).
3. The REQUEST statements of the files (DISPLACEMENT/VELOCITY/ACCELERATION requests of the CM
   marker, ``ORIENT(27, ...)`` Euler parameters, ``JOINT(1, 0, k, 0)`` reactions, and the Distance
   case's FORCE request) evaluated through the expression compiler after the run, against the
   ADAMS tables with the tolerance of 1: these are what ADAMS itself wrote the tables from.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from multibody import Results, dynamics
from multibody.io.adm import AdmModel, read_adm
from multibody.io.adm.requests import request_outputs

from .adams_cases import QUANTITIES, REFERENCE_DIR, read_table
from .test_adams_joint_cases import (
    ADAMS_ERROR,
    CASES,
    OUR_ERROR_BUDGET,
    OUTPUT_STEP,
    RTOL,
    T_END,
    error,
    quantity_of,
    simulate,
)

METHOD = "SI2"
IDENTICAL = 1e-12
"""Imported vs hand-built, natural units: the same equations in the same order, so only
round-off in the input transforms (REULER angles through part and marker frames) may differ."""


@cache
def imported(case: str) -> AdmModel:
    return read_adm(REFERENCE_DIR / "adams_models" / f"test_{case}_Case01.adm")


@cache
def simulate_imported(case: str) -> Results:
    return dynamics(imported(case).check(), T_END, OUTPUT_STEP, method=METHOD, rtol=RTOL)


@pytest.mark.parametrize("case", CASES)
def test_import_reports_only_output_options(case: str) -> None:
    """Everything in the six files is imported except the ADAMS output-file options (OUTPUT/
    REQSAVE), which do not change the motion; the GRAPHICS are kept for display."""
    report = imported(case).report
    assert [item.what for item in report.items] == ["OUTPUT options"], report.format()
    assert report.changes_motion == ()
    assert imported(case).graphics, "GRAPHICS statements are kept"


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("case", CASES)
def test_imported_model_matches_adams(case: str, quantity: str) -> None:
    """CM motion, Euler parameters, angular motion and joint reactions of the imported model
    against the ADAMS tables (reference 1)."""
    time, adams = read_table(case, quantity)
    results = simulate_imported(case)
    np.testing.assert_allclose(results.time, time, rtol=0, atol=1e-12)
    tolerance = ADAMS_ERROR[case][quantity] + OUR_ERROR_BUDGET[METHOD]
    worst = float(np.max(error(quantity_of(results, case, quantity), adams, quantity)))
    assert worst <= tolerance, f"{case} {quantity}: {worst:.3g} natural units from ADAMS, tolerance {tolerance:.3g}"


@pytest.mark.parametrize("case", CASES)
def test_imported_equals_hand_built(case: str) -> None:
    """Every recorded quantity of the imported run equals the hand-built run (reference 2)."""
    ours, theirs = simulate_imported(case), simulate(case, METHOD)
    for quantity in QUANTITIES:
        difference = error(quantity_of(ours, case, quantity), quantity_of(theirs, case, quantity), quantity)
        assert float(np.max(difference)) <= IDENTICAL, f"{case} {quantity}: imported and hand-built differ"
    for key, values in ours.arrays.items():
        np.testing.assert_allclose(values, theirs.arrays[key], rtol=0, atol=IDENTICAL, err_msg=key)


REQUESTED = {
    # quantity -> (request, its components) as the .adm files define them
    "Pos": ("REQUEST/1", ("x", "y", "z")),
    "Vel": ("REQUEST/2", ("vx", "vy", "vz")),
    "Avel": ("REQUEST/2", ("wx", "wy", "wz")),
    "Acc": ("REQUEST/3", ("ax", "ay", "az")),
    "Aacc": ("REQUEST/3", ("wdx", "wdy", "wdz")),
    "Quat": ("REQUEST/4", ("f2", "f3", "f4", "f6")),
    "Rforce": ("REQUEST/5", ("f2", "f3", "f4")),
    "Rtorque": ("REQUEST/5", ("f6", "f7", "f8")),
}
FORCE_REQUEST = {"Rforce": ("fx", "fy", "fz"), "Rtorque": ("tx", "ty", "tz")}
"""The Distance case's REQUEST/05 is a FORCE request (I = 0102, J = 0202) instead of JOINT(...)."""


@cache
def requests(case: str) -> dict[str, dict[str, np.ndarray]]:
    model = imported(case)
    return request_outputs(model.requests, model.model.compile(), simulate_imported(case))


@pytest.mark.parametrize("quantity", QUANTITIES)
@pytest.mark.parametrize("case", CASES)
def test_requests_match_adams(case: str, quantity: str) -> None:
    """The file's own REQUESTs, computed by the expression compiler, against the ADAMS tables (reference 3)."""
    name, components = REQUESTED[quantity]
    if case == "Distance" and quantity in FORCE_REQUEST:
        components = FORCE_REQUEST[quantity]
    values = np.stack([requests(case)[name][c] for c in components], axis=1)
    _, adams = read_table(case, quantity)
    tolerance = ADAMS_ERROR[case][quantity] + OUR_ERROR_BUDGET[METHOD]
    worst = float(np.max(error(values, adams, quantity)))
    assert worst <= tolerance, (
        f"{case} {name} {quantity}: {worst:.3g} natural units from ADAMS, tolerance {tolerance:.3g}"
    )
