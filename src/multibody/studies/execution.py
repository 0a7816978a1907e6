"""Where the runs execute: in this process, a local process pool, or a Dask cluster.

The same task (a picklable ``ModelRun``) runs everywhere; ``execute`` yields ``(row, outcome)``
as runs finish, in whatever order they finish.

``client``:
    ``"inline"``                   one after the other in this process (small studies, debugging);
    ``None``                       a local ``ProcessPoolExecutor`` with ``workers`` processes (all
                                   cores by default), started by "spawn": the build function must be
                                   importable by name (defined at module level) or be a model file path;
    a ``distributed.Client``       every run a Dask task on that cluster;
    a scheduler address string     (e.g. ``"tcp://10.0.0.5:8786"``) a Client is opened on it for the study.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError
from multibody.studies.run import ModelRun, RunOutcome

INLINE = "inline"


def execute(
    task: ModelRun,
    names: Sequence[str],
    design: NDArray[np.float64],
    rows: Sequence[int],
    client: object = None,
    workers: int | None = None,
    progress: bool = False,
) -> Iterator[tuple[int, RunOutcome]]:
    """Run ``task`` at the design ``rows`` (values in ``design[row]`` named by ``names``) and
    yield each ``(row, outcome)`` as it finishes. Raises ``StudyError`` when the backend itself
    fails (a pool worker killed); the runs yielded before are complete."""
    from tqdm.auto import tqdm

    points = {row: dict(zip(names, (float(v) for v in design[row]))) for row in rows}
    bar = tqdm(total=len(points), unit="run", disable=not progress or not points, leave=False)
    try:
        if not points:
            return
        if isinstance(client, str) and client == INLINE:
            outcomes = ((row, task(point)) for row, point in points.items())
        elif client is None:
            outcomes = _pool(task, points, workers)
        elif isinstance(client, str) and ":" in client:
            outcomes = _dask_address(task, points, client)
        elif type(client).__name__ == "Client" and hasattr(client, "submit"):
            outcomes = _dask(task, points, client)
        else:
            raise StudyError(
                f"client must be None (local process pool), 'inline', a distributed.Client or a scheduler "
                f"address, got {client!r}"
            )
        for row, outcome in outcomes:
            bar.update()
            yield row, outcome
    finally:
        bar.close()


def check_picklable(task: ModelRun) -> None:
    """Raise ``StudyError`` if the pool cannot send ``task`` to its worker processes."""
    try:
        pickle.dumps(task)
    except Exception as error:
        raise StudyError(
            f"the process pool cannot send this study to its workers ({type(error).__name__}: {error}); define "
            "build and response functions at module level (not lambdas or nested functions), pass a model file "
            "path as build, or run with client='inline'"
        ) from None


def _pool(task: ModelRun, points: dict[int, dict[str, float]], workers: int | None) -> Iterator[tuple[int, RunOutcome]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    check_picklable(task)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise StudyError(f"workers must be a positive number of processes, got {workers!r}")
    count = min(workers or os.cpu_count() or 1, len(points))
    with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(task, point): row for row, point in points.items()}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BrokenProcessPool:
            for future in futures:
                future.cancel()
            raise StudyError(
                "a worker process of the pool died (killed, or out of memory) before the study finished; "
                "the runs that finished are kept: run the study again with the same file to resume"
            ) from None


def _dask(task: ModelRun, points: dict[int, dict[str, float]], client) -> Iterator[tuple[int, RunOutcome]]:
    from distributed import as_completed

    futures = {client.submit(task, point, pure=False): row for row, point in points.items()}
    lost = []
    for future in as_completed(futures):
        try:
            yield futures[future], future.result()
        except Exception as error:  # the cluster lost the task (KilledWorker ...); the run itself never raises
            lost.append(f"run {futures[future]}: {type(error).__name__}: {error}")
    if lost:
        raise StudyError(
            f"the Dask cluster lost {len(lost)} runs ({'; '.join(lost[:3])}); the others are kept: "
            "run the study again with the same file to resume"
        )


def _dask_address(task: ModelRun, points: dict[int, dict[str, float]], address: str) -> Iterator[tuple[int, RunOutcome]]:
    try:
        from distributed import Client
    except ImportError:
        raise StudyError("running on a Dask scheduler needs dask.distributed: pip install 'multibody[dask]'") from None
    with Client(address) as client:
        yield from _dask(task, points, client)
