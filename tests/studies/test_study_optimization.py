"""Optimization finds the spring rate that puts the natural frequency at a target.

Reference: a mass m on a spring of rate k has the natural frequency f = sqrt(k/m)/(2 pi), so the
rate for a target f* is k* = m (2 pi f*)^2 (closed form: 355.3 N/m for m = 1 kg, f* = 3 Hz). The
frequency comes from ``linearize`` to round-off (1e-10), so the tolerances are the optimizers':
- SLSQP, minimizing k subject to f >= f*: the constraint is active at the optimum and SLSQP stops
  on it to its feasibility tolerance; f is within 1e-8 of f*, so k within 2e-8 relative: 1e-6.
- COBYQA (derivative-free), minimizing (f - f*)^2: its trust region shrinks to 1e-6 of the
  normalized range (900 N/m), so k within ~1e-3 N/m: 1e-5 relative.
- COBYLA (derivative-free, constrained), minimizing k subject to f >= f*: it stops when its trust
  region is 1e-6 of the range (9e-4 N/m), 1e-5 relative.
- differential_evolution (global, stochastic, no polishing), minimizing |f - f*|, here cut at 6
  generations of 15 to keep the test short: this checks that whole generations run on the pool
  and that the search closes in, not its final accuracy (its best member is within 1 % of k*
  for seeds 4, 5, 6; 2 % asserted).
"""

from __future__ import annotations

import numpy as np
import pytest
import spring_mass

import multibody as mb
from multibody.studies import StudyError

TARGET = 3.0
RATE = 1.0 * (2.0 * np.pi * TARGET) ** 2


def study() -> mb.Study:
    return mb.Study(spring_mass.build, {"stiffness": (100.0, 1000.0)}, {"frequency": "frequency(1)"}, analysis="linear")


def squared_miss(values: dict[str, float]) -> float:
    return (values["frequency"] - TARGET) ** 2


def test_slsqp_finds_the_softest_spring_meeting_a_frequency_constraint() -> None:
    result = study().optimize("stiffness", method="SLSQP", constraints={"frequency": (TARGET, None)}, client="inline")
    assert result.optimum["success"], result.optimum["message"]
    assert result.optimum["parameters"]["stiffness"] == pytest.approx(RATE, rel=1e-6)
    assert result.optimum["responses"]["frequency"] == pytest.approx(TARGET, rel=1e-6)
    # The history holds every evaluation, gradients included, in order.
    assert len(result) == result.optimum["evaluations"] and result.kind == "optimize"


def test_cobyqa_without_derivatives_places_the_frequency_on_target() -> None:
    result = study().optimize(squared_miss, method="COBYQA", x0={"stiffness": 800.0}, client="inline")
    assert result.optimum["success"], result.optimum["message"]
    assert result.optimum["parameters"]["stiffness"] == pytest.approx(RATE, rel=1e-5)


def test_cobyla_without_derivatives_meets_the_frequency_constraint() -> None:
    result = study().optimize("stiffness", method="COBYLA", constraints={"frequency": (TARGET, None)}, client="inline")
    assert result.optimum["parameters"]["stiffness"] == pytest.approx(RATE, rel=1e-5)


def test_differential_evolution_on_the_process_pool() -> None:
    result = study().optimize(
        lambda values: abs(values["frequency"] - TARGET),
        method="differential_evolution",
        seed=4,
        workers=2,
        max_iterations=6,
    )
    assert result.optimum["parameters"]["stiffness"] == pytest.approx(RATE, rel=2e-2)


def test_a_list_parameter_or_an_unknown_objective_is_refused() -> None:
    with pytest.raises(StudyError, match="neither a parameter nor a response"):
        study().optimize("period", client="inline")
    listed = mb.Study(spring_mass.build, {"stiffness": [1.0, 2.0]}, {"frequency": "frequency(1)"}, analysis="linear")
    with pytest.raises(StudyError, match="needs ranges"):
        listed.optimize("frequency", client="inline")
    for method in ("Nelder-Mead", "COBYQA"):
        with pytest.raises(StudyError, match=f"method {method} takes no constraints"):
            study().optimize("stiffness", method=method, constraints={"frequency": (3.0, None)}, client="inline")
