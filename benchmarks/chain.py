"""Benchmark: planar N-link pendulum chain, ours (BDF on SI2) against Exudyn (generalized-alpha).

Each link is a uniform slender rod (mass 1 kg, length 1 m, inertia m l^2/12 about the transverse
axes and a small axial moment so the inertia is positive definite). The chain starts horizontal
along +x at rest and falls under gravity -y; link k hangs from link k-1 (link 1 from the ground)
by a spatial revolute joint about world z.

Printed per chain size N: our wall time for ``dynamics`` (compile excluded), microseconds per
accepted step, steps, the relative energy drift max|E(t) - E(0)| / (m g l N), and the link-1
angle (angle of link 1 from +x about +z, unwrapped at the output step) at 1 s and at the end.
With Exudyn installed, the same chain is built from its rigid bodies and revolute joints and run
with generalized-alpha (spectral radius 0.9, its default), the sparse solver and a fixed step;
the ratio of wall times (ours / Exudyn) and Exudyn's link-1 angles are printed alongside. The
chain is chaotic for large N, so the angles are comparable at 1 s; at the end they only say
both runs stayed bounded.

With ``--repeat n`` every size runs n interleaved rounds (ours, Exudyn, Exudyn 2D) and the fastest
of each is reported, so that a change of load on a shared machine moves both sides alike.

Usage: ``python benchmarks/chain.py [--sizes 2 10 50 200] [--t-end 10] [--no-exudyn] [--repeat 3] [--rtol 5e-6]
[--no-reference]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from exudyn_run import solve_generalized_alpha
from numpy.typing import NDArray

import multibody as mb

MASS = 1.0
"""Mass of one link [kg]."""
LENGTH = 1.0
"""Length of one link [m]."""
GRAVITY = 9.81
"""Gravitational acceleration [m/s^2], along -y."""
AXIAL_INERTIA = 1e-4
"""Moment of inertia of a link about its own axis [kg m^2]: small, positive (a thin rod)."""
LINK_INERTIA = (AXIAL_INERTIA, MASS * LENGTH**2 / 12.0, MASS * LENGTH**2 / 12.0)
"""Principal moments about the CM [kg m^2], body x along the link."""
OUTPUT_STEP = 0.01
"""Interval of the output frames and of Exudyn's sensor samples [s]."""
RTOL = 1e-6
"""Our integrator's relative tolerance (the default; ``--rtol`` to compare at matched accuracy)."""
EXUDYN_STEP = 1e-3
"""Exudyn's fixed time step [s]."""
EXUDYN_SPECTRAL_RADIUS = 0.9
"""Spectral radius at infinity of Exudyn's generalized-alpha (its default; 1 would add no damping)."""
ANGLE_CHECK_TIME = 1.0
"""Early time [s] at which the link-1 angles are compared (before the motion turns chaotic)."""


@dataclass
class Run:
    """Outcome of one simulation of the chain."""

    wall_time: float
    """Wall-clock time [s] of the time integration call."""
    steps: int
    """Time steps taken."""
    time: NDArray[np.float64]
    """Output times [s]."""
    link1_angle: NDArray[np.float64]
    """Angle of link 1 from +x about +z [rad], unwrapped, at ``time``."""
    energy_drift: float = float("nan")
    """max |E(t) - E(0)| / (m g l N); NaN where not measured."""

    def angle_at(self, t: float) -> float:
        """Link-1 angle [rad] at output time ``t`` (the nearest output frame)."""
        return float(self.link1_angle[np.argmin(np.abs(self.time - t))])


def link_center(k: int) -> NDArray[np.float64]:
    """CM [m] of link ``k`` (1-based) in the horizontal start configuration."""
    return np.array([(k - 0.5) * LENGTH, 0.0, 0.0])


