"""``solve.threads.single_threaded``: the analyses run the BLAS of NumPy and SciPy on one thread
(their matrices are small dense blocks, on which threads contending for the cores cost 10-100x),
and give the threads back when they end. Reference: threadpoolctl's own report of every loaded
BLAS library, read afresh (not through the controller under test)."""

from __future__ import annotations

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_info

import multibody as mb
from multibody.solve.threads import single_threaded


def _blas_threads() -> list[int]:
    """Threads of every loaded BLAS library (NumPy's and SciPy's: both loaded above, as an analysis
    loads them before its first solve)."""
    np.linalg.solve(np.eye(2), np.ones(2))
    scipy.linalg.lu_factor(np.eye(2))
    return [library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"]


def test_blas_runs_on_one_thread_inside_and_as_before_after() -> None:
    before = _blas_threads()
    assert before, "no BLAS library loaded: nothing to check"
    with single_threaded():
        assert _blas_threads() == [1] * len(before)
        with single_threaded():  # analyses nest (dynamics assembles first)
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before


def test_an_analysis_leaves_the_threads_as_it_found_them() -> None:
    model = mb.Model("pendulum")
    bob = model.add(mb.RigidBody("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(1.0, 0.0, 0.0)))
    model.add(mb.Revolute("hinge", bob.add_marker("top", position=(-1.0, 0.0, 0.0)), model.ground.add_marker("pivot")))
    before = _blas_threads()
    mb.dynamics(model, 0.05, 0.01)
    assert _blas_threads() == before
