"""Benchmark: cost of one evaluation of Kane's equations against the number of bodies of a chain.

The chain is ``benchmarks/chain.py``'s: N uniform rods (1 kg, 1 m) joined by revolute joints
about world z, at rest along +x under gravity -y, here set turning (every hinge at 0.1 rad/s) so
that the velocity-dependent terms are not zero. For N = 10 .. 400 it times, as the median of
repeated calls:

* ``evaluate`` + ``forward_dynamics``: one right-hand side of the tree ODE (kinematics outwards,
  forces, then the three passes of the articulated-body recursion) -- the cost per integrator
  evaluation, O(N);
* ``mass_matrix``: the composite-body generalized mass matrix, O(N * depth) = O(N^2) on a chain
  (used for closed loops and impacts, not by the tree ODE);
* for comparison, ``CartesianFormulation.evaluate`` + ``accelerations`` (the sparse saddle-point
  solve of the absolute-coordinate formulation);
* the same chain closed by a ``Distance`` tether (1 m) from its tip to a ground point below:
  Kane's ``evaluate`` + ``accelerations`` with one cut row (the range-space form on the tree's
  factorization of ``M``, the row of ``B = G V`` from the tip's path only: O(N)), and the
  Cartesian ``evaluate`` + ``accelerations`` of it.

It prints a table and the exponent ``p`` of a least-squares fit ``time ~ N^p`` over all sizes
and over the larger half (a fixed per-call overhead of about 35 us flattens the small sizes). The
side-by-side comparison with MuJoCo, and a whole run, are in ``benchmarks/kane_mujoco.py``.

Usage: ``python benchmarks/kane_scaling.py [--sizes 10 20 50 100 200 400] [--repeats 7]``
"""

from __future__ import annotations

import argparse

import numpy as np
from chain import LENGTH, chain_model
from threadpoolctl import threadpool_limits
from timing import median_time

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.kane import KaneFormulation

HINGE_RATE = 0.1
"""Initial rate of every hinge [rad/s]."""


def fitted_exponent(sizes: list[int], times: list[float]) -> float:
    """``p`` of the least-squares fit ``log t = p log N + c``."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def tethered_chain(n_links: int) -> mb.Model:
    """The chain with its tip held 1 m from a ground point 1 m below it (a closed loop)."""
    model = chain_model(n_links)
    tip = model.bodies[f"link{n_links}"].markers["bottom"]
    model.add(
        mb.Distance("tether", tip, model.ground.add_marker("anchor", position=(n_links * LENGTH, -1.0, 0.0)), 1.0)
    )
    return model


def closed_loop_timings(n_links: int, repeats: int) -> tuple[float, float]:
    """Median times [s] of the Kane and the Cartesian right-hand sides of the tethered chain."""
    system, state = assembled_state(tethered_chain(n_links).compile())
    kane = KaneFormulation(system, state.q)
    q = kane.reference_coordinates()
    u = kane.speeds_from_cartesian(q, state.v, 0.0)
    cartesian = CartesianFormulation(system)
    return (
        median_time(lambda: kane.accelerations(kane.evaluate(q, u, 0.0)), repeats),
        median_time(lambda: cartesian.accelerations(cartesian.evaluate(state.q, state.v, 0.0)), repeats),
    )


def timings(n_links: int, repeats: int) -> tuple[float, float, float]:
    """Median times [s] of the Kane right-hand side, the Kane mass matrix and the Cartesian
    accelerations for the ``n_links`` chain."""
    system, state = assembled_state(chain_model(n_links).compile())
    kane = KaneFormulation(system, state.q)
    q = kane.reference_coordinates()
    u = np.full(kane.n_u, HINGE_RATE)
    at_state = kane.evaluate(q, u, 0.0)
    cartesian = CartesianFormulation(system)
    v = kane.cartesian_velocities(at_state)
    return (
        median_time(lambda: kane.forward_dynamics(kane.evaluate(q, u, 0.0)), repeats),
        median_time(lambda: kane.mass_matrix(at_state), repeats),
        median_time(lambda: cartesian.accelerations(cartesian.evaluate(state.q, v, 0.0)), repeats),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 200, 400], help="numbers of links N")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per size (median reported)")
    args = parser.parse_args()

    print(
        f"{'N':>5} {'kane rhs [ms]':>14} {'per body [us]':>14} {'mass matrix [ms]':>17} {'cartesian [ms]':>15} | "
        f"{'tethered kane [ms]':>18} {'cartesian [ms]':>15} {'ratio':>6}"
    )
    rhs_times, mass_times, cartesian_times, closed_times = [], [], [], []
    with threadpool_limits(limits=1):
        for n_links in args.sizes:
            rhs, mass, cartesian_rhs = timings(n_links, args.repeats)
            closed, closed_cartesian = closed_loop_timings(n_links, args.repeats)
            rhs_times.append(rhs)
            mass_times.append(mass)
            cartesian_times.append(cartesian_rhs)
            closed_times.append(closed)
            print(
                f"{n_links:>5} {1e3 * rhs:>14.3f} {1e6 * rhs / n_links:>14.1f} {1e3 * mass:>17.3f} "
                f"{1e3 * cartesian_rhs:>15.3f} | {1e3 * closed:>18.3f} {1e3 * closed_cartesian:>15.3f} "
                f"{closed / closed_cartesian:>6.2f}",
                flush=True,
            )
    half = len(args.sizes) // 2
    for first in (0, half):
        sizes = args.sizes[first:]
        print(
            f"fitted exponent over N = {sizes[0]}..{sizes[-1]}: kane rhs {fitted_exponent(sizes, rhs_times[first:]):.2f}, "
            f"mass matrix {fitted_exponent(sizes, mass_times[first:]):.2f}, "
            f"cartesian {fitted_exponent(sizes, cartesian_times[first:]):.2f}, "
            f"tethered kane {fitted_exponent(sizes, closed_times[first:]):.2f}"
        )


if __name__ == "__main__":
    main()
