"""Benchmark: the moving-node rope crane (``examples/rope_crane.py``, Qi, Guo & Zhuo's example 2).

Prints (1) the wall time of the example's 4 s run from its static equilibrium at its own settings
(steps, microseconds per step, the hook's rise against half the rope reeled in), the same with HHT
at the same rtol, next to the same crane with the massless rope path (``kind="massless"``, its rope weight neglected) and the ratio
moving-node / massless; (2) the cost against the number of elements per span (2 to 50): the wall
time of the first ``--short`` seconds of the lift, steps, microseconds per step and per
element-step. Wall times are of the integration only (the static solve, 0.4 s at 5 elements per
span, left out).

No open peer has moving-node rope elements over pulleys (Exudyn's ALE cable is 2D and has no
pulleys; Chrono's and MuJoCo's ropes are fixed-length), so the comparison is with our own massless
kind, the fast alternative for whole-crane studies.

Usage: ``python benchmarks/rope_crane.py [--elements 2 5 10 20 50] [--short 0.1] [--no-full]``
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import multibody as mb

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rope_crane.py"


def load_example() -> object:
    spec = importlib.util.spec_from_file_location("rope_crane", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(crane: object, model: mb.Model, t_end: float, method: str = "SI2") -> tuple[float, object]:
    """``(wall time [s], results)`` of the example's lift from its static equilibrium with ``method``
    at the example's rtol (the statics, compile and an untimed short run that loads the compiled
    kernels left out)."""
    from multibody.analysis.operating_point import state_from_results

    system = model.compile()
    start = state_from_results(system, mb.statics(system))
    settings = {"rtol": crane.ANALYSIS["rtol"], "method": method, "initial_state": start}
    mb.dynamics(system, 1e-3, 1e-3, **settings)
    started = time.perf_counter()
    results = mb.dynamics(system, t_end, crane.ANALYSIS["output_step"], **settings)
    return time.perf_counter() - started, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=[2, 5, 10, 20, 50])
    parser.add_argument("--short", type=float, default=0.1, help="seconds simulated per element count")
    parser.add_argument("--no-full", action="store_true", help="skip the full 4 s runs")
    arguments = parser.parse_args()
    crane = load_example()
    settings = crane.ANALYSIS
    if not arguments.no_full:
        print(f"rope crane, {settings['t_end']:g} s at rtol {settings['rtol']:g}")
        header = f"{'rope':>12} {'method':>6} {'wall [s]':>9} {'steps':>7} {'us/step':>9} {'hook rise [m]':>14}"
        print(f"{header} {'half reeled [m]':>16}")
        walls = {}
        for kind, method in (("moving_node", "SI2"), ("moving_node", "HHT"), ("massless", "SI2")):
            model = crane.build(crane.ELEMENTS_PER_SPAN, kind)
            wall, results = timed(crane, model, settings["t_end"], method)
            steps = int(results.stats["steps"])
            rise = results.body("hook").position[-1, 2] - results.body("hook").position[0, 2]
            walls[kind, method] = wall
            print(
                f"{kind:>12} {method:>6} {wall:9.2f} {steps:7d} {1e6 * wall / steps:9.0f} {rise:14.5f} "
                f"{crane.reeled_in() / 2:16.5f}"
            )
        massless = walls["massless", "SI2"]
        print(
            f"ratio moving-node / massless: {walls['moving_node', 'SI2'] / massless:.1f} (SI2), "
            f"{walls['moving_node', 'HHT'] / massless:.1f} (HHT: its numerical damping steps over the rope's "
            "axial vibrations, whose energy it takes out unbooked)"
        )
    print(f"\ncost against elements per span ({arguments.short:g} s of the lift, rtol {settings['rtol']:g})")
    print(f"{'elements':>8} {'coords':>7} {'wall [s]':>9} {'steps':>7} {'us/step':>9} {'us/(element step)':>18}")
    for n in arguments.elements:
        model = crane.build(n)
        wall, results = timed(crane, model, arguments.short)
        steps = int(results.stats["steps"])
        coordinates = model.compile().n_velocities
        per_step = 1e6 * wall / steps
        print(f"{n:8d} {coordinates:7d} {wall:9.2f} {steps:7d} {per_step:9.0f} {per_step / (4 * n):18.1f}")


if __name__ == "__main__":
    main()
