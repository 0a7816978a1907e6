"""Benchmark: set-up cost (import, compile, assembly) and its growth with the model size.

Cases, each run in a fresh interpreter so that the memory high-water mark is its own:

* ``chain``: ``benchmarks/chain.py``'s N-link pendulum chain (rods along +x, revolute joints about
  world z): a tree, no redundant equation. Targets (issue 10): N = 800 compiles and assembles in
  < 2 s with < 200 MB peak memory.
* ``four-bars``: N parallelogram four-bars side by side (IFToMM A02-like): N + 1 vertical bars
  1 m long pinned to the ground 1 m apart, their tops joined by N couplers, every joint a spatial
  revolute about z. 2N + 1 bodies, 3N + 1 joints; each loop repeats 3 equations, so 3N of the
  5 (3N + 1) equations are redundant. Target: N = 40 (81 links, 120 redundant equations)
  compiles in < 1 s.

Printed per case and size: compile and assembly wall time [s] (``Model.compile`` and
``assembled_state``; compile includes judging the redundant rows at an assembled configuration),
the number of redundant equations found, and the growth of the process's peak resident memory
over the built model [MB] (``resource.getrusage``: numpy and SuperLU alike). Then the exponent
``p`` of a least-squares fit ``time ~ N^p``. The first lines give the time of ``import multibody``
(median of 5 fresh interpreters; target < 0.3 s) and of the first use of ``Model``, ``Revolute``
and ``dynamics`` (which loads the model classes, numpy, scipy's linear algebra and the analyses).

Usage: ``python benchmarks/setup_scaling.py [--chain 100 200 400 800] [--four-bars 10 20 40 80]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

CASE = """
import json, resource, sys, time, warnings
sys.path.insert(0, {here!r})
from setup_scaling import build
from multibody.analysis.assemble import assembled_state

model = build({case!r}, {size})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    system = model.compile()
    compiled = time.perf_counter()
    assembled_state(system)
    assembled = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"compile": compiled - started, "assembly": assembled - compiled,
                  "redundant": len(system.redundant), "memory": (peak - before) / 1024.0}}))
"""


def four_bars(n_loops: int):  # -> mb.Model (multibody is imported where used: the child process)
    """N parallelogram four-bars in a row: bars pinned to ground at x = 0..N, coupled at y = 1 m."""
    import multibody as mb

    model = mb.Model(f"four_bars{n_loops}", gravity=(0.0, -9.81, 0.0))
    upright = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]  # body x along world y
    inertia = (1e-4, 1.0 / 12.0, 1.0 / 12.0)
    bars = []
    for k in range(n_loops + 1):
        bar = model.add(mb.RigidBody(f"bar{k}", 1.0, inertia, position=(k, 0.5, 0.0), orientation=upright))
        foot = (float(k), 0.0, 0.0)
        model.add(
            mb.Revolute(
                f"pivot{k}", bar.add_marker("foot", foot, frame="world"), model.ground.add_marker(f"foot{k}", foot)
            )
        )
        bars.append(bar)
    for k in range(n_loops):
        coupler = model.add(mb.RigidBody(f"coupler{k}", 1.0, inertia, position=(k + 0.5, 1.0, 0.0)))
        for side, bar, x in (("left", bars[k], k), ("right", bars[k + 1], k + 1)):
            top = (float(x), 1.0, 0.0)
            model.add(
                mb.Revolute(
                    f"{side}{k}",
                    coupler.add_marker(side, top, frame="world"),
                    bar.add_marker(f"top_{side}", top, frame="world"),
                )
            )
    return model


def build(case: str, size: int):
    """The model of ``case`` ("chain" or "four-bars") of size ``size``."""
    if case == "chain":
        from chain import chain_model

        return chain_model(size)
    return four_bars(size)


def run_case(case: str, size: int) -> dict[str, float]:
    """Compile and assemble ``case`` of ``size`` in a fresh interpreter; its measurements."""
    code = CASE.format(here=str(HERE), case=case, size=size)
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(finished.stdout.strip().splitlines()[-1])


def import_time(statement: str, repeats: int = 5) -> float:
    """Median wall time [s] of ``statement`` in fresh interpreters."""
    code = f"import time; started = time.perf_counter(); {statement}; print(time.perf_counter() - started)"
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(repeats)
    ]
    return float(np.median(times))


def fitted_exponent(sizes: list[int], times: list[float]) -> float:
    """``p`` of the least-squares fit ``log t = p log N + c``."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, nargs="*", default=[100, 200, 400, 800], help="chain links N")
    parser.add_argument("--four-bars", type=int, nargs="*", default=[10, 20, 40, 80], help="four-bar loops N")
    args = parser.parse_args()

    bare = import_time("import multibody")
    print(f"import multibody: {bare:.3f} s (median of 5 fresh interpreters; target < 0.3 s)")
    first_use = "import multibody; multibody.Model; multibody.Revolute; multibody.dynamics"
    print(f"then Model, Revolute and dynamics loaded on first use: {import_time(first_use):.3f} s")
    for case, sizes in (("chain", args.chain), ("four-bars", args.four_bars)):
        if not sizes:
            continue
        print(f"\n{case}")
        print(f"{'N':>5} {'bodies':>7} {'compile [s]':>12} {'assembly [s]':>13} {'redundant':>10} {'memory [MB]':>12}")
        rows = []
        for size in sizes:
            row = run_case(case, size)
            bodies = size if case == "chain" else 2 * size + 1
            rows.append(row)
            print(
                f"{size:>5} {bodies:>7} {row['compile']:>12.3f} {row['assembly']:>13.3f} "
                f"{row['redundant']:>10} {row['memory']:>12.1f}"
            )
        if len(sizes) > 1:
            compile_exponent = fitted_exponent(sizes, [r["compile"] for r in rows])
            assembly_exponent = fitted_exponent(sizes, [r["assembly"] for r in rows])
            print(f"growth: compile ~ N^{compile_exponent:.2f}, assembly ~ N^{assembly_exponent:.2f}")


if __name__ == "__main__":
    main()
