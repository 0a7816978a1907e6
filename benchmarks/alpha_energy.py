"""Benchmark: energy drift of an undamped double pendulum over long runs, HHT / generalized-alpha
against BDF-SI2 and Exudyn's generalized-alpha.

Two uniform rods (1 kg, 1 m, hinged about world z, gravity -y) released at rest at 0.3 rad from
the downward vertical; nothing dissipates, so any change of the total energy is the method's.
The slow mode's period is about 2.3 s.

Printed per method: wall time, accepted steps, the largest energy error max|E(t) - E(0)| and the
final one E(t_end) - E(0), both over m g L, and ratios to our HHT (wall time, largest error).
Ours run through ``multibody.dynamics`` at the given rtol with error-controlled steps; Exudyn
(if installed) runs its generalized-alpha (spectral radius 0.9, its default) at a fixed step of
1/46 of the period, with the energy computed from its position, velocity and angular velocity
sensors.

Usage: ``python benchmarks/alpha_energy.py [--periods 200] [--rtol 1e-4] [--no-exudyn]``
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

import multibody as mb

MASS, LENGTH, RADIUS, GRAVITY = 1.0, 1.0, 0.01, 9.81
"""Rod mass [kg], length [m], radius [m] (axial inertia), gravity [m/s^2] along -y."""
TRANSVERSE = MASS * (3.0 * RADIUS**2 + LENGTH**2) / 12.0
INERTIA = (MASS * RADIUS**2 / 2.0, TRANSVERSE, TRANSVERSE)
"""Principal moments about the CM [kg m^2], body x along the rod."""
ANGLE = 0.3
"""Initial angle of both rods from the downward vertical [rad]."""
PERIOD = 2.3
"""Period of the slow mode [s]."""
EXUDYN_STEPS_PER_PERIOD = 46
EXUDYN_SPECTRAL_RADIUS = 0.9


@dataclass
class Run:
    name: str
    wall_time: float
    steps: int
    energy_error: np.ndarray
    """E(t) - E(0) at the output times [J]"""


def rod_frames() -> list[tuple[np.ndarray, np.ndarray]]:
    """Centre [m] and orientation R_WB (body x along the rod) of each rod."""
    axis = np.array([np.sin(ANGLE), -np.cos(ANGLE), 0.0])
    c, s = np.cos(ANGLE - np.pi / 2.0), np.sin(ANGLE - np.pi / 2.0)
    R_WB = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return [(0.5 * LENGTH * axis, R_WB), (1.5 * LENGTH * axis, R_WB)]


def double_pendulum() -> mb.Model:
    model = mb.Model("double_pendulum", gravity=(0.0, -GRAVITY, 0.0))
    parent = model.ground.add_marker("pivot")
    for k, (centre, R_WB) in enumerate(rod_frames()):
        rod = model.add(mb.RigidBody(f"rod{k}", MASS, INERTIA, position=centre, orientation=R_WB))
        model.add(mb.Revolute(f"hinge{k}", rod.add_marker("top", (-LENGTH / 2.0, 0.0, 0.0)), parent))
        parent = rod.add_marker("bottom", (LENGTH / 2.0, 0.0, 0.0))
    return model


def run_ours(method: str, t_end: float, rtol: float) -> Run:
    system = double_pendulum().compile()
    started = time.perf_counter()
    results = mb.dynamics(system, t_end, PERIOD / 10.0, method=method, rtol=rtol)
    wall_time = time.perf_counter() - started
    total = results.energy["total"]
    return Run(f"{method} rtol {rtol:g}", wall_time, int(results.stats["steps"]), total - total[0])


def run_exudyn(t_end: float) -> Run:
    """The same pendulum from Exudyn's rigid bodies and revolute joints, generalized-alpha."""
    import exudyn as exu
    from exudyn.utilities import ObjectGround, RigidBodyInertia, SensorBody

    mbs = exu.SystemContainer().AddSystem()
    parent = mbs.AddObject(ObjectGround())
    inertia = RigidBodyInertia(mass=MASS, inertiaTensor=np.diag(INERTIA), inertiaTensorAtCOM=True)
    sensors = []
    joint_point = np.zeros(3)
    for centre, R_WB in rod_frames():
        rod = mbs.CreateRigidBody(
            inertia=inertia,
            referencePosition=centre,
            referenceRotationMatrix=R_WB,
            gravity=[0.0, -GRAVITY, 0.0],
            show=False,
        )
        mbs.CreateRevoluteJoint(
            itemNumbers=[parent, rod], position=joint_point, axis=[0.0, 0.0, 1.0], useGlobalFrame=True, show=False
        )
        sensors.append(
            [
                mbs.AddSensor(SensorBody(bodyNumber=rod, storeInternal=True, outputVariableType=kind))
                for kind in (
                    exu.OutputVariableType.Position,
                    exu.OutputVariableType.Velocity,
                    exu.OutputVariableType.AngularVelocity,
                )
            ]
        )
        joint_point = 2.0 * centre - joint_point
        parent = rod
    mbs.Assemble()
    settings = exu.SimulationSettings()
    steps = round(t_end / PERIOD * EXUDYN_STEPS_PER_PERIOD)
    settings.timeIntegration.endTime = t_end
    settings.timeIntegration.numberOfSteps = steps
    settings.timeIntegration.automaticStepSize = False
    settings.timeIntegration.verboseMode = 0
    settings.timeIntegration.generalizedAlpha.spectralRadius = EXUDYN_SPECTRAL_RADIUS
    settings.solution.file.write = False
    settings.solution.sensors.writePeriod = PERIOD / 10.0
    settings.show.globalTimers = False
    started = time.perf_counter()
    mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall_time = time.perf_counter() - started
    energy = 0.0
    for position, velocity, angular_velocity in sensors:
        p = np.asarray(mbs.GetSensorStoredData(position))[:, 1:4]
        v = np.asarray(mbs.GetSensorStoredData(velocity))[:, 1:4]
        w = np.asarray(mbs.GetSensorStoredData(angular_velocity))[:, 1:4]
        energy = (
            energy + 0.5 * MASS * np.sum(v * v, axis=1) + 0.5 * TRANSVERSE * w[:, 2] ** 2 + MASS * GRAVITY * p[:, 1]
        )
    return Run(f"Exudyn gen-alpha h = T/{EXUDYN_STEPS_PER_PERIOD}", wall_time, steps, energy - energy[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--periods", type=float, default=200.0, help="length of the run in slow periods")
    parser.add_argument("--rtol", type=float, default=1e-4, help="our integrators' tolerance")
    parser.add_argument("--no-exudyn", action="store_true", help="skip the Exudyn comparison")
    args = parser.parse_args()
    t_end = args.periods * PERIOD
    runs = [run_ours(method, t_end, args.rtol) for method in ("HHT", "GALPHA", "SI2")]
    if not args.no_exudyn:
        try:
            runs.append(run_exudyn(t_end))
        except ImportError:
            print("exudyn is not importable: running ours only")
    scale = MASS * GRAVITY * LENGTH
    reference = runs[0]
    print(f"double pendulum at {ANGLE} rad, {args.periods:g} periods ({t_end:g} s); energy errors over m g L")
    print(f"{'method':<28} {'wall [s]':>9} {'steps':>8} {'max|dE|':>10} {'final dE':>10} {'wall/HHT':>9} {'dE/HHT':>8}")
    for run in runs:
        largest = float(np.abs(run.energy_error).max())
        print(
            f"{run.name:<28} {run.wall_time:9.2f} {run.steps:8d} {largest / scale:10.2e} "
            f"{run.energy_error[-1] / scale:10.2e} {run.wall_time / reference.wall_time:9.2f} "
            f"{largest / float(np.abs(reference.energy_error).max()):8.2f}"
        )


if __name__ == "__main__":
    main()
