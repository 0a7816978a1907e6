"""Benchmark: an ANCF cable pendulum, ours (``AncfCable``) against Exudyn's ``ObjectANCFCable``, against
the number of elements.

A 1 m cable (10 mm diameter, E = 20 MPa, 1000 kg/m^3: a rubber cord) pinned at the origin starts
straight along +x at rest and falls under gravity -z for ``--t-end`` seconds. Both models have the
same Kelvin-Voigt damping: ours ``damping = 2 ms`` (stress ``E (strain + 2 ms strain rate)``),
Exudyn's ``axialDamping = 2 ms E A`` and ``bendingDamping = 2 ms E I``; the same cubic elements
(Exudyn's 3D cable is the same gradient-deficient element). Exudyn runs generalized-alpha at fixed
steps of 1 ms and 0.1 ms (its default spectral radius); ours BDF on the index-2 stabilized form
(SI2) and HHT with error control at rtol 1e-6 (``RTOL``), and HHT at Exudyn's fixed 1 ms steps
(``fixed_step``: the same steps, so the per-step costs compare directly).

Printed per element count and our method: wall time of the integration call (compile and Exudyn's
Assemble left out), steps, microseconds per step, the ratios ours / Exudyn (1 ms) of wall time and of
time per step, and the tip's distance at the end to Exudyn's 0.1 ms run.

Usage: ``python benchmarks/ancf_cable.py [--elements 10 30] [--t-end 1] [--no-exudyn]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from exudyn_run import solve_generalized_alpha

import multibody as mb

LENGTH, DIAMETER, YOUNG, DENSITY, DAMPING, GRAVITY = 1.0, 0.01, 2e7, 1000.0, 2e-3, 9.81
SECTION = mb.Section.circle(DIAMETER)
AREA, INERTIA = SECTION.area, SECTION.Iy
RTOL = 1e-6
"""Our tolerance for both methods (SI2's default; HHT's default, 5e-8, is set for rigid mechanisms'
phase accuracy over thousands of steps): the tip then agrees with Exudyn's 0.1 ms run to 1e-5 m."""


def ours(n: int, t_end: float, method: str, fixed_step: float | None = None) -> tuple[float, int, np.ndarray]:
    """``(wall time [s], steps, tip position at t_end [m])`` of our cable pendulum of ``n`` elements
    integrated by ``method`` at ``RTOL``, or at fixed steps ``fixed_step`` [s] (HHT)."""
    model = mb.Model("ancf_pendulum", gravity=(0.0, 0.0, -GRAVITY))
    points = np.column_stack([np.linspace(0.0, LENGTH, n + 1), np.zeros(n + 1), np.zeros(n + 1)])
    cable = model.add(mb.AncfCable("cable", points, SECTION, mb.Material(YOUNG, 0.3, DENSITY), damping=DAMPING))
    model.add(mb.Spherical("pin", cable.marker_at("root", 0.0), model.ground.add_marker("pin")))
    system = model.compile()
    options = {"method": method, "rtol": RTOL, "fixed_step": fixed_step}
    mb.dynamics(system, 1e-3, 1e-3, **options)  # loads the compiled kernels into the process
    started = time.perf_counter()
    results = mb.dynamics(system, t_end, 0.01, **options)
    wall = time.perf_counter() - started
    return wall, int(results.stats["steps"]), results.cable("cable").position_at(LENGTH)[-1]


def exudyn_run(n: int, t_end: float, step: float) -> tuple[float, int, np.ndarray]:
    """The same with Exudyn's ANCFCable at the fixed step ``step`` [s]."""
    import warnings

    import exudyn as exu
    from exudyn.beams import GenerateStraightLineANCFCable
    from exudyn.itemInterface import ObjectANCFCable

    system_container = exu.SystemContainer()
    mbs = system_container.AddSystem()
    template = ObjectANCFCable(
        physicsMassPerLength=DENSITY * AREA,
        physicsBendingStiffness=YOUNG * INERTIA,
        physicsAxialStiffness=YOUNG * AREA,
        physicsBendingDamping=DAMPING * YOUNG * INERTIA,
        physicsAxialDamping=DAMPING * YOUNG * AREA,
    )
    with warnings.catch_warnings():  # its successor takes other arguments; this one builds the same cable
        warnings.simplefilter("ignore", DeprecationWarning)
        nodes, *_ = GenerateStraightLineANCFCable(
            mbs,
            [0.0, 0.0, 0.0],
            [LENGTH, 0.0, 0.0],
            n,
            template,
            massProportionalLoad=[0.0, 0.0, -GRAVITY],
            fixedConstraintsNode0=[1, 1, 1, 0, 0, 0],
        )
    tip = mbs.AddSensor(
        exu.itemInterface.SensorNode(
            nodeNumber=nodes[-1], outputVariableType=exu.OutputVariableType.Position, storeInternal=True
        )
    )
    mbs.Assemble()
    steps = round(t_end / step)
    wall = solve_generalized_alpha(exu, mbs, t_end, steps, 0.01, sparse=True, fixed_step=True)
    return wall, steps, np.array(mbs.GetSensorStoredData(tip)[-1, 1:4])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--no-exudyn", action="store_true")
    arguments = parser.parse_args()
    print(
        f"{'n':>5} {'method':>8} {'ours s':>8} {'steps':>6} {'us/step':>8} {'exu 1ms s':>10} {'exu us/step':>11} "
        f"{'time ratio':>10} {'step ratio':>10} {'|ours - exu 0.1 ms| m':>22}"
    )
    for n in arguments.elements:
        if not arguments.no_exudyn:
            exu_wall, exu_steps, _ = exudyn_run(n, arguments.t_end, 1e-3)
            _, _, reference = exudyn_run(n, arguments.t_end, 1e-4)
        for method, fixed_step in (("SI2", None), ("HHT", None), ("HHT", 1e-3)):
            label = method if fixed_step is None else f"{method} 1ms"
            try:
                wall, steps, tip = ours(n, arguments.t_end, method, fixed_step)
            except mb.AnalysisError as error:
                print(f"{n:>5} {label:>8} failed: {str(error)[:120]}", flush=True)
                continue
            row = f"{n:>5} {label:>8} {wall:>8.2f} {steps:>6} {1e6 * wall / steps:>8.0f}"
            if not arguments.no_exudyn:
                row += (
                    f" {exu_wall:>10.3f} {1e6 * exu_wall / exu_steps:>11.0f} {wall / exu_wall:>10.1f}"
                    f" {wall * exu_steps / (steps * exu_wall):>10.1f} {np.linalg.norm(tip - reference):>22.2e}"
                )
            print(row, flush=True)


if __name__ == "__main__":
    main()
