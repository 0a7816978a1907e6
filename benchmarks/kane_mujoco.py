"""Benchmark: Kane's equations with an explicit integrator against MuJoCo's RK4 on the planar chain.

The chain is ``benchmarks/chain.py``'s: N uniform rods (1 kg, 1 m, principal moments 1e-4, 1/12,
1/12 kg m^2 with body x along the rod) joined by revolute joints about world z, starting along +x
at rest and falling under gravity -y. MuJoCo gets the same chain built in code (``MjSpec``, the
same elements as MJCF's): nested bodies with hinge joints at the rods' upper ends, explicit
inertials at the rods' middles, capsule geoms without contacts (contype = conaffinity = 0),
RK4 integrator, timestep 0.001 s.

Printed, side by side in one run:

* for N = 200 (``--links``) over 10 s (``--t-end``): our wall time of ``mb.dynamics(...,
  formulation="kane", method=...)`` (output every 0.01 s; assembling the initial state excluded,
  as MuJoCo's model building is), MuJoCo's wall time of its ``mj_step`` loop (the link-1 CM
  read every 0.01 s), their ratio, and the link-1 angle at 1 s of both against a reference: our
  DOP853 at ``rtol = atol = 1e-12`` over the first second (the chain turns chaotic later, so
  angles compare at 1 s only; at the end they only show that both runs stayed bounded);
* the cost of one evaluation against N (10, 50, 200, 1000): our Kane right-hand side (tree
  kinematics, forces, articulated-body forward dynamics, ``dq/dt``) and MuJoCo's ``mj_forward``
  (whose dense mass-matrix factorization grows as N^3 on a chain), with fitted exponents.

Usage: ``python benchmarks/kane_mujoco.py [--links 200] [--t-end 10] [--method DOP853] [--rtol 1e-8]
[--sizes 10 50 200 1000]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from chain import LENGTH, LINK_INERTIA, MASS, OUTPUT_STEP, Run, chain_model, link1_angle
from threadpoolctl import threadpool_limits
from timing import median_time

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.analysis.dynamics_kane import KaneODE
from multibody.formulation.kane import KaneFormulation

GRAVITY = 9.81
"""Gravitational acceleration [m/s^2], along -y (as in ``chain.py``)."""
MUJOCO_STEP = 1e-3
"""MuJoCo's fixed RK4 step [s]."""
REFERENCE_RTOL = 1e-12
"""Tolerance of the reference run (DOP853, relative and absolute)."""
CHECK_TIME = 1.0
"""Time [s] at which the link-1 angles are compared with the reference."""
HINGE_RATE = 0.1
"""Rate of every hinge [rad/s] at which one evaluation is timed (velocity terms not zero)."""


def mujoco_chain(n_links: int) -> object:
    """MuJoCo's ``MjModel`` of the N-link chain, built in code with ``MjSpec`` (MJCF's XML parser
    refuses nesting deeper than 500 bodies): nested bodies with hinges about z at the rods' upper
    ends, explicit inertials at their middles, capsules without contacts, RK4 at h = 1 ms."""
    import mujoco

    spec = mujoco.MjSpec()
    spec.modelname = f"chain{n_links}"
    spec.option.timestep = MUJOCO_STEP
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_RK4
    spec.option.gravity = [0.0, -GRAVITY, 0.0]
    parent = spec.worldbody
    for k in range(1, n_links + 1):
        body = parent.add_body(
            name=f"link{k}",
            pos=[0.0 if k == 1 else LENGTH, 0.0, 0.0],
            mass=MASS,
            ipos=[LENGTH / 2, 0.0, 0.0],
            inertia=list(LINK_INERTIA),
            explicitinertial=True,
        )
        body.add_joint(name=f"hinge{k}", type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0.0, 0.0, 1.0])
        body.add_geom(
            type=mujoco.mjtGeom.mjGEOM_CAPSULE,
            fromto=[0.0, 0.0, 0.0, LENGTH, 0.0, 0.0],
            size=[0.01, 0.0, 0.0],
            contype=0,
            conaffinity=0,
        )
        parent = body
    return spec.compile()


def run_mujoco(n_links: int, t_end: float) -> Run:
    """MuJoCo's RK4 at h = 1 ms; the link-1 CM is read every output step."""
    import mujoco

    model = mujoco_chain(n_links)
    data = mujoco.MjData(model)
    steps = round(t_end / MUJOCO_STEP)
    every = round(OUTPUT_STEP / MUJOCO_STEP)
    samples = [data.xipos[1].copy()]
    times = [0.0]
    started = time.perf_counter()
    for step in range(1, steps + 1):
        mujoco.mj_step(model, data)
        if step % every == 0:
            samples.append(data.xipos[1].copy())
            times.append(data.time)
    wall_time = time.perf_counter() - started
    return Run(wall_time, steps, np.array(times), link1_angle(np.array(samples)))


