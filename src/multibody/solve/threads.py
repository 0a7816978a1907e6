"""One BLAS thread while an analysis runs: the matrices of most models are small dense blocks, on
which threads contending for the cores cost 10-100x what the arithmetic does.

``threadpoolctl.threadpool_limits`` finds the loaded BLAS libraries anew at every call (about a
millisecond: more than a short run's steps); the controller here finds them once, at the first
analysis, after NumPy's and SciPy's linear algebra are loaded.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import cache

from threadpoolctl import ThreadpoolController


@cache
def _controller() -> ThreadpoolController:
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, so that the controller sees it)

    return ThreadpoolController()


def single_threaded() -> AbstractContextManager:
    """A context in which the BLAS libraries of NumPy and SciPy use one thread (restored on exit)."""
    return _controller().limit(limits=1)
