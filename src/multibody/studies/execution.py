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
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError
from multibody.studies.run import ModelRun, RunOutcome

INLINE = "inline"

Runner = Callable[[dict[int, dict[str, float]]], Iterator[tuple[int, RunOutcome]]]
"""``{row: parameters} -> (row, outcome)`` as the runs finish."""


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
    if not rows:
        return
    with backend(task, client, workers, len(rows)) as runner:
        yield from runner(named_points(names, design, rows), progress)


def named_points(names: Sequence[str], design: NDArray[np.float64], rows: Sequence[int]) -> dict[int, dict[str, float]]:
    """``{row: {name: value}}`` of the design rows."""
    return {row: dict(zip(names, (float(v) for v in design[row]))) for row in rows}


@contextmanager
def backend(task: ModelRun, client: object, workers: int | None, most: int | None = None) -> Iterator:
    """A runner ``(points, progress) -> iterator of (row, outcome)`` on the backend ``client``,
    open for several batches (an optimization); a pool has ``workers`` processes (all cores by
    default, at most ``most``)."""
    if isinstance(client, str) and client == INLINE:
        yield _progress(lambda batch: ((row, task(point)) for row, point in batch.items()))
    elif client is None:
        with _pool(task, workers, most) as runner:
            yield _progress(runner)
    elif isinstance(client, str) and ":" in client:
        try:
            from distributed import Client
        except ImportError:
            raise StudyError("a Dask scheduler address needs dask.distributed: pip install 'multibody[dask]'") from None
        with Client(client) as opened:
            yield _progress(partial(_dask, task, opened))
    elif type(client).__name__ == "Client" and hasattr(client, "submit"):
        yield _progress(partial(_dask, task, client))
    else:
        raise StudyError(
            f"client must be None (local process pool), 'inline', a distributed.Client or a scheduler "
            f"address, got {client!r}"
        )


def _progress(runner: Runner) -> Callable[[dict[int, dict[str, float]], bool], Iterator[tuple[int, RunOutcome]]]:
    """``runner`` with a progress bar over the runs of each batch."""

    def run(batch: dict[int, dict[str, float]], progress: bool = False) -> Iterator[tuple[int, RunOutcome]]:
        from tqdm.auto import tqdm

        with tqdm(total=len(batch), unit="run", disable=not progress or not batch, leave=False) as bar:
            for row, outcome in runner(batch):
                bar.update()
                yield row, outcome

    return run


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


@contextmanager
def _pool(task: ModelRun, workers: int | None, most: int | None) -> Iterator[Runner]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    check_picklable(task)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise StudyError(f"workers must be a positive number of processes, got {workers!r}")
    count = min(workers or os.cpu_count() or 1, most or sys.maxsize)

    def run(pool: ProcessPoolExecutor, batch: dict[int, dict[str, float]]) -> Iterator[tuple[int, RunOutcome]]:
        futures = {pool.submit(task, point): row for row, point in batch.items()}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BrokenProcessPool:
            raise StudyError(
                "a worker process of the pool died (killed, or out of memory) before the study finished; "
                "the runs that finished are kept: run the study again with the same file to resume"
            ) from None

    with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            yield partial(run, pool)
        except BaseException:  # interrupted or failed: do not wait for the runs not started
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _dask(task: ModelRun, client, points: dict[int, dict[str, float]]) -> Iterator[tuple[int, RunOutcome]]:
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
