"""Designs of experiments: full factorial grids and space-filling samples (``scipy.stats.qmc``).

Each returns an (n, p) array of parameter values, one row per run, in the parameters' order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError
from multibody.studies.parameters import Parameter, scale


def full_factorial(parameters: Sequence[Parameter], levels: int) -> NDArray[np.float64]:
    """Every combination: a list parameter's values, a range's ``levels`` evenly spaced values
    from low to high (``levels >= 2``). The last parameter varies fastest."""
    if any(p.is_range for p in parameters) and (not isinstance(levels, int) or levels < 2):
        raise StudyError(f"a sweep over a range needs levels >= 2 (values per range), got {levels!r}")
    axes = [np.linspace(p.low, p.high, levels) if p.is_range else np.asarray(p.values) for p in parameters]
    return np.array(list(itertools.product(*axes)), dtype=float)


def latin_hypercube(parameters: Sequence[Parameter], n: int, seed: int | None) -> NDArray[np.float64]:
    """``n`` points of a Latin hypercube (each range cut into ``n`` strata, one point in each)."""
    from scipy.stats import qmc

    _check_count(n)
    return scale(parameters, qmc.LatinHypercube(d=len(parameters), seed=np.random.default_rng(seed)).random(n))


def sobol_sequence(parameters: Sequence[Parameter], n: int, seed: int | None) -> NDArray[np.float64]:
    """The first ``n`` points of a scrambled Sobol' sequence (``n`` a power of 2 keeps its balance)."""
    import warnings

    from scipy.stats import qmc

    _check_count(n)
    sampler = qmc.Sobol(d=len(parameters), scramble=True, seed=np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # scipy's note on n not a power of 2
        return scale(parameters, sampler.random(n))


def _check_count(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise StudyError(f"number of runs must be a positive integer, got {n!r}")
