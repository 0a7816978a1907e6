"""Timing helper shared by the benchmark scripts."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def median_time(call: Callable[[], object], repeats: int) -> float:
    """Median wall time [s] of ``repeats`` calls (after one warm-up call)."""
    call()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return float(np.median(times))
