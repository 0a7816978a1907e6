"""The pump-truck boom example (``examples/pump_truck_boom.py``): three sections on hydraulic
cylinders driven through proportional valves.

References:
- at t = 0 the closed cylinders' pressures come from a torque balance about each hinge
  (``holding_pressures``): with the valves still closed the boom must not move;
- energy: kinetic + potential (gravity and oil) + dissipated stays constant, the flows' and
  valves' work being counted as input (a conservation law, to the integration tolerance).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_examples import EXAMPLES, assert_energy_conserved

import multibody as mb
from multibody.cli import load_model_file


@pytest.fixture(scope="module")
def boom() -> mb.Results:
    module = load_model_file(EXAMPLES / "pump_truck_boom.py")
    return mb.dynamics(module.build(), 4.5, 0.02, rtol=module.ANALYSIS["rtol"])


def test_boom_is_held_by_its_cylinders_until_the_valves_open(boom: mb.Results) -> None:
    closed = boom.time < 0.5  # the first command starts at 0.5 s
    for name in ("section_1", "section_2", "section_3"):
        # rtol 1e-6 on pressures of 50-80 bar leaves force errors of ~1 N: rates far below 1e-6.
        assert np.max(np.abs(boom.body(name).angular_velocity[closed])) < 1e-6


def test_boom_moves_and_conserves_energy(boom: mb.Results) -> None:
    lift = np.abs(boom.body("section_1").euler_parameters[-1] - boom.body("section_1").euler_parameters[0])
    assert np.max(lift) > 0.03  # the first section turned by more than 3 degrees
    assert boom.hydraulics("lift_1").spool_position[-1] == pytest.approx(0.0, abs=1e-6)  # valves closed again
    assert np.max(boom.hydraulics("lift_3").pressures) < 250e5  # below the supply: no overshoot
    assert_energy_conserved(boom, rtol=1e-6)
