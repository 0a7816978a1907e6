"""Benchmark: a free slider-crank at default settings, ours against Exudyn's planar rigid bodies.

The mechanism of the engine issue: crank 0.1 m / 0.1 kg and connecting rod 0.3 m / 0.3 kg (both
uniform slender rods), slider 1 kg, in the horizontal x-y plane; the crank starts at dead centre
(angle 0) turning at 2 pi rad/s and runs free for 10 s. Nothing acts in the plane, so the kinetic
energy ``M(theta) theta'^2 / 2`` is constant and the crank angle follows the reduced 1-DOF ODE
``theta' = sqrt(2 E / M(theta))`` (``reference_angle``, solved by scipy at rtol 1e-12): the
reference every run is measured against.

Printed: wall time of the integration, steps, crank-angle error at 10 s, for ours at the default
``dynamics`` settings (SI2, rtol 1e-6) and at two tighter tolerances, and for Exudyn's
RigidBody2D model with generalized-alpha at h = 1 ms (its fastest model of this mechanism) when
exudyn is installed; ratios are ours / Exudyn (same run, same machine).

Usage: ``python benchmarks/slider_crank_free.py [--no-exudyn] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.integrate import solve_ivp

import multibody as mb

CRANK, ROD = 0.1, 0.3
"""Crank radius and rod length [m]."""
CRANK_MASS, ROD_MASS, SLIDER_MASS = 0.1, 0.3, 1.0
"""[kg]"""
OMEGA0 = 2.0 * np.pi
"""Initial crank speed [rad/s]."""
T_END = 10.0
"""Simulated time [s]."""
OUTPUT_STEP = 0.01
"""Output interval [s]."""
EXUDYN_STEP = 1e-3
"""Exudyn's fixed step [s]."""


def rod_inertia(mass: float, length: float) -> float:
    """Moment of inertia of a uniform slender rod about its centre, transverse [kg m^2]."""
    return mass * length**2 / 12.0


def generalized_mass(theta: float) -> float:
    """``M(theta)`` [kg m^2]: kinetic energy of the mechanism per ``theta'^2 / 2``."""
    s = np.sqrt(ROD**2 - (CRANK * np.sin(theta)) ** 2)
    d_tip = CRANK * np.array([-np.sin(theta), np.cos(theta)])
    d_slider = np.array([-CRANK * np.sin(theta) - CRANK**2 * np.sin(theta) * np.cos(theta) / s, 0.0])
    d_rod_angle = -CRANK * np.cos(theta) / s
    crank = rod_inertia(CRANK_MASS, CRANK) + CRANK_MASS * (CRANK / 2) ** 2
    rod = ROD_MASS * np.sum(((d_tip + d_slider) / 2) ** 2) + rod_inertia(ROD_MASS, ROD) * d_rod_angle**2
    return crank + rod + SLIDER_MASS * d_slider[0] ** 2


def reference_angle(t_end: float) -> float:
    """Crank angle [rad] at ``t_end`` from the reduced ODE (energy conservation)."""
    energy = 0.5 * generalized_mass(0.0) * OMEGA0**2
    solution = solve_ivp(
        lambda t, y: [np.sqrt(2.0 * energy / generalized_mass(y[0]))], (0.0, t_end), [0.0], rtol=1e-12, atol=1e-12
    )
    return float(solution.y[0, -1])


