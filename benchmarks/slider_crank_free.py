"""Benchmark: a free slider-crank at default settings, ours against Exudyn's planar rigid bodies.

The mechanism of the engine issue, ``examples/free_slider_crank.py``: crank 0.1 m / 0.1 kg, rod
0.3 m / 0.3 kg, slider 1 kg in the horizontal plane, the crank starting at dead centre at 2 pi
rad/s, 10 s free. Every run is measured against the example's ``reference_angle`` (the reduced
1-DOF ODE from energy conservation, solved by scipy at rtol 1e-12).

Printed: wall time of the integration, steps, crank-angle error at 10 s, for ours at the default
``dynamics`` settings (SI2, rtol 1e-6), at two tighter tolerances and with each other method at
its default tolerance (``dynamics.DEFAULT_RTOL``), and for Exudyn's
RigidBody2D model with generalized-alpha at h = 1 ms (its fastest model of this mechanism) when
exudyn is installed; ratios are ours / Exudyn (same run, same machine).

Usage: ``python benchmarks/slider_crank_free.py [--no-exudyn] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from exudyn_run import solve_generalized_alpha

import multibody as mb
from multibody.analysis.dynamics import DEFAULT_RTOL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from free_slider_crank import (  # the mechanism and its reference live in the example
    CRANK,
    CRANK_MASS,
    OMEGA0,
    ROD,
    ROD_MASS,
    SLIDER_MASS,
    T_END,
    build,
    reference_angle,
    rod_inertia,
)

OUTPUT_STEP = 0.01
"""Output interval [s]."""
EXUDYN_STEP = 1e-3
"""Exudyn's fixed step [s]."""


def run_ours(options: dict[str, object]) -> tuple[float, int, float]:
    """(wall time [s], steps, crank angle at T_END [rad]) at the default settings changed by
    ``options`` (``dynamics`` keywords: method, rtol)."""
    system = build().compile()
    started = time.perf_counter()
    results = mb.dynamics(system, T_END, OUTPUT_STEP, **options)
    wall = time.perf_counter() - started
    e = results.body("crank").euler_parameters
    angle = np.unwrap(2.0 * np.arctan2(e[:, 3], e[:, 0]))
    return wall, int(results.stats["steps"]), float(angle[-1])


def run_exudyn() -> tuple[float, int, float]:
    """The same mechanism from Exudyn's RigidBody2D nodes and 2D joints, generalized-alpha, h = 1 ms."""
    import exudyn as exu
    from exudyn.itemInterface import (
        MarkerBodyPosition,
        MarkerBodyRigid,
        NodeRigidBody2D,
        ObjectGround,
        ObjectJointPrismatic2D,
        ObjectRigidBody2D,
        RevoluteJoint2D,
        SensorNode,
    )

    mbs = exu.SystemContainer().AddSystem()
    ground = mbs.AddObject(ObjectGround())
    rod_omega = -OMEGA0 * CRANK / ROD

    def body(x: float, mass: float, inertia: float, velocity: list[float]) -> tuple[int, int]:
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[x, 0.0, 0.0], initialVelocities=velocity))
        return node, mbs.AddObject(ObjectRigidBody2D(nodeNumber=node, mass=mass, inertia=inertia))

    crank_node, crank = body(CRANK / 2, CRANK_MASS, rod_inertia(CRANK_MASS, CRANK), [0.0, OMEGA0 * CRANK / 2, OMEGA0])
    _, rod = body(CRANK + ROD / 2, ROD_MASS, rod_inertia(ROD_MASS, ROD), [0.0, OMEGA0 * CRANK / 2, rod_omega])
    _, slider = body(CRANK + ROD, SLIDER_MASS, 1e-3, [0.0, 0.0, 0.0])

    def at(item: int, local: list[float]) -> int:
        return mbs.AddMarker(MarkerBodyPosition(bodyNumber=item, localPosition=local))

    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(ground, [0, 0, 0]), at(crank, [-CRANK / 2, 0, 0])]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(crank, [CRANK / 2, 0, 0]), at(rod, [-ROD / 2, 0, 0])]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(rod, [ROD / 2, 0, 0]), at(slider, [0, 0, 0])]))
    mbs.AddObject(
        ObjectJointPrismatic2D(
            markerNumbers=[
                mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=[0, 0, 0])),
                mbs.AddMarker(MarkerBodyRigid(bodyNumber=slider, localPosition=[0, 0, 0])),
            ],
            axisMarker0=[1.0, 0.0, 0.0],
            normalMarker1=[0.0, 1.0, 0.0],
            constrainRotation=True,
        )
    )
    sensor = mbs.AddSensor(
        SensorNode(nodeNumber=crank_node, storeInternal=True, outputVariableType=exu.OutputVariableType.Coordinates)
    )
    mbs.Assemble()
    steps = round(T_END / EXUDYN_STEP)
    wall = solve_generalized_alpha(exu, mbs, T_END, steps, OUTPUT_STEP, sparse=False)
    samples = np.asarray(mbs.GetSensorStoredData(sensor))
    return wall, steps, float(samples[-1, 3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-exudyn", action="store_true", help="skip the Exudyn comparison")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of runs; each case's fastest is reported")
    args = parser.parse_args()
    reference = reference_angle(T_END)
    print(f"reference crank angle at {T_END:g} s: {reference:.9f} rad (reduced ODE, rtol 1e-12)")
    cases: list[tuple[str, dict[str, object]]] = [
        ("ours, defaults (SI2, rtol 1e-6)", {}),
        ("ours, rtol 1e-7", {"rtol": 1e-7}),
        ("ours, rtol 1e-8", {"rtol": 1e-8}),
    ] + [
        (f"ours, {method} at its default rtol {DEFAULT_RTOL[method]:g}", {"method": method})
        for method in ("I3", "HHT", "GALPHA")
    ]
    for _, options in cases[-3:]:  # compile the kernels of every method before timing
        mb.dynamics(build().compile(), 0.05, OUTPUT_STEP, **options)
    with_exudyn = not args.no_exudyn
    if with_exudyn:
        try:
            import exudyn  # noqa: F401
        except ImportError:
            print("exudyn is not importable: ours only (pip install '.[bench]')")
            with_exudyn = False
    # Interleaved rounds (every case, then Exudyn, repeated): on a shared machine a change of load
    # then moves ours and Exudyn's times alike instead of the ratio.
    runs: dict[str, list[tuple[float, int, float]]] = {label: [] for label, _ in cases}
    exudyn_runs = []
    for _ in range(args.repeat):
        for label, options in cases:
            runs[label].append(run_ours(options))
        if with_exudyn:
            exudyn_runs.append(run_exudyn())
    rows = [
        (label, min(r[0] for r in runs[label]), runs[label][0][1], abs(runs[label][0][2] - reference))
        for label, _ in cases
    ]
    exudyn_wall = None
    if with_exudyn:
        exudyn_wall = min(r[0] for r in exudyn_runs)
        rows.append(
            (
                "Exudyn RigidBody2D, gen.-alpha, h = 1 ms",
                exudyn_wall,
                exudyn_runs[0][1],
                abs(exudyn_runs[0][2] - reference),
            )
        )
    print(f"{'case':<44} {'wall [s]':>9} {'steps':>7} {'angle error [rad]':>18} {'wall / Exudyn':>14}")
    for label, wall, steps, error in rows:
        ratio = f"{wall / exudyn_wall:>14.2f}" if exudyn_wall else f"{'-':>14}"
        print(f"{label:<44} {wall:>9.3f} {steps:>7d} {error:>18.2e} {ratio}")


if __name__ == "__main__":
    main()
