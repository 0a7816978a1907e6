"""Benchmark: wall time of a 200-run design study on 1 and 2 local workers, and on Dask.

The study is the quarter-car of ``examples/quarter_car_study.py``: a Latin hypercube (seed 1)
over its four parameters (sprung mass, spring rate, damping, tyre rate), each run a 0.6 s
dynamics simulation reduced to three responses (peak body acceleration, suspension travel, bounce
frequency from ``linearize``). Printed per backend: wall time of the whole study (pool start-up
included), runs per second, speed-up over the 1-worker pool, and whether its responses are
identical to the in-process run's (they must be: the same computation per run).

Usage: ``python benchmarks/study_speedup.py [--runs 200] [--workers 1 2] [--no-dask] [--no-inline]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.cli import load_model_file

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quarter_car_study.py"


def timed(study: mb.Study, runs: int, **execution: object) -> tuple[float, mb.StudyResult]:
    start = time.perf_counter()
    result = study.latin_hypercube(runs, seed=1, progress=False, **execution)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster")
    parser.add_argument("--no-inline", action="store_true", help="skip the in-process run")
    arguments = parser.parse_args()
    example = load_model_file(EXAMPLE)
    study = example.study()
    rows: list[tuple[str, float, mb.StudyResult]] = []
    if not arguments.no_inline:
        rows.append(("in-process", *timed(study, arguments.runs, client="inline")))
    for workers in arguments.workers:
        rows.append(
            (f"pool, {workers} worker{'s' if workers > 1 else ''}", *timed(study, arguments.runs, workers=workers))
        )
    if not arguments.no_dask:
        try:
            import distributed
        except ImportError:
            print("dask.distributed not installed: no Dask run (pip install 'multibody[dask]')")
        else:
            workers = max(arguments.workers)
            with (
                distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                rows.append((f"Dask LocalCluster, {workers} workers", *timed(study, arguments.runs, client=client)))
    one_worker = next((seconds for name, seconds, _ in rows if name == "pool, 1 worker"), None)
    reference = rows[0][2].responses
    failed = sum(len(result.failed) for _, _, result in rows)
    print(f"quarter-car Latin hypercube, {arguments.runs} runs ({failed} failed runs in all)")
    print(f"{'backend':<32}{'wall [s]':>10}{'runs/s':>10}{'speed-up vs 1 worker':>22}{'identical':>11}")
    for name, seconds, result in rows:
        speedup = f"{one_worker / seconds:.2f}" if one_worker else "-"
        same = np.array_equal(result.responses, reference, equal_nan=True)
        print(f"{name:<32}{seconds:>10.1f}{arguments.runs / seconds:>10.2f}{speedup:>22}{'yes' if same else 'NO':>11}")


if __name__ == "__main__":
    main()