def our_model() -> mb.Model:
    """Crank about world z at the origin (Revolute), rod (Spherical at the crank pin, Universal at
    the slider), slider on a Translational joint along x: one DOF and no redundant equation."""
    model = mb.Model("free_slider_crank", gravity=(0.0, 0.0, -9.81))
    axial = 1e-6
    crank = model.add(
        mb.RigidBody(
            "crank",
            CRANK_MASS,
            (axial, rod_inertia(CRANK_MASS, CRANK), rod_inertia(CRANK_MASS, CRANK)),
            position=(CRANK / 2, 0.0, 0.0),
            velocity=(0.0, OMEGA0 * CRANK / 2, 0.0),
            angular_velocity=(0.0, 0.0, OMEGA0),
        )
    )
    rod_omega = -OMEGA0 * CRANK / ROD
    rod = model.add(
        mb.RigidBody(
            "rod",
            ROD_MASS,
            (axial, rod_inertia(ROD_MASS, ROD), rod_inertia(ROD_MASS, ROD)),
            position=(CRANK + ROD / 2, 0.0, 0.0),
            velocity=(0.0, OMEGA0 * CRANK / 2, 0.0),
            angular_velocity=(0.0, 0.0, rod_omega),
        )
    )
    slider = model.add(mb.RigidBody("slider", SLIDER_MASS, (1e-3, 1e-3, 1e-3), position=(CRANK + ROD, 0.0, 0.0)))
    z = (0.0, 0.0, 1.0)
    model.add(
        mb.Revolute(
            "pivot",
            crank.add_marker("pivot", position=(-CRANK / 2, 0, 0), z_axis=z),
            model.ground.add_marker("pivot", z_axis=z),
        )
    )
    model.add(
        mb.Spherical(
            "pin",
            rod.add_marker("big_end", position=(-ROD / 2, 0, 0)),
            crank.add_marker("pin", position=(CRANK / 2, 0, 0)),
        )
    )
    model.add(
        mb.Universal(
            "small_end",
            rod.add_marker("small_end", position=(ROD / 2, 0, 0), z_axis=(0.0, 1.0, 0.0)),
            slider.add_marker("pin", z_axis=z),
        )
    )
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "guide", slider.add_marker("guide", z_axis=along_x), model.ground.add_marker("guide", z_axis=along_x)
        )
    )
    return model


def run_ours(rtol: float | None) -> tuple[float, int, float]:
    """(wall time [s], steps, crank angle at T_END [rad]) at the default settings or ``rtol``."""
    system = our_model().compile()
    options = {} if rtol is None else {"rtol": rtol}
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
    settings = exu.SimulationSettings()
    settings.timeIntegration.endTime = T_END
    settings.timeIntegration.numberOfSteps = int(round(T_END / EXUDYN_STEP))
    settings.timeIntegration.verboseMode = 0
    settings.solution.file.write = False
    settings.solution.sensors.writePeriod = OUTPUT_STEP
    started = time.perf_counter()
    mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall = time.perf_counter() - started
    samples = np.asarray(mbs.GetSensorStoredData(sensor))
    return wall, int(settings.timeIntegration.numberOfSteps), float(samples[-1, 3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-exudyn", action="store_true", help="skip the Exudyn comparison")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the fastest is reported")
    args = parser.parse_args()
    reference = reference_angle(T_END)
    print(f"reference crank angle at {T_END:g} s: {reference:.9f} rad (reduced ODE, rtol 1e-12)")
    cases: list[tuple[str, object]] = [
        ("ours, defaults (SI2, rtol 1e-6)", None),
        ("ours, rtol 1e-7", 1e-7),
        ("ours, rtol 1e-8", 1e-8),
    ]
    rows = []
    run_ours(None)  # compile the kernels before timing
    for label, rtol in cases:
        runs = [run_ours(rtol) for _ in range(args.repeat)]
        rows.append((label, min(r[0] for r in runs), runs[0][1], abs(runs[0][2] - reference)))
    exudyn_wall = None
    if not args.no_exudyn:
        try:
            runs = [run_exudyn() for _ in range(args.repeat)]
        except ImportError:
            print("exudyn is not importable: ours only (pip install '.[bench]')")
        else:
            exudyn_wall = min(r[0] for r in runs)
            rows.append(
                ("Exudyn RigidBody2D, gen.-alpha, h = 1 ms", exudyn_wall, runs[0][1], abs(runs[0][2] - reference))
            )
    print(f"{'case':<44} {'wall [s]':>9} {'steps':>7} {'angle error [rad]':>18} {'wall / Exudyn':>14}")
    for label, wall, steps, error in rows:
        ratio = f"{wall / exudyn_wall:>14.2f}" if exudyn_wall else f"{'-':>14}"
        print(f"{label:<44} {wall:>9.3f} {steps:>7d} {error:>18.2e} {ratio}")


if __name__ == "__main__":
    main()
