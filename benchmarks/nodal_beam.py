"""Benchmark: a flexible cantilever sagging under gravity, geometrically exact nodal ``mb.Beam``
against Exudyn's ANCF cable (``ObjectANCFCable``, 3D, gradient-deficient) on the same beam.

The beam: a 0.5 m polymer strip (E = 0.2 GPa, nu = 0.4, 1200 kg/m^3, 20 x 5 mm, bending in its
flexible direction, E I = 0.042 N m^2) clamped horizontal along x at the origin,
released at rest under gravity -z: it swings down to about 45 % of its length of static sag and
oscillates about it (first bending frequency 1.3 Hz): a large-deformation dynamic run.

Printed per number of elements N: our wall time of ``dynamics`` (compile excluded), steps,
microseconds per step and per step and element, and the tip's z at the end; with Exudyn
installed, the same for Exudyn's generalized-alpha run (fixed step, sparse solver, spectral
radius 0.9 as in ``exudyn_run``) and the ratios ours / Exudyn of the wall time and of the cost
per step. Our run: HHT at rtol 1e-6 (the BDF forms are slower here: the lumped nodes' small
rotary inertia makes the rotations stiff). The tip positions at the end agree to the accuracy of
the two element kinds (Exudyn's cable has no shear; ours converges as h^2).

Usage: ``python benchmarks/nodal_beam.py [--sizes 10 30 100 300 1000] [--t-end 0.5] [--no-exudyn]``
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from exudyn_run import solve_generalized_alpha

import multibody as mb

LENGTH = 0.5
"""[m]"""
WIDTH, HEIGHT = 0.02, 0.005
"""Section [m]: width along y, height along z (bending under gravity uses the small Iy)."""
E, NU, DENSITY = 0.2e9, 0.4, 1200.0
"""[Pa], [-], [kg/m^3]"""
GRAVITY = 9.81
"""[m/s^2], along -z"""
OUTPUT_STEP = 0.01
"""[s]"""
RTOL = 1e-6
"""our integrator's relative tolerance"""
EXUDYN_STEP = 1e-4
"""Exudyn's fixed time step [s]"""


def ours(n: int, t_end: float) -> tuple[float, int, np.ndarray]:
    """``(wall time [s], steps, tip position at the end [m])`` of our run with ``n`` elements."""
    model = mb.Model("cantilever", gravity=(0.0, 0.0, -GRAVITY))
    section, material = mb.Section.rectangle(WIDTH, HEIGHT), mb.Material(E, NU, DENSITY)
    model.add(mb.Beam("strip", model.ground.add_marker("base"), LENGTH, n, section, material, clamped=True))
    system = model.compile()
    mb.dynamics(system, 0.001, 0.001, method="HHT")  # loads the compiled kernels into the process
    started = time.perf_counter()
    results = mb.dynamics(system, t_end, OUTPUT_STEP, rtol=RTOL, method="HHT")
    wall = time.perf_counter() - started
    return wall, int(results.stats["steps"]), results.beam("strip").node_positions[-1, -1]


def exudyn_cable(n: int, t_end: float) -> tuple[float, int, np.ndarray]:
    """The same for Exudyn's 3D ANCF cable (``n`` elements, nodes of position and slope)."""
    import exudyn as exu
    from exudyn import itemInterface as items

    system_container = exu.SystemContainer()
    mbs = system_container.AddSystem()
    area, inertia = WIDTH * HEIGHT, WIDTH * HEIGHT**3 / 12.0
    element_length = LENGTH / n
    nodes = [
        mbs.AddNode(items.NodePointSlope1(referenceCoordinates=[k * element_length, 0.0, 0.0, 1.0, 0.0, 0.0]))
        for k in range(n + 1)
    ]
    for a, b in itertools.pairwise(nodes):
        cable = mbs.AddObject(
            items.ObjectANCFCable(
                nodeNumbers=[a, b],
                length=element_length,
                massPerLength=DENSITY * area,
                bendingStiffness=E * inertia,
                axialStiffness=E * area,
            )
        )
        mass = mbs.AddMarker(items.MarkerBodyMass(bodyNumber=cable))
        mbs.AddLoad(items.LoadMassProportional(markerNumber=mass, loadVector=[0.0, 0.0, -GRAVITY]))
    # clamp: the first node's position and slope held at their reference values
    ground_coordinate = mbs.AddMarker(
        items.MarkerNodeCoordinate(nodeNumber=mbs.AddNode(items.NodePointGround()), coordinate=0)
    )
    for coordinate in range(6):
        marker = mbs.AddMarker(items.MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=coordinate))
        mbs.AddObject(items.ObjectConnectorCoordinate(markerNumbers=[ground_coordinate, marker]))
    tip = mbs.AddSensor(
        items.SensorNode(nodeNumber=nodes[-1], storeInternal=True, outputVariableType=exu.OutputVariableType.Position)
    )
    mbs.Assemble()
    steps = round(t_end / EXUDYN_STEP)
    wall = solve_generalized_alpha(exu, mbs, t_end, steps, OUTPUT_STEP, fixed_step=True)
    return wall, steps, np.asarray(mbs.GetSensorStoredData(tip))[-1, 1:4]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100, 300, 1000])
    parser.add_argument("--t-end", type=float, default=0.5)
    parser.add_argument("--no-exudyn", action="store_true")
    args = parser.parse_args()
    try:
        import exudyn

        with_exudyn = not args.no_exudyn
    except ImportError:
        with_exudyn = False
    header = f"{'N':>5} {'ours [s]':>9} {'steps':>7} {'us/step':>9} {'us/step/N':>9} {'tip z':>9}"
    if with_exudyn:
        header += f" | {'exudyn [s]':>10} {'steps':>6} {'us/step':>9} {'tip z':>9} | {'time x':>7} {'step x':>7}"
    print(f"cantilever {LENGTH} m sagging under gravity for {args.t_end} s")
    print(header)
    for n in args.sizes:
        wall, steps, tip = ours(n, args.t_end)
        per_step = 1e6 * wall / steps
        line = f"{n:5d} {wall:9.3f} {steps:7d} {per_step:9.1f} {per_step / n:9.2f} {tip[2]:9.5f}"
        if with_exudyn:
            try:
                x_wall, x_steps, x_tip = exudyn_cable(n, args.t_end)
            except exudyn.SolverError:  # its Newton fails at the fixed step
                line += f" | {'failed':>10}"
            else:
                x_per_step = 1e6 * x_wall / x_steps
                line += (
                    f" | {x_wall:10.3f} {x_steps:6d} {x_per_step:9.1f} {x_tip[2]:9.5f}"
                    f" | {wall / x_wall:7.2f} {per_step / x_per_step:7.2f}"
                )
        print(line, flush=True)


if __name__ == "__main__":
    main()
