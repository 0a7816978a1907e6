"""The one-line notice of a first run: numba compiles a formulation's kernels once (10-30 s of
CPU) and caches them beside the sources (``__pycache__``), so later runs load them in a fraction
of a second."""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path


@functools.cache
def announce_first_compilation(module: str, kernel: str, package: str = "multibody.formulation") -> None:
    """Print a notice to stderr, once per process and kernel module, when the compiled cache of
    ``module.kernel`` (a module of ``package`` and one of its kernels) is missing."""
    source = Path(importlib.import_module(f"{package}.{module}").__file__)
    if not any((source.parent / "__pycache__").glob(f"{module}.{kernel}-*.nbi")):
        print(f"multibody: compiling the {module} kernels (first run only, 10-30 s)...", file=sys.stderr, flush=True)
