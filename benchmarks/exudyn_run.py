"""One timed Exudyn generalized-alpha run, set up as every benchmark here compares against it:
fixed step count, no solution file, sensors written every ``output_step``."""

from __future__ import annotations

import time
from typing import Any


def solve_generalized_alpha(
    exu: Any,
    mbs: Any,
    t_end: float,
    steps: int,
    output_step: float,
    spectral_radius: float | None = None,
    sparse: bool = True,
    fixed_step: bool = False,
) -> float:
    """Run ``mbs`` (an assembled Exudyn MainSystem) for ``t_end`` [s] in ``steps`` generalized-alpha
    steps; return the wall time [s] of the solve alone. ``spectral_radius`` None keeps Exudyn's
    default, ``sparse`` takes its Eigen sparse solver, ``fixed_step`` turns automatic step size off."""
    settings = exu.SimulationSettings()
    settings.timeIntegration.endTime = t_end
    settings.timeIntegration.numberOfSteps = steps
    settings.timeIntegration.verboseMode = 0
    if fixed_step:
        settings.timeIntegration.automaticStepSize = False
    if spectral_radius is not None:
        settings.timeIntegration.generalizedAlpha.spectralRadius = spectral_radius
    if sparse:
        settings.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    settings.solution.file.write = False
    settings.solution.sensors.writePeriod = output_step
    settings.show.globalTimers = False
    started = time.perf_counter()
    mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    return time.perf_counter() - started