def run_kane(system: mb.System, state: mb.State, t_end: float, method: str, rtol: float) -> Run:
    """Our Kane formulation with ``method`` at ``rtol = atol``, output every 0.01 s."""
    started = time.perf_counter()
    results = mb.dynamics(
        system, t_end, OUTPUT_STEP, method=method, rtol=rtol, atol=rtol, initial_state=state, formulation="kane"
    )
    wall_time = time.perf_counter() - started
    return Run(
        wall_time,
        int(results.stats["function_evaluations"]),
        results.time,
        link1_angle(results.body("link1").position),
    )


def evaluation_costs(n_links: int, repeats: int) -> tuple[float, float]:
    """Median wall times [s] of one Kane right-hand side and of one MuJoCo ``mj_forward``."""
    import mujoco

    system = chain_model(n_links).compile()  # its input configuration satisfies the joints
    problem = KaneODE(KaneFormulation(system, system.q0), rtol=1e-8, atol=1e-8, drift_factor=1.0)
    q = problem.formulation.reference_coordinates()
    y = problem.join(q, np.full(problem.n_u, HINGE_RATE), np.zeros(0), 0.0, 0.0)
    model = mujoco_chain(n_links)
    data = mujoco.MjData(model)
    data.qvel[:] = HINGE_RATE
    return (
        median_time(lambda: problem.rate(0.0, y), repeats),
        median_time(lambda: mujoco.mj_forward(model, data), repeats),
    )


def fitted_exponent(sizes: list[int], times: list[float]) -> float:
    """``p`` of the least-squares fit ``log t = p log N + c``."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, default=200, help="links N of the timed run")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time [s]")
    parser.add_argument("--method", default="DOP853", help="our explicit method (RK45, DOP853)")
    parser.add_argument("--rtol", type=float, default=1e-8, help="our tolerance (relative and absolute)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200, 1000], help="N of the cost table")
    parser.add_argument("--repeats", type=int, default=20, help="timed evaluations per size (median)")
    args = parser.parse_args()

    import mujoco

    with threadpool_limits(limits=1):
        n_links = args.links
        system, state = assembled_state(chain_model(n_links).compile())
        print(
            f"N = {n_links} links, {args.t_end:g} s: ours Kane + {args.method} (rtol = atol = {args.rtol:g}), "
            f"MuJoCo {mujoco.__version__} RK4 at h = {MUJOCO_STEP:g} s; output every {OUTPUT_STEP:g} s"
        )
        ours = run_kane(system, state, args.t_end, args.method, args.rtol)
        theirs = run_mujoco(n_links, args.t_end)
        check_time = min(CHECK_TIME, args.t_end)
        reference = run_kane(system, state, check_time, "DOP853", REFERENCE_RTOL).angle_at(check_time)
        print(
            f"{'':>8} {'wall [s]':>9} {'evaluations':>12} {f'angle {check_time:g} s [rad]':>20} {'error':>9} {f'angle {args.t_end:g} s':>11}"
        )
        for name, run, evaluations in (("ours", ours, ours.steps), ("MuJoCo", theirs, 4 * theirs.steps)):
            angle = run.angle_at(check_time)
            print(
                f"{name:>8} {run.wall_time:>9.2f} {evaluations:>12d} {angle:>20.12f} {abs(angle - reference):>9.1e} "
                f"{run.angle_at(args.t_end):>11.4f}"
            )
        print(f"reference (DOP853, rtol {REFERENCE_RTOL:g}) angle at {check_time:g} s: {reference:.12f} rad")
        print(f"wall-time ratio ours / MuJoCo: {ours.wall_time / theirs.wall_time:.2f} (target <= 1)")

        print(f"\n{'N':>5} {'kane rhs [us]':>14} {'per link [us]':>14} {'mj_forward [us]':>16} {'per link [us]':>14}")
        ours_costs, mujoco_costs = [], []
        for size in args.sizes:
            kane_cost, mujoco_cost = evaluation_costs(size, args.repeats)
            ours_costs.append(kane_cost)
            mujoco_costs.append(mujoco_cost)
            print(
                f"{size:>5} {1e6 * kane_cost:>14.1f} {1e6 * kane_cost / size:>14.2f} "
                f"{1e6 * mujoco_cost:>16.1f} {1e6 * mujoco_cost / size:>14.2f}",
                flush=True,
            )
        for first in sorted({0, min(len(args.sizes) // 2, len(args.sizes) - 2)}):
            sizes = args.sizes[first:]
            print(
                f"fitted exponent over N = {sizes[0]}..{sizes[-1]}: kane rhs "
                f"{fitted_exponent(sizes, ours_costs[first:]):.2f}, mj_forward {fitted_exponent(sizes, mujoco_costs[first:]):.2f}"
            )


if __name__ == "__main__":
    main()
