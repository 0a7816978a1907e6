"""Benchmark: a finite-segment beam in Kane's relative coordinates against the Cartesian formulation.

The model is ``tests/test_kane_segments.py``'s flexible arm: a 0.5 m polymer strip (20 x 5 mm,
E = 0.2 GPa, 1200 kg/m^3, stiffness-proportional damping 1 ms) cut into N segments, clamped to a
hub hinged to the ground about y, falling from horizontal under gravity. In the Kane formulation
the tree is hinge -> hub -> segment 1 -> ... -> segment N, every segment on a free joint across
its bushing (7 coordinates, 6 speeds, all small); in the Cartesian one every segment is a free
body (7 and 6) and the hinge five constraint rows.

For N = 10, 50, 200 (``--sizes``) it prints, side by side:

* the cost of one right-hand side: Kane's ``evaluate`` + ``forward_dynamics`` (the O(N)
  articulated-body recursion) and the Cartesian ``evaluate`` + ``accelerations`` (the sparse
  saddle-point solve), median of repeated calls, and their ratio;
* the cost per accepted step of a whole run of ``--t-end`` seconds (BDF on Kane's ODE, BDF on
  the Cartesian SI2 DAE, both at ``--rtol``): wall time / steps, the steps, and the ratio
  Kane / Cartesian; and the largest difference of the tip positions at the end (a sanity check
  that both ran the same motion).

Usage: ``python benchmarks/kane_segments.py [--sizes 10 50 200] [--t-end 0.02] [--rtol 1e-6]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits
from timing import median_time

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.kane import KaneFormulation

LENGTH = 0.5
"""Length of the strip [m]."""
DAMPING = 1e-3
"""Stiffness-proportional damping of the segment springs [s]."""


def flexible_arm(n_segments: int) -> mb.Model:
    """The strip of N segments clamped to a hub on a free hinge about y (module docstring)."""
    model = mb.Model("flexible_arm")
    hub = model.add(mb.RigidBody("hub", 0.1, (1e-4, 1e-4, 1e-4)))
    model.add(
        mb.Revolute(
            "hinge",
            hub.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
            model.ground.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
        )
    )
    section, material = mb.Section.rectangle(0.02, 0.005), mb.Material(0.2e9, 0.4, 1200.0)
    model.add(
        mb.FiniteSegmentBeam(
            "arm", hub.add_marker("root"), LENGTH, n_segments, section, material, clamped=True, damping=DAMPING
        )
    )
    return model


def right_hand_sides(n_segments: int, repeats: int) -> tuple[float, float]:
    """Median times [s] of one Kane and one Cartesian right-hand side, at a bent, moving state."""
    system, state = assembled_state(flexible_arm(n_segments).compile())
    kane = KaneFormulation(system, state.q)
    rng = np.random.default_rng(1)
    q = kane.displace(kane.reference_coordinates(), 1e-3 * rng.normal(size=kane.n_u))
    u = 0.1 * rng.normal(size=kane.n_u)
    at_state = kane.evaluate(q, u, 0.0)
    cartesian = CartesianFormulation(system)
    q_cartesian, v_cartesian = kane.cartesian_positions(at_state), kane.cartesian_velocities(at_state)
    return (
        median_time(lambda: kane.forward_dynamics(kane.evaluate(q, u, 0.0)), repeats),
        median_time(lambda: cartesian.accelerations(cartesian.evaluate(q_cartesian, v_cartesian, 0.0)), repeats),
    )


def run(n_segments: int, formulation: str, t_end: float, rtol: float) -> tuple[float, int, np.ndarray]:
    """(wall time [s], accepted steps, tip position at the end [m]) of one run."""
    model = flexible_arm(n_segments)
    method = "SI2" if formulation == "cartesian" else "BDF"
    started = time.perf_counter()
    results = mb.dynamics(model, t_end, t_end, rtol=rtol, formulation=formulation, method=method)
    wall = time.perf_counter() - started
    return wall, int(results.stats["steps"]), results.beam("arm").node_positions[-1, -1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200], help="numbers of segments N")
    parser.add_argument("--t-end", type=float, default=0.02, help="simulated time of each run [s]")
    parser.add_argument("--rtol", type=float, default=1e-6, help="integrator tolerance of both runs")
    parser.add_argument("--repeats", type=int, default=7, help="timed right-hand sides per size (median)")
    args = parser.parse_args()

    run(2, "kane", 1e-3, args.rtol)  # load the compiled kernels of both formulations (numba's cache)
    run(2, "cartesian", 1e-3, args.rtol)
    print(
        f"{'N':>5} | {'rhs kane [ms]':>13} {'cartesian':>10} {'ratio':>6} | "
        f"{'step kane [ms]':>14} {'steps':>6} {'cartesian':>10} {'steps':>6} {'ratio':>6} | {'tip diff [m]':>12}"
    )
    with threadpool_limits(limits=1):
        for n in args.sizes:
            kane_rhs, cartesian_rhs = right_hand_sides(n, args.repeats)
            kane_wall, kane_steps, kane_tip = run(n, "kane", args.t_end, args.rtol)
            cartesian_wall, cartesian_steps, cartesian_tip = run(n, "cartesian", args.t_end, args.rtol)
            kane_step, cartesian_step = kane_wall / kane_steps, cartesian_wall / cartesian_steps
            print(
                f"{n:>5} | {1e3 * kane_rhs:>13.3f} {1e3 * cartesian_rhs:>10.3f} {kane_rhs / cartesian_rhs:>6.2f} | "
                f"{1e3 * kane_step:>14.2f} {kane_steps:>6} {1e3 * cartesian_step:>10.2f} {cartesian_steps:>6} "
                f"{kane_step / cartesian_step:>6.2f} | {np.max(np.abs(kane_tip - cartesian_tip)):>12.2e}",
                flush=True,
            )


if __name__ == "__main__":
    main()