def link1_angle(p_link1_W: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angle [rad] of link 1 from +x about +z from its CM positions (T x 3), unwrapped in time.

    The pivot of link 1 is the world origin, so the CM direction is the link direction.
    """
    return np.unwrap(np.arctan2(p_link1_W[:, 1], p_link1_W[:, 0]))


def chain_model(n_links: int) -> mb.Model:
    """Our N-link chain: rods along +x at rest, revolute joints about world z, gravity -y."""
    model = mb.Model(f"chain{n_links}", gravity=(0.0, -GRAVITY, 0.0))
    parent_marker = model.ground.add_marker("pivot")
    for k in range(1, n_links + 1):
        link = model.add(
            mb.RigidBody(
                f"link{k}",
                MASS,
                LINK_INERTIA,
                position=link_center(k),
                orientation=np.eye(3),
                velocity=(0.0, 0.0, 0.0),
                angular_velocity=(0.0, 0.0, 0.0),
            )
        )
        model.add(mb.Revolute(f"hinge{k}", link.add_marker("top", position=(-LENGTH / 2, 0.0, 0.0)), parent_marker))
        parent_marker = link.add_marker("bottom", position=(LENGTH / 2, 0.0, 0.0))
    return model


def run_ours(n_links: int, t_end: float, rtol: float = RTOL) -> Run:
    """Simulate our chain with BDF on SI2; time ``dynamics`` on the compiled system.

    A first run of 0.01 s loads the compiled kernels into the process (numba's cache: tens of
    milliseconds once per process, as Exudyn's are loaded when it is imported) and is not timed.
    """
    system = chain_model(n_links).compile()
    mb.dynamics(system, 0.01, output_step=OUTPUT_STEP, method="SI2", rtol=rtol)
    started = time.perf_counter()
    results = mb.dynamics(system, t_end, output_step=OUTPUT_STEP, method="SI2", rtol=rtol)
    wall_time = time.perf_counter() - started
    energy = results.energy["total"]
    return Run(
        wall_time=wall_time,
        steps=int(results.stats["steps"]),
        time=results.time,
        link1_angle=link1_angle(results.body("link1").position),
        energy_drift=float(np.max(np.abs(energy - energy[0]))) / (MASS * GRAVITY * LENGTH * n_links),
    )


def run_exudyn(n_links: int, t_end: float) -> Run:
    """Simulate Exudyn's chain (Euler-parameter rigid bodies, generalized-alpha, sparse, fixed step)."""
    import exudyn as exu
    from exudyn.utilities import ObjectGround, RigidBodyInertia, SensorBody

    mbs = exu.SystemContainer().AddSystem()
    ground = mbs.AddObject(ObjectGround())
    inertia = RigidBodyInertia(mass=MASS, inertiaTensor=np.diag(LINK_INERTIA), inertiaTensorAtCOM=True)
    parent = ground
    for k in range(1, n_links + 1):
        link = mbs.CreateRigidBody(
            inertia=inertia,
            referencePosition=link_center(k),
            gravity=[0.0, -GRAVITY, 0.0],
            show=False,
        )
        mbs.CreateRevoluteJoint(
            itemNumbers=[parent, link],
            position=link_center(k) - [LENGTH / 2, 0.0, 0.0],
            axis=[0.0, 0.0, 1.0],
            useGlobalFrame=True,
            show=False,
        )
        if k == 1:
            sensor = mbs.AddSensor(
                SensorBody(bodyNumber=link, storeInternal=True, outputVariableType=exu.OutputVariableType.Position)
            )
        parent = link
    mbs.Assemble()

    steps = round(t_end / EXUDYN_STEP)
    wall_time = solve_generalized_alpha(exu, mbs, t_end, steps, OUTPUT_STEP, EXUDYN_SPECTRAL_RADIUS, fixed_step=True)
    samples = np.asarray(mbs.GetSensorStoredData(sensor))
    return Run(
        wall_time=wall_time,
        steps=steps,
        time=samples[:, 0],
        link1_angle=link1_angle(samples[:, 1:4]),
    )


def run_exudyn_planar(n_links: int, t_end: float) -> Run:
    """Exudyn's fastest model of the same chain: planar RigidBody2D nodes and RevoluteJoint2D,
    generalized-alpha, fixed step (as ``run_exudyn``)."""
    import exudyn as exu
    from exudyn.itemInterface import (
        LoadMassProportional,
        MarkerBodyMass,
        MarkerBodyPosition,
        NodeRigidBody2D,
        ObjectGround,
        ObjectRigidBody2D,
        RevoluteJoint2D,
        SensorBody,
    )

    mbs = exu.SystemContainer().AddSystem()
    parent, parent_local = mbs.AddObject(ObjectGround()), [0.0, 0.0, 0.0]
    for k in range(1, n_links + 1):
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[link_center(k)[0], 0.0, 0.0]))
        link = mbs.AddObject(ObjectRigidBody2D(nodeNumber=node, mass=MASS, inertia=LINK_INERTIA[2]))
        mbs.AddLoad(
            LoadMassProportional(
                markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=link)), loadVector=[0, -GRAVITY, 0]
            )
        )
        mbs.AddObject(
            RevoluteJoint2D(
                markerNumbers=[
                    mbs.AddMarker(MarkerBodyPosition(bodyNumber=parent, localPosition=parent_local)),
                    mbs.AddMarker(MarkerBodyPosition(bodyNumber=link, localPosition=[-LENGTH / 2, 0.0, 0.0])),
                ]
            )
        )
        if k == 1:
            sensor = mbs.AddSensor(
                SensorBody(bodyNumber=link, storeInternal=True, outputVariableType=exu.OutputVariableType.Position)
            )
        parent, parent_local = link, [LENGTH / 2, 0.0, 0.0]
    mbs.Assemble()
    steps = round(t_end / EXUDYN_STEP)
    wall_time = solve_generalized_alpha(exu, mbs, t_end, steps, OUTPUT_STEP, EXUDYN_SPECTRAL_RADIUS)
    samples = np.asarray(mbs.GetSensorStoredData(sensor))
    return Run(wall_time, steps, samples[:, 0], link1_angle(samples[:, 1:4]))


