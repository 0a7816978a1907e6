"""The one-line notice of the first run: numba compiles the kernels once (about 15 s of CPU) and
caches them beside the sources (``__pycache__``), so later runs load them in a fraction of a
second."""

from __future__ import annotations

import functools
import sys
from pathlib import Path


@functools.cache
def announce_first_compilation() -> None:
    """Print a notice to stderr, once per process, when the kernels' compiled cache is missing."""
    from multibody.formulation import cartesian_kernel

    cache = Path(cartesian_kernel.__file__).parent / "__pycache__"
    if not any(cache.glob("cartesian_kernel.evaluate_rigid-*.nbi")):
        print("multibody: compiling the numerical kernels (first run only, 10-30 s)...", file=sys.stderr, flush=True)