def reference_angle(n_links: int, t: float) -> float:
    """Link-1 angle [rad] at ``t`` [s] of our run at rtol = atol = 1e-11 (converged to about 1e-10
    rad: the reference of the angle errors; untimed)."""
    system = chain_model(n_links).compile()
    results = mb.dynamics(system, t, output_step=OUTPUT_STEP, method="SI2", rtol=1e-11, atol=1e-11)
    return float(link1_angle(results.body("link1").position)[-1])


def fastest(runs: Iterable[Run]) -> Run:
    """The run of least wall time among ``runs``."""
    return min(runs, key=lambda run: run.wall_time)


def growth_exponent(sizes: list[int], cost: list[float]) -> float:
    """Least-squares slope of log(cost) against log(N): cost ~ N^slope."""
    return float(np.polyfit(np.log(sizes), np.log(cost), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 10, 50, 200], help="numbers of links N")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time [s]")
    parser.add_argument("--no-exudyn", action="store_true", help="skip the Exudyn comparison")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved rounds per size; the fastest is reported")
    parser.add_argument("--rtol", type=float, default=RTOL, help="our relative tolerance (default: dynamics' default)")
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the converged reference runs (minutes at N = 1000): err is nan"
    )
    args = parser.parse_args()

    with_exudyn = not args.no_exudyn
    if with_exudyn:
        try:
            import exudyn
        except ImportError:
            print("exudyn is not importable: running ours only (pip install '.[bench]' for the comparison)")
            with_exudyn = False
        else:
            print(
                f"Exudyn {exudyn.__version__}: generalized-alpha (rho_inf {EXUDYN_SPECTRAL_RADIUS:g}), EigenSparse, fixed h = {EXUDYN_STEP:g} s"
            )
    t_end = args.t_end
    check_time = min(ANGLE_CHECK_TIME, t_end)
    print(f"ours: dynamics(method='SI2', rtol={args.rtol:g}), output every {OUTPUT_STEP:g} s; t_end = {t_end:g} s")
    print("angle = link-1 angle from +x about +z [rad]; drift = max|E(t)-E(0)| / (m g l N)")
    print(f"err = |angle - reference| at {check_time:g} s, the reference ours at rtol = atol = 1e-11")

    header = f"{'N':>4} {'wall [s]':>9} {'us/step':>9} {'steps':>7} {'drift':>9} {f'angle {check_time:g}s':>9} {f'angle {t_end:g}s':>10} {'err':>8}"
    if with_exudyn:
        header += f" | {'exu [s]':>8} {'us/step':>8} {'ours/exu':>8} {f'exu {check_time:g}s':>9} {f'exu {t_end:g}s':>9}"
        header += f" {'err':>8} | {'exu2D [s]':>9} {'ours/exu2D':>10} {'err':>8}"
    print(header)
    per_step: list[float] = []
    for n_links in args.sizes:
        rounds = [
            (
                run_ours(n_links, t_end, args.rtol),
                *((run_exudyn(n_links, t_end), run_exudyn_planar(n_links, t_end)) if with_exudyn else ()),
            )
            for _ in range(max(args.repeat, 1))
        ]
        ours = fastest(run[0] for run in rounds)
        reference = np.nan if args.no_reference else reference_angle(n_links, check_time)
        row = (
            f"{n_links:>4} {ours.wall_time:>9.3f} {1e6 * ours.wall_time / ours.steps:>9.1f} {ours.steps:>7d} "
            f"{ours.energy_drift:>9.2e} {ours.angle_at(check_time):>9.5f} {ours.angle_at(t_end):>10.4f} "
            f"{abs(ours.angle_at(check_time) - reference):>8.1e}"
        )
        per_step.append(ours.wall_time / ours.steps)
        if with_exudyn:
            theirs, planar = fastest(run[1] for run in rounds), fastest(run[2] for run in rounds)
            row += (
                f" | {theirs.wall_time:>8.3f} {1e6 * theirs.wall_time / theirs.steps:>8.1f} "
                f"{ours.wall_time / theirs.wall_time:>8.2f} {theirs.angle_at(check_time):>9.5f} "
                f"{theirs.angle_at(t_end):>9.4f} {abs(theirs.angle_at(check_time) - reference):>8.1e} | "
                f"{planar.wall_time:>9.3f} {ours.wall_time / planar.wall_time:>10.2f} "
                f"{abs(planar.angle_at(check_time) - reference):>8.1e}"
            )
        print(row, flush=True)
    large = [(n, cost) for n, cost in zip(args.sizes, per_step) if n >= 50]
    if len(large) >= 2:
        exponent = growth_exponent([n for n, _ in large], [cost for _, cost in large])
        print(f"wall time per step grows as N^{exponent:.2f} for N >= 50 (target: N^1.1 or better)")


if __name__ == "__main__":
    main()
